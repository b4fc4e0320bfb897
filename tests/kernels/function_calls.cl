/* A helper function with early returns inside a loop, called from a varying branch. */
static int function_calls_classify(int x) {
  if (x < 0)
    return -1;
  if (x == 0)
    return 0;
  for (int k = 1; k < 5; k++)
    if (x < k * 20)
      return k;
  return 9;
}

__kernel void function_calls(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int c = function_calls_classify(a[i]);
  if (c > 2)
    c += function_calls_classify(a[i] - 50);
  out[i] = c;
}
