/* float arithmetic, a varying branch on a float compare, float -> int -> float. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void types_float(__global const float *a, __global const float *b, __global float *out) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  float r = x * y - x / (y + 2.5f);
  if (r < 0.0f)
    r = -r * 0.5f;
  out[i] = r + (float)(int)(x * 10.0f);
}
