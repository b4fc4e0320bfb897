/* A small if/else run as selects (lower_region.c) by a split whose lanes leave whole lane groups
 * empty: only the first 16 of every 64 work-items take the outer `if`. The selects run every
 * lane group's code without a test of its lanes, so a group with no active lane computes values
 * that no lane may read; the lanes that skipped the loop keep x. */
__kernel void select_empty_group(__global const uint *in, __global uint *out) {
  uint i = get_global_id(0), x = in[i], y = x;
  if ((i & 63u) < 16u) {
    for (uint k = 0; k < 8u; k++) {
      if ((x + k) & 1u)
        y = y * 3u + k;
      else
        y ^= y >> 3;
    }
  }
  out[i] = y;
}
