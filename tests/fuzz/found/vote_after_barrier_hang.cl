// weft-run: -g 40 -l 40 --arg u32[40]=zero
/* Found by weft_fuzz (seed 26 of an earlier generator, and seeds 47, 108, 144, 233, 234, 278
 * of 938c754 at --rotate): `weft run` never ends (also -g 32 -l 32, every policy, with and
 * without --policy-in-runtime; WEFT_DEBUG=time shows the front end finish and nothing after)
 * for a warp vote on a uniform value after a barrier. Without the barrier it runs. */
__kernel void fz(__global uint *out) {
  uint v3 = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  v3 = (uint)(sub_group_all((int)get_sub_group_size()) != 0);
  out[get_global_id(0)] = v3;
}
