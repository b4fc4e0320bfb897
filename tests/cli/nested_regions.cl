// weft-run: -k fz -g 288 -l 96 --arg u32[64]=rand:1 --arg u32[1152]=zero --arg u32[8]=zero --arg u32[12]=zero
/* weft_fuzz seed 300007: atomics in nested branches of a helper called four times. Each level of
 * nesting doubles the code of a masked region's inner sides (lower_region.c): unbounded, it lowered
 * to 182,000 instructions at W 32 and took 23 s to build (cli.sh: test_build_nested_regions). */
static uint h0(uint a, uint b, __global const uint *in, __global uint *gc) {
  uint r = a ^ (b * 2654435761u);
  if ((uint)((uint)(a < 16u) && (uint)((int)get_sub_group_local_id() <= (int)a))) {
    r = (uint)((r * 235560159u) <= (clz(a)));
    switch ((uint)!(uint)((int)12u >= (int)(uint)get_local_id(0)) & 7u) {
    case 1: {
      if ((uint)!(uint)((uint)get_global_id(0) <= r)) {
        break;
      }
      if ((uint)((uint)(get_sub_group_local_id() >= 2u) || (uint)(get_sub_group_local_id() != a))) {
        b ^= get_sub_group_id();
        a += ((((uint)get_local_id(0) | b) + ((uint)(r >= b) ? a : (uint)get_group_id(0))) << (in[(r ^ a) & 63u] & 31u));
        atomic_sub(&gc[0], (uint)((uint)get_global_id(0) != r));
      }
      b += (uint)((int)get_sub_group_id() == (int)(5u - b));
    } break;
    case 4: {
    }
    default: {
    }
    }
  }
  return r + b;
}

__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,
                 __global uint *lout) {
  __local uint la[96], lb[96], lc[4];
  const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);
  uint v0 = gid, v1 = in[gid & 63u], v2 = lid * 2654435761u;
  uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & 63u], v5 = 1u;
  la[lid] = v1 ^ 0x5bd1e995u;
  lb[lid] = v4 + lid;
  if (lid < 4u) lc[lid] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  v4 = sub_group_scan_inclusive_max((uint)get_local_size(0));
  if ((uint)((max((uint)get_global_id(0), (uint)get_local_id(0))) < (uint)get_group_id(0))) {
    if ((uint)(v4 >= (uint)(v1 != v0))) {
      v4 = h0(((v1 << (16u & 31u)) << (6u & 31u)), ((v5 << (v2 & 31u)) + get_sub_group_id()), in, gc);
    }
  } else {
    switch ((v3 | (uint)get_global_id(0)) & 7u) {
    default: {
      if ((uint)!(uint)(v1 <= (uint)get_global_id(0))) {
        if ((uint)(lb[v5 % 96u] != (popcount((uint)get_group_id(0))))) {
          atomic_xor(&lc[1], v3);
        }
      }
    }
    }
  }
  v5 = h0((lb[get_sub_group_id() % 96u] >> (h0(v0, get_sub_group_size(), in, gc) & 31u)), (h0(v2, 3u, in, gc) - (max((uint)get_global_id(0), 10u))), in, gc);
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((uint)((int)((uint)get_global_id(0) >> (v5 & 31u)) != (int)(get_sub_group_size() / (v1 | 1u)))) {
    lb[lid] = v0;
    v5 = (la[(3737015384u % (v5 | 1u)) % 96u] | get_sub_group_id());
  }
  {
    uint c157 = 0u;
    do {
      c157++;
      if ((uint)(get_sub_group_size() == v1)) {
        break;
      }
      {
        uint c168 = 0u;
        do {
          c168++;
          atomic_or(&lc[3], (in[3383023023u & 63u] ^ (c157 >> (get_sub_group_local_id() & 31u))));
          if ((uint)(((uint)get_local_size(0) & v2) > v5)) {
            break;
          }
        } while (c168 < 4u && (uint)(get_sub_group_local_id() <= get_sub_group_size()));
      }
    } while (c157 < 2u && (uint)((int)1u < (int)(uint)get_group_id(0)));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 4u) lout[(uint)get_group_id(0) * 4u + lid] = lc[lid];
  v0 += (uint)get_local_size(0);
  for (uint c191 = 0u; c191 < (get_sub_group_local_id() & 7u); c191++) {
    if ((uint)!(uint)((uint)get_local_id(0) <= (uint)get_group_id(0))) {
      break;
    }
    v2 ^= c191;
    switch (v5 & 7u) {
    case 0: {
      switch (c191 & 7u) {
      case 4: {
        v5 = ((uint)((int)v2 < (int)(uint)(v1 >= v5)) ? v3 : ((v5 & 53255165u) | (get_sub_group_id() % (v3 | 1u))));
      }
      case 6: {
        v1 ^= (in[(2u | (uint)get_global_id(0)) & 63u] & in[v2 & 63u]);
      }
      }
    } break;
    case 3: {
    } break;
    case 2: {
    } break;
    }
  }
  out[gid * 4u + 3u] = v0 ^ (v1 * 3u) ^ (v2 * 5u) ^ (v3 * 7u) ^ (v4 * 9u) ^ (v5 * 11u);
}
