/* A varying if/else: lanes split on their own data and meet again at the store. */
__kernel void if_else(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i];
  if (x > 0) {
    out[i] = x * 2;
  } else {
    out[i] = 1 - x;
  }
}
