/* Branches that never split a warp: on a kernel argument, on the work-group's id, and a loop
 * whose trip count comes from an argument. */
__kernel void uniform_branch(__global const int *a, int mode, __global int *out) {
  int i = get_global_id(0);
  int g = get_group_id(0);
  int r;
  if (mode == 1)
    r = a[i] + 1;
  else
    r = a[i] - 1;
  if (g % 2 == 0)
    r *= 2;
  for (int j = 0; j < mode + 2; j++)
    r += j;
  out[i] = r;
}
