/* A helper with an early return, called in a loop that the caller leaves by `break` on the
 * helper's result: the helper's branch reconverges at its end, inside the loop, so each trip
 * runs the warp's remaining lanes together (weft threads jumps before inlining only). */
static int early_return_in_loop_gap(int x, int s) {
  int d = x - s;
  if (d < 0) /* H */
    return -1;
  return d / 2;
}

__kernel void early_return_in_loop(__global const int *a, __global const int *s, int n,
                                   __global int *out) {
  int i = get_global_id(0);
  int k = 0;
  for (; k < n; k++)
    if (early_return_in_loop_gap(a[i], s[k]) > 40)
      break;
  out[i] = k;
}
