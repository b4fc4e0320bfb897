/* A value carried around a loop that only the loop reads (x: the header's phi reads it at the
 * end of the latch), in a loop left by a data-dependent break (issue 18's modulo loop): the
 * lanes that go on after others broke out resume at the latch, where x must come back from
 * the frame. It once did not (the phi's use counted as one in x's own block), and the lanes
 * went on with a stale x. out[2 i], out[2 i + 1]: the sum and the trip count. */
__kernel void loop_break_carried(__global const uint *a, __global uint *out, uint limit) {
  uint i = get_global_id(0);
  uint x = a[i], s = 0, k;
  for (k = 0; k < limit; k++) {
    x = x * 1664525u + 1013904223u;
    s += x >> 16;
    if ((x >> 8) % 48u == 0)
      break;
  }
  out[2 * i] = s;
  out[2 * i + 1] = k;
}
