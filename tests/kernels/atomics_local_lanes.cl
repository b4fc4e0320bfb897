/* __local atomics (issue 18) where many lanes of one vector hit the same address: inc, dec, add,
 * min, max, or, and, xor, xchg and two cmpxchg loops on one counter each (add, sub and inc on
 * one together), in work-groups of 128.
 * OpenCL fixes no order among work-items, so only what any order gives is kept: the totals,
 * and the tickets, which must be a permutation (seen[] counts each one; an update lost
 * between two lanes gives one ticket twice). out[4 i .. 4 i + 3]: the counts of work-item
 * i's four tickets, 1 each; then 10 totals per work-group. z is 0, but lane by lane: an
 * address with z in it is one address that the compiler cannot see is one (lower_builtin.c
 * has a path for each). */
__kernel void atomics_local_lanes(__global const int *a, __global int *out, __local int *cnt,
                                  __local int *seen) {
  int lid = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
  int x = a[i], z = x > 5000;
  for (int k = lid; k < 4 * n; k += n)
    seen[k] = 0;
  if (lid < 12)
    cnt[lid] = lid == 1 ? n : lid == 3 ? 1 << 30 : lid == 4 ? -(1 << 30) : lid == 6 ? -1 : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&seen[atomic_inc(&cnt[z])]);
  atomic_inc(&seen[n + atomic_dec(&cnt[1]) - 1]);
  atomic_add(&cnt[2 + z], x);
  if (x & 2)
    atomic_sub(&cnt[2], 3);
  else
    atomic_inc(&cnt[2]);
  if (x & 1)
    atomic_min(&cnt[3], x);
  else
    atomic_max(&cnt[4], x);
  atomic_or(&cnt[5], (int)(1u << (x & 31)));
  atomic_and(&cnt[6], ~(1 << (x & 15)));
  atomic_xor(&cnt[7], x);
  atomic_add(&cnt[10], atomic_xchg(&cnt[8], x));
  int old = 0, prev;
  while ((prev = atomic_cmpxchg(&cnt[9], old, old + 1)) != old)
    old = prev;
  atomic_inc(&seen[2 * n + old]);
  old = 0;
  while ((prev = atomic_cmpxchg(&cnt[11 + z], old, old + 1)) != old)
    old = prev;
  atomic_inc(&seen[3 * n + old]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < 4; k++)
    out[4 * i + k] = seen[k * n + lid];
  if (lid < 10)
    out[4 * get_global_size(0) + 10 * get_group_id(0) + lid] = lid == 8 ? cnt[8] + cnt[10] : cnt[lid];
}
