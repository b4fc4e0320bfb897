/* `stack`: the IPDOM reconvergence stack of Fung et al. (the MP paper's "SPS", its Figure 3).
 *
 * Each entry is (PC, RPC, mask): the lanes `mask` run from PC until they reach RPC, their
 * reconvergence point. Only the top entry runs; its RPC is the guard published to the warp
 * function. The bottom entry starts at PC 0 with RPC nblocks (the kernel's end) and the live lanes.
 *
 * On a divergent branch from block b with R = ipdom[b]: if R is the top's RPC (a loop exit, say),
 * the top entry is replaced by one entry per target other than R -- the lanes going to R already
 * wait in the entry below; otherwise the top entry waits at R (its PC becomes R) and one entry
 * (target, R, mask) is pushed per target other than R. The target with the larger PC is pushed
 * first, so the smaller PC runs first, as in the paper's figures. An entry pops when its PC reaches
 * its RPC; when the entry below it waits at that PC, its lanes have met: a reconvergence.
 *
 * Lanes that reach PC nblocks are finished for good; they are kept in `finished` and dropped from
 * every entry that becomes the top. Bound: the masks of the entries form a laminar family (a
 * pushed entry's mask is a strict subset of its parent's; siblings are disjoint and non-empty), so
 * there are never more than 2W-1 entries. The state has room for 2W and reports overflow anyway.
 *
 * A barrier must be reached by all the warp's live lanes together: part of the warp at a barrier
 * is a divergent barrier, or a deadlock when the missing lanes returned. */
#include <string.h>

#include "runtime.h"

typedef struct stack_entry {
  uint32_t pc, rpc;
  uint64_t mask;
} stack_entry;

/* Invariant: while depth > 0 the top entry has pc < nblocks, pc != rpc and a mask without
 * finished lanes (settle() restores it after every change). */
typedef struct stack_state {
  const weft_compiled_kernel *k;
  uint32_t depth, cap;
  uint64_t live, finished;
  uint32_t waiting;    /* the top entry waits at a barrier; its PC is where it resumes */
  uint32_t barrier_pc; /* the block the barrier ends */
  stack_entry e[];
} stack_state;

static size_t stack_state_size(const weft_compiled_kernel *k) {
  return sizeof(stack_state) + 2 * (size_t)k->warp * sizeof(stack_entry);
}

static void stack_init(void *st, const weft_compiled_kernel *k, const policy_config *cfg,
                       uint64_t live) {
  (void)cfg;
  stack_state *s = st; /* entries past the depth are never read: no clearing */
  *s = (stack_state){.k = k, .cap = 2 * k->warp, .live = live, .depth = 1};
  s->e[0] = (stack_entry){0, k->nblocks, live};
}

/* Pops the entries that arrived: at the kernel's end, at their RPC, or with no lanes left. */
static void settle(stack_state *s, policy_counters *c) {
  while (s->depth > 0) {
    stack_entry *top = &s->e[s->depth - 1];
    if (top->pc >= s->k->nblocks) s->finished |= top->mask;
    top->mask &= ~s->finished;
    if (top->mask && top->pc != top->rpc) return;
    uint32_t rpc = top->rpc, met = top->mask && top->pc == rpc;
    s->depth--;
    if (met && s->depth > 0 && s->e[s->depth - 1].pc == rpc) c->reconvergences++;
  }
}

static int stack_next(void *st, uint32_t *pc, uint64_t *mask, uint32_t *guard) {
  stack_state *s = st;
  if (s->waiting || s->depth == 0) return 0;
  const stack_entry *top = &s->e[s->depth - 1];
  *pc = top->pc, *mask = top->mask, *guard = top->rpc;
  return 1;
}

static weft_status diverge(stack_state *s, const weft_warp_ctx *ctx, policy_counters *c) {
  uint32_t r = s->k->ipdom[ctx->from_pc];
  stack_entry *top = &s->e[s->depth - 1];
  for (unsigned t = 0; t < ctx->ntargets; t++)
    if (ctx->target_pc[t] >= s->k->nblocks) s->finished |= ctx->target_mask[t];
  if (r == top->rpc) s->depth--; /* replaced: lanes going to R already wait in the entry below */
  else top->pc = r;
  for (unsigned t = ctx->ntargets; t-- > 0;) { /* targets in PC order: the smallest ends on top */
    if (ctx->target_pc[t] == r) continue;
    if (s->depth == s->cap) return WEFT_ERROR_JIT; /* only with an inconsistent ipdom table */
    s->e[s->depth++] = (stack_entry){ctx->target_pc[t], r, ctx->target_mask[t]};
  }
  c->divergent_branches++;
  settle(s, c);
  return WEFT_SUCCESS;
}

/* The split arrives at its guard, target_pc[0] (reaching the kernel's end is no policy call). */
static weft_status arrive(stack_state *s, const weft_warp_ctx *ctx, policy_counters *c) {
  if (ctx->target_pc[0] < s->k->nblocks) c->policy_calls++;
  s->e[s->depth - 1].pc = ctx->target_pc[0];
  settle(s, c);
  return WEFT_SUCCESS;
}

static weft_status stack_branch(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  stack_state *s = st;
  if (ctx->ntargets == 1) return arrive(s, ctx, c);
  c->policy_calls++;
  return diverge(s, ctx, c);
}

static weft_status stack_barrier_arrive(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  stack_state *s = st;
  c->policy_calls++;
  uint64_t missing = s->live & ~ctx->mask;
  if (missing & ~s->finished) return WEFT_ERROR_DIVERGENT_BARRIER;
  if (missing) return WEFT_ERROR_BARRIER_DEADLOCK; /* the missing lanes returned */
  s->waiting = 1;
  s->barrier_pc = ctx->from_pc;
  s->e[s->depth - 1].pc = ctx->target_pc[0];
  return WEFT_SUCCESS;
}

static uint64_t stack_barrier_waiting(const void *st, uint32_t *barrier_pc) {
  const stack_state *s = st;
  if (!s->waiting) return 0;
  *barrier_pc = s->barrier_pc;
  return s->e[s->depth - 1].mask;
}

static void stack_barrier_release(void *st, policy_counters *c) {
  stack_state *s = st;
  if (!s->waiting) return;
  s->waiting = 0;
  settle(s, c);
}

/* The policy's steps inside generated code (kernel.h, ctx->policy): the event of the split that
 * ran, then the split that runs next in ctx; 0 when none can (the warp finished, or a table
 * that overflowed, which only an inconsistent ipdom table does). The build compiles this file
 * to bitcode and the lowering inlines these functions into warp functions (policy_code.c), so
 * the decisions are this file's, made where the warp runs: weft_stack_arrive where the event
 * is an arrival (one target), weft_stack_diverge where it is a divergence, so that each place
 * carries only its half of stack_branch. */

uint32_t weft_stack_arrive(weft_warp_ctx *ctx) {
  if (!rt_step_started(ctx, stack_init) || arrive(ctx->policy, ctx, ctx->counters) != WEFT_SUCCESS)
    return 0;
  return (uint32_t)stack_next(ctx->policy, &ctx->pc, &ctx->mask, &ctx->guard);
}

uint32_t weft_stack_diverge(weft_warp_ctx *ctx) {
  rt_step_started(ctx, stack_init);
  ctx->counters->policy_calls++;
  if (diverge(ctx->policy, ctx, ctx->counters) != WEFT_SUCCESS) return 0;
  return (uint32_t)stack_next(ctx->policy, &ctx->pc, &ctx->mask, &ctx->guard);
}

/* A loop's exit after its first lanes left (lower_region.c): a divergence of the top entry at
 * a branch whose IPDOM is the entry's RPC, the lanes of target_pc[0] staying. diverge() would
 * replace the top entry by one for them, the others waiting in the entry below; this is that
 * replacement, counted as diverge() counts it, without its general case. */
uint32_t weft_stack_leave(weft_warp_ctx *ctx) {
  stack_state *s = ctx->policy;
  stack_entry *top = &s->e[s->depth - 1];
  top->pc = ctx->target_pc[0], top->mask = ctx->target_mask[0];
  ctx->counters->divergent_branches++, ctx->counters->policy_calls++;
  return (uint32_t)stack_next(s, &ctx->pc, &ctx->mask, &ctx->guard); /* the split goes on */
}

/* An early return around a loop (lower_region.c; a loop's first exit takes the general step): a
 * divergence at a branch whose IPDOM R is not the top entry's RPC, the lanes of target_pc[0]
 * staying below R and the others going to R. diverge() would have the top entry wait at R and
 * push one for the lanes that stay; this is that, counted as diverge() counts it, without its
 * general case. */
uint32_t weft_stack_open(weft_warp_ctx *ctx, uint32_t r) {
  rt_step_started(ctx, stack_init);
  stack_state *s = ctx->policy;
  if (s->depth == s->cap) return 0; /* only with an inconsistent ipdom table */
  s->e[s->depth - 1].pc = r;
  s->e[s->depth++] = (stack_entry){ctx->target_pc[0], r, ctx->target_mask[0]};
  ctx->counters->divergent_branches++, ctx->counters->policy_calls++;
  return (uint32_t)stack_next(s, &ctx->pc, &ctx->mask, &ctx->guard); /* the split goes on */
}

static uint64_t stack_finished(const void *st) { return ((const stack_state *)st)->finished; }

/* The entries' masks nest, each inside the one below: from the bottom up, a lane ends at the
 * PC of the topmost entry that holds it. */
static void stack_lane_pcs(const void *st, uint32_t pc[WEFT_MAX_WARP]) {
  const stack_state *s = st;
  for (uint32_t d = 0; d < s->depth; d++) FOR_LANES(s->e[d].mask, i) pc[i] = s->e[d].pc;
  FOR_LANES(s->finished, i) pc[i] = s->k->nblocks;
}

/* The paper's table, top first:
 *   stack: 3 entries, top first
 *      PC  RPC  mask
 *       1    3  0101
 *       2    3  1010
 *       3    4  1111                                                                          */
static void stack_print(FILE *f, const void *st) {
  const stack_state *s = st;
  char m[WEFT_MASK_CHARS];
  unsigned w = s->k->warp;
  if (s->depth == 0) fprintf(f, "stack: empty");
  else fprintf(f, "stack: %u %s, top first", s->depth, s->depth == 1 ? "entry" : "entries");
  if (s->waiting) fprintf(f, "; waiting at the barrier ending block %u", s->barrier_pc);
  if (s->finished) fprintf(f, "; finished %s", weft_mask_string(m, s->finished, w));
  fputc('\n', f);
  if (s->depth) fprintf(f, "  %4s %4s  %s\n", "PC", "RPC", "mask");
  for (uint32_t i = s->depth; i-- > 0;)
    fprintf(f, "  %4u %4u  %s\n", s->e[i].pc, s->e[i].rpc, weft_mask_string(m, s->e[i].mask, w));
}

/* {"entries": [{"pc": 1, "rpc": 3, "mask": "0101"}, ...] top first, "finished": "0000",
 *  "barrier": null or the block whose barrier the top entry waits at} */
static void stack_print_json(FILE *f, const void *st) {
  const stack_state *s = st;
  unsigned w = s->k->warp;
  fputs("{\"entries\": [", f);
  for (uint32_t i = s->depth; i-- > 0;) {
    fprintf(f, "%s{\"pc\": %u", i + 1 < s->depth ? ", " : "", s->e[i].pc);
    rt_json_index(f, "rpc", s->e[i].rpc, UINT32_MAX);
    rt_json_mask(f, "mask", s->e[i].mask, w);
    fputc('}', f);
  }
  fputc(']', f);
  rt_json_mask(f, "finished", s->finished, w);
  rt_json_index(f, "barrier", s->waiting ? s->barrier_pc : UINT32_MAX, UINT32_MAX);
  fputc('}', f);
}

const weft_policy_ops policy_stack = {
    .name = "stack",
    .state_size = stack_state_size,
    .init = stack_init,
    .next = stack_next,
    .branch = stack_branch,
    .barrier_arrive = stack_barrier_arrive,
    .barrier_waiting = stack_barrier_waiting,
    .barrier_release = stack_barrier_release,
    .finished = stack_finished,
    .lane_pcs = stack_lane_pcs,
    .print = stack_print,
    .print_json = stack_print_json,
};
