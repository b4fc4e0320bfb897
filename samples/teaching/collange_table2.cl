// weft-run: -g 4 -l 4 --arg i32[4]=zero
/* Collange, "Stack-less SIMT reconvergence at low cost" (2011), the if-then-else of Figure 1 whose
 * traversal Table 2 traces.
 *
 * Paper blocks: A, then the branch `if(!c) br 5`; B is the `then` side (threads T0 and T1), C the
 * `else` side (T2 and T3); D follows the if-then-else. B has the smaller PC, so min(PC) arbitration
 * runs B first, then C, and the four threads meet again at D, the branch's immediate
 * post-dominator and its largest PC. */
__kernel void collange_table2(__global int *out) {
  int id = get_local_id(0); /* A */
  int c = id < 2;
  int x;
  if (c) {
    x = id + 100; /* B */
    out[id] = x;
  } else {
    x = id * 10; /* C */
    out[id] = -x;
  }
  out[id] += x; /* D */
}
