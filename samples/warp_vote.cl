// weft-run: -k voted -g 4096 -l 64 --arg i32[4096]=rand:1 --arg i32[4096]=zero --stats
/* Warp votes. A loop whose trip count differs between work-items diverges at its exit branch:
 * the lanes that are done wait while the others go round again, and the policy is called at
 * every exit. Voting with sub_group_any (a sub-group is a warp) keeps the warp together: it
 * loops while any of its lanes has work left, the lanes that are done add nothing, and no
 * branch depends on the lane (SIMD efficiency counts those lanes as active: 100%, though
 * they compute nothing). Both kernels compute the same; compare their stats:
 *
 *   weft run samples/warp_vote.cl -k per_lane     divergent branches, policy calls
 *   weft run samples/warp_vote.cl                 (-k voted) none of either
 */
__kernel void per_lane(__global const int *n, __global int *out) {
  int i = get_global_id(0), steps = n[i] % 16, s = 0;
  for (int k = 0; k < steps; k++)
    s += k * k;
  out[i] = s;
}

__kernel void voted(__global const int *n, __global int *out) {
  int i = get_global_id(0), steps = n[i] % 16, s = 0;
  for (int k = 0; sub_group_any(k < steps); k++)
    s += (k < steps) * k * k;
  out[i] = s;
}
