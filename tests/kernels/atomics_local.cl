/* atomic_inc and atomic_max on __local int, in work-groups of 1024, then atomic_add into the
 * global result. hist[0..32) counts a[] % 32, plus 2 at (a[] / 2) % 32 for each odd a[] (lanes
 * at varying addresses under a divergent branch: an inactive lane must leave the bins as they
 * are); hist[32] is the largest a[]. */
__kernel void atomics_local(__global const int *a, __global int *hist, __local int *bins,
                            __local int *largest) {
  int lid = get_local_id(0), lsize = get_local_size(0);
  for (int b = lid; b < 32; b += lsize)
    bins[b] = 0;
  if (lid == 0)
    largest[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int x = a[get_global_id(0)];
  atomic_inc(&bins[x % 32]);
  if (x & 1)
    atomic_add(&bins[(x >> 1) % 32], 2);
  if (x > 50)
    atomic_max(largest, x);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = lid; b < 32; b += lsize)
    atomic_add(&hist[b], bins[b]);
  if (lid == 0)
    atomic_max(&hist[32], largest[0]);
}
