/* Branches on the lane's position alone: alternate lanes, a prefix of the group, runs of 3. */
__kernel void varying_branch(__global int *out) {
  int lid = get_local_id(0), i = get_global_id(0);
  int r;
  if (lid % 2 == 0)
    r = lid;
  else
    r = -lid;
  if (lid < 5)
    r += 1000;
  if ((i / 3) % 2)
    r += 7;
  out[i] = r;
}
