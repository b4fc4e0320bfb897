/* atomic_* on __global int and uint, some under a varying condition (masked atomics). */
__kernel void atomics_global(__global const int *a, __global int *hist, __global int *stats,
                             __global uint *count) {
  int i = get_global_id(0), x = a[i];
  atomic_add(&hist[x & 15], x);
  atomic_inc(count);
  atomic_max(&stats[0], x);
  atomic_min(&stats[1], x);
  atomic_or(&stats[2], (int)(1u << (x & 31)));
  atomic_xor(&stats[3], x);
  if (x % 7 == 0)
    atomic_dec(&stats[4]);
  if (x > 900)
    atomic_sub(&stats[5], x);
}
