/* double arithmetic, sqrt and fabs on double, double -> float. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

__kernel void types_double(__global const double *a, __global const double *b,
                           __global double *out, __global float *f) {
  int i = get_global_id(0);
  double x = a[i], y = b[i];
  double r = x * y + x / (fabs(y) + 1.0);
  if (x > y)
    r = sqrt(fabs(r));
  out[i] = r;
  f[i] = (float)r;
}
