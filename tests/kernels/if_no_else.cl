/* Ifs without else; the store itself is conditional, so out[] keeps its old value elsewhere. */
__kernel void if_no_else(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i];
  int r = x;
  if (x % 3 == 0)
    r = r * 5;
  if (x % 5 == 0)
    out[i] = r;
}
