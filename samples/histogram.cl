// weft-run: -g 16384 -l 256 --stats
// weft-run: --arg u32[1048576]=rand:7 --arg u32:1048576 --arg u32:100 --arg u32[100]=zero
// weft-run: --arg local:u32[100]
/* A histogram in two levels: each work-group counts its share of the data into a __local
 * histogram with atomic_inc (cheap: only the group's work-items contend), then adds its
 * counts to the global histogram with atomic_add. The barriers separate clearing, counting and
 * publishing; every work-item reaches them, so no warp splits at a barrier. rand:7 gives values
 * in [0, 100), so with 100 bins each bin ends near 1048576 / 100.
 * `--out 3=hist.bin` writes the 100 counts. */
__kernel void histogram(__global const uint *data, uint n, uint nbins, __global uint *hist,
                        __local uint *bins) {
  uint lid = get_local_id(0), lsize = get_local_size(0);
  for (uint b = lid; b < nbins; b += lsize)
    bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&bins[data[i] % nbins]);
  barrier(CLK_LOCAL_MEM_FENCE);

  for (uint b = lid; b < nbins; b += lsize)
    if (bins[b])
      atomic_add(&hist[b], bins[b]);
}
