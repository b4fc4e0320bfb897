/* weft cfg must report this as file:line:col: error and exit with 1. */
__kernel void broken(__global int *out) {
  out[0] = 1
}
