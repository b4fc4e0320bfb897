/* Each trip reads a neighbour's __local word: clang hoists the address &t[(l + 1) & 255] above
 * the loop, so the read is in another block than its address. The read must still gather with
 * a uniform base and 32-bit indices, as x86 gathers take them (cli.sh,
 * test_run_hoisted_gather). */
__kernel void hoisted_gather(__global uint *out, uint trips) {
  __local uint t[256];
  uint l = get_local_id(0), acc = l;
  for (uint i = 0; i < trips; i++) {
    t[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    acc += t[(l + 1) & 255u];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc;
}
