/* A helper with a varying loop, called on both sides of a varying branch with other arguments
 * and with work before and after each call: weft calls it once for both sides (fuse_calls.c),
 * and the values each side made before the call still reach its code after it. */
static int helper_both_sides_steps(int v, int limit) {
  int n = 0;
  while (v != 1 && n < limit) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    n++;
  }
  return n;
}

__kernel void helper_both_sides(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], r;
  if (x % 3 == 0) {
    int before = x / 3;
    r = helper_both_sides_steps(before + 1, 60) * 2 + before;
  } else {
    int before = x * 2 + i;
    r = before - helper_both_sides_steps(x, 40 + x % 7);
  }
  out[i] = r;
}
