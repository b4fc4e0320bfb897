/* `mp` and `mp-orec`: multi-path IPDOM reconvergence (ElTantawy et al., HPCA 2014), with and
 * without opportunistic early reconvergence (the paper's Section 4).
 *
 * Each warp has two tables instead of a stack:
 *   - the warp split table (ST): the splits that can run, each (PC, mask, RPC, R-index); RPC is
 *     the split's reconvergence PC (the guard published to the warp function) and R-index the
 *     reconvergence entry its lanes arrive at there (none for the kernel's end);
 *   - the reconvergence table (RT): per reconvergence point (PC, reconvergence mask, pending
 *     mask) plus the RPC and R-index the entry takes with it when it becomes a split again.
 * Any split of the ST may run; next() picks the ready splits round robin (the slot after the
 * one that ran last), as the paper's simulations do.
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
 * mp-orec: a split inserted into the ST (by a branch, a reconvergence or a barrier) at the same
 * PC, RPC and R-index as a waiting split merges into it: an early reconvergence, at block
 * granularity (counted with the reconvergences; weft_stats has no field of its own for it). The
 * R-index must match too, since the merged lanes must arrive at one entry.
 *
 * Bounds: the ST's masks are disjoint and non-empty, so it never holds more than W splits. Under
 * `mp` the live RT entries form a laminar family of masks with at least 2 lanes each (an entry
 * is made from a split that went at least two ways), each strictly inside its parent entry, so
 * there are at most W-1 of them. Under `mp-orec` a merged split can fill its whole entry, and an
 * entry it makes then has its parent's mask; such chains follow the post-dominator tree, so they
 * are bounded by the kernel, not by W. The RT has room for 2W entries; a table that would
 * overflow is reported (WEFT_ERROR_OUT_OF_MEMORY), never overwritten.
 *
 * Barriers: each split waits at a barrier on its own (the paper's Section 3.3.3); the barrier
 * completes when every work-item of the work-group waits (the scheduler decides). Splits of one
 * warp that wait at different barrier blocks count as waiting at one barrier, as threads of a
 * warp synchronise while diverged; the warp reports the lowest of those blocks. Lanes that wait
 * at a reconvergence point for lanes that wait at a barrier can never get there: the scheduler
 * reports that as a deadlock. */
#include <string.h>

#include "runtime.h"

#define MP_NONE UINT32_MAX

typedef struct mp_split {
  uint64_t mask;   /* 0: a free slot */
  uint32_t pc, rpc;
  uint32_t rix;     /* reconvergence entry at rpc, MP_NONE for the kernel's end */
  uint32_t barrier; /* the block whose barrier the split waits at, or MP_NONE */
} mp_split;

typedef struct mp_rec {
  uint64_t rmask;   /* 0: a free slot */
  uint64_t pending; /* lanes that have not reached pc yet */
  uint32_t pc;      /* the reconvergence point */
  uint32_t rpc, rix; /* of the split the entry becomes */
  uint32_t pad_;
} mp_rec;

typedef struct mp_state {
  const weft_compiled_kernel *k;
  uint32_t orec;
  uint32_t scap, rcap;  /* slots of each table */
  uint32_t cur;         /* the slot next() returned last: the events belong to it */
  uint32_t broken;      /* a table overflowed where no error could be returned */
  uint64_t live, finished;
  uint64_t resolved;    /* RT entries that became splits again (for traces) */
  mp_split *st;
  mp_rec *rt;
} mp_state;

static size_t mp_state_size(const weft_compiled_kernel *k) {
  return rt_align64(sizeof(mp_state)) + (size_t)k->warp * sizeof(mp_split) +
         2 * (size_t)k->warp * sizeof(mp_rec);
}

static void init(mp_state *s, const weft_compiled_kernel *k, uint64_t live, uint32_t orec) {
  char *at = (char *)s + rt_align64(sizeof(mp_state));
  *s = (mp_state){.k = k, .orec = orec, .scap = k->warp, .rcap = 2 * k->warp, .live = live};
  s->st = (mp_split *)at;
  s->rt = (mp_rec *)(at + (size_t)k->warp * sizeof(mp_split));
  memset(s->st, 0, s->scap * sizeof(mp_split));
  memset(s->rt, 0, s->rcap * sizeof(mp_rec));
  s->st[0] = (mp_split){live, 0, k->nblocks, MP_NONE, MP_NONE};
  s->cur = s->scap - 1; /* round robin starts at slot 0 */
}
static void mp_init(void *st, const weft_compiled_kernel *k, uint64_t live) {
  init(st, k, live, 0);
}
static void mp_orec_init(void *st, const weft_compiled_kernel *k, uint64_t live) {
  init(st, k, live, 1);
}

static weft_status place(mp_state *s, mp_split sp, policy_counters *c);

/* The entry's pending mask is empty: it becomes a split at its PC with all its lanes. */
static weft_status resolve(mp_state *s, uint32_t rix, policy_counters *c) {
  mp_rec *r = &s->rt[rix];
  mp_split sp = {r->rmask, r->pc, r->rpc, r->rix, MP_NONE};
  r->rmask = r->pending = 0;
  c->reconvergences++;
  s->resolved++;
  return place(s, sp, c);
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
  for (uint32_t x = rix, n = 0; x != MP_NONE && n < s->rcap; x = s->rt[x].rix, n++) {
    mp_rec *r = &s->rt[x];
    r->rmask &= ~lanes, r->pending &= ~lanes;
    if (r->rmask && first == MP_NONE) first = x;
  }
  return first != MP_NONE && !s->rt[first].pending ? resolve(s, first, c) : WEFT_SUCCESS;
}

/* Puts a split into the ST: at its RPC it arrives instead, at the end it finishes, and under
 * mp-orec it merges with a waiting split at the same PC, RPC and entry. */
static weft_status place(mp_state *s, mp_split sp, policy_counters *c) {
  if (sp.pc >= s->k->nblocks) return finish(s, sp.rix, sp.mask, c);
  if (sp.pc == sp.rpc && sp.rix != MP_NONE) return arrive(s, sp.rix, sp.mask, c);
  uint32_t free_slot = MP_NONE;
  for (uint32_t i = 0; i < s->scap; i++) {
    mp_split *o = &s->st[i];
    if (!o->mask) {
      if (free_slot == MP_NONE) free_slot = i;
      if (!s->orec) break;
    } else if (s->orec && o->pc == sp.pc && o->rpc == sp.rpc && o->rix == sp.rix &&
               o->barrier == MP_NONE && sp.barrier == MP_NONE) {
      o->mask |= sp.mask;
      c->reconvergences++; /* early */
      return WEFT_SUCCESS;
    }
  }
  if (free_slot == MP_NONE) return WEFT_ERROR_OUT_OF_MEMORY; /* disjoint masks: cannot happen */
  s->st[free_slot] = sp;
  return WEFT_SUCCESS;
}

static int mp_next(void *st, uint32_t *pc, uint64_t *mask, uint32_t *guard) {
  mp_state *s = st;
  if (s->broken) return 0;
  for (uint32_t n = 1; n <= s->scap; n++) {
    uint32_t i = (s->cur + n) % s->scap;
    const mp_split *sp = &s->st[i];
    if (!sp->mask || sp->barrier != MP_NONE) continue;
    s->cur = i;
    *pc = sp->pc, *mask = sp->mask, *guard = sp->rpc;
    return 1;
  }
  return 0;
}

static weft_status diverge(mp_state *s, mp_split sp, const weft_warp_ctx *ctx,
                           policy_counters *c) {
  uint32_t r = s->k->ipdom[ctx->from_pc], parent = sp.rix;
  c->divergent_branches++;
  if (r != sp.rpc) { /* a new reconvergence point; else the split's own entry serves */
    for (parent = 0; parent < s->rcap && s->rt[parent].rmask; parent++) {
    }
    if (parent == s->rcap) return WEFT_ERROR_OUT_OF_MEMORY;
    s->rt[parent] = (mp_rec){sp.mask, sp.mask, r, sp.rpc, sp.rix, 0};
  }
  for (unsigned t = 0; t < ctx->ntargets; t++) {
    mp_split child = {ctx->target_mask[t], ctx->target_pc[t], r, parent, MP_NONE};
    weft_status e = place(s, child, c);
    if (e != WEFT_SUCCESS) return e;
  }
  return WEFT_SUCCESS;
}

static weft_status mp_branch(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  mp_state *s = st;
  mp_split sp = s->st[s->cur];
  s->st[s->cur].mask = 0;
  if (ctx->ntargets > 1 || ctx->target_pc[0] < s->k->nblocks) c->policy_calls++;
  if (ctx->ntargets > 1) return diverge(s, sp, ctx, c);
  sp.pc = ctx->target_pc[0];
  return place(s, sp, c);
}

static weft_status mp_barrier_arrive(void *st, const weft_warp_ctx *ctx, policy_counters *c) {
  mp_state *s = st;
  mp_split *sp = &s->st[s->cur];
  c->policy_calls++;
  sp->barrier = ctx->from_pc;
  sp->pc = ctx->target_pc[0];
  return WEFT_SUCCESS;
}

static uint64_t mp_barrier_waiting(const void *st, uint32_t *barrier_pc) {
  const mp_state *s = st;
  uint64_t waiting = 0;
  uint32_t pc = MP_NONE;
  for (uint32_t i = 0; i < s->scap; i++) {
    const mp_split *sp = &s->st[i];
    if (!sp->mask || sp->barrier == MP_NONE) continue;
    waiting |= sp->mask;
    if (sp->barrier < pc) pc = sp->barrier;
  }
  if (waiting) *barrier_pc = pc;
  return waiting;
}

/* The waiting splits go on from where they resume: maybe their RPC, the end, or (mp-orec) the
 * PC of another split. */
static void mp_barrier_release(void *st, policy_counters *c) {
  mp_state *s = st;
  mp_split go[WEFT_MAX_WARP];
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->scap; i++) {
    mp_split *sp = &s->st[i];
    if (!sp->mask || sp->barrier == MP_NONE) continue;
    go[n] = *sp, go[n].barrier = MP_NONE, n++;
    sp->mask = 0;
  }
  for (uint32_t i = 0; i < n; i++)
    if (place(s, go[i], c) != WEFT_SUCCESS) s->broken = 1; /* reported by the scheduler */
}

static uint64_t mp_finished(const void *st) { return ((const mp_state *)st)->finished; }

static void put_index(FILE *f, uint32_t x) {
  if (x == MP_NONE)
    fprintf(f, " %4s", "-");
  else
    fprintf(f, " %4u", x);
}

/* Both tables, valid entries only, in slot order (W = 4):
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
  char m[RT_MASK_BUF], p[RT_MASK_BUF];
  unsigned w = s->k->warp, ns = 0, nr = 0;
  for (uint32_t i = 0; i < s->scap; i++) ns += s->st[i].mask != 0;
  for (uint32_t i = 0; i < s->rcap; i++) nr += s->rt[i].rmask != 0;
  fprintf(f, "warp split table: %u %s", ns, ns == 1 ? "split" : "splits");
  if (s->finished) fprintf(f, "; finished %s", rt_mask_str(m, s->finished, w));
  fputc('\n', f);
  if (ns) fprintf(f, "  %4s %5s %5s %4s  %s\n", "#", "PC", "RPC", "R", "mask");
  for (uint32_t i = 0; i < s->scap; i++) {
    const mp_split *sp = &s->st[i];
    if (!sp->mask) continue;
    fprintf(f, "  %4u %5u %5u", i, sp->pc, sp->rpc);
    put_index(f, sp->rix);
    fprintf(f, "  %s", rt_mask_str(m, sp->mask, w));
    if (sp->barrier != MP_NONE) fprintf(f, "  waiting at the barrier ending block %u", sp->barrier);
    fputc('\n', f);
  }
  fprintf(f, "reconvergence table: %u %s\n", nr, nr == 1 ? "entry" : "entries");
  if (nr)
    fprintf(f, "  %4s %5s %5s %4s  %-*s  %s\n", "#", "PC", "RPC", "R", (int)(w > 6 ? w : 6),
            "reconv", "pending");
  for (uint32_t i = 0; i < s->rcap; i++) {
    const mp_rec *r = &s->rt[i];
    if (!r->rmask) continue;
    fprintf(f, "  %4u %5u %5u", i, r->pc, r->rpc);
    put_index(f, r->rix);
    fprintf(f, "  %-*s  %s\n", (int)(w > 6 ? w : 6), rt_mask_str(m, r->rmask, w),
            rt_mask_str(p, r->pending, w));
  }
}

/* `{"slot": i, "pc": p, "rpc": r, "r": x`, the start of the n-th entry of either table. */
static void json_entry(FILE *f, uint32_t n, uint32_t i, uint32_t pc, uint32_t rpc, uint32_t rix) {
  fprintf(f, "%s{\"slot\": %u, \"pc\": %u, \"rpc\": %u", n ? ", " : "", i, pc, rpc);
  rt_json_index(f, "r", rix, MP_NONE);
}

/* {"split_table": [{"slot", "pc", "rpc", "r", "mask", "barrier"}], "reconvergence_table":
 *  [{"slot", "pc", "rpc", "r", "reconv", "pending"}], "finished"}: valid entries in slot order,
 * null for no R-index or no barrier. */
static void mp_print_json(FILE *f, const void *st) {
  const mp_state *s = st;
  unsigned w = s->k->warp;
  fputs("{\"split_table\": [", f);
  for (uint32_t i = 0, n = 0; i < s->scap; i++) {
    const mp_split *sp = &s->st[i];
    if (!sp->mask) continue;
    json_entry(f, n++, i, sp->pc, sp->rpc, sp->rix);
    rt_json_mask(f, "mask", sp->mask, w);
    rt_json_index(f, "barrier", sp->barrier, MP_NONE);
    fputc('}', f);
  }
  fputs("], \"reconvergence_table\": [", f);
  for (uint32_t i = 0, n = 0; i < s->rcap; i++) {
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

static uint64_t mp_entries_resolved(const void *st) { return ((const mp_state *)st)->resolved; }

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
    .print = mp_print,
    .print_json = mp_print_json,
    .entries_resolved = mp_entries_resolved,
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
    .print = mp_print,
    .print_json = mp_print_json,
    .entries_resolved = mp_entries_resolved,
};
