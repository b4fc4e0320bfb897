/* cl_khr_subgroup_ballot, _non_uniform_vote, _shuffle and _shuffle_relative: over whole warps,
 * and under a divergent branch over the lanes that took it (the kernel's first branch: the
 * same lanes under every policy). Work-groups of 40: the last warp of each is short when W is
 * 16 or 32, and every warp has an even number of lanes, a multiple of 4 (xor 2 stays inside).
 * A shuffle from outside the sub-group is undefined, so such lanes keep 0. Last, each lane
 * reads its neighbour's value through __local memory after a sub_group_barrier (the neighbour
 * may be in another lane group, whose store must come first). 16 ints per item. */
__kernel void sub_group_lanes(__global const int *a, __global int *out, __local int *tmp) {
  int i = get_global_id(0), x = a[i];
  uint l = get_sub_group_local_id(), n = get_sub_group_size();
  __global int *o = out + 16 * i;
  uint4 b = sub_group_ballot(x > 0 || l == 0);
  o[0] = (int)b.x;
  o[1] = (int)(b.y ^ b.z ^ b.w);
  o[2] = (int)sub_group_ballot_bit_count(b);
  o[3] = (int)(sub_group_ballot_inclusive_scan(b) * 100 + sub_group_ballot_exclusive_scan(b));
  o[4] = (int)(sub_group_ballot_find_lsb(b) * 100 + sub_group_ballot_find_msb(b));
  o[5] = sub_group_inverse_ballot(b) + 2 * sub_group_ballot_bit_extract(b, (l + 1) % n);
  uint4 lt = get_sub_group_lt_mask(), ge = get_sub_group_ge_mask();
  uint4 le = get_sub_group_le_mask(), gt = get_sub_group_gt_mask(), eq = get_sub_group_eq_mask();
  o[6] = (int)(lt.x ^ (ge.x << 1) ^ (le.y * 3) ^ (gt.y * 5) ^ eq.x ^ (eq.y << 2) ^ lt.z ^ ge.w);
  o[7] = sub_group_shuffle(x, (l * 5 + 3) % n);
  o[8] = sub_group_shuffle(x, n - 1) + sub_group_non_uniform_broadcast(x, 1u);
  o[9] = sub_group_shuffle_xor(x, 1u) * 1000 + sub_group_shuffle_xor(x, 2u);
  int up = sub_group_shuffle_up(x, 1u), down = sub_group_shuffle_down(x, 2u);
  o[10] = l >= 1 ? up : 0;
  o[11] = l + 2 < n ? down : 0;
  o[12] = sub_group_elect() + 2 * sub_group_non_uniform_all(x > -95) +
          4 * sub_group_non_uniform_any(x > 95) + 8 * sub_group_non_uniform_all_equal(n) +
          16 * sub_group_non_uniform_all_equal(x) + 32 * sub_group_non_uniform_all_equal((float)n);
  o[13] = sub_group_broadcast_first(x * 2);
  if (x % 3 == 0) {
    uint4 d = sub_group_ballot(1);
    o[14] = (int)(d.x ^ d.y) + sub_group_elect() * 7 + sub_group_broadcast_first(x) * 11 +
            sub_group_non_uniform_all_equal(x % 3) * 13;
  } else {
    o[14] = -1;
  }
  tmp[get_local_id(0)] = x;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  o[15] = tmp[get_local_id(0) - l + (l + 1) % n];
}
