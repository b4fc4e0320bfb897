/* A loop that lanes leave at different trips, whose exit block other lanes of the warp wait at
 * already (they went there straight, by the outer branch, whose IPDOM is the end, past the
 * `return`). mp-orec lowers the loop's split's guard to that block, to merge there; the
 * generated code once took that guard for the split's reconvergence point and let the first
 * lanes to leave the loop arrive past the block, which they never ran (their out[] stayed 0).
 * Found by weft_fuzz (seed 200703). */
__kernel void loop_exit_meets_split(__global const uint *in, __global uint *out) {
  uint i = get_global_id(0), x = in[i], r = x;
  if (x & 1u) {
    if (x & 2u) {
      out[i] = x;
      return;
    }
    for (uint k = 0; k < (x >> 2 & 7u); k++)
      r = r * 3u + k;
  }
  out[i] = r ^ 0x5bd1e995u;
}
