/* clang's own crash, on purpose: `weft run` must report that the build failed, with the file
 * and the signal, and exit 1, not die of SIGILL with no word. */
__kernel void clang_crash(__global int *out) {
#pragma clang __debug crash
  out[0] = 1;
}
