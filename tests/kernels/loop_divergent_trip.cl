/* A loop whose trip count is each lane's own n[i] (0 to 40): lanes leave it one by one. */
__kernel void loop_divergent_trip(__global const int *n, __global int *out) {
  int i = get_global_id(0);
  int sum = 0;
  for (int j = 0; j < n[i]; j++)
    sum += j * j + i;
  out[i] = sum;
}
