/* Math builtins made of others (lower_builtin.c): sinpi, cospi and tanpi (x reduced first, so
 * that their zeros at integers and half integers are exact), asinpi, acospi, atanpi and
 * atan2pi, smoothstep with scalar edges and a vector x, rootn of either sign by exponents of
 * either parity and 0, and native_ and half_ forms. o gets 16 floats per work-item. */
__kernel void math_pi(__global const float *a, __global const float *b, __global const int *n,
                      __global float *o) {
  int i = get_global_id(0), k = n[i] % 7 - 3;
  float x = a[i], y = b[i], whole = (float)(n[i] % 100);
  o[16 * i] = sinpi(x);
  o[16 * i + 1] = cospi(x);
  o[16 * i + 2] = tanpi(y * 0.45f);
  o[16 * i + 3] = sinpi(whole) + 2.0f;
  o[16 * i + 4] = cospi(whole + 0.5f) + 2.0f;
  o[16 * i + 5] = asinpi(y);
  o[16 * i + 6] = acospi(y);
  o[16 * i + 7] = atanpi(x);
  o[16 * i + 8] = atan2pi(y, x);
  float4 s = smoothstep(-0.5f, 0.75f, (float4)(y, y * 0.5f, -y, 0.25f));
  o[16 * i + 9] = s.x;
  o[16 * i + 10] = s.y;
  o[16 * i + 11] = s.z;
  o[16 * i + 12] = s.w;
  o[16 * i + 13] = rootn(x, k);
  o[16 * i + 14] = native_tan(y) + half_exp2(y) + half_rsqrt(y * y + 1.0f);
  o[16 * i + 15] = half_log10(fabs(x) + 1.0f) + native_exp10(y) + half_divide(y, 3.0f);
}
