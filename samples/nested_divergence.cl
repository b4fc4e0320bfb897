// weft-run: -g 1024 -l 64 --arg i32[1024]=zero --stats
/* Nested divergence: every level of if/else splits the warp again on another bit of the lane's
 * id, so a 32-wide warp runs the innermost blocks with only a few lanes each, and reconverges
 * level by level at each branch's immediate post-dominator (see `weft cfg` on this file for
 * the blocks, their PCs and reconvergence points). Expected result: out[i] = v * 100 + i % 7,
 * with v = 3 (i odd, bit 1 set), 1 (i odd), 12 (bits 2 and 3 set), 4 (bit 2), else 2. */
__kernel void nested_divergence(__global int *out) {
  int id = get_global_id(0);
  int v;
  if (id & 1) {
    if (id & 2)
      v = 3;
    else
      v = 1;
  } else {
    if (id & 4) {
      v = 4;
      if (id & 8)
        v += 8;
    } else {
      v = 2;
    }
  }
  out[id] = v * 100 + id % 7;
}
