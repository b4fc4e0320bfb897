/* Nested if/else inside a uniform 64-trip loop: of every 4 work-items, one takes the outer
 * `then`, one the inner `then` and two the inner `else`, so three paths are live in every
 * warp on every trip. */
__kernel void nested_loop(__global const uint *in, __global uint *out) {
  uint id = get_global_id(0), q = id & 3u, a = in[id], b = a ^ 0x5bd1e995u;
  for (int i = 0; i < 64; i++) {
    if (q == 0) {
      a = a * 33u + b;
    } else {
      if (q == 1)
        b = (b ^ a) * 0x01000193u;
      else {
        a ^= b >> 3;
        b += a | 1u;
      }
    }
  }
  out[id] = a ^ b;
}
