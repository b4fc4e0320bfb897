/* A helper with a data-dependent loop and a small divergent `if` inside (a Collatz-like walk),
 * called from both sides of a divergent branch, with other arguments on each side. */
static uint walk(uint v, uint n) {
  uint h = 0;
  for (uint k = 0; k < n; k++) {
    if (v & 1u)
      v = 3u * v + 1u;
    else
      v >>= 1;
    h += v;
  }
  return h;
}

__kernel void helper_branch(__global const uint *in, __global uint *out) {
  uint id = get_global_id(0), v = in[id], n = 16u + (v >> 27), r;
  if (v & 0x100u)
    r = walk(v, n) ^ 0x9e3779b9u;
  else
    r = walk(v >> 1, n + 5u) * 3u;
  out[id] = r;
}
