/* weft_fuzz: wrong result: W 32 G 16: gc[0] (global counter): want 0x27b, got 0xfb (pc)
 * Reduced from the kernel of `weft_fuzz --seed 170`. NDRange: 1 work-group(s) of 128, 1-D.
 * Arguments: in = seed-170.in (u32[64], below), then out, gc and lout zeroed.
 * in =
 *   0xf6d6b173 0xf527bc50 0x9e650cf9 0x25 0x22 0xb4218819 0x2 0x4
 *   0xe327bbfb 0x23 0x4b3139b1 0xbcfd8366 0x15 0xc325a709 0x8 0x4
 *   0x25 0xe5286953 0x86a8baa9 0x1b 0x807c580f 0x15 0x2 0x4e3d00ed
 *   0x98d0e137 0x8b3a8df1 0x7e3aa1b 0x19 0x3e4a000a 0x23 0xd574d722 0x1
 *   0x15 0x7a8b067c 0x7873a11c 0x137847a5 0x1 0x57df330f 0x23 0x4a91c060
 *   0x9 0x25 0x896e1ec 0x820d07ad 0x19 0x44a4c0d3 0x3 0xa4b379cd
 *   0x20 0x1b1e64c6 0x34840dd 0x27 0xdd7cb944 0xf 0xd3c02045 0x9
 *   0x33d303e3 0x26 0x19 0x24 0x8a2d5c11 0x2f1d33c1 0xb5bcef17 0x15
 */
// weft-run: -g 128 -l 128 --warp 32 --lanes 16 --arg u32[64]=file:seed-170.in
// weft-run: --arg u32[512]=zero --arg u32[4]=zero --arg u32[4]=zero
/* weft_fuzz --seed 170: 1 work-group(s) of 128 */
__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout) {
  __local uint la[128], lb[128], lc[4];
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_sub_group_local_id()) {
  } else {
    v3 += get_sub_group_local_id();
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  {
    uint c41 = 0u;
    while (c41 < 5u && v0) {
      c41++;
      atomic_inc(&gc[0]);
      for (uint c60 = 0u; c60 < ((uint)get_local_id(0) & 7u); c60++) {
        switch (get_sub_group_local_id() & 7u) {
        }
      }
    }
  }
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
