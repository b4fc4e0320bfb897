// weft-run: -g 4 -l 4 --arg i32[4]=zero
/* ElTantawy et al., "A Scalable Multi-Path Microarchitecture for Efficient GPU Control Flow"
 * (HPCA 2014), Figure 2: a divergent if/else.
 *
 * Paper blocks: A ends with the branch BR^A_{B-C}, B is the `then` side, C the `else` side, and
 * D, the immediate post-dominator of the branch, is where the warp reconverges. With a 4-wide
 * warp, lanes 0 and 2 run B (mask 0101) and lanes 1 and 3 run C (mask 1010). */
__kernel void mp_fig2(__global int *out) {
  int id = get_local_id(0); /* A */
  int x = id * 3;
  if (id % 2 == 0) {
    x = x + 1; /* B */
    out[id] = x;
  } else {
    x = x * 2; /* C */
    out[id] = -x;
  }
  out[id] += x; /* D */
}
