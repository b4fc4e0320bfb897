/* Small if/else regions in a loop, which the code runs as selects when the launch asks for no
 * stats (lower_region.c): nested sides, a side without else, a uniform branch inside a side, and
 * a side whose float division and conversion overflow in the lanes that do not take it (their
 * values must not reach the lanes that do). */
__kernel void select_regions(__global const uint *in, __global const float *f, int flag,
                             __global uint *out, __global float *fout) {
  uint i = get_global_id(0), x = in[i], acc = 0;
  float y = f[i], s = 0.0f;
  for (uint k = 0; k < 20; k++) {
    uint odd = (x + k) & 1u;
    if (odd) {
      acc += x * 3u + k;
      if (x > k * 100000u)
        acc ^= k;
    } else {
      if (flag)
        acc -= k;
      else
        acc += 2u * k;
      float q = y / (float)(1u - odd); /* infinite where odd */
      s += (float)(int)(q * 100.0f);
    }
    x = (x * 1103515245u + 12345u) & 0x7fffffffu;
  }
  out[i] = acc;
  fout[i] = s;
}
