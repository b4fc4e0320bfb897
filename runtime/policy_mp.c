/* `mp` and `mp-orec`: multi-path IPDOM reconvergence (ElTantawy et al., HPCA 2014), with and
 * without opportunistic early reconvergence (the paper's Section 4).
 *
 * Each warp has two tables instead of a stack:
 *   - the warp split table (ST): the splits that can run, each (PC, mask, RPC, R-index); RPC is
 *     the split's reconvergence PC (the guard published to the warp function) and R-index the
 *     reconvergence entry its lanes arrive at there (none for the kernel's end);
 *   - the reconvergence table (RT): per reconvergence point (PC, reconvergence mask, pending
 *     mask) plus the RPC and R-index the entry takes with it when it becomes a split again.
 * Any ready split of the ST may run; next() picks one by the launch's split order: round robin
 * (the slot after the one that ran last, as the paper's simulations do) or the lowest PC.
 *
 * A divergent branch from block b with R = ipdom[b] removes the split from the ST. Unless R is
 * the split's own RPC (the paper's second special case: a loop's exit, say), the split moves to
 * the RT as (R, mask, pending = mask) and keeps its RPC and R-index there. Each target becomes a
 * split (target, lanes, R, that entry); a target equal to R goes straight to pending-resolution
 * (the paper's first special case: the side of an `if` without `else`). A split that reaches its
 * RPC arrives: its lanes leave the entry's pending mask; when that is empty the entry moves back
 * to the ST as a split at R with the whole reconvergence mask: a reconvergence. Lanes that reach
 * PC nblocks are finished for good.
 *
 * max_splits (the paper's Section 5; 2 models the dual-path stack): at most that many splits are
 * ready, not counting those waiting at a barrier (so that lanes reaching a barrier on several
 * paths never wait for a slot that only the barrier can free). A split inserted past the bound
 * is parked: it holds its slot (so nothing is lost) but next() does not offer it until a ready
 * split leaves (arrives, diverges, waits at a barrier); parked splits then become ready in the
 * order they were parked. No deadlock: when no split is ready, a parked one always gets a slot.
 * Splits are inserted parked and promote() admits them, so there is one way in.
 *
 * mp-orec: a split inserted into the ST (by a branch, a reconvergence or a barrier) at the same
 * PC, RPC and R-index as a waiting split (ready or parked) merges into it: an early
 * reconvergence, at block granularity, counted apart from the reconvergences. The R-index must
 * match too, since the merged lanes must arrive at one entry. So that a split cannot pass a
 * waiting one inside the generated code, a running split's guard is the lowest PC where a split
 * it could merge with waits, when that is below its RPC (orec_guard); reaching it, the split
 * merges, or goes on from there before any other split (goes_on), as it would have unguarded.
 *
 * Bounds: the ST's masks are disjoint and non-empty, so it never holds more than W splits (a
 * bitmask of used slots finds a free one and the next ready one in O(1)). Under `mp` the live RT
 * entries form a laminar family of masks with at least 2 lanes each (an entry is made from a
 * split that went at least two ways), each strictly inside its parent entry, so there are at
 * most W-1 of them. Under `mp-orec` a merged split can fill its whole entry, and an entry it
 * makes then has its parent's mask; such chains follow the post-dominator tree, so they are
 * bounded by the kernel's nesting, not by W. The RT starts with 2W entries in the state and
 * grows on the heap as deep nesting needs (freed by release); a failed allocation is reported
 * (WEFT_ERROR_OUT_OF_MEMORY), nothing is ever overwritten.
 *
 * Barriers: each split waits at a barrier on its own (the paper's Section 3.3.3); the barrier
 * completes when every work-item of the work-group waits (the scheduler decides). Splits of one
 * warp that wait at different barrier blocks count as waiting at one barrier, as threads of a
 * warp synchronise while diverged; the warp reports the lowest of those blocks. Lanes that wait
 * at a reconvergence point for lanes that wait at a barrier can never get there: the scheduler
 * reports that as a deadlock.
 *
 * Stats: early reconvergences, and per warp the most splits (parked ones too), ST entries (all
 * but the parked) and RT entries at once; see policy_counters. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define MP_NONE UINT32_MAX
#define MP_RT_MAX (1u << 24) /* RT entries: far beyond any kernel's nesting; then OUT_OF_MEMORY */

typedef struct mp_split {
  uint64_t mask;
  uint32_t pc, rpc;
  uint32_t rix;     /* reconvergence entry at rpc, MP_NONE for the kernel's end */
  uint32_t barrier; /* the block whose barrier the split waits at, or MP_NONE */
  uint32_t seq;     /* when it was inserted: parked splits become ready oldest first */
} mp_split;

typedef struct mp_rec {
  uint64_t rmask;   /* 0: a free slot */
  uint64_t pending; /* lanes that have not reached pc yet */
  uint32_t pc;      /* the reconvergence point */
  uint32_t rpc, rix; /* of the split the entry becomes */
  uint32_t pad_;
} mp_rec;

/* Invariants: used is the set of ST slots holding a split; parked and waiting (at a barrier) are
 * subsets of it and disjoint; the ready splits, used & ~parked & ~waiting, are at most
 * max_ready. RT slots at and past rtop were never used since init; below rlow none is free. */
typedef struct mp_state {
  const weft_compiled_kernel *k;
  uint32_t orec, order, max_ready;
  uint32_t cur;         /* the slot next() returned last: the events belong to it */
  uint32_t again;       /* mp-orec: a split that met its guard and goes on, or MP_NONE */
  uint32_t broken;      /* a table overflowed where no error could be returned */
  uint32_t seq;         /* splits inserted so far */
  uint64_t live, finished;
  uint64_t used, parked, waiting;
  uint32_t rcap, rtop, rlow, rlive; /* RT: slots, high-water mark, see above, entries */
  uint32_t most_splits; /* of this warp in this work-group, for split_excess */
  mp_split *st;
  mp_rec *rt;           /* rt_inline, or a larger copy on the heap */
  mp_rec *rt_inline;
} mp_state;

static size_t mp_state_size(const weft_compiled_kernel *k) {
  return rt_align64(sizeof(mp_state)) + (size_t)k->warp * sizeof(mp_split) +
         2 * (size_t)k->warp * sizeof(mp_rec);
}

/* Only the first split and the counters are written: the tables' slots are read only once the
 * bitmask (ST) or the high-water mark (RT) says they were written since. */
static void init(mp_state *s, const weft_compiled_kernel *k, const policy_config *cfg,
                 uint64_t live, uint32_t orec) {
  char *at = (char *)s + rt_align64(sizeof(mp_state));
  *s = (mp_state){.k = k,
                  .orec = orec,
                  .order = cfg->order,
                  .live = live,
                  .used = 1,
                  .rcap = 2 * k->warp,
                  .most_splits = 1};
  s->max_ready = cfg->max_splits; /* 2..W: policy_config_make resolved it */
  s->st = (mp_split *)at;
  s->rt = s->rt_inline = (mp_rec *)(at + (size_t)k->warp * sizeof(mp_split));
  s->st[0] = (mp_split){live, 0, k->nblocks, MP_NONE, MP_NONE, 0};
  s->cur = k->warp - 1; /* round robin starts at slot 0 */
  s->again = MP_NONE;
}
static void mp_init(void *st, const weft_compiled_kernel *k, const policy_config *cfg,
                    uint64_t live) {
  init(st, k, cfg, live, 0);
}
static void mp_orec_init(void *st, const weft_compiled_kernel *k, const policy_config *cfg,
                         uint64_t live) {
  init(st, k, cfg, live, 1);
}

static void mp_release(void *st) {
  mp_state *s = st;
  if (s->rt != s->rt_inline) free(s->rt);
  s->rt = s->rt_inline;
}

/* ---- the reconvergence table ---- */

/* Doubles the RT, moving it to the heap; 0 when that is impossible. */
static int rt_grow(mp_state *s) {
  if (s->rcap >= MP_RT_MAX) return 0;
  mp_rec *bigger = malloc(2 * (size_t)s->rcap * sizeof *bigger);
  if (!bigger) return 0;
  memcpy(bigger, s->rt, s->rtop * sizeof *bigger);
  mp_release(s);
  s->rt = bigger, s->rcap *= 2;
  return 1;
}

/* A free RT slot (the first, as the paper allocates), or MP_NONE when the RT cannot grow. */
static uint32_t rt_alloc(mp_state *s) {
  uint32_t x = s->rlow;
  while (x < s->rtop && s->rt[x].rmask) x++;
  if (x == s->rtop && s->rtop == s->rcap && !rt_grow(s)) return MP_NONE;
  if (x == s->rtop) s->rtop++;
  s->rlow = x + 1, s->rlive++;
  return x;
}

static void rt_free(mp_state *s, uint32_t x) {
  s->rt[x].rmask = s->rt[x].pending = 0;
  s->rlive--;
  if (x < s->rlow) s->rlow = x;
}

/* ---- the split table ---- */

static uint64_t ready_splits(const mp_state *s) { return s->used & ~s->parked & ~s->waiting; }

static void st_remove(mp_state *s, uint32_t i) {
  uint64_t bit = 1ull << i;
  s->st[i].mask = 0;
  s->used &= ~bit, s->parked &= ~bit, s->waiting &= ~bit;
}

/* Into the first free slot, parked: promote() decides when it may run. */
static weft_status st_insert(mp_state *s, const mp_split *sp) {
  if (!~s->used) return WEFT_ERROR_OUT_OF_MEMORY; /* disjoint masks: cannot happen */
  uint32_t i = (uint32_t)__builtin_ctzll(~s->used);
  if (i >= s->k->warp) return WEFT_ERROR_OUT_OF_MEMORY;
  s->st[i] = *sp;
  s->st[i].seq = s->seq++;
  s->used |= 1ull << i, s->parked |= 1ull << i;
  return WEFT_SUCCESS;
}

/* The oldest parked splits become ready while fewer than max_ready are. */
static void promote(mp_state *s) {
  int room = (int)s->max_ready - __builtin_popcountll(ready_splits(s));
  if (room >= __builtin_popcountll(s->parked)) {
    s->parked = 0; /* the common case: no bound in sight */
    return;
  }
  for (; room > 0; room--) {
    uint32_t oldest = MP_NONE;
    for (uint64_t m = s->parked; m; m &= m - 1) {
      uint32_t i = (uint32_t)__builtin_ctzll(m);
      if (oldest == MP_NONE || s->st[i].seq < s->st[oldest].seq) oldest = i;
    }
    s->parked &= ~(1ull << oldest);
  }
}

/* Records table sizes: splits in the ST, `entries` of them not parked, `recs` in the RT. */
static void observe_sizes(mp_state *s, uint32_t splits, uint64_t entries, uint32_t recs,
                          policy_counters *c) {
  if (splits > s->most_splits) c->split_excess += splits - s->most_splits, s->most_splits = splits;
  if (splits > c->max_splits) c->max_splits = splits;
  if (entries > c->max_st_entries) c->max_st_entries = entries;
  if (recs > c->max_rt_entries) c->max_rt_entries = recs;
}

/* Records the table sizes after an event that may have grown them. */
static void observe(mp_state *s, policy_counters *c) {
  observe_sizes(s, (uint32_t)__builtin_popcountll(s->used),
                (uint64_t)__builtin_popcountll(s->used & ~s->parked), s->rlive, c);
}

/* ---- events ---- */

/* By pointer: a split copied by value right after one of its fields was written costs a
 * store-forwarding stall on every event. */
static weft_status place(mp_state *s, const mp_split *sp, policy_counters *c);

/* The entry's pending mask is empty: it becomes a split at its PC with all its lanes. */
static weft_status resolve(mp_state *s, uint32_t rix, policy_counters *c) {
  mp_rec *r = &s->rt[rix];
  mp_split sp = {r->rmask, r->pc, r->rpc, r->rix, MP_NONE, 0};
  rt_free(s, rix);
  c->reconvergences++;
  return place(s, &sp, c);
}

/* Lanes of a split reached the reconvergence point of entry rix. */
static weft_status arrive(mp_state *s, uint32_t rix, uint64_t lanes, policy_counters *c) {
  mp_rec *r = &s->rt[rix];
  r->pending &= ~lanes;
  return r->pending ? WEFT_SUCCESS : resolve(s, rix, c);
}

/* Lanes reached the kernel's end. Normally their split's RPC is the end and there is no entry;
 * with an entry (only an inconsistent ipdom table gets there) the lanes leave every entry of the
 * chain, so that nothing waits for them. The entries that lose all their lanes are the innermost
 * ones; the first one left may have nothing pending any more. */
static weft_status finish(mp_state *s, uint32_t rix, uint64_t lanes, policy_counters *c) {
  s->finished |= lanes;
  uint32_t first = MP_NONE;
  for (uint32_t x = rix, n = 0; x != MP_NONE && n < s->rtop; x = s->rt[x].rix, n++) {
    mp_rec *r = &s->rt[x];
    r->rmask &= ~lanes, r->pending &= ~lanes;
    if (!r->rmask) rt_free(s, x);
    else if (first == MP_NONE) first = x;
  }
  return first != MP_NONE && !s->rt[first].pending ? resolve(s, first, c) : WEFT_SUCCESS;
}

/* A split other than slot `except` that waits at pc with the same RPC and entry, or NULL. */
static mp_split *waiting_at(mp_state *s, uint32_t pc, uint32_t rpc, uint32_t rix, uint32_t except) {
  uint64_t others = s->used & ~s->waiting & ~(except < 64 ? 1ull << except : 0);
  for (uint64_t m = others; m; m &= m - 1) {
    mp_split *o = &s->st[__builtin_ctzll(m)];
    if (o->pc == pc && o->rpc == rpc && o->rix == rix) return o;
  }
  return NULL;
}

/* mp-orec: merges sp into a waiting split at the same PC, RPC and entry; 0 if there is none. */
static int merge(mp_state *s, const mp_split *sp, policy_counters *c) {
  mp_split *o = waiting_at(s, sp->pc, sp->rpc, sp->rix, MP_NONE);
  if (!o) return 0;
  o->mask |= sp->mask;
  c->early_reconvergences++;
  return 1;
}

/* Puts a split into the ST: at its RPC it arrives instead, at the end it finishes, and under
 * mp-orec it merges with a waiting split at the same PC, RPC and entry. */
static weft_status place(mp_state *s, const mp_split *sp, policy_counters *c) {
  if (sp->pc >= s->k->nblocks) return finish(s, sp->rix, sp->mask, c);
  if (sp->pc == sp->rpc && sp->rix != MP_NONE) return arrive(s, sp->rix, sp->mask, c);
  if (s->orec && merge(s, sp, c)) return WEFT_SUCCESS;
  return st_insert(s, sp);
}

/* The ready split with the smallest PC, the lowest slot among equals. */
static uint32_t lowest_pc(const mp_state *s, uint64_t ready) {
  uint32_t best = (uint32_t)__builtin_ctzll(ready);
  for (uint64_t m = ready & (ready - 1); m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctzll(m);
    if (s->st[i].pc < s->st[best].pc) best = i;
  }
  return best;
}

/* mp-orec publishes, instead of the split's RPC, the smallest PC where another split waits
 * that it could merge with (same RPC and entry), when that is smaller. The generated code then
 * returns when the split branches forward to that PC or past it, and place() merges the two
 * there; otherwise a split would run through a block where another waits without seeing it (a
 * loop's split coming back round to the waiting side, the MP paper's Figure 11). Back edges stay
 * inline, so a split whose guard lies behind it returns at its next forward branch. */
static uint32_t orec_guard(const mp_state *s, uint32_t i) {
  const mp_split *sp = &s->st[i];
  uint32_t guard = sp->rpc;
  for (uint64_t m = s->used & ~s->waiting & ~(1ull << i); m; m &= m - 1) {
    const mp_split *o = &s->st[__builtin_ctzll(m)];
    if (o->pc < guard && o->rpc == sp->rpc && o->rix == sp->rix) guard = o->pc;
  }
  return guard;
}

static int mp_next(void *st, uint32_t *pc, uint64_t *mask, uint32_t *guard) {
  mp_state *s = st;
  uint64_t ready = ready_splits(s);
  if (s->broken || !ready) return 0;
  uint64_t after = ready & ~((2ull << s->cur) - 1); /* the slots after cur (none after 63) */
  uint32_t i = s->order == SPLIT_LOWEST_PC ? lowest_pc(s, ready)
                                           : (uint32_t)__builtin_ctzll(after ? after : ready);
  if (s->again != MP_NONE && (ready >> s->again & 1)) i = s->again;
  s->again = MP_NONE;
  const mp_split *sp = &s->st[i];
  s->cur = i;
  *pc = sp->pc, *mask = sp->mask, *guard = s->orec ? orec_guard(s, i) : sp->rpc;
  return 1;
}

static weft_status diverge(mp_state *s, mp_split sp, const weft_warp_ctx *ctx, policy_counters *c) {
  uint32_t r = s->k->ipdom[ctx->from_pc], parent = sp.rix;
  c->divergent_branches++;
  if (r != sp.rpc) { /* a new reconvergence point; else the split's own entry serves */
    parent = rt_alloc(s);
    if (parent == MP_NONE) return WEFT_ERROR_OUT_OF_MEMORY;
    s->rt[parent] = (mp_rec){sp.mask, sp.mask, r, sp.rpc, sp.rix, 0};
  }
  for (unsigned t = 0; t < ctx->ntargets; t++) {
    mp_split child = {ctx->target_mask[t], ctx->target_pc[t], r, parent, MP_NONE, 0};
    weft_status e = place(s, &child, c);
    if (e != WEFT_SUCCESS) return e;
  }
  return WEFT_SUCCESS;
}

/* mp-orec: the split met the guard orec_guard() published, short of its RPC, and nobody waits
 * there to merge with: it goes on from there, before any other split (next() gives it again),
 * as it would have without the guard. */
static int goes_on(mp_state *s, uint32_t to) {
  mp_split *sp = &s->st[s->cur];
  if (!s->orec || to >= sp->rpc || to >= s->k->nblocks ||
      waiting_at(s, to, sp->rpc, sp->rix, s->cur))
    return 0;
  sp->pc = to;
  s->again = s->cur;
  return 1;
}

static weft_status mp_branch(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  mp_state *s = st;
  if (ctx->ntargets > 1 || ctx->target_pc[0] < s->k->nblocks) c->policy_calls++;
  if (ctx->ntargets == 1 && goes_on(s, ctx->target_pc[0])) return WEFT_SUCCESS;
  mp_split sp = s->st[s->cur];
  weft_status e;
  st_remove(s, s->cur);
  if (ctx->ntargets > 1) {
    e = diverge(s, sp, ctx, c);
  } else {
    sp.pc = ctx->target_pc[0];
    e = place(s, &sp, c);
  }
  promote(s);
  observe(s, c);
  return e;
}

static weft_status mp_barrier_arrive(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  mp_state *s = st;
  mp_split *sp = &s->st[s->cur];
  c->policy_calls++;
  sp->barrier = ctx->from_pc;
  sp->pc = ctx->target_pc[0];
  s->waiting |= 1ull << s->cur;
  promote(s); /* a slot for a parked split */
  observe(s, c);
  return WEFT_SUCCESS;
}

static uint64_t mp_barrier_waiting(const void *st, uint32_t *barrier_pc) {
  const mp_state *s = st;
  uint64_t waiting = 0;
  uint32_t pc = MP_NONE;
  for (uint64_t m = s->waiting; m; m &= m - 1) {
    const mp_split *sp = &s->st[__builtin_ctzll(m)];
    waiting |= sp->mask;
    if (sp->barrier < pc) pc = sp->barrier;
  }
  if (waiting) *barrier_pc = pc;
  return waiting;
}

/* The warp's only split waits (a barrier outside divergent code, the common case) and resumes
 * at a block short of its RPC: place() would put it back as it is, in the first slot. */
static int release_alone(mp_state *s, policy_counters *c) {
  uint64_t w = s->waiting;
  if (w != s->used || (w & (w - 1))) return 0;
  mp_split sp = s->st[__builtin_ctzll(w)];
  if (sp.pc >= s->k->nblocks || (sp.pc == sp.rpc && sp.rix != MP_NONE)) return 0;
  st_remove(s, (uint32_t)__builtin_ctzll(w));
  sp.barrier = MP_NONE, sp.seq = s->seq++;
  s->st[0] = sp, s->used = 1;
  observe(s, c);
  return 1;
}

/* The waiting splits go on from where they resume: maybe their RPC, the end, or (mp-orec) the
 * PC of another split. */
static void mp_barrier_release(void *st, policy_counters *c) {
  mp_state *s = st;
  if (release_alone(s, c)) return;
  mp_split go[WEFT_MAX_WARP];
  uint32_t n = 0;
  for (uint64_t m = s->waiting; m; m &= m - 1) {
    uint32_t i = (uint32_t)__builtin_ctzll(m);
    go[n] = s->st[i], go[n].barrier = MP_NONE, n++;
    st_remove(s, i);
  }
  for (uint32_t i = 0; i < n; i++)
    if (place(s, &go[i], c) != WEFT_SUCCESS) s->broken = 1; /* reported by the scheduler */
  promote(s);
  observe(s, c);
}

/* Under the lowest-pc order a split that branches below every other split runs the branch's
 * sides, and nested ones, in PC order and then goes on at the IPDOM, as the generated code does
 * when the IPDOM is below ahead(). The code takes the guard for the split's RPC (a loop's lanes
 * that leave to the guard arrive at the split's entry), which it is not when mp-orec lowered it
 * to where a split to merge with waits: then ahead() is 0, and no such rule applies. */
static uint32_t mp_ahead(const void *st) {
  const mp_state *s = st;
  if (s->orec && orec_guard(s, s->cur) < s->st[s->cur].rpc) return 0;
  uint32_t pc = UINT32_MAX;
  for (uint64_t m = ready_splits(s) & ~(1ull << s->cur); m; m &= m - 1)
    if (s->st[__builtin_ctzll(m)].pc < pc) pc = s->st[__builtin_ctzll(m)].pc;
  return pc;
}

/* The lanes of the running split that arrived at its entry's point (`left`). */
static void arrived(mp_state *s, mp_split *sp, uint64_t left) {
  sp->mask &= ~left, s->rt[sp->rix].pending &= ~left;
}

/* The entries the code made and kept (ctx->region_open), innermost last, as diverge() makes
 * them: each for the split's lanes then, which wait at its point R, where the split now goes
 * with the others; 0 when the table cannot grow. */
static int open_entries(mp_state *s, const weft_warp_ctx *ctx) {
  for (uint32_t i = 0; i < ctx->region_opens && i < WEFT_REGION_OPENS; i++) {
    const struct weft_region_open *o = &ctx->region_open[i];
    uint32_t x = rt_alloc(s);
    if (x == MP_NONE) return 0;
    mp_split *sp = &s->st[s->cur];
    s->rt[x] = (mp_rec){o->mask, o->mask, o->pc, sp->rpc, sp->rix, 0};
    sp->rpc = o->pc, sp->rix = x;
    arrived(s, sp, o->left);
  }
  return 1;
}

/* The code ran branches masked: the tables grew by what ctx says at most and shrank back, or
 * by the entries it made and kept; the lanes that left a loop or a branch for the split's
 * point (region_left, then each kept entry's) arrived at its entry, and the split that goes
 * on is the one each reconvergence or loop exit put into the first free slot. (Its
 * insertion number stays: it matters only to parked splits, and there are none without a
 * bound.) */
static void mp_regions_ran(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  mp_state fresh = {.used = 1, .most_splits = 1}, *s = st ? st : &fresh;
  if (ctx->region_splits) {
    uint32_t splits = (uint32_t)__builtin_popcountll(s->used) - 1 + ctx->region_splits;
    observe_sizes(s, splits, splits, s->rlive + ctx->region_entries, c);
  }
  if (!st || !ctx->region_diverged) return;
  if (ctx->region_left) arrived(s, &s->st[s->cur], ctx->region_left);
  if (!open_entries(s, ctx)) {
    s->broken = 1; /* reported by the scheduler */
    return;
  }
  uint64_t others = s->used & ~(1ull << s->cur);
  uint32_t slot = (uint32_t)__builtin_ctzll(~others);
  if (slot >= s->cur) return;
  s->st[slot] = s->st[s->cur];
  st_remove(s, s->cur);
  s->used |= 1ull << slot;
  s->cur = slot;
}

static uint64_t mp_finished(const void *st) { return ((const mp_state *)st)->finished; }

/* A lane is in one split, or has arrived (is not pending) at one reconvergence entry, the
 * innermost it reached: it is pending in the entries around that one. */
static void mp_lane_pcs(const void *st, uint32_t pc[WEFT_MAX_WARP]) {
  const mp_state *s = st;
  for (uint32_t r = 0; r < s->rtop; r++)
    FOR_LANES(s->rt[r].rmask & ~s->rt[r].pending, i) pc[i] = s->rt[r].pc;
  for (uint64_t u = s->used; u; u &= u - 1) {
    const mp_split *sp = &s->st[__builtin_ctzll(u)];
    FOR_LANES(sp->mask, i) pc[i] = sp->pc;
  }
  FOR_LANES(s->finished, i) pc[i] = s->k->nblocks;
}

static void put_index(FILE *f, uint32_t x) {
  if (x == MP_NONE) fprintf(f, " %4s", "-");
  else fprintf(f, " %4u", x);
}

/* Both tables, valid entries only, in slot order (W = 4); a split past max_splits shows
 * "waiting for a table slot", one at a barrier "waiting at the barrier ending block B":
 *   warp split table: 2 splits
 *        #    PC   RPC    R  mask
 *        0     1     3    0  0101
 *        1     2     3    0  1010
 *   reconvergence table: 1 entry
 *        #    PC   RPC    R  reconv  pending
 *        0     3     4    -  1111    1111
 * In the RT, PC is the reconvergence point; RPC and R are what the entry takes to the ST. */
static void mp_print(FILE *f, const void *st) {
  const mp_state *s = st;
  char m[WEFT_MASK_CHARS], p[WEFT_MASK_CHARS];
  unsigned w = s->k->warp, ns = (unsigned)__builtin_popcountll(s->used), nr = s->rlive;
  fprintf(f, "warp split table: %u %s", ns, ns == 1 ? "split" : "splits");
  if (s->finished) fprintf(f, "; finished %s", weft_mask_string(m, s->finished, w));
  fputc('\n', f);
  if (ns) fprintf(f, "  %4s %5s %5s %4s  %s\n", "#", "PC", "RPC", "R", "mask");
  for (uint64_t u = s->used; u; u &= u - 1) {
    uint32_t i = (uint32_t)__builtin_ctzll(u);
    const mp_split *sp = &s->st[i];
    fprintf(f, "  %4u %5u %5u", i, sp->pc, sp->rpc);
    put_index(f, sp->rix);
    fprintf(f, "  %s", weft_mask_string(m, sp->mask, w));
    if (sp->barrier != MP_NONE) fprintf(f, "  waiting at the barrier ending block %u", sp->barrier);
    if (s->parked >> i & 1) fputs("  waiting for a table slot", f);
    fputc('\n', f);
  }
  fprintf(f, "reconvergence table: %u %s\n", nr, nr == 1 ? "entry" : "entries");
  if (nr)
    fprintf(f, "  %4s %5s %5s %4s  %-*s  %s\n", "#", "PC", "RPC", "R", (int)(w > 6 ? w : 6),
            "reconv", "pending");
  for (uint32_t i = 0; i < s->rtop; i++) {
    const mp_rec *r = &s->rt[i];
    if (!r->rmask) continue;
    fprintf(f, "  %4u %5u %5u", i, r->pc, r->rpc);
    put_index(f, r->rix);
    fprintf(f, "  %-*s  %s\n", (int)(w > 6 ? w : 6), weft_mask_string(m, r->rmask, w),
            weft_mask_string(p, r->pending, w));
  }
}

/* `{"slot": i, "pc": p, "rpc": r, "r": x`, the start of the n-th entry of either table. */
static void json_entry(FILE *f, uint32_t n, uint32_t i, uint32_t pc, uint32_t rpc, uint32_t rix) {
  fprintf(f, "%s{\"slot\": %u, \"pc\": %u, \"rpc\": %u", n ? ", " : "", i, pc, rpc);
  rt_json_index(f, "r", rix, MP_NONE);
}

/* {"split_table": [{"slot", "pc", "rpc", "r", "mask", "barrier", "parked"}], "reconvergence_table":
 *  [{"slot", "pc", "rpc", "r", "reconv", "pending"}], "finished"}: valid entries in slot order,
 * null for no R-index or no barrier. */
static void mp_print_json(FILE *f, const void *st) {
  const mp_state *s = st;
  unsigned w = s->k->warp;
  fputs("{\"split_table\": [", f);
  unsigned n = 0;
  for (uint64_t u = s->used; u; u &= u - 1) {
    uint32_t i = (uint32_t)__builtin_ctzll(u);
    const mp_split *sp = &s->st[i];
    json_entry(f, n++, i, sp->pc, sp->rpc, sp->rix);
    rt_json_mask(f, "mask", sp->mask, w);
    rt_json_index(f, "barrier", sp->barrier, MP_NONE);
    fprintf(f, ", \"parked\": %s}", s->parked >> i & 1 ? "true" : "false");
  }
  fputs("], \"reconvergence_table\": [", f);
  n = 0;
  for (uint32_t i = 0; i < s->rtop; i++) {
    const mp_rec *r = &s->rt[i];
    if (!r->rmask) continue;
    json_entry(f, n++, i, r->pc, r->rpc, r->rix);
    rt_json_mask(f, "reconv", r->rmask, w);
    rt_json_mask(f, "pending", r->pending, w);
    fputc('}', f);
  }
  fputc(']', f);
  rt_json_mask(f, "finished", s->finished, w);
  fputc('}', f);
}

const weft_policy_ops policy_mp = {
    .name = "mp",
    .state_size = mp_state_size,
    .init = mp_init,
    .next = mp_next,
    .branch = mp_branch,
    .barrier_arrive = mp_barrier_arrive,
    .barrier_waiting = mp_barrier_waiting,
    .barrier_release = mp_barrier_release,
    .finished = mp_finished,
    .lane_pcs = mp_lane_pcs,
    .print = mp_print,
    .print_json = mp_print_json,
    .release = mp_release,
    .ahead = mp_ahead,
    .regions_ran = mp_regions_ran,
};

const weft_policy_ops policy_mp_orec = {
    .name = "mp-orec",
    .state_size = mp_state_size,
    .init = mp_orec_init,
    .next = mp_next,
    .branch = mp_branch,
    .barrier_arrive = mp_barrier_arrive,
    .barrier_waiting = mp_barrier_waiting,
    .barrier_release = mp_barrier_release,
    .finished = mp_finished,
    .lane_pcs = mp_lane_pcs,
    .print = mp_print,
    .print_json = mp_print_json,
    .release = mp_release,
    .ahead = mp_ahead,
    .regions_ran = mp_regions_ran,
};
