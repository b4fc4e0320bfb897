// weft-run: -g 4 -l 4 --arg i32[4]=iota --arg i32[4]=zero
/* ElTantawy et al., "A Scalable Multi-Path Microarchitecture for Efficient GPU Control Flow"
 * (HPCA 2014), Figure 10: unstructured control flow, a `break` out of a do-while loop.
 *
 * Paper blocks: A is the loop body's first block and ends with BR^A_{B-C}; B leaves the loop
 * (`break`); C ends with the loop condition BR^C_{A-D}; D follows the loop. Both branches have D
 * as their immediate post-dominator, yet splits of one warp can meet earlier, in B, when they
 * leave the loop in different iterations: the opportunistic early reconvergence of Figure 11
 * (mp-orec).
 *
 * With data = iota and a 4-wide warp, lanes 1 and 3 (odd acc) break in the first iteration
 * (B1010) while lanes 0 and 2 run C and A again (C0101) and break in the second: A1111 diverges
 * into B1010 and C0101, as in Figure 11. Under mp-orec the C split publishes B, where B1010
 * waits, as its guard, so the generated code gives it back when it gets there through A; the
 * policy merges it into B1111, an early reconvergence (the figure's (2)-(4), at block
 * granularity). Under mp, B runs twice, for B1010 and for B0101. */
__kernel void mp_fig10(__global const int *data, __global int *out) {
  int id = get_local_id(0);
  int i = 0, acc = 0;
  do {
    acc += data[id] + i; /* A */
    if ((acc & 1) | (i == 1)) {
      out[id] = acc; /* B */
      break;
    } else {
      i++; /* C */
    }
  } while (i < 3);
  out[id] += i; /* D */
}
