/* weft_fuzz: wrong result: W 32 G 16: out[135] (work-item 33, word 3): want 0xbfe3c89c, got 0xbfe3c899 (pc)
 * Reduced from the kernel of `weft_fuzz --seed 256`. NDRange: 2 work-group(s) of 32, 1-D.
 * Arguments: in = seed-256.in (u32[64], below), then out, gc and lout zeroed, then the __local la, lb and lc.
 * in =
 *   0x11 0x3 0x11 0x6e531342 0x6c0661da 0xcc3745ec 0x4eb2b5fa 0x1d
 *   0x6 0x1a 0x10c25357 0x5cb6e6fb 0x3a72918b 0x17 0xa091104 0x16
 *   0x29b1d7f5 0x1f4abd43 0 0xe 0x27 0x12 0x3bf279f0 0x14
 *   0x2b8a0c42 0x2139115e 0x6 0x1e 0x1f 0x21 0x25 0xad5b73f3
 *   0xe8debe30 0xf0d31414 0xf 0x22 0x619ff7f2 0x848306c5 0x29784ebb 0x848d2f32
 *   0x4cfe83ba 0x6cf4671b 0x1d 0x19 0x13 0x13 0xa 0x19bf13fb
 *   0x1e 0x17 0x3e09fff2 0xdc3ff47e 0x4ac41f05 0x9e7f807c 0x1f 0x20
 *   0xf 0x3a087607 0x13 0x562377c8 0x1c 0x16 0x1c 0x6
 */
// weft-run: -g 64 -l 32 --warp 32 --lanes 16 --arg u32[64]=file:seed-256.in
// weft-run: --arg u32[256]=zero --arg u32[4]=zero --arg u32[8]=zero
// weft-run: --arg local:u32[32] --arg local:u32[32] --arg local:u32[4]
/* weft_fuzz --seed 256: 2 work-group(s) of 32 */
static uint h1(uint a, uint b, __global const uint *in, __global uint *gc) {
  uint r = a ^ (b * 2654435761u);
  if (get_sub_group_local_id()) {
  }
  return r + b;
}

__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout, __local uint *la, __local uint *lb, __local uint *lc) {
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint c123 = 0u; c123 < ((uint)get_local_id(0) & 7u); c123++) {
    la[lid] = 0u;
  }
  v1 += h1(104769207u, 0u, in, gc);
  v1 = sub_group_scan_inclusive_add((uint)get_group_id(0));
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
