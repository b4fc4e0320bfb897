/* A loop with a uniform trip count (an argument) and a varying if inside. */
__kernel void uniform_loop_divergent_body(__global const int *a, int n, __global int *out) {
  int i = get_global_id(0);
  int acc = 0;
  for (int j = 0; j < n; j++) {
    int v = a[(i + j) % get_global_size(0)];
    if (v & 1)
      acc += v;
    else
      acc -= j;
  }
  out[i] = acc;
}
