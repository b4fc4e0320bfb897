/* weft_fuzz: launch failed: W 32 G 16: WEFT_ERROR_DIVERGENT_BARRIER: divergent barrier in kernel 'fz' at fz.cl:25: warp 0 of work-group (0,0,0) reached it with lanes 00100000111011010100110111100101 of 11111111111111111111111111111111 (policy 'stack' needs the whole warp there) (stack)
 * Reduced from the kernel of `weft_fuzz --seed 56`. NDRange: 2 work-group(s) of 100, 1-D.
 * Arguments: in = seed-56.in (u32[64], below), then out, gc and lout zeroed, then the __local la, lb and lc.
 * in =
 *   0x22 0x3c75b3b6 0x3e97c56b 0x16 0x9c634194 0x1a 0xb61fbde7 0x4ea3e7fc
 *   0x1a 0xeb9a493f 0x67c0ae95 0x63688ab2 0x1d 0x63f79be2 0x1b 0x5
 *   0x5 0xf1e7c4cb 0x57d43391 0xde895692 0xe4dd3c75 0xa6cc0ba8 0x1 0x8235b99a
 *   0x852c47c 0x21 0x6 0x8 0xc 0xa7207ea 0xa2489c23 0xbd7e4fec
 *   0x2 0x6 0xaa14da57 0x17 0x21 0xd06054fe 0xde990179 0x2722ca1c
 *   0x11285634 0x2a485305 0x287be727 0x4e91e081 0x27 0x12cf1adc 0x22 0x4
 *   0x3ffd2ddf 0x63d1a0ea 0x6453e684 0x11 0x7fcfbee7 0x4209eff2 0x839a97c4 0x9
 *   0x12 0x1f 0xb 0xbb262cd7 0x1f 0x7cc741ed 0xbe62be52 0xbb097741
 */
// weft-run: -g 200 -l 100 --warp 32 --lanes 16 --arg u32[64]=file:seed-56.in
// weft-run: --arg u32[800]=zero --arg u32[4]=zero --arg u32[8]=zero
// weft-run: --arg local:u32[100] --arg local:u32[100] --arg local:u32[4]
/* weft_fuzz --seed 56: 2 work-group(s) of 100 */
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
  barrier(CLK_LOCAL_MEM_FENCE);
  switch ((v4 & 1138794538u) & 7u) {
  case 2: {
    {
      uint c89 = 0u;
      while (c89 < 3u && 11u) {
        c89++;
      }
    }
  } break;
  case 0: {
  } break;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
