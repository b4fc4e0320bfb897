/* Barriers and nothing much else: each trip, every work-item writes its __local word, waits,
 * reads its neighbour's and waits again, so that weft's time is mostly what its barriers cost
 * (bench/README.md: ns per warp and barrier). clang hoists the read's address above the loop:
 * cli.sh's test_run_hoisted_gather checks that its gather still has a uniform base. */
__kernel void barriers(__global uint *out, uint trips) {
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
