/* Three levels of varying if/else, an else-if chain, and a branch on the lane's id. */
__kernel void nested_if(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i], r;
  if (x > 0) {
    if (x > 50) {
      if (i & 1)
        r = x - 50;
      else
        r = x + 50;
    } else {
      r = x * 3;
    }
  } else {
    if (x < -50)
      r = -x;
    else if (x == 0)
      r = 7;
    else
      r = x * x;
  }
  out[i] = r;
}
