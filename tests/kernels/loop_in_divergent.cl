/* A different loop on each side of a varying branch, each with varying trip counts. */
__kernel void loop_in_divergent(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], r = 0;
  if (x % 2) {
    for (int j = 0; j < x % 17; j++)
      r += x ^ j;
  } else {
    int k = x;
    while (k > 1) {
      k /= 2;
      r++;
    }
  }
  out[i] = r;
}
