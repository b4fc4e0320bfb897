// weft-run: -k vaidya_fig4 -g 16 -l 16 --warp 16 --lanes 4 --arg i32[16]=zero
/* Vaidya et al., "SIMD Divergence Optimization through Intra-Warp Compaction" (ISCA 2013):
 * basic cycle compression (BCC) skips the lane groups of an instruction whose lanes are all
 * inactive. Their GPU runs a 16-wide SIMD instruction on a 4-wide ALU over four cycles, one
 * group of 4 lanes per cycle; weft runs a block once per lane group of G lanes that has an
 * active lane. With W = 16 and G = 4 the counts are the paper's cycles.
 *
 * vaidya_fig4, Figure 4(a): an if/else whose `if` block B runs on 4 of the 16 lanes (one aligned
 * group: 1 group run, 3 skipped) and whose `else` block C runs on the other 12 (3 run, 1
 * skipped): BCC saves 4 of the 8 group executions of the two blocks, half, as the paper says.
 *
 * vaidya_levels, Table 2: the masks of the branch paths at nesting levels 1 to 4 (`level`).
 * Level L splits the warp on the low L bits of the lane id, so each path P runs on the lanes
 * with id % 2^L == P: at L1 0x5555 and 0xAAAA, at L2 0x1111, 0x2222, 0x4444 and 0x8888, at L3
 * 0x0101 ... 0x8080, at L4 the 16 one-lane masks -- the table's "execution masks of all branch
 * paths". BCC saves no group at L1 and L2 (every group has an active lane), half at L3, and
 * three quarters at L4 (the table's 25% for BCC plus the 50% it credits to the Ivy Bridge
 * halving, which BCC includes). Each case of the switch is one path; run it with
 *   weft trace vaidya_fig4.cl -k vaidya_levels --arg i32[16]=zero --arg i32:L             */
__kernel void vaidya_fig4(__global int *out) {
  int id = get_local_id(0); /* A */
  int x = id * 3;
  if (id < 4) {
    x = x + 7; /* B */
    out[id] = x;
  } else {
    x = x * 5; /* C */
    out[id] = -x;
  }
  out[id] += x; /* D */
}

__kernel void vaidya_levels(__global int *out, int level) {
  int id = get_local_id(0);
  int path = id & ((1 << level) - 1);
  int x = id;
  switch (path) { /* one block per path; each stores a different value */
  case 0: out[id] = x + 100; break;
  case 1: out[id] = x * 3; break;
  case 2: out[id] = x - 7; break;
  case 3: out[id] = x ^ 5; break;
  case 4: out[id] = x * x; break;
  case 5: out[id] = x << 2; break;
  case 6: out[id] = 9 - x; break;
  case 7: out[id] = x | 64; break;
  case 8: out[id] = x + 8; break;
  case 9: out[id] = x * 9; break;
  case 10: out[id] = x - 10; break;
  case 11: out[id] = x ^ 11; break;
  case 12: out[id] = x * 12; break;
  case 13: out[id] = x << 3; break;
  case 14: out[id] = 14 - x; break;
  default: out[id] = x | 32; break;
  }
  out[id] += level;
}
