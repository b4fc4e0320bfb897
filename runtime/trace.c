/* Traces: what a traced warp did at each step, handed to the launch's on_step callback.
 *
 * The scheduler runs a traced warp's splits with guard 0, so the generated code returns after
 * every block that ends in a forward branch (a back edge stays inline: a uniform loop is one
 * step); a branch that the policy would not have seen goes on at its target without the policy
 * (scheduler.c). Around each such call the scheduler marks the warp's counters (trace_begin)
 * and then reports the step (trace_step): its blocks, lanes and lane groups come from the
 * growth of the warp function's counters, its event from the warp function's event and the
 * growth of the policy's counters, and the policy's state is printed after it. Nothing here
 * writes to the warp or the policy, so a traced launch computes what an untraced one does. */
#include <stdlib.h>

#include "runtime.h"

const char *weft_trace_event_name(weft_trace_event event) {
  switch (event) {
  case WEFT_TRACE_EXECUTE: return "execute";
  case WEFT_TRACE_DIVERGE: return "diverge";
  case WEFT_TRACE_RECONVERGE: return "reconverge";
  case WEFT_TRACE_EARLY_RECONVERGENCE: return "early reconvergence";
  case WEFT_TRACE_BARRIER_WAIT: return "barrier wait";
  case WEFT_TRACE_EXIT: return "exit";
  }
  return "unknown";
}

int trace_wants(const trace_run *t, unsigned warp) {
  return t->opts->warp < 0 || (unsigned)t->opts->warp == warp;
}

void trace_begin(trace_mark *m, const weft_warp_ctx *c, const policy_counters *pc) {
  *m = (trace_mark){c->pc, c->block_execs, c->groups_run, pc->reconvergences,
                    pc->early_reconvergences};
}

static weft_trace_event classify(const weft_warp_ctx *c, unsigned nblocks, int inline_,
                                 unsigned reconv, unsigned early) {
  if (c->event == WEFT_EVENT_BARRIER) return WEFT_TRACE_BARRIER_WAIT;
  if (early) return WEFT_TRACE_EARLY_RECONVERGENCE;
  if (!inline_ && c->ntargets > 1) return WEFT_TRACE_DIVERGE;
  if (reconv) return WEFT_TRACE_RECONVERGE;
  if (c->target_pc[c->ntargets - 1] >= nblocks) return WEFT_TRACE_EXIT;
  return WEFT_TRACE_EXECUTE;
}

/* Source lines of blocks a..b (either may be unknown: 0). */
static void lines(const weft_compiled_kernel *k, uint32_t a, uint32_t b, uint32_t *first,
                  uint32_t *last) {
  *first = *last = 0;
  for (int i = 0; i < 2 && k->first_line && k->last_line; i++) {
    uint32_t pc = i ? b : a, f = k->first_line[pc], l = k->last_line[pc];
    if (f && (!*first || f < *first)) *first = f;
    if (l > *last) *last = l;
  }
}

/* The policy's state, printed by `print` into a malloc'd string ("" if memory ran out). */
static char *state_text(void (*print)(FILE *, const void *), const void *st) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) print(f, st), fclose(f);
  return text;
}

void trace_step(trace_run *t, const launch_plan *p, unsigned warp, const weft_warp_ctx *c,
                const trace_mark *m, int inline_, const policy_counters *pc, const void *st) {
  if (t->stopped) return;
  const weft_compiled_kernel *k = p->k;
  unsigned reconv = (unsigned)(pc->reconvergences - m->reconvergences);
  unsigned early = (unsigned)(pc->early_reconvergences - m->early_reconvergences);
  weft_trace_step s = {
      .step = t->steps++,
      .warp = warp,
      .width = k->warp,
      .pc = m->pc,
      .end_pc = c->from_pc,
      .mask = c->mask,
      .event = classify(c, k->nblocks, inline_, reconv, early),
      .ntargets = c->ntargets,
      .target_pc = c->target_pc,
      .target_mask = c->target_mask,
      .blocks = c->block_execs - m->block_execs,
      .groups_run = c->groups_run - m->groups_run,
      .reconvergences = reconv,
      .early_reconvergences = early,
  };
  for (int d = 0; d < 3; d++) s.group_id[d] = c->group->group_id[d];
  s.groups_skipped = s.blocks * (k->warp / k->lanes) - s.groups_run;
  lines(k, s.pc, s.end_pc, &s.first_line, &s.last_line);
  char *text = state_text(p->policy->print, st), *json = state_text(p->policy->print_json, st);
  s.state_text = text ? text : "";
  s.state_json = json ? json : "{}";
  if (t->opts->on_step(t->opts->user, &s)) t->stopped = 1;
  free(text);
  free(json);
}
