/* The scheduler: runs one work-group to its end on the calling worker.
 *
 * A worker lays out one block per launch and reuses it for every work-group it runs: the warps'
 * weft_warp_ctx, their frames, their policy states and counters. The work-group's __local
 * memory is a buffer of its own (weft_buffer_alloc), between guard regions: a kernel that
 * indexes past either end of it faults, where it would otherwise write over the scheduler's
 * state or the heap. Each work-group starts from zeroed local memory, and generated code reads
 * a frame value only where its lanes stored it (start_warp), so a run does not depend on which
 * worker ran which work-group before.
 *
 * Every warp's first call runs without its policy, chained to the next warp's (first_calls), so
 * warps that never diverge run a work-group in one call into generated code; a warp whose lanes
 * all reach a barrier there goes on after it still without its policy (resume_warp), so that a
 * work-group without divergence pays no policy call at its barriers. Then the loop runs
 * every warp's runnable splits (greedily, a warp until its policy has nothing left to run) and
 * hands each event of the warp function to the policy. When no warp can run, every work-item has
 * either finished or waits: if all of them wait at a barrier (any barrier: arrivals count per
 * work-group, DESIGN.md), the barrier completes and the loop goes on; if all finished, the
 * work-group is done; anything else can never make progress and is reported
 * (WEFT_ERROR_BARRIER_DEADLOCK). Each round either ends, fails, or
 * completes a barrier, so the loop itself never spins. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define NO_BARRIER UINT32_MAX
#define NO_RESUME UINT32_MAX
#define RESUME_WAITING (1u << 31) /* in warp_resume.pc until the barrier completes */

static weft_warp_ctx *warp_ctx(sched_worker *w, unsigned i) { return &w->ctx[i]; }
static void *warp_state(sched_worker *w, unsigned i) { return w->states + i * w->state_stride; }

static int mul_add(size_t *acc, size_t count, size_t stride) {
  size_t n;
  return __builtin_mul_overflow(count, stride, &n) || __builtin_add_overflow(*acc, n, acc);
}

/* Points the worker's buffers at the sizes of this launch, growing the block when needed. */
static void warp_setup_launch(sched_worker *w, const launch_plan *p, unsigned i);
static void group_setup_launch(sched_worker *w, const launch_plan *p);

static weft_status layout(sched_worker *w, const launch_plan *p) {
  const weft_compiled_kernel *k = p->k;
  size_t nw = p->nwarps, ctx_stride = rt_align64(sizeof(weft_warp_ctx));
  size_t need = 0;
  w->frame_stride = weft_frame_align(k->frame_size);
  w->state_stride = rt_align64(p->policy->state_size(k));
  if (w->frame_stride < k->frame_size || mul_add(&need, nw, ctx_stride) ||
      mul_add(&need, nw, w->frame_stride) || mul_add(&need, nw, w->state_stride) ||
      mul_add(&need, 1, rt_align64(nw * sizeof(warp_start))) ||
      mul_add(&need, 1, rt_align64(nw * sizeof(policy_counters))) ||
      mul_add(&need, 1, rt_align64(nw * sizeof(struct warp_resume))) ||
      mul_add(&need, 1, rt_align64(nw)) || weft_frame_align(need) < need ||
      rt_align64(p->local_bytes) < p->local_bytes)
    return WEFT_ERROR_OUT_OF_MEMORY;
  need = weft_frame_align(need); /* so that the block, from cap - need, starts on a frame's line */
  if (need > w->cap) {
    weft_buffer_free(w->buf, w->cap);
    w->cap = 0;
    w->buf = weft_buffer_alloc(need);
    if (!w->buf) return WEFT_ERROR_OUT_OF_MEMORY;
    w->cap = need;
  }
  if (p->local_bytes > w->local_cap || !w->local_buf) {
    weft_buffer_free(w->local_buf, w->local_cap);
    w->local_cap = 0;
    w->local_buf = weft_buffer_alloc(p->local_bytes);
    if (!w->local_buf) return WEFT_ERROR_OUT_OF_MEMORY;
    w->local_cap = p->local_bytes;
  }
  /* it ends where its buffer does, at the guard: an overrun faults at once */
  w->local_mem = w->local_buf + rt_align64(w->local_cap) - rt_align64(p->local_bytes);
  char *at = w->buf + (w->cap - need); /* weft_buffer_alloc'd: the frames' alignment */
  w->frames = at, at += nw * w->frame_stride;
  w->ctx = (weft_warp_ctx *)at, at += nw * ctx_stride;
  w->states = at, at += nw * w->state_stride;
  w->start = (warp_start *)at, at += rt_align64(nw * sizeof(warp_start));
  w->pcount = (policy_counters *)at, at += rt_align64(nw * sizeof(policy_counters));
  memset(w->pcount, 0, nw * sizeof(policy_counters));
  w->resume = (struct warp_resume *)at, at += rt_align64(nw * sizeof(struct warp_resume));
  w->ended = (unsigned char *)at;
  w->serial = p->serial;
  for (unsigned i = 0; i < p->nwarps; i++) warp_setup_launch(w, p, i);
  group_setup_launch(w, p);
  return WEFT_SUCCESS;
}

/* Once per launch on this worker: the parts of weft_group that every work-group shares. */
static void group_setup_launch(sched_worker *w, const launch_plan *p) {
  weft_group *g = &w->group;
  memset(g, 0, sizeof *g);
  g->args = p->args, g->local_mem = w->local_mem, g->work_dim = p->dims;
  for (int d = 0; d < 3; d++) {
    g->local_size[d] = p->local[d];
    g->global_size[d] = p->global[d];
    g->num_groups[d] = p->num_groups[d];
    g->global_offset[d] = p->offset[d];
  }
  g->x_aligned = (uint32_t)p->x_aligned;
  g->stop = p->stop;
}

static void group_setup(sched_worker *w, const launch_plan *p, uint64_t index) {
  weft_group *g = &w->group;
  uint64_t nx = p->num_groups[0], ny = p->num_groups[1];
  if (nx * ny == p->ngroups) { /* 1-D and 2-D: no 64-bit division by ny, none at all in 1-D */
    g->group_id[0] = ny == 1 ? index : index % nx;
    g->group_id[1] = ny == 1 ? 0 : index / nx;
  } else {
    g->group_id[0] = index % nx;
    g->group_id[1] = index / nx % ny;
    g->group_id[2] = index / (nx * ny);
  }
  if (p->local_bytes) memset(w->local_mem, 0, p->local_bytes); /* most kernels have none */
  w->whole_arrivals = 0;
  for (unsigned i = 0; i < p->nwarps; i++) w->resume[i].pc = NO_RESUME;
}

/* The lanes of warp i that are work-items: all but the tail of the last warp. */
static uint64_t live_mask(const launch_plan *p, unsigned i) { return p->live[i + 1 == p->nwarps]; }

/* Once per launch on this worker: what is the same for warp i in every work-group, its lanes'
 * local ids above all, which cost divisions, and how its ctx starts (w->start[i]): at PC 0 with
 * its live lanes, the guard at the kernel's end, and `chain` at the next warp of the group. The
 * policy starts after the first call (after_first_call), unless the code takes the policy's
 * steps: then its state starts at the first (kernel.h). */
static void warp_setup_launch(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  unsigned width = p->k->warp;
  uint64_t lx = p->local[0], ly = p->local[1];
  memset(c, 0, sizeof *c);
  c->group = &w->group;
  c->frame = w->frames + i * w->frame_stride;
  c->counting = p->counting;
  c->mask = live_mask(p, i), c->guard = p->k->nblocks;
  c->chain = i + 1 < p->nwarps ? warp_ctx(w, i + 1) : NULL;
  c->regions = p->regions, c->steps = p->steps, c->kernel = p->k;
  c->ahead = UINT32_MAX; /* the warp is one split */
  if (p->steps) c->policy = warp_state(w, i), c->counters = &w->pcount[i];
  memcpy(w->start[i].bytes, c, WARP_START_BYTES);
  for (unsigned lane = 0; lane < width; lane++) {
    uint64_t linear = (uint64_t)i * width + lane;
    if (linear >= p->group_items) break;
    c->lid[0][lane] = (uint32_t)(linear % lx);
    c->lid[1][lane] = (uint32_t)(linear / lx % ly);
    c->lid[2][lane] = (uint32_t)(linear / (lx * ly));
  }
}

#define BARRIER_AT_BUF 256
/* Where the barrier that ends block pc is: "FILE:LINE", or "line LINE" when the file is not
 * known ("line 0": neither is). */
static const char *barrier_at(char *buf, size_t n, const weft_compiled_kernel *k, uint32_t pc) {
  uint32_t line = pc < k->nblocks && k->barrier_line ? k->barrier_line[pc] : 0;
  if (k->file) snprintf(buf, n, "%s:%u", k->file, line);
  else snprintf(buf, n, "line %u", line);
  return buf;
}

/* "warp 1 of work-group (0,2,0)", or just the work-group when warp < 0. */
static void where(char *buf, size_t n, const sched_worker *w, int warp) {
  const uint64_t *id = w->group.group_id;
  int used = warp < 0 ? 0 : snprintf(buf, n, "warp %d of ", warp);
  snprintf(buf + used, n - (size_t)used, "work-group (%llu,%llu,%llu)", (unsigned long long)id[0],
           (unsigned long long)id[1], (unsigned long long)id[2]);
}

/* Checks what the warp function returned against kernel.h, so that a bad event is an error, not
 * an out-of-bounds access in a policy. */
static int event_ok(const weft_compiled_kernel *k, const weft_warp_ctx *c) {
  if (c->from_pc >= k->nblocks) return 0;
  if (c->event == WEFT_EVENT_BARRIER) return c->target_pc[0] <= k->nblocks;
  if (c->event != WEFT_EVENT_BRANCH || c->ntargets < 1 || c->ntargets > k->warp) return 0;
  uint64_t seen = 0;
  for (unsigned t = 0; t < c->ntargets; t++) {
    uint64_t m = c->target_mask[t];
    if (c->target_pc[t] > k->nblocks || !m || (m & seen)) return 0;
    if (t && c->target_pc[t] <= c->target_pc[t - 1]) return 0;
    seen |= m;
  }
  return seen == c->mask;
}

static weft_status event_error(sched_worker *w, const launch_plan *p, unsigned i, weft_status s) {
  const weft_compiled_kernel *k = p->k;
  const weft_warp_ctx *c = warp_ctx(w, i);
  char at[96], m[WEFT_MASK_CHARS], live[WEFT_MASK_CHARS], bar[BARRIER_AT_BUF];
  barrier_at(bar, sizeof bar, k, c->from_pc);
  where(at, sizeof at, w, (int)i);
  weft_mask_string(m, c->mask, k->warp);
  weft_mask_string(live, live_mask(p, i), k->warp);
  if (s == WEFT_ERROR_DIVERGENT_BARRIER)
    return rt_error(w->err, sizeof w->err, s,
                    "divergent barrier in kernel '%s' at %s: %s reached it with lanes %s of "
                    "%s (policy '%s' needs the whole warp there)",
                    k->name, bar, at, m, live, p->policy->name);
  if (s == WEFT_ERROR_BARRIER_DEADLOCK)
    return rt_error(w->err, sizeof w->err, s,
                    "barrier in kernel '%s' at %s can never complete: work-items of %s "
                    "returned before reaching it (lanes %s of %s reached it)",
                    k->name, bar, at, m, live);
  if (s == WEFT_ERROR_OUT_OF_MEMORY)
    return rt_error(w->err, sizeof w->err, s,
                    "kernel '%s': the tables of policy '%s' are full and cannot grow (out of "
                    "memory) after block %u of %s (lanes %s)",
                    k->name, p->policy->name, c->from_pc, at, m);
  return rt_error(w->err, sizeof w->err, s,
                  "kernel '%s': bad event %u from block %u of %s (ntargets %u, lanes %s); a "
                  "code generation bug",
                  k->name, c->event, c->from_pc, at, c->ntargets, m);
}

static weft_status hand_event(sched_worker *w, const launch_plan *p, unsigned i) {
  const weft_policy_ops *ops = p->policy;
  weft_warp_ctx *c = warp_ctx(w, i);
  void *st = warp_state(w, i);
  weft_status s = WEFT_ERROR_JIT;
  if (event_ok(p->k, c))
    s = c->event == WEFT_EVENT_BRANCH ? ops->branch(st, c, &w->pcount[i])
                                      : ops->barrier_arrive(st, c, &w->pcount[i]);
  if (s != WEFT_SUCCESS) return event_error(w, p, i, s);
  w->whole_arrivals += c->event == WEFT_EVENT_BARRIER && c->mask == live_mask(p, i);
  return WEFT_SUCCESS;
}

/* Tells the policy what the branches the code ran masked under WEFT_REGIONS_LOWEST_PC changed
 * (st NULL: the warp ended in its first call, before its state started: only the counts
 * matter). Each call of the warp function starts with region_diverged 0. */
static void regions_ran(sched_worker *w, const launch_plan *p, unsigned i, void *st) {
  weft_warp_ctx *c = warp_ctx(w, i);
  if (!(p->regions & WEFT_REGIONS_LOWEST_PC) || !(c->region_splits || (st && c->region_diverged)))
    return;
  p->policy->regions_ran(st, c, &w->pcount[i]);
  c->region_splits = c->region_entries = c->region_opens = 0, c->region_left = 0;
}

/* Whether warp i is at a barrier without its policy state: waiting there, or released and not
 * run yet (between the loop's rounds of run_warp, only waiting). */
static int policy_free(const sched_worker *w, unsigned i) { return w->resume[i].pc != NO_RESUME; }

/* A warp whose policy never started arrived at a barrier with all its lanes: it waits there as
 * it is, and goes on after the barrier still without its policy (resume_warp). All the policy
 * would have done is hold the warp's one split at the barrier. */
static int wait_without_policy(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  if (c->event != WEFT_EVENT_BARRIER || c->started || c->mask != live_mask(p, i) ||
      c->region_diverged || c->region_left || !event_ok(p->k, c))
    return 0;
  regions_ran(w, p, i, NULL); /* its counts */
  w->resume[i] = (struct warp_resume){c->from_pc, c->target_pc[0] | RESUME_WAITING};
  w->ended[i] = 0;
  w->whole_arrivals++;
  w->pcount[i].policy_calls++; /* the arrival, a policy call wherever it is taken */
  return 1;
}

/* The first call of every warp runs without the policy: every policy starts a warp as all its
 * lanes at PC 0 with nothing published, and most warps of most kernels end in that one call
 * (no divergent branch, no barrier), after which there is nothing to decide. A warp that did
 * not end is handed to its policy with that call's event, as if the policy had started it.
 * The same goes for a call that resumed a warp after a barrier without its policy (resumed):
 * its policy too starts with the lanes at PC 0, where they are not, but the call's event moves
 * every lane the policy has (the call ran them all, and took no step), so where it had them
 * does not matter; only a stopped warp is reported as it is, without its policy. */
static weft_status after_first_call(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  uint64_t live = live_mask(p, i);
  uint32_t end = p->k->nblocks;
  int resumed = policy_free(w, i);
  w->resume[i].pc = NO_RESUME;
  if (wait_without_policy(w, p, i)) return WEFT_SUCCESS;
  if (c->event == WEFT_EVENT_STOPPED && resumed && !c->started) c->policy = NULL;
  if (c->policy && !c->started && c->event != WEFT_EVENT_HANDLED) { /* the code took no step */
    p->policy->init(c->policy, p->k, &p->cfg, live);
    c->started = 1;
  }
  if (c->event == WEFT_EVENT_STOPPED) { /* a warp without a policy state counts as ended, so */
    w->ended[i] = !c->policy; /* that nothing releases a state it never had */
    return watchdog_report(w, p, i, c->policy != NULL);
  }
  c->chain = NULL; /* the policy's calls run this warp alone */
  if (c->policy) { /* the code took the policy's steps in the call */
    /* finished: nothing to free when its state never started, or has no release */
    w->ended[i] = c->event == WEFT_EVENT_HANDLED && (!c->started || !p->policy->release);
    return c->event == WEFT_EVENT_BARRIER || c->event == WEFT_EVENT_BRANCH ? hand_event(w, p, i)
                                                                           : WEFT_SUCCESS;
  }
  w->ended[i] = c->event == WEFT_EVENT_BRANCH && c->ntargets == 1 && c->target_pc[0] == end &&
                c->target_mask[0] == live && c->from_pc < end;
  if (w->ended[i]) return regions_ran(w, p, i, NULL), WEFT_SUCCESS;
  void *st = warp_state(w, i);
  uint32_t pc, guard;
  uint64_t mask;
  p->policy->init(st, p->k, &p->cfg, live);
  if (!p->policy->next(st, &pc, &mask, &guard) || pc != 0 || mask != live || guard != end)
    return rt_error(w->err, sizeof w->err, WEFT_ERROR_JIT,
                    "policy '%s' does not start a warp at PC 0 with all its lanes",
                    p->policy->name);
  regions_ran(w, p, i, st);
  return hand_event(w, p, i);
}

/* Per work-group, before warp i's first call. The frame needs no clearing: generated code reads
 * a frame value only for the lanes that stored it, where they stopped (values live at the
 * resume PC). The counters in the warp's ctx and pcount run on over the launch's work-groups
 * (sched_collect sums them once). */
static void start_warp(sched_worker *w, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  memcpy(c, w->start[i].bytes, WARP_START_BYTES);
  c->region_diverged = c->region_opens = 0;
}

/* One warp's first call on its own (the untraced warps of a traced work-group). */
static weft_status first_call(sched_worker *w, const launch_plan *p, unsigned i) {
  start_warp(w, i);
  warp_ctx(w, i)->chain = NULL;
  p->run(warp_ctx(w, i));
  return after_first_call(w, p, i);
}

/* The first calls, chained: each warp starts at PC 0 with its live lanes and ctx->chain pointing
 * at the next warp, and a warp that ends there goes on with the next one inside the generated
 * code (a tail call) instead of coming back here: a kernel without divergence runs a whole
 * work-group in one call. A call returns with the warp that did not end (its event set), or
 * with the last one; the warps it went through before ended and stored no event. Sets
 * *started to the warps whose first call is done. */
static weft_status first_calls(sched_worker *w, const launch_plan *p, unsigned *started,
                               unsigned *ended) {
  /* counted in locals: w->ended's bytes may alias anything, so *started and *ended would be
   * stored and loaded again at every warp */
  unsigned n = p->nwarps, i = 0, done = 0;
  uint32_t regions = p->regions & WEFT_REGIONS_LOWEST_PC;
  for (unsigned k = 0; k < n; k++) start_warp(w, k);
  weft_status s = WEFT_SUCCESS;
  while (i < n && s == WEFT_SUCCESS) {
    p->run(warp_ctx(w, i));
    for (; i + 1 < n && warp_ctx(w, i)->event == 0; i++) {
      w->ended[i] = 1, done++;
      if (regions) regions_ran(w, p, i, NULL);
    }
    s = after_first_call(w, p, i);
    done += w->ended[i++];
  }
  *started = i, *ended += done;
  return s;
}

/* Whether the launch must stop (watchdog.c). Checked wherever the runtime lets a warp go on,
 * as the generated code checks at its back edges: a warp can loop through either. Relaxed: the
 * flag only ever goes from 0 to a reason, and nothing else is read through it. */
static int stopping(const launch_plan *p) {
  return atomic_load_explicit(p->stop, memory_order_relaxed) != WATCH_RUN;
}

/* Warp i stops at the split in its ctx (pc, mask), as the generated code stops a split the
 * policy picked (kernel.h, WEFT_EVENT_STOPPED). */
static weft_status stop_split(sched_worker *w, const launch_plan *p, unsigned i, int has_policy) {
  weft_warp_ctx *c = warp_ctx(w, i);
  c->event = WEFT_EVENT_STOPPED, c->from_pc = c->target_pc[0] = c->pc, c->ntargets = 0;
  c->target_mask[0] = c->mask;
  return watchdog_report(w, p, i, has_policy);
}

/* ---- traced warps (trace.c) ---- */

static int traced(const sched_worker *w, const launch_plan *p, unsigned i) {
  return w->traced && trace_wants(p->trace, i);
}

/* Runs the split in c (pc, mask; the policy's guard apart) step by step: with guard 0 the
 * generated code returns at every forward branch. A branch to one target below the policy's
 * guard is one the policy never sees in an untraced run: the split goes on there without it, so
 * the policy, the counters and the results are those of an untraced run. */
static weft_status run_split_traced(sched_worker *w, const launch_plan *p, unsigned i,
                                    uint32_t guard) {
  weft_warp_ctx *c = warp_ctx(w, i);
  const void *st = warp_state(w, i);
  for (;;) {
    trace_mark m;
    trace_begin(&m, c, &w->pcount[i]);
    c->guard = 0, c->event = 0, c->ntargets = 0;
    p->run(c);
    if (c->event == WEFT_EVENT_STOPPED) return watchdog_report(w, p, i, 1);
    int inline_ = c->event == WEFT_EVENT_BRANCH && c->ntargets == 1 && c->target_pc[0] < guard &&
                  c->from_pc < p->k->nblocks && c->target_mask[0] == c->mask;
    weft_status s = inline_ ? WEFT_SUCCESS : hand_event(w, p, i);
    trace_step(p->trace, p, i, c, &m, inline_, &w->pcount[i], st);
    if (!inline_ || s != WEFT_SUCCESS) return s;
    c->pc = c->target_pc[0];
  }
}

/* A traced warp's first call goes through its policy from the start (which costs the policy
 * nothing it counts: reaching the end is not a policy call), so every step shows its state. */
static weft_status first_call_traced(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  uint32_t guard;
  c->chain = NULL, c->policy = NULL, c->regions = 0; /* every step returns, to be traced */
  p->policy->init(warp_state(w, i), p->k, &p->cfg, live_mask(p, i));
  if (!p->policy->next(warp_state(w, i), &c->pc, &c->mask, &guard)) return WEFT_SUCCESS;
  return run_split_traced(w, p, i, guard);
}

static weft_status run_warp_traced(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  uint32_t guard;
  while (p->policy->next(warp_state(w, i), &c->pc, &c->mask, &guard)) {
    weft_status s = stopping(p) ? stop_split(w, p, i, 1) : run_split_traced(w, p, i, guard);
    if (s != WEFT_SUCCESS) return s;
  }
  return WEFT_SUCCESS;
}

/* Warp i goes on after the barrier it waited at without its policy, as in its first call: all
 * its lanes, the guard at the kernel's end, the policy's state not started. */
static weft_status resume_warp(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  uint32_t pc = w->resume[i].pc;
  if (pc >= p->k->nblocks) /* a barrier that ends the kernel */
    return w->resume[i].pc = NO_RESUME, w->ended[i] = 1, WEFT_SUCCESS;
  start_warp(w, i);
  c->pc = pc, c->chain = NULL;
  if (stopping(p)) return w->resume[i].pc = NO_RESUME, w->ended[i] = 1, stop_split(w, p, i, 0);
  w->counters.round_trips++;
  p->run(c);
  return after_first_call(w, p, i);
}

/* Runs warp i until its policy has no runnable split. */
static weft_status run_warp(sched_worker *w, const launch_plan *p, unsigned i) {
  weft_warp_ctx *c = warp_ctx(w, i);
  void *st = warp_state(w, i);
  if (w->ended[i]) return WEFT_SUCCESS;
  if (policy_free(w, i)) {
    if (w->resume[i].pc & RESUME_WAITING) return WEFT_SUCCESS;
    weft_status s = resume_warp(w, p, i);
    if (s != WEFT_SUCCESS || w->ended[i] || policy_free(w, i)) return s;
  } /* else its policy started there: on with it */
  if (traced(w, p, i)) return run_warp_traced(w, p, i);
  while (p->policy->next(st, &c->pc, &c->mask, &c->guard)) {
    if (stopping(p)) return stop_split(w, p, i, 1);
    c->event = 0, c->ntargets = 0;
    w->counters.round_trips++;
    if (p->regions & WEFT_REGIONS_LOWEST_PC)
      c->ahead = p->policy->ahead(st), c->region_diverged = 0;
    p->run(c);
    regions_ran(w, p, i, st);
    if (c->event == WEFT_EVENT_HANDLED) return WEFT_SUCCESS; /* the warp finished */
    if (c->event == WEFT_EVENT_NEXT) continue; /* the policy took the events */
    if (c->event == WEFT_EVENT_STOPPED) return watchdog_report(w, p, i, 1);
    weft_status s = hand_event(w, p, i);
    if (s != WEFT_SUCCESS) return s;
  }
  return WEFT_SUCCESS;
}

/* What the warps that cannot run are doing. */
typedef struct group_view {
  uint64_t waiting, finished; /* any lanes of any warp */
  uint32_t barrier_pc; /* the first barrier waited at, or NO_BARRIER */
  int stuck_warp; /* a warp with lanes neither waiting nor finished, or -1 */
  uint64_t stuck_lanes;
} group_view;

static group_view look(sched_worker *w, const launch_plan *p) {
  group_view v = {0, 0, NO_BARRIER, -1, 0};
  for (unsigned i = 0; i < p->nwarps; i++) {
    const void *st = warp_state(w, i);
    uint32_t pc = NO_BARRIER;
    uint64_t wait = 0, fin = 0;
    if (w->ended[i]) fin = live_mask(p, i);
    else if (policy_free(w, i)) wait = live_mask(p, i), pc = w->resume[i].barrier;
    else wait = p->policy->barrier_waiting(st, &pc), fin = p->policy->finished(st);
    uint64_t stuck = live_mask(p, i) & ~wait & ~fin;
    if (wait && v.barrier_pc == NO_BARRIER) v.barrier_pc = pc;
    if (stuck && v.stuck_warp < 0) v.stuck_warp = (int)i, v.stuck_lanes = stuck;
    v.waiting |= wait, v.finished |= fin;
  }
  return v;
}

static weft_status deadlock(sched_worker *w, const launch_plan *p, const group_view *v) {
  const weft_compiled_kernel *k = p->k;
  char at[96], m[WEFT_MASK_CHARS], bar[BARRIER_AT_BUF];
  barrier_at(bar, sizeof bar, k, v->barrier_pc);
  where(at, sizeof at, w, v->stuck_warp);
  if (v->stuck_warp >= 0)
    return rt_error(w->err, sizeof w->err, WEFT_ERROR_BARRIER_DEADLOCK,
                    "barrier in kernel '%s' at %s can never complete: lanes %s of %s "
                    "cannot reach it under policy '%s'",
                    k->name, bar, weft_mask_string(m, v->stuck_lanes, k->warp), at,
                    p->policy->name);
  return rt_error(w->err, sizeof w->err, WEFT_ERROR_BARRIER_DEADLOCK,
                  "barrier in kernel '%s' at %s can never complete: some work-items of %s "
                  "returned before reaching it",
                  k->name, bar, at);
}

static weft_status release_barrier(sched_worker *w, const launch_plan *p) {
  for (unsigned i = 0; i < p->nwarps; i++)
    if (policy_free(w, i)) w->resume[i].pc &= ~RESUME_WAITING;
    else if (!w->ended[i]) p->policy->barrier_release(warp_state(w, i), &w->pcount[i]);
  w->whole_arrivals = 0;
  w->counters.barriers++;
  return WEFT_SUCCESS;
}

/* What look() finds when the `running` warps that did not end in their first call all arrived
 * at a barrier with every live lane, as a work-group without divergence does at each barrier:
 * the barrier completes. Then look() need not ask every warp's policy twice. */
static int all_arrived_whole(const sched_worker *w, unsigned running) {
  return running && w->whole_arrivals == running;
}

/* No warp can run: finish, complete the barrier, or report why nothing can move. */
static weft_status settle_group(sched_worker *w, const launch_plan *p, unsigned running,
                                int *done) {
  if (all_arrived_whole(w, running)) return release_barrier(w, p);
  group_view v = look(w, p);
  if (!v.waiting && v.stuck_warp < 0) return *done = 1, WEFT_SUCCESS;
  if (!v.waiting) { /* lanes neither runnable, waiting nor finished: a policy bug */
    char at[96], m[WEFT_MASK_CHARS];
    where(at, sizeof at, w, v.stuck_warp);
    return rt_error(w->err, sizeof w->err, WEFT_ERROR_BARRIER_DEADLOCK,
                    "kernel '%s': policy '%s' left lanes %s of %s unable to run", p->k->name,
                    p->policy->name, weft_mask_string(m, v.stuck_lanes, p->k->warp), at);
  }
  /* Arrivals count per work-group, not per barrier block (DESIGN.md): warps, or splits, at
   * different barriers go on together, as on a GPU since Volta. */
  if (v.finished || v.stuck_warp >= 0) return deadlock(w, p, &v);
  return release_barrier(w, p);
}

weft_status sched_run_group(sched_worker *w, const launch_plan *p, uint64_t index) {
  if (w->serial != p->serial && layout(w, p) != WEFT_SUCCESS)
    return rt_error(w->err, sizeof w->err, WEFT_ERROR_OUT_OF_MEMORY,
                    "out of memory for the warps and local memory of kernel '%s' (%u warps, "
                    "%zu bytes of frame per warp, %zu bytes of local memory)",
                    p->k->name, p->nwarps, p->k->frame_size, p->local_bytes);
  uint32_t stop = atomic_load_explicit(p->stop, memory_order_relaxed);
  if (stop != WATCH_RUN) /* no warp of it ran: nothing to report but that */
    return rt_error(w->err, sizeof w->err, watchdog_status(stop),
                    "the launch stopped before work-group %llu started", (unsigned long long)index);
  group_setup(w, p, index);
  weft_status s = WEFT_SUCCESS;
  unsigned ended = 0, started = 0;
  w->traced = p->trace && index == p->trace->opts->group;
  if (w->traced) /* warp by warp, so that each traced warp's every step shows */
    for (; started < p->nwarps && s == WEFT_SUCCESS; started++) {
      w->ended[started] = 0;
      s = traced(w, p, started) ? first_call_traced(w, p, started) : first_call(w, p, started);
      ended += w->ended[started];
    }
  else s = first_calls(w, p, &started, &ended);
  for (int done = ended == p->nwarps; !done && s == WEFT_SUCCESS;) {
    for (unsigned i = 0; i < p->nwarps && s == WEFT_SUCCESS; i++) s = run_warp(w, p, i);
    if (s == WEFT_SUCCESS) s = settle_group(w, p, p->nwarps - ended, &done);
  }
  for (unsigned i = 0; p->policy->release && i < started; i++) /* the warps that had an init */
    if (!w->ended[i] && !policy_free(w, i)) p->policy->release(warp_state(w, i));
  w->counters.work_groups++;
  w->counters.warps += p->nwarps;
  return s;
}

void sched_collect(sched_worker *w, const launch_plan *p) {
  if (w->serial != p->serial) return; /* this worker ran no work-group of the launch */
  for (unsigned i = 0; i < p->nwarps; i++)
    counters_add_warp(&w->counters, warp_ctx(w, i), &w->pcount[i]);
}

void sched_worker_free(sched_worker *w) {
  free(w->report);
  w->report = NULL;
  weft_buffer_free(w->buf, w->cap);
  weft_buffer_free(w->local_buf, w->local_cap);
  w->buf = w->local_buf = NULL;
  w->cap = w->local_cap = 0;
  w->serial = 0;
}
