/* Sub-groups are warps: the queries, reductions, scans, a broadcast and votes over whole warps;
 * branches on votes (uniform: no warp splits there); reductions under varying branches, over
 * the lanes that took them. Work-groups of 40: the last warp of each is short when W is 16 or
 * 32. */
__kernel void sub_groups(__global const int *a, __global const float *f, __global int *out,
                         __global float *fout) {
  int i = get_global_id(0), x = a[i];
  __global int *o = out + 13 * i;
  o[0] = get_sub_group_size() * 1000 + get_max_sub_group_size();
  o[1] = get_num_sub_groups() * 1000 + get_sub_group_id();
  o[2] = get_sub_group_local_id();
  o[3] = sub_group_reduce_add(x);
  o[4] = sub_group_reduce_min(x) * 1000 + sub_group_reduce_max(x);
  o[5] = sub_group_scan_inclusive_add(x);
  o[6] = sub_group_scan_exclusive_max(x);
  o[7] = sub_group_scan_exclusive_min(x);
  o[8] = sub_group_broadcast(x, get_sub_group_size() - 1);
  o[9] = (int)sub_group_reduce_max((uint)x);
  int r = 0;
  if (sub_group_any(x > 90))
    r = 1;
  if (sub_group_all(x > -95))
    r += 2;
  o[10] = r;
  if (x > 0)
    o[11] = sub_group_reduce_add(x);
  else
    o[11] = -1;
  int m = -1;
  if (x % 3 == 0) /* the result is used after the branch: per lane there */
    m = sub_group_reduce_max(2 * x + 1); /* of a value the block computes */
  o[12] = m;
  fout[3 * i] = sub_group_reduce_add(f[i]);
  fout[3 * i + 1] = sub_group_scan_inclusive_min(f[i]);
  fout[3 * i + 2] = sub_group_scan_exclusive_add((float)x); /* exact in any order */
}
