/* A uniform branch inside a small varying `if`, with more of the side after the branch's join:
 * when the launch counts nothing, the side runs as selects (lower_region.c), and such a branch
 * once had both of its ways write the join's phi, unblended, so that the way emitted last won
 * (here y + 7u, although flag is 0). Found by weft_fuzz (seed 100059). */
__kernel void select_uniform_join(__global const uint *in, uint flag, __global uint *out) {
  uint i = get_global_id(0), x = in[i], y = x >> 3;
  if (x & 1u) {
    if (flag)
      y += 7u;
    y ^= 0x55u;
  }
  out[i] = y;
}
