/* uint over its whole range: unsigned divide, modulo, compare, rotate. */
__kernel void types_uint(__global const uint *a, __global const uint *b, __global uint *out) {
  int i = get_global_id(0);
  uint x = a[i], y = b[i] | 1u;
  uint r = x / y + x % y;
  r += (x > y) ? x - y : y - x;
  r ^= x << 7 | x >> 25;
  out[i] = r + (x >= 0x80000000u ? 1u : 0u);
}
