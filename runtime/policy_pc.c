/* `pc`: stack-less implicit reconvergence by PC arbitration (Collange 2011, "RIA" in Brunie and
 * Collange 2013).
 *
 * Each lane keeps its own PC and call depth. The warp runs the lanes whose (depth, PC) is the
 * minimum -- the deepest call first, then the lowest PC -- and lanes whose PCs coincide run
 * together again: since a block's reconvergence point has a larger PC than the code before it
 * (PCs are a reverse post-order), running the smallest PC first never passes a point where
 * lanes behind could have joined. Kernels are fully inlined, so every depth is 0; the depth is
 * kept per lane anyway and arbitrated on, as the paper does (its SP).
 *
 * The split is the lanes at the minimum; its guard is the smallest PC of the other runnable lanes
 * at the same depth (nblocks when there are none): the warp function comes back before it would
 * run a block >= guard, where it may meet them. That is the paper's fast path: the common PC
 * follows the split's lanes inline while it stays below the waiting lanes' minimum.
 *
 * Reconvergence, counted precisely: every event stamps the lanes it moves with a new number (one
 * per event), so lanes with the same stamp went there together. When the split chosen to run
 * next holds lanes with more than one stamp, lanes that arrived by different paths (different
 * events) run as one split again: one reconvergence. It is counted once, when that split is
 * chosen; running it restamps its lanes. A partial-warp barrier whose parts arrived separately
 * therefore counts one reconvergence when the warp goes on after it.
 *
 * Barriers: the lanes that reach a barrier wait there (their PC is where they resume); the other
 * lanes of the warp go on until they arrive too. Lanes at different barrier blocks wait at one
 * barrier, as a GPU counts arrivals (DESIGN.md; since Volta a barrier on each side of a branch
 * completes) and as `mp` does: the warp reports the lowest of those blocks, and each lane resumes
 * after its own. The state has a constant size: per lane a PC, a depth, a stamp and the
 * arbitration key, and a few masks; no stack, no table.
 *
 * Cost: an event writes the entries of the lanes that stop (at the end, at a barrier); the
 * other lanes' entries are written only when an arbitration reads them. The running split's
 * lanes that go on running (the fast path's, and every lane at the warp's start) are
 * `implicit`: their PC, stamp and key are the split's own. The lanes an event sends to a block
 * that the split does not run next (a loop's exit) are `parked` there: one mask and one PC for
 * all of them, however many trips of the loop they left in. When every runnable lane is parked
 * at one block, they run next as the implicit lanes of a split, with no arbitration at all
 * (bench/: `break` and the helper under `pc` took 1.33x `stack`'s time when each event wrote
 * its lanes, 1.2x and 1.1x so). A warp whose runnable lanes all reach a barrier together stays
 * implicit while it waits (run_mask 0): the barrier, as frequent as a loop's trips in a
 * reduction, then costs no pass over the lanes either. */
#include <string.h>

#include "runtime.h"

#define NO_KEY UINT64_MAX /* the key of a lane that cannot run */

/* Per lane, one array each (W entries used), so that arbitration is a few branch-free loops
 * over W that the compiler vectorises: a policy call costs about as much as one under `stack`. */
typedef struct pc_state {
  const weft_compiled_kernel *k;
  uint64_t live, finished;
  uint64_t waiting; /* at a barrier; barrier_pc is the lowest block one ends */
  uint32_t barrier_pc, stamps;
  uint32_t apart; /* the waiting lanes came to more than one barrier block */
  uint32_t pad2_;
  /* The split that runs next (settle() computes it after every change); mask 0: none. */
  uint32_t run_pc, run_guard, run_stamp, pad_;
  uint64_t run_mask, run_key, other_key; /* the split's key; the smallest key of the others */
  uint64_t implicit; /* lanes whose PC, stamp and key are run_pc, _stamp and _key: of run_mask,
                       or (run_mask 0) all the lanes waiting at a barrier */
  uint64_t parked; /* lanes whose PC and key are parked_pc and _key, runnable, not yet written;
                     events first to last moved them (two stamps tell settle() they differ) */
  uint64_t parked_key;
  uint32_t parked_pc, parked_first, parked_last, pad3_;
  /* (depth, PC) as one number ordered as the arbitration wants it: the deepest call, then the
   * lowest PC, is the smallest key; NO_KEY for lanes that are not runnable. */
  uint64_t key[WEFT_MAX_WARP];
  uint32_t pc[WEFT_MAX_WARP];    /* where the lane goes on: its resume PC while it waits */
  uint32_t depth[WEFT_MAX_WARP]; /* call depth: always 0, kernels are inlined */
  uint32_t stamp[WEFT_MAX_WARP]; /* the event that brought the lane to its PC */
} pc_state;

static uint64_t key_of(uint32_t depth, uint32_t pc) {
  return (uint64_t)(UINT32_MAX - depth) << 32 | pc;
}

/* PC pc's key at the running split's depth: where the split's lanes go, they keep it. */
static uint64_t split_key(const pc_state *s, uint32_t pc) {
  return (s->run_key & ~(uint64_t)UINT32_MAX) | pc;
}

static size_t pc_state_size(const weft_compiled_kernel *k) {
  (void)k;
  return sizeof(pc_state);
}

/* The split that runs next: lanes `mask` at key lo; hi is the smallest key of the other lanes. */
static void publish(pc_state *s, uint64_t mask, uint64_t lo, uint64_t hi) {
  s->run_mask = mask, s->run_pc = (uint32_t)lo, s->run_key = lo, s->other_key = hi;
  /* the other lanes of the same depth; a shallower frame is met only by returning */
  s->run_guard = hi != NO_KEY && hi >> 32 == lo >> 32 ? (uint32_t)hi : s->k->nblocks;
}

/* Writes the implicit lanes' entries: an arbitration reads them all. */
static void write_implicit(pc_state *s, uint64_t lanes) {
  FOR_LANES(lanes, i) s->pc[i] = s->run_pc, s->stamp[i] = s->run_stamp, s->key[i] = s->run_key;
  s->implicit &= ~lanes;
}

/* Writes the parked lanes' entries. Settle() only asks whether a split's lanes have more than
 * one stamp, so the lowest lane keeps the first event's and the others take the last's. */
static void write_parked(pc_state *s) {
  if (!s->parked) return;
  FOR_LANES(s->parked, i) {
    s->pc[i] = s->parked_pc, s->key[i] = s->parked_key, s->stamp[i] = s->parked_last;
  }
  s->stamp[__builtin_ctzll(s->parked)] = s->parked_first;
  s->parked = 0;
}

/* Lanes of the running split go to pc, moved by event `stamp`, and are parked there. */
static void park(pc_state *s, uint64_t lanes, uint32_t pc, uint32_t stamp) {
  uint64_t key = split_key(s, pc);
  if (s->parked && s->parked_key != key) write_parked(s);
  if (!s->parked) s->parked_pc = pc, s->parked_key = key, s->parked_first = stamp;
  s->parked |= lanes, s->parked_last = stamp;
  s->implicit &= ~lanes;
}

static uint32_t lane_pc(const pc_state *s, unsigned i) {
  return s->implicit >> i & 1 ? s->run_pc : s->parked >> i & 1 ? s->parked_pc : s->pc[i];
}

/* Chooses the split that runs next and counts a reconvergence when its lanes came from
 * different events. The slow path: out of line in warp functions (policy_code.c). */
__attribute__((cold, noinline)) static void arbitrate(pc_state *s, policy_counters *c) {
  write_implicit(s, s->implicit);
  write_parked(s);
  uint64_t run = s->live & ~s->finished & ~s->waiting;
  uint64_t lo = NO_KEY, hi = NO_KEY, mask = 0;
  uint32_t stamp = 0;
  int mixed = 0;
  FOR_LANES(run, i) { /* one pass: the lanes are mostly at a few PCs, the branches predictable */
    uint64_t key = s->key[i];
    if (key == lo) {
      mask |= 1ull << i;
      mixed |= s->stamp[i] != stamp;
    } else if (key < lo) {
      hi = lo, lo = key, mask = 1ull << i, stamp = s->stamp[i], mixed = 0;
    } else if (key < hi) {
      hi = key;
    }
  }
  publish(s, mask, lo, hi);
  if (mask && c && mixed) c->reconvergences++;
}

/* arbitrate(), but inline when every runnable lane is parked at one PC (the others of a loop
 * that the last ones left, or the end): they run next, implicit, and nothing is written. */
static void settle(pc_state *s, policy_counters *c) {
  if (s->implicit || !s->parked || s->parked != (s->live & ~s->finished & ~s->waiting)) {
    arbitrate(s, c);
    return;
  }
  publish(s, s->parked, s->parked_key, NO_KEY);
  s->implicit = s->parked, s->run_stamp = s->parked_last, s->parked = 0;
  if (c && s->parked_first != s->parked_last) c->reconvergences++;
}

static void pc_init(void *st, const weft_compiled_kernel *k, const policy_config *cfg,
                    uint64_t live) {
  (void)cfg;
  pc_state *s = st;
  s->k = k, s->live = live, s->finished = s->waiting = 0;
  s->barrier_pc = s->stamps = s->run_stamp = s->apart = 0;
  memset(s->depth, 0, k->warp * sizeof *s->depth);
  s->implicit = live; /* every lane at PC 0, depth 0, stamp 0; only live lanes are ever read */
  s->parked = 0;
  publish(s, live, key_of(0, 0), NO_KEY);
}

static int pc_next(void *st, uint32_t *pc, uint64_t *mask, uint32_t *guard) {
  const pc_state *s = st;
  if (!s->run_mask) return 0;
  *pc = s->run_pc, *mask = s->run_mask, *guard = s->run_guard;
  return 1;
}

/* The lanes `mask` of the running split stop at `pc`, moved by event `stamp`: the end, or a
 * barrier's resume PC; they cannot run (NO_KEY). */
static void stop(pc_state *s, uint64_t mask, uint32_t pc, uint32_t stamp) {
  s->implicit &= ~mask;
  FOR_LANES(mask, i) s->pc[i] = pc, s->stamp[i] = stamp, s->key[i] = NO_KEY;
}

/* The split's lanes `stay`, moved by event `stamp`, go on at PC `to` (key k0), below every
 * other lane, up to hi (the smallest key of the others); they stay implicit. */
static void go_on(pc_state *s, uint64_t stay, uint64_t k0, uint64_t hi, uint32_t stamp) {
  write_implicit(s, s->implicit & ~stay); /* lanes the event did not move */
  s->implicit |= stay, s->run_stamp = stamp;
  publish(s, stay, k0, hi);
}

static weft_status pc_branch(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  pc_state *s = st;
  uint32_t stamp = ++s->stamps;
  if (ctx->ntargets > 1 || ctx->target_pc[0] < s->k->nblocks) c->policy_calls++;
  if (ctx->ntargets > 1) c->divergent_branches++;
  /* The fast path, most events of a loop: the split's lanes going to the smallest target stay
   * below every other lane, so they alone run next, up to the next target or the others; they
   * stay implicit. */
  uint32_t t0 = ctx->target_pc[0];
  uint64_t k0 = split_key(s, t0);
  int fast = t0 < s->k->nblocks && k0 < s->other_key;
  for (unsigned t = fast; t < ctx->ntargets; t++) {
    uint32_t pc = ctx->target_pc[t];
    if (pc < s->k->nblocks) park(s, ctx->target_mask[t], pc, stamp);
    else stop(s, ctx->target_mask[t], pc, stamp), s->finished |= ctx->target_mask[t];
  }
  if (fast) {
    uint64_t hi = s->other_key;
    if (ctx->ntargets > 1 && ctx->target_pc[1] < s->k->nblocks) {
      uint64_t k1 = split_key(s, ctx->target_pc[1]);
      hi = k1 < hi ? k1 : hi;
    }
    go_on(s, ctx->target_mask[0], k0, hi, stamp);
    return WEFT_SUCCESS;
  }
  settle(s, c);
  return WEFT_SUCCESS;
}

/* The running split is every runnable lane, all implicit: it waits at the barrier as it is,
 * at its resume PC (not runnable: waiting), and nothing else can run. */
static int arrive_together(pc_state *s, const weft_warp_ctx *ctx) {
  if (s->waiting || s->implicit != ctx->mask || s->run_mask != ctx->mask || s->other_key != NO_KEY)
    return 0;
  s->run_pc = ctx->target_pc[0], s->run_stamp = ++s->stamps;
  s->run_key = split_key(s, s->run_pc);
  s->waiting = ctx->mask, s->barrier_pc = ctx->from_pc, s->run_mask = 0;
  return 1;
}

static weft_status pc_barrier_arrive(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  pc_state *s = st;
  c->policy_calls++;
  if (arrive_together(s, ctx)) return WEFT_SUCCESS;
  stop(s, ctx->mask, ctx->target_pc[0], ++s->stamps);
  if (s->waiting && ctx->from_pc != s->barrier_pc) s->apart = 1;
  if (!s->waiting || ctx->from_pc < s->barrier_pc) s->barrier_pc = ctx->from_pc;
  s->waiting |= ctx->mask;
  settle(s, c);
  return WEFT_SUCCESS;
}

static uint64_t pc_barrier_waiting(const void *st, uint32_t *barrier_pc) {
  const pc_state *s = st;
  if (!s->waiting) return 0;
  *barrier_pc = s->barrier_pc;
  return s->waiting;
}

static void pc_barrier_release(void *st, policy_counters *c) {
  pc_state *s = st;
  if (!s->waiting) return;
  if (s->waiting == s->implicit) { /* they arrived together: they go on together */
    uint64_t lanes = s->waiting;
    s->waiting = s->apart = 0;
    if (s->run_pc < s->k->nblocks) publish(s, lanes, s->run_key, NO_KEY);
    else s->finished |= lanes, s->implicit = 0; /* a barrier that ends the kernel */
    return;
  }
  FOR_LANES(s->waiting, i) {
    if (s->pc[i] >= s->k->nblocks) /* a barrier that ends the kernel */
      s->finished |= 1ull << i;
    else s->key[i] = key_of(s->depth[i], s->pc[i]);
  }
  s->waiting = s->apart = 0;
  settle(s, c);
}

static uint64_t pc_finished(const void *st) { return ((const pc_state *)st)->finished; }

static void pc_lane_pcs(const void *st, uint32_t pc[WEFT_MAX_WARP]) {
  const pc_state *s = st;
  FOR_LANES(s->live, i) pc[i] = s->finished >> i & 1 ? s->k->nblocks : lane_pc(s, i);
}

/* Each lane's PC, thread 0 rightmost as in the papers (Collange's Table 2 lists them thread 0
 * leftmost); '-' a finished lane, '.' a lane that is not a work-item. The depth row appears only
 * when a lane is in a call:
 *   pc: PC per lane, thread 0 rightmost; waiting at the barrier ending block 1: 0011
 *     PC    2 2 2 2
 *     next  PC 2, mask 1100, guard 3                                                          */
static void pc_print(FILE *f, const void *st) {
  const pc_state *s = st;
  char m[WEFT_MASK_CHARS];
  unsigned w = s->k->warp, width = (unsigned)snprintf(NULL, 0, "%u", s->k->nblocks);
  uint64_t deep = 0;
  fprintf(f, "pc: PC per lane, thread 0 rightmost");
  if (s->waiting)
    fprintf(f,
            s->apart ? "; waiting at barriers, the lowest ending block %u: %s"
                     : "; waiting at the barrier ending block %u: %s",
            s->barrier_pc, weft_mask_string(m, s->waiting, w));
  fprintf(f, "\n  PC   ");
  for (unsigned i = w; i-- > 0;) {
    if (!(s->live >> i & 1)) fprintf(f, " %*s", width, ".");
    else if (s->finished >> i & 1) fprintf(f, " %*s", width, "-");
    else fprintf(f, " %*u", width, lane_pc(s, i));
    if (s->depth[i]) deep |= 1ull << i;
  }
  if (deep) {
    fprintf(f, "\n  depth");
    for (unsigned i = w; i-- > 0;) fprintf(f, " %*u", width, s->depth[i]);
  }
  if (s->run_mask)
    fprintf(f, "\n  next  PC %u, mask %s, guard %u\n", s->run_pc,
            weft_mask_string(m, s->run_mask, w), s->run_guard);
  else fprintf(f, "\n  next  none\n");
}

/* {"lane_pc": [...], "depth": [...], "waiting": "0011", "barrier": null, "finished": "0000"}:
 * per lane, lane 0 first (JSON arrays are indexed by lane); a finished lane's PC is the end
 * (nblocks), a lane that is not a work-item is null. */
static void pc_print_json(FILE *f, const void *st) {
  const pc_state *s = st;
  unsigned w = s->k->warp;
  for (int row = 0; row < 2; row++) {
    fputs(row ? ", \"depth\": [" : "{\"lane_pc\": [", f);
    for (unsigned i = 0; i < w; i++) {
      fputs(i ? ", " : "", f);
      if (!(s->live >> i & 1)) fputs("null", f);
      else
        fprintf(f, "%u", row ? s->depth[i] : s->finished >> i & 1 ? s->k->nblocks : lane_pc(s, i));
    }
    fputc(']', f);
  }
  rt_json_mask(f, "waiting", s->waiting, w);
  rt_json_index(f, "barrier", s->waiting ? s->barrier_pc : UINT32_MAX, UINT32_MAX);
  rt_json_mask(f, "finished", s->finished, w);
  fputc('}', f);
}

/* The policy's steps inside generated code (kernel.h, ctx->policy), as policy_stack.c's: the
 * event of the split that ran, then the split that runs next in ctx; 0 when none can. Compiled
 * to bitcode and inlined into warp functions (compiler/policy_code.c). A divergence goes on in
 * the code only with the lanes of its smallest target, pc_branch's fast path, which is what the
 * code keeps values for (lower_step.c): any other split the policy picks gets ctx->pc
 * UINT32_MAX, no block, and the code leaves for the scheduler to ask next(). */

uint32_t weft_pc_arrive(weft_warp_ctx *ctx) {
  if (!rt_step_started(ctx, pc_init) || pc_branch(ctx->policy, ctx, ctx->counters) != WEFT_SUCCESS)
    return 0;
  return (uint32_t)pc_next(ctx->policy, &ctx->pc, &ctx->mask, &ctx->guard);
}

uint32_t weft_pc_diverge(weft_warp_ctx *ctx) {
  uint32_t first = ctx->target_pc[0];
  uint64_t lanes = ctx->target_mask[0];
  rt_step_started(ctx, pc_init);
  if (pc_branch(ctx->policy, ctx, ctx->counters) != WEFT_SUCCESS) return 0;
  if (!pc_next(ctx->policy, &ctx->pc, &ctx->mask, &ctx->guard)) return 0;
  if (ctx->pc != first || ctx->mask != lanes) ctx->pc = UINT32_MAX;
  return 1;
}

/* A loop's exit taken in the code (lower_region.c, lw_region_leave): the lanes of ctx->mask
 * but target_mask[0] go to block `exit`, the others on at target_pc[0], which is below `exit`
 * and below every other lane (the code checked: target_pc[0] < ctx->guard). That is
 * pc_branch's fast path, with what the event's targets tell it known here; the split's lanes
 * and guard are in ctx after it. */
void weft_pc_leave(weft_warp_ctx *ctx, uint32_t exit) {
  pc_state *s = ctx->policy;
  if (!ctx->started) pc_init(s, ctx->kernel, NULL, ctx->mask), ctx->started = 1;
  uint32_t stamp = ++s->stamps;
  uint64_t stay = ctx->target_mask[0], k0 = split_key(s, ctx->target_pc[0]),
           k1 = split_key(s, exit);
  ctx->counters->policy_calls++, ctx->counters->divergent_branches++;
  park(s, ctx->mask & ~stay, exit, stamp);
  go_on(s, stay, k0, k1 < s->other_key ? k1 : s->other_key, stamp);
  pc_next(s, &ctx->pc, &ctx->mask, &ctx->guard);
}

const weft_policy_ops policy_pc = {
    .name = "pc",
    .state_size = pc_state_size,
    .init = pc_init,
    .next = pc_next,
    .branch = pc_branch,
    .barrier_arrive = pc_barrier_arrive,
    .barrier_waiting = pc_barrier_waiting,
    .barrier_release = pc_barrier_release,
    .finished = pc_finished,
    .lane_pcs = pc_lane_pcs,
    .print = pc_print,
    .print_json = pc_print_json,
};
