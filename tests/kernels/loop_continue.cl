/* continue on a varying and on a uniform condition inside a loop with a uniform trip count. */
__kernel void loop_continue(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], sum = 0;
  for (int j = 0; j < 32; j++) {
    if ((x >> (j % 8)) & 1)
      continue;
    if (j % 3 == 0)
      continue;
    sum += j + x;
  }
  out[i] = sum;
}
