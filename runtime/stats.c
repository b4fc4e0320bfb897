/* Counters. The warp function adds its block counts to its weft_warp_ctx, the policy counts into
 * a per-warp policy_counters; after the launch the scheduler adds both to its worker's
 * run_counters, and the launch sums the workers. Sums of integers, and maxima, so the stats of a
 * launch do not depend on how many workers ran it or in which order. */
#include "runtime.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void policy_add(policy_counters *sum, const policy_counters *c) {
  sum->divergent_branches += c->divergent_branches;
  sum->reconvergences += c->reconvergences;
  sum->early_reconvergences += c->early_reconvergences;
  sum->policy_calls += c->policy_calls;
  sum->split_excess += c->split_excess;
  sum->max_splits = max64(sum->max_splits, c->max_splits);
  sum->max_st_entries = max64(sum->max_st_entries, c->max_st_entries);
  sum->max_rt_entries = max64(sum->max_rt_entries, c->max_rt_entries);
}

void counters_add_warp(run_counters *c, const weft_warp_ctx *ctx, const policy_counters *pc) {
  c->block_execs += ctx->block_execs;
  c->instr_execs += ctx->instr_execs;
  c->lane_instrs += ctx->lane_instrs;
  c->groups_run += ctx->groups_run;
  policy_add(&c->policy, pc);
  c->policy.divergent_branches += ctx->region_divergent_branches;
  c->policy.reconvergences += ctx->region_reconvergences;
  c->policy.policy_calls += ctx->region_policy_calls;
}

void counters_add(run_counters *sum, const run_counters *part) {
  sum->work_groups += part->work_groups;
  sum->warps += part->warps;
  sum->barriers += part->barriers;
  sum->round_trips += part->round_trips;
  sum->block_execs += part->block_execs;
  sum->instr_execs += part->instr_execs;
  sum->lane_instrs += part->lane_instrs;
  sum->groups_run += part->groups_run;
  policy_add(&sum->policy, &part->policy);
}

void stats_fill(weft_stats *s, const run_counters *c, const weft_compiled_kernel *k, double ms) {
  uint64_t groups_per_block = k->warp / k->lanes;
  *s = (weft_stats){
      .time_ms = ms,
      .work_groups = c->work_groups,
      .warps = c->warps,
      .block_execs = c->block_execs,
      .instr_execs = c->instr_execs,
      .lane_instrs = c->lane_instrs,
      .simd_efficiency = c->instr_execs
                             ? (double)c->lane_instrs / ((double)k->warp * (double)c->instr_execs)
                             : 0,
      .groups_run = c->groups_run,
      .divergent_branches = c->policy.divergent_branches,
      .reconvergences = c->policy.reconvergences,
      .policy_calls = c->policy.policy_calls,
      .barriers = c->barriers,
      .round_trips = c->round_trips,
      .early_reconvergences = c->policy.early_reconvergences,
      .max_st_entries = c->policy.max_st_entries,
      .max_rt_entries = c->policy.max_rt_entries,
  };
  if (c->warps) { /* every warp starts as one split */
    s->max_splits_per_warp = max64(1, c->policy.max_splits);
    s->avg_splits_per_warp = 1 + (double)c->policy.split_excess / (double)c->warps;
  }
  uint64_t groups = c->block_execs * groups_per_block; /* a block run visits W/G lane groups */
  s->groups_skipped = groups > c->groups_run ? groups - c->groups_run : 0;
}

void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

void stats_write_json(FILE *f, const char *kernel, const weft_options *w, const weft_ndrange *r,
                      unsigned repeat, const weft_stats *st) {
  const struct {
    const char *name;
    uint64_t v;
  } counts[] = {
      {"work_groups", st->work_groups},
      {"warps", st->warps},
      {"block_execs", st->block_execs},
      {"instr_execs", st->instr_execs},
      {"lane_instrs", st->lane_instrs},
      {"groups_run", st->groups_run},
      {"groups_skipped", st->groups_skipped},
      {"divergent_branches", st->divergent_branches},
      {"reconvergences", st->reconvergences},
      {"policy_calls", st->policy_calls},
      {"barriers", st->barriers},
      {"early_reconvergences", st->early_reconvergences},
      {"round_trips", st->round_trips},
      {"max_splits_per_warp", st->max_splits_per_warp},
      {"max_st_entries", st->max_st_entries},
      {"max_rt_entries", st->max_rt_entries},
      {"max_splits", w->max_splits},
  };
  fputs("{\"kernel\": ", f);
  json_string(f, kernel ? kernel : "");
  fputs(", \"policy\": ", f);
  json_string(f, w->policy ? w->policy : "");
  fprintf(f, ", \"warp\": %u, \"lanes\": %u, \"threads\": %u", w->warp, w->lanes, w->threads);
  fputs(", \"split_order\": ", f);
  json_string(f, w->split_order ? w->split_order : "");
  fprintf(f, ", \"global\": [%zu, %zu, %zu], \"local\": [%zu, %zu, %zu], \"dims\": %u",
          r->global[0], r->global[1], r->global[2], r->local[0], r->local[1], r->local[2], r->dims);
  fprintf(f, ", \"repeat\": %u, \"time_ms\": %.6f, \"simd_efficiency\": %.6f", repeat, st->time_ms,
          st->simd_efficiency);
  fprintf(f, ", \"avg_splits_per_warp\": %.6f", st->avg_splits_per_warp);
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
    fprintf(f, ", \"%s\": %llu", counts[i].name, (unsigned long long)counts[i].v);
  fputs("}\n", f);
}
