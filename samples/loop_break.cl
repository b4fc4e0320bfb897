// weft-run: -g 4096 -l 128 --arg u32[4096]=zero --arg u32:1000 --stats
/* A loop left by `break` after a different number of trips in every lane: the Collatz sequence
 * of id + 1 (halve if even, else 3n + 1) until it reaches 1, at most `limit` steps. A lane that
 * breaks out waits at the loop's exit for the rest of its warp; the stats show how much of the
 * warp's width that wastes. steps[i] is the number of steps for i + 1 (0 for 1, 111 for 27).
 *
 * No work lies between the `break` and the loop's exit, so clang joins the break test and the
 * loop test into one exit branch (see `weft cfg`): leaving lanes go straight to the loop's
 * reconvergence point and arrive there, and mp-orec has no split to merge them with. Its SIMD
 * efficiency is stack's. sphere_trace.cl has work on the way out (the MP paper's Figure 10):
 * there mp-orec merges splits early and beats stack. */
__kernel void loop_break(__global uint *steps, uint limit) {
  uint id = get_global_id(0);
  ulong n = id + 1;
  uint i;
  for (i = 0; i < limit; i++) {
    if (n == 1)
      break;
    n = (n & 1) ? 3 * n + 1 : n / 2;
  }
  steps[id] = i;
}
