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
  for (uint c1 = 0u; c1 < (v2 & 7u); c1++) {
    la[lid] = ((v5 ^ ((uint)(1607140121u >= c1) ? c1 : v2)) - ((v0 * 3u) | 3563282734u));
    switch (la[lid] & 7u) {
    case 3: {
      if ((uint)((uint)((uint)(14u == v4) && (uint)(v5 <= (uint)get_group_id(0))) || (uint)((uint)((uint)get_local_id(0) != (uint)get_local_size(0)) && (uint)((int)get_sub_group_id() >= (int)v4)))) {
        if ((uint)((int)(clz(c1)) <= (int)(min(v5, (uint)get_group_id(0))))) {
          la[lid] = ((uint)((int)((popcount(8u)) ^ (v2 << (64407913u & 31u))) >> ((c1 % (c1 | 1u)) & 31u)));
          la[lid] = (uint)!(uint)((uint)(c1 > v4) || (uint)((int)c1 >= (int)c1));
          atomic_or(&lc[3], (11u / (in[v1 & 63u] | 1u)));
        }
      } else {
        if ((uint)((uint)(c1 < c1) < c1)) {
          if ((uint)(2287171704u == get_sub_group_local_id())) {
            continue;
          }
          v5 = 0u;
        }
      }
    } break;
    case 6: {
    } break;
    default: {
    } break;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  out[gid * 4u + 0u] += ((min(v2, la[1739750181u % 40u])) & get_sub_group_local_id());
  atomic_or(&gc[3], in[((uint)((int)v1 >> (v0 & 31u))) & 63u]);
  if ((uint)!(uint)(get_sub_group_id() <= v4)) {
    {
      out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
      return;
    }
  }
  if ((uint)(v4 <= 16u)) {
    if ((uint)((uint)get_global_id(0) <= in[8u & 63u])) {
      v0 = (uint)get_group_id(0);
    }
    for (uint c126 = 0u; c126 < ((in[(uint)get_group_id(0) & 63u] / (v5 | 1u)) & 7u); c126++) {
      if ((uint)((uint)((uint)((int)v3 == (int)v2) && (uint)(7u > v5)) || (uint)((int)v4 != (int)849150271u))) {
        continue;
      }
    }
  } else {
    if ((uint)((uint)((int)(uint)get_local_size(0) > (int)v0) && (uint)((uint)((int)v0 == (int)v4) || (uint)(v0 != v1)))) {
      v5 ^= (uint)get_local_id(0);
    } else {
      v5 += get_sub_group_local_id();
    }
  }
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
