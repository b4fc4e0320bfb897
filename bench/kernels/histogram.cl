/* A byte histogram: each work-group clears 256 __local bins, counts its grid-stride share of
 * the bytes into them with atomic_inc, and adds them to the global histogram with atomic_add;
 * two barriers separate the three steps. */
__kernel void histogram(__global const uchar *data, uint n, __global uint *hist) {
  __local uint bins[256];
  uint lid = get_local_id(0), lsize = get_local_size(0);
  for (uint b = lid; b < 256; b += lsize)
    bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&bins[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < 256; b += lsize)
    if (bins[b])
      atomic_add(&hist[b], bins[b]);
}
