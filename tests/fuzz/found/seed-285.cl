/* weft_fuzz: crash: W 32: weft's process died (crash)
 * Reduced from the kernel of `weft_fuzz --seed 285`. NDRange: 2 work-group(s) of 40, 1-D.
 * Arguments: in = seed-285.in (u32[64], below), then out, gc and lout zeroed, then the __local la, lb and lc.
 * in =
 *   0x404713fa 0xbadb61ce 0x65727d38 0x701e4c10 0x1b 0x1b 0x5 0x6
 *   0x5d4e51e6 0xa636852c 0xb35bce5f 0x18 0xb3b0e16a 0x787451e5 0x17 0xe988c520
 *   0x36c9f0a4 0x6dc20528 0xb8d26138 0x20 0x1b 0x6f9d602 0x10 0x22
 *   0x6c35c902 0x1b 0xf7f9a984 0x8 0xd 0x1 0xa0c86a46 0xe
 *   0x1c 0xf1f9e1bc 0x4d7f3072 0xc 0xbcdbb222 0x7bb15ec1 0x24 0x21
 *   0x22 0xdcc9956a 0x19 0xfd660120 0x63eaae41 0xba9dfa9c 0x1c 0x5f28774
 *   0x8 0x7 0xf45d44ef 0x1f 0x1e 0x10 0x23a547ab 0x1e
 *   0x74d7e422 0xb24a6991 0x4 0xa71e4f5a 0x1b 0x14618d35 0x6bb35f96 0xa6f3c564
 */
// weft-run: -g 80 -l 40 --warp 32 --lanes 16 --arg u32[64]=file:seed-285.in
// weft-run: --arg u32[320]=zero --arg u32[4]=zero --arg u32[8]=zero
// weft-run: --arg local:u32[40] --arg local:u32[40] --arg local:u32[4]
/* weft_fuzz --seed 285: 2 work-group(s) of 40 */
__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout, __local uint *la, __local uint *lb, __local uint *lc) {
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  v1 = sub_group_broadcast((9u % ((uint)(get_sub_group_size() != 6u) | 1u)), 55u % get_sub_group_size());
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
