/* lgamma, lgamma_r and tgamma: of float in vector code (lower_builtin.c, gamma_of), of double
 * from the C library element by element and lane by lane (expand_builtins.c, BI_LIBM); and
 * remainder and remquo (vector code, remquo_of); with their int outputs through private,
 * __global and vector pointers, under a divergent branch. o gets 7 floats and q 4 ints per
 * work-item. */
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void math_libm(__global const float *a, __global float *o, __global int *q) {
  int i = get_global_id(0), quo, sign, dsign;
  float x = a[i], y = a[(i + 3) % get_global_size(0)];
  int2 q2;
  o[7 * i] = remainder(x, y);
  o[7 * i + 1] = remquo(x, y, &quo);
  if (i % 3)
    o[7 * i + 2] = lgamma(fabs(x) + 0.5f);
  else
    o[7 * i + 2] = tgamma(fabs(y) * 0.1f + 0.25f);
  o[7 * i + 3] = lgamma_r(x, &sign);
  float2 r2 = remquo((float2)(x, y), (float2)(1.5f, -2.5f), &q2);
  o[7 * i + 4] = r2.x;
  o[7 * i + 5] = remquo(y, x, q + 4 * i + 3) + r2.y;
  q[4 * i] = quo;
  if (i % 5 == 0)
    o[7 * i + 6] = (float)(lgamma_r((double)x * 1.5, &dsign) + tgamma((double)y * 0.1 + 0.25));
  else
    o[7 * i + 6] = (float)lgamma((double)y), dsign = 0;
  q[4 * i + 1] = sign ^ (int)((uint)dsign << 4);
  q[4 * i + 2] = q2.x ^ (int)((uint)q2.y << 8);
}
