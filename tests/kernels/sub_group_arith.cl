/* cl_khr_subgroup_non_uniform_arithmetic and cl_khr_subgroup_clustered_reduce: over whole
 * warps, and under a divergent branch over the lanes that took it (the kernel's first branch:
 * the same lanes under every policy). Work-groups of 40, as sub_group_lanes: every warp has a
 * multiple of 4 lanes. 12 ints per item. */
__kernel void sub_group_arith(__global const int *a, __global int *out) {
  int i = get_global_id(0), x = a[i];
  uint two = (uint)(x & 1) + 1u;
  __global int *o = out + 12 * i;
  o[0] = (int)sub_group_non_uniform_reduce_mul(two);
  o[1] = sub_group_non_uniform_reduce_and(x);
  o[2] = sub_group_non_uniform_reduce_or(x);
  o[3] = sub_group_non_uniform_reduce_xor(x);
  o[4] = sub_group_non_uniform_reduce_logical_and(x > -90) +
         2 * sub_group_non_uniform_reduce_logical_or(x > 90) +
         4 * sub_group_non_uniform_reduce_logical_xor(x > 0);
  o[5] = sub_group_non_uniform_reduce_add(x) * 1000 + sub_group_non_uniform_reduce_max(x);
  o[6] = sub_group_non_uniform_scan_inclusive_xor(x);
  o[7] = (int)sub_group_non_uniform_scan_exclusive_mul(two);
  o[8] = sub_group_non_uniform_scan_inclusive_logical_or(x > 80);
  o[9] = sub_group_clustered_reduce_add(x, 4);
  o[10] = sub_group_clustered_reduce_xor(x, 2) * 1000 + sub_group_clustered_reduce_min(x, 4);
  if (x % 3 == 0)
    o[11] = sub_group_non_uniform_reduce_min(x) * 1000 + sub_group_clustered_reduce_add(1, 4);
  else
    o[11] = -1;
}
