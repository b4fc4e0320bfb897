/* Nested loops: continue in the outer one, break out of the inner one. Counts the primes up
 * to a[i]. */
__kernel void nested_loops_break(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int n = a[i], count = 0;
  for (int k = 2; k <= n; k++) {
    if (k > 2 && k % 2 == 0)
      continue;
    int prime = 1;
    for (int d = 3; d * d <= k; d += 2) {
      if (k % d == 0) {
        prime = 0;
        break;
      }
    }
    count += prime;
  }
  out[i] = count;
}
