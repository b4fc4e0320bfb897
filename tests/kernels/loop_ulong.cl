/* A 64-bit loop with very different trip counts: Collatz steps of start[i] (capped at 500). */
__kernel void loop_ulong(__global const ulong *start, __global uint *steps) {
  int i = get_global_id(0);
  ulong n = start[i];
  uint k = 0;
  while (n > 1 && k < 500) {
    n = (n & 1) ? 3 * n + 1 : n >> 1;
    k++;
  }
  steps[i] = k;
}
