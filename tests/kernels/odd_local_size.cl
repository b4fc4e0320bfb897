/* Work-groups of 24: not a multiple of W or G, so the last warp and lane group are partial. */
__kernel void odd_local_size(__global const int *a, __global int *out) {
  int i = get_global_id(0), lid = get_local_id(0);
  int r = a[i];
  if (lid % 3 == 0)
    r += get_group_id(0) * 1000;
  else if (r > 50)
    r = lid * get_local_size(0);
  out[i] = r;
}
