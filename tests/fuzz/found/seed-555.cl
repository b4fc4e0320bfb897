/* weft_fuzz: timeout: W 32: weft's process died (timeout)
 * Reduced from the kernel of `weft_fuzz --seed 555`. NDRange: 3 work-group(s) of 40, 1-D.
 * Arguments: in = seed-555.in (u32[64], below), then out, gc and lout zeroed, then the __local la, lb and lc.
 * in =
 *   0x19 0x8389bfb8 0xa5b1b11e 0x96f9d7a3 0x26 0x19 0x19 0x1
 *   0x16 0xd1f8fdae 0 0x759b59a1 0x23 0xf 0x11 0x18
 *   0x8 0x1f 0x12 0x9 0x836cf91c 0x48bf1cc6 0x24 0x7595b067
 *   0xcb59bc7b 0xf094c5ce 0x1e 0xe2d3966c 0xea4eed6f 0x1e85d453 0x17 0x13
 *   0x74b0f5b7 0x5 0xeaab685 0x1e494292 0 0xcda3adfc 0x7f11816c 0x9aa67fc8
 *   0xb 0xc2045210 0x15 0x16 0x1c 0 0xb8a91588 0x1
 *   0xa254e98e 0x570b1f6f 0x6e15b2ed 0x9b326247 0x71677e26 0x20 0xfd27e525 0xeb423174
 *   0x23cdec76 0x4 0xa886b6ed 0xda6764d7 0xa7a4bc3d 0x195f60da 0xe1817437 0x1
 */
// weft-run: -g 120 -l 40 --warp 32 --lanes 16 --arg u32[64]=file:seed-555.in
// weft-run: --arg u32[480]=zero --arg u32[4]=zero --arg u32[12]=zero
// weft-run: --arg local:u32[40] --arg local:u32[40] --arg local:u32[4]
/* weft_fuzz --seed 555: 3 work-group(s) of 40 */
__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout, __local uint *la, __local uint *lb, __local uint *lc) {
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  if (v4) {
    {
      v0 = 0u;
    }
  } else {
    if ((uint)((int)0u > (int)v0)) {
      v5 ^= (uint)get_local_id(0);
    } else {
      v5 += get_sub_group_local_id();
    }
  }
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
