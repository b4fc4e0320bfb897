/* diverge_once's work without its branch: both mixes for every lane, and OpenCL's select picks
 * one, so the warp never splits. weft's time on it is the masked work that diverge_once's
 * if/else costs more than (bench/README.md). */
__kernel void select_once(__global uint *out) {
  uint id = get_global_id(0), v = id * 2654435761u;
  uint odd = (v ^ (v >> 15)) * 0x2c1b3c6du, even = (v ^ (v >> 12)) * 0x297a2d39u;
  out[id] = select(even, odd, v & 0x10000u);
}
