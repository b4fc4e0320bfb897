/* A varying switch with fall-through, shared case labels, break and default. */
__kernel void switch_fallthrough(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int r = 0;
  switch (a[i] % 8) {
  case 0:
    r += 1;
    /* fall through */
  case 1:
    r += 10;
    break;
  case 2:
  case 3:
    r += 100;
    /* fall through */
  case 4:
    r += 1000;
    break;
  case 6:
    r = -1;
    break;
  default:
    r = a[i];
  }
  out[i] = r;
}
