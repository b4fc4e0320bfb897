/* More math: asinh, acosh, atanh and pown through libmvec; maxmag, minmag, fract, sincos and
 * nextafter, whose exact results go out as bits; isnan, isinf, isfinite and signbit (1 for a
 * scalar, -1 per element of a vector); and libmvec on float4, which takes several calls per
 * lane group (sin, cos, pown). */
#pragma OPENCL FP_CONTRACT OFF

__kernel void math_more(__global const float *a, __global const float *b, __global const int *n,
                        __global float *out, __global int *bits, __global float4 *out4,
                        __global int *classes) {
  int i = get_global_id(0);
  float x = a[i], y = b[i], whole, c;
  out[4 * i] = asinh(x) + acosh(fabs(y) + 1.0f);
  out[4 * i + 1] = atanh(x * 0.2f);
  out[4 * i + 2] = pown(x, n[i]);
  out[4 * i + 3] = sincos(y, &c) + c * 2.0f;
  float edge[5] = {-0x1p-30f, -0.0f, INFINITY, -INFINITY, as_float(0x7fc00000)}; /* -2^-30: below 1 */
  float e = i < 5 ? edge[i] : x * 3.0f, f = fract(e, &whole);
  classes[6 * i] = isnan(e) + 2 * isinf(e) + 4 * isfinite(e) + 8 * signbit(e);
  int4 c4 = isnan((float4)(e, -e, e - e, 1.0f / e)) + 2 * isinf((float4)(e, -e, e - e, 1.0f / e));
  vstore4(c4, 0, classes + 6 * i + 1);
  classes[6 * i + 5] = signbit((double)e) + 2 * isinf((double)e) + 4 * signbit(e - e); /* +0 */
  bits[8 * i] = as_int(maxmag(x, y));
  bits[8 * i + 1] = as_int(minmag(x, y));
  bits[8 * i + 2] = as_int(f);
  bits[8 * i + 3] = as_int(whole);
  bits[8 * i + 4] = as_int(nextafter(x, y));
  bits[8 * i + 5] = as_int(nextafter(x - x, y)); /* from 0: the least subnormal, y's sign */
  float4 v = (float4)(x, y, x + y, x - y), cv;
  float4 nv = nextafter(v, (float4)(0.0f));
  bits[8 * i + 6] = as_int(nv.z);
  bits[8 * i + 7] = as_int(nv.w);
  out4[3 * i] = sincos(v, &cv);
  out4[3 * i + 1] = cv;
  out4[3 * i + 2] = pown(v, (int4)(1, 2, 3, n[i]));
}
