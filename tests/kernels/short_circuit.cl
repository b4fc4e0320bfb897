/* && and || are branches: the atomic on the right of || runs only for the lanes where the left
 * side is false. */
__kernel void short_circuit(__global const int *a, __global int *out, __global int *calls) {
  int i = get_global_id(0);
  int x = a[i];
  int r = 0;
  if (x > 10 && (x % 3 == 0 || x % 5 == 0))
    r = 1;
  if (x < 0 || atomic_inc(calls) < 0)
    r += 2;
  out[i] = r;
}
