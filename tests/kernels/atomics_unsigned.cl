/* atomic_max and atomic_min on __global and __local uint, with values above INT_MAX: they
 * compare as unsigned, where a signed compare would pick the other value. stats[0] and stats[1]
 * get the largest and smallest of a[] and their own start; stats[2 + 2g] and stats[3 + 2g] get
 * work-group g's. */
__kernel void atomics_unsigned(__global const uint *a, __global uint *stats, __local uint *best) {
  uint x = a[get_global_id(0)];
  int lid = get_local_id(0), g = get_group_id(0);
  atomic_max(&stats[0], x);
  atomic_min(&stats[1], x);
  if (lid == 0) {
    best[0] = 0u;
    best[1] = 0xffffffffu;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_max(&best[0], x);
  atomic_min(&best[1], x);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    stats[2 + 2 * g] = best[0];
    stats[3 + 2 * g] = best[1];
  }
}
