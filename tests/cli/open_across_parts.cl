/* Found by weft_fuzz (seed 13, reduced): an `if` around a loop between two barriers, whose
 * code comes in two parts, cut before the loop (`weft cfg`). Under mp the lanes that skip the
 * loop wait at the `if`'s IPDOM in a reconvergence entry the code makes, and the others cross
 * into the second part, which must take that IPDOM as their guard, not the kernel's end: it did
 * not, and the second barrier was reported as a deadlock. */
__kernel void open_across_parts(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout) {
  __local uint la[128], lb[128], lc[4];
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((uint)get_local_id(0)) {
    for (uint c46 = 0u; c46 < (4u & 7u); c46++) {
      switch (get_sub_group_size() & 7u) {
      case 5: {
        out[gid * 4u + 1u] += lb[la[lid] % 128u];
      } break;
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
