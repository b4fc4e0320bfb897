/* Small if/else regions with calls, in a loop: the code runs them as selects when the launch
 * asks for no stats (lower_region.c), so the calls run for the lanes that do not take their side
 * too: sqrt (NaN there, which must not reach them), exp (libmvec) and fract, which the front
 * end expands into floor and minnum with its whole part a plain value: the lanes that do not
 * take its side keep the whole part they had. */
__kernel void select_builtins(__global const float *f, __global float *out,
                              __global float *whole) {
  uint i = get_global_id(0);
  float y = f[i], s = 0.0f, w = 0.0f, ip = 0.0f;
  for (uint k = 0; k < 16; k++) {
    float d = y - 0.0625f * (float)k;
    if (d >= 0.0f)
      s += sqrt(d);
    else
      s -= exp(-40.0f * d) * 1e-20f;
    if ((i + k) % 3u == 0u)
      s += fract(y * (float)(k + 3), &ip);
    w += ip;
  }
  out[i] = s;
  whole[i] = w;
}
