/* float4 components: swizzles, a vector literal, a swizzled store under a varying branch. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void float4_swizzle(__global const float4 *in, __global float4 *out) {
  int i = get_global_id(0);
  float4 v = in[i];
  float4 w = v.wzyx + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  if (v.x > 0.0f)
    w.xy = w.yx;
  w.z = fmax(w.z, v.y);
  out[i] = w * v.x;
}
