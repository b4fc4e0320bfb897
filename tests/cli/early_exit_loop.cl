/* An early return around a loop: the branch, its region and the arrival at its IPDOM run once
 * per warp, but their warps run a loop in between, so their policy steps are in the code
 * (compiler/lower_step.c, find_loops): no round trip to the runtime under stack or pc; under
 * mp, the return and the loop's first exit each make a reconvergence entry, which the code
 * makes and resolves itself (compiler/lower_region.c, open_mp). */
__kernel void early_exit_loop(__global const uint *in, __global uint *out) {
  uint id = get_global_id(0), v = in[id], s = 0;
  if (v % 3u == 0u)
    return;
  for (uint i = 0; i < (v & 15u); i++)
    s += i * v;
  out[id] = s;
}
