/* float4 arithmetic: element-wise operations, vector-scalar operations, dot. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void float4_arith(__global const float4 *a, __global const float4 *b, __global float4 *c,
                           __global float *d) {
  int i = get_global_id(0);
  float4 x = a[i], y = b[i];
  float4 r = x * y + x - y / (y * y + 1.0f);
  c[i] = r * 0.5f;
  d[i] = dot(x, y);
}
