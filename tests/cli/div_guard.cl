/* Issue 18: a division by a constant or by a uniform divisor has no guard for inactive lanes,
 * so LLVM sees the constant (multiply-high sequences, not a div per lane) and a uniform divisor
 * gets its magic numbers once. tests/cli/cli.sh reads the lowered IR: the constant stays
 * an operand, and no vector division has a computed divisor. */
__kernel void div_guard(__global uint *a, uint u, int s) {
  int i = get_global_id(0);
  uint x = a[i];
  if (x & 1)
    a[i] = x % 48u + (uint)((int)x / -1) + (uint)((int)x / -7) + x / u + (uint)((int)x % s);
}
