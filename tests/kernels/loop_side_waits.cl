/* A branch in a loop whose `then` side may leave the loop, so that its IPDOM is after the
 * loop: the `then` lanes go around the loop by its back edge while the `else` lanes wait at
 * their side, which reads the trip's v and acc. The back edge must keep their lanes of those
 * phis (compiler/lower_step.c, pending); WEFT_DEBUG=blends shows it does. */
__kernel void loop_side_waits(__global const uint *in, __global uint *out) {
  uint id = get_global_id(0), v = in[id], acc = 0;
  for (uint i = 0; i < 50; i++) {
    if (v & 1u) {
      v = v * 3u + 1u;
      if (v % 7u == 0u)
        break;
    } else {
      acc += v;
      v >>= 1;
    }
  }
  out[id] = acc ^ v;
}
