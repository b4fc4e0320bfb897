/* Both sides of a divergent branch wait at a barrier of their own (the MP paper's Section
 * 3.3.3): odd and even work-items write their __local slot, wait, then read a neighbour's slot
 * written on the other side, so a barrier that did not hold for the whole work-group shows in
 * the results. mp, mp-orec and pc run it, counting arrivals per work-group as a GPU does
 * (DESIGN.md); `stack` reports a divergent barrier. */
__kernel void barrier_divergent(__global const int *in, __global int *out, __local int *tmp) {
  int lid = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
  if (lid & 1) {
    tmp[lid] = 3 * in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[(lid + 1) % n] + 1;
  } else {
    tmp[lid] = 5 * in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[(lid + n - 1) % n] - 1;
  }
}
