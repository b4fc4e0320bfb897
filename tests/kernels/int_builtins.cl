/* min max clamp on int, a conditional expression, a __constant buffer. */
__kernel void int_builtins(__global const int *a, __constant int *b, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], y = b[i];
  int r = min(x, y) * 2 + max(x, y);
  r += clamp(x, -10, 10);
  r += (x > y) ? x - y : y - x;
  out[i] = r;
}
