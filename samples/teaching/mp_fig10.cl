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
 * Lane l breaks out in iteration i when bit i of data[l] is set. With data = iota and a 4-wide
 * warp, lanes 1 and 3 break in the first iteration (B 1010) while lanes 0 and 2 run C and A
 * again (0101): A1111 diverges into B1010 and C0101, as in Figure 11. Lane 2 breaks in the
 * second iteration; lane 0 never does and leaves the loop through its condition. weft merges
 * splits at block granularity when the policy places one where another waits: here when A0101
 * diverges and its lane 2 goes to B while B1010 still waits there, mp-orec merges them into
 * B1110, an early reconvergence at B (the paper's B0101 joining B1010; in weft a split that goes
 * to B without diverging runs on inline, where no policy sees it). */
__kernel void mp_fig10(__global const int *data, __global int *out) {
  int id = get_local_id(0);
  int i = 0, acc = 0;
  do {
    acc += data[id] + i; /* A */
    if ((data[id] >> i) & 1) {
      out[id] = acc; /* B */
      break;
    } else {
      i++; /* C */
    }
  } while (i < 3);
  out[id] += i; /* D */
}
