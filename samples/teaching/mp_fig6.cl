// weft-run: -g 4 -l 4 --arg i32[4]=zero
/* ElTantawy et al., "A Scalable Multi-Path Microarchitecture for Efficient GPU Control Flow"
 * (HPCA 2014), Figure 6: nested divergence.
 *
 * Paper blocks: A branches to B or C (BR^A_{B-C}); C branches again to D or E (BR^C_{D-E}).
 * The inner branch reconverges at F, the outer one at G. With a 4-wide warp: B runs lanes 0 and 2
 * (0101), C lanes 1 and 3 (1010), D lane 1 (0010), E lane 3 (1000), F 1010, G 1111. Under MP
 * IPDOM, B, D and E are three parallel paths of one warp. */
__kernel void mp_fig6(__global int *out) {
  int id = get_local_id(0); /* A */
  int x = id + 1;
  if (id % 2 == 0) {
    x = x * 5; /* B */
    out[id] = x;
  } else {
    x = x * 7; /* C */
    out[id] = x;
    if (id == 1) {
      x = x + 11; /* D */
      out[id] += x;
    } else {
      x = x - 13; /* E */
      out[id] -= x;
    }
    out[id] *= 2; /* F */
  }
  out[id] += x; /* G */
}
