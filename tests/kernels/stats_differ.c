/* See stats_differ.h. */
#include "stats_differ.h"

const char *stats_differ(const weft_stats *a, const weft_stats *b) {
#define SAME(f) \
  if (a->f != b->f) return #f
  SAME(work_groups);
  SAME(warps);
  SAME(block_execs);
  SAME(instr_execs);
  SAME(lane_instrs);
  SAME(simd_efficiency);
  SAME(groups_run);
  SAME(groups_skipped);
  SAME(divergent_branches);
  SAME(reconvergences);
  SAME(policy_calls);
  SAME(barriers);
  SAME(early_reconvergences);
  SAME(max_splits_per_warp);
  SAME(avg_splits_per_warp);
  SAME(max_st_entries);
  SAME(max_rt_entries);
#undef SAME
  return NULL;
}
