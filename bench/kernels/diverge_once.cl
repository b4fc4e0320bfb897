/* One divergent if/else per warp: a hash of the id picks one of two short mixes, so about half
 * of every warp's lanes take each side, and nothing else branches. */
__kernel void diverge_once(__global uint *out) {
  uint id = get_global_id(0), v = id * 2654435761u;
  if (v & 0x10000u)
    v = (v ^ (v >> 15)) * 0x2c1b3c6du;
  else
    v = (v ^ (v >> 12)) * 0x297a2d39u;
  out[id] = v;
}
