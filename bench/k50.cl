/* A 50-line kernel for the first-launch benchmark: two barriers, a loop, a local reduction,
 * float4 arithmetic, math builtins and an atomic counter. */
float shade(float4 p, float4 light) {
  float4 d = light - p;
  float len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z) + 1e-6f;
  return fmax(0.0f, d.y / len) * exp(-0.1f * len);
}

__kernel void k50(__global const float4 *points, __global float *out, __global int *hits,
                  __local float *scratch, float4 light, int steps) {
  int gid = get_global_id(0), lid = get_local_id(0), n = get_local_size(0);
  float4 p = points[gid];
  float acc = 0.0f;
  for (int s = 0; s < steps; s++) {
    float t = shade(p, light);
    if (t > 0.5f) {
      acc += t * cos(0.01f * s);
      atomic_inc(hits);
    } else {
      acc -= 0.25f * t;
    }
    p = p * 0.99f + (float4)(0.01f, 0.02f, 0.0f, 0.0f);
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = n / 2; stride > 0; stride /= 2) {
    if (lid < stride) scratch[lid] += scratch[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float mean = scratch[0] / n;
  float v = acc - mean;
  if (v > 0.0f) {
    v = log(1.0f + v);
  } else if (v < -1.0f) {
    v = -sqrt(-v);
  } else {
    v = v * v;
  }
  switch (lid & 3) {
  case 0: v += 1.0f; break;
  case 1: v -= 1.0f; break;
  default: v *= 2.0f;
  }
  out[gid] = clamp(v, -10.0f, 10.0f);
}
