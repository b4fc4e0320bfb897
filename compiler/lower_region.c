/* Structured divergent branches, run masked without the policy.
 *
 * Under `stack`, a divergent branch whose region (the blocks from its targets to its IPDOM R)
 * has no loop, barrier, return or switch always runs the same way: each target other than R,
 * in PC order, runs with its lanes until R, and then all the lanes go on at R. Where ctx->regions
 * allows it (kernel.h), such a branch runs that sequence directly: each block of a side under
 * the side's mask, values blended into their lanes as at any step, and no call of the policy.
 * It counts what the policy would have counted, so that the stats are those of the runtime
 * path:
 *   - 1 divergent branch; 1 policy call for the branch and 1 per side arriving at R;
 *   - 1 reconvergence at R, unless R is the reconvergence point of the split that branched:
 *     then the stack replaces that split's entry by the sides, and the last side's arrival is
 *     the split's own arrival at R, which the enclosing rules count (or, outermost, the policy
 *     itself, at the arrival at R that follows).
 * A branch inside a side follows the same rules with the side's R as the split's point; only
 * the outermost branch's is the guard, read when it runs. Branches whose lanes all go one way
 * cost nothing here, as they cost the policy nothing.
 *
 * `pc` runs such a branch the same way when the sequence's blocks come in increasing PC order
 * (WEFT_REGIONS_PC_ORDER) and no lane of another split waits before R (the split's guard, the
 * lowest PC of the other lanes, is at least R; checked where the branch runs). pc then runs the
 * split's lanes alone until R, the lowest PC first, which is the sequence's next block: each
 * side stops only at the next side's target or at R, and the counts agree: the branch and each
 * side's arrival are calls, and the lanes at R came by different events, one reconvergence.
 * When the guard is R, lanes wait there and the arrival at R is the policy's call that merges
 * them (`replaced`, counted by the policy as under `stack`). A sequence that runs a block twice
 * (two sides reach it) is not for pc, which runs it once with both sides' lanes.
 *
 * A small region that cannot trap or write runs as selects instead when the launch does not
 * count (run_selects, below).
 *
 * `mp` and `mp-orec` under the lowest-pc split order without a split bound run the same
 * branches so (WEFT_REGIONS_LOWEST_PC) when every other ready split of the warp is past R
 * (ctx->ahead > R): the policy then runs the sides' splits in PC order, each to its point, and
 * the split it makes at R is again the lowest. Its counts are those above (a split whose point
 * is R has its sides' lanes arrive at its own entry: `replaced`); what its tables would have
 * held goes to ctx->region_splits and _entries (count_tables), and the scheduler tells the
 * policy (policy_mp.c, regions_ran), which also puts the running split where the
 * reconvergence would have: the first free slot of its split table.
 */
#include "lower.h"

#define REGION_MAX_INSTRS 160 /* kernel instructions one branch's masked sequence may emit */
#define REGION_MAX_DEPTH 8

static int ends_in_barrier(LLVMBasicBlockRef bb) {
  LLVMValueRef last = LLVMGetPreviousInstruction(LLVMGetBasicBlockTerminator(bb));
  return last && is_barrier_call(last);
}

/* What scanning a branch's masked sequence found: its cost, and whether its blocks come in
 * increasing PC order (`ordered`: then each once, no block is reached by two sides). */
typedef struct region_scan {
  lower *L;
  int budget; /* kernel instructions the sequence may still emit */
  int last;   /* the block the sequence ran last */
  int ordered;
} region_scan;

static void scan_visit(region_scan *s, int x) {
  if (x <= s->last) s->ordered = 0;
  s->last = x;
}

/* What emitting block bb once costs, in kernel instructions: a call of a function (not an
 * intrinsic) counts once per lane, since an atomic or printf of the group becomes code per
 * lane. */
static int block_cost(const lower *L, LLVMBasicBlockRef bb) {
  int cost = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
    cost += f && LLVMIsAFunction(f) && !LLVMGetIntrinsicID(f) ? (int)L->G : 1;
  }
  return cost;
}

/* Scans the path from block x to block `until` (not included) as run_path runs it, every side
 * of every branch on the way in PC order; 0 when it cannot run so or would cost too much. The
 * sides of a branch inside a side are emitted twice (the lanes go both ways, or all one way:
 * run_branch), so each level of nesting below the first doubles what a block costs (`copies`):
 * a fuzzed kernel of a hundred lines with atomics in nested branches lowered to 200,000
 * instructions and took a minute to compile, before this. */
static int scan_path(region_scan *s, int x, int until, int depth, int copies) {
  const cfg *g = s->L->cfg;
  while (x != until) {
    if (x > until || depth > REGION_MAX_DEPTH) return 0;
    const cfg_block *cb = &g->blocks[x];
    if (cb->part != g->blocks[until].part) return 0; /* the code is the part's own */
    if (cb->nsuccs == 0 || ends_in_barrier(cb->bb) ||
        LLVMIsASwitchInst(LLVMGetBasicBlockTerminator(cb->bb)))
      return 0;
    for (int k = 0; k < cb->nsuccs; k++)
      if (cb->succs[k] <= x) return 0; /* a loop */
    s->budget -= copies * block_cost(s->L, cb->bb);
    if (s->budget < 0) return 0;
    scan_visit(s, x);
    if (!cfg_is_branch(cb)) {
      x = cb->succs[0];
      continue;
    }
    if (cb->ipdom > until) return 0;
    int lo = cb->succs[0] < cb->succs[1] ? 0 : 1; /* the sides run in PC order */
    for (int k = 0; k < 2; k++) {
      int side = cb->succs[k ? 1 - lo : lo];
      if (side != cb->ipdom && !scan_path(s, side, cb->ipdom, depth + 1, depth ? 2 * copies : 1))
        return 0;
    }
    x = cb->ipdom;
  }
  return 1;
}

void lw_region_setup(lower *L) {
  int n = L->cfg->nblocks;
  L->region_masked = ARENA_NEW(L->arena, unsigned char, (size_t)n);
  L->may_open = ARENA_NEW(L->arena, unsigned char, (size_t)n);
  for (int b = 0; b < n; b++) {
    const cfg_block *cb = &L->cfg->blocks[b];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(cb->bb);
    if (!cfg_is_branch(cb) || !LLVMIsABranchInst(term) || cb->ipdom >= n ||
        divergence_of(L->dv, LLVMGetCondition(term)).shape == UNIFORM)
      continue;
    if (cb->succs[0] == cb->ipdom || cb->succs[1] == cb->ipdom) L->may_open[cb->ipdom] = 1;
    region_scan s = {L, REGION_MAX_INSTRS, -1, 1};
    if (!scan_path(&s, b, cb->ipdom, 0, 1)) continue;
    if (cb->ipdom <= s.last) s.ordered = 0;
    L->region_masked[b] = WEFT_REGIONS_STACK |
                          (s.ordered ? WEFT_REGIONS_PC_ORDER | WEFT_REGIONS_LOWEST_PC : 0);
  }
}

static void store_max(lower *L, size_t field, LLVMValueRef v) {
  LLVMValueRef p = lw_ctx_field(L, field), old = LLVMBuildLoad2(L->b, LLVMTypeOf(v), p, "");
  LLVMBuildStore(L->b,
                 LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntUGT, v, old, ""), v, old, ""), p);
}

/* i32: the entries the code opened and keeps (ctx->region_opens). */
static LLVMValueRef opens(lower *L) {
  return lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, region_opens), LLVMInt32TypeInContext(L->c));
}

/* A field of ctx->region_open[i]. */
static LLVMValueRef open_field(lower *L, LLVMValueRef i, size_t field) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(L->c);
  LLVMValueRef at = LLVMBuildAdd(
      L->b, lw_const_i64(L, offsetof(weft_warp_ctx, region_open) + field),
      LLVMBuildMul(L->b, LLVMBuildZExt(L->b, i, LLVMInt64TypeInContext(L->c), ""),
                   lw_const_i64(L, sizeof(struct weft_region_open)), ""),
      "");
  return LLVMBuildGEP2(L->b, i8, L->ctx, &at, 1, "");
}

/* The innermost open entry's field; with none open, the first slot's, which may be read but
 * means nothing. */
static LLVMValueRef top_field(lower *L, size_t field) {
  LLVMValueRef n = opens(L), any = LLVMBuildICmp(L->b, LLVMIntNE, n, lw_const_i32(L, 0), "");
  return open_field(L,
                    LLVMBuildSelect(L->b, any, LLVMBuildSub(L->b, n, lw_const_i32(L, 1), ""),
                                    lw_const_i32(L, 0), ""),
                    field);
}

/* mp's tables, had its steps run the divergence (WEFT_REGIONS_LOWEST_PC; policy_mp.c): the
 * split that branched leaves the split table for its n sides, which run one after the other, as
 * those of the divergences around it (a side that runs left its own; the others wait), and a
 * branch whose R is not the split's point adds a reconvergence entry, as does an entry that the
 * code opened and keeps (ctx->region_open). */
static void count_tables(lower *L, int n, LLVMValueRef entry) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef entries = LLVMBuildAdd(L->b, LLVMBuildZExt(L->b, entry, i32, ""), opens(L), "");
  store_max(L, offsetof(weft_warp_ctx, region_splits),
            lw_const_i32(L, (uint64_t)(L->chain_splits + n)));
  store_max(L, offsetof(weft_warp_ctx, region_entries),
            LLVMBuildAdd(L->b, L->chain_entries, entries, ""));
}

/* Adds to ctx's region counters, which the scheduler adds to the policy's (i64 each; NULL:
 * nothing): divergent branches, reconvergences, policy calls. Counting only. */
static void add_region_counts(lower *L, LLVMValueRef branches, LLVMValueRef met,
                              LLVMValueRef calls) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  size_t field[3] = {offsetof(weft_warp_ctx, region_divergent_branches),
                     offsetof(weft_warp_ctx, region_reconvergences),
                     offsetof(weft_warp_ctx, region_policy_calls)};
  LLVMValueRef add[3] = {branches, met, calls};
  for (int i = 0; i < 3; i++) {
    if (!add[i]) continue;
    LLVMValueRef p = lw_ctx_field(L, field[i]);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, LLVMBuildLoad2(L->b, i64, p, ""), add[i], ""), p);
  }
}

/* What one divergence counts: n sides, and whether R is the split's point (`replaced`, i1). */
static void count_divergence(lower *L, int n, LLVMValueRef replaced) {
  LLVMBasicBlockRef done = lw_counting_begin(L);
  count_tables(L, n, LLVMBuildNot(L->b, replaced, ""));
  LLVMValueRef met = LLVMBuildZExt(L->b, LLVMBuildNot(L->b, replaced, ""),
                                   LLVMInt64TypeInContext(L->c), "");
  add_region_counts(L, lw_const_i64(L, 1), met,
                    LLVMBuildAdd(L->b, lw_const_i64(L, (uint64_t)n), met, ""));
  lw_counting_end(L, done);
}

/* The running split becomes the lanes m: what ran so far counts for the lanes that ran it. */
static void set_mask(lower *L, LLVMValueRef m) {
  lw_count_to_ctx(L);
  LLVMBuildStore(L->b, m, L->mask_var);
  L->mask = m;
}

static LLVMBasicBlockRef new_block(lower *L, const char *name) {
  return LLVMAppendBasicBlockInContext(L->c, L->fn, name);
}

static void run_path(lower *L, int x, int until, int rpc);

/* The sides of a divergence at x, in PC order, each with its lanes, then the split's lanes
 * again; `replaced`: x's IPDOM is the split's point. */
static void run_sides(lower *L, int x, edge *e, LLVMValueRef replaced) {
  int r = L->cfg->blocks[x].ipdom, n = 0;
  LLVMValueRef mask = L->mask;
  if (e[1].to < e[0].to) {
    edge t = e[0];
    e[0] = e[1], e[1] = t;
  }
  for (int k = 0; k < 2; k++) n += e[k].to != r;
  count_divergence(L, n, replaced);
  LLVMBuildStore(L->b, lw_const_i32(L, 1),
                 lw_ctx_field(L, offsetof(weft_warp_ctx, region_diverged)));
  int splits = L->chain_splits;
  LLVMValueRef entries = L->chain_entries;
  L->chain_entries = LLVMBuildAdd(
      L->b, entries,
      LLVMBuildZExt(L->b, LLVMBuildNot(L->b, replaced, ""), LLVMInt32TypeInContext(L->c), ""), "");
  for (int k = 0, s = 0; k < 2; k++)
    if (e[k].to != r) {
      L->chain_splits = splits + n - s++ - 1;
      set_mask(L, e[k].mask), run_path(L, e[k].to, r, r);
    }
  L->chain_splits = splits, L->chain_entries = entries;
  set_mask(L, mask);
}

/* A branch at x inside a path of the split whose point is rpc: its lanes go on at its IPDOM. */
static void run_branch(lower *L, int x, int rpc) {
  const cfg_block *cb = &L->cfg->blocks[x];
  LLVMValueRef cond = LLVMGetCondition(LLVMGetBasicBlockTerminator(cb->bb)),
               zero = lw_const_i64(L, 0);
  LLVMBasicBlockRef one_way = new_block(L, "one.way"), first = new_block(L, "first"),
                    second = new_block(L, "second"), join = new_block(L, "");
  LLVMValueRef to_first; /* i1: every lane takes succs[0] */
  edge e[2];
  if (divergence_of(L->dv, cond).shape == UNIFORM) {
    to_first = lw_scalar_of(L, cond);
    e[0] = (edge){cb->succs[0], LLVMBuildSelect(L->b, to_first, L->mask, zero, "")};
    e[1] = (edge){cb->succs[1], LLVMBuildSelect(L->b, to_first, zero, L->mask, "")};
    lw_write_phis(L, x, e, 2);
    LLVMBuildBr(L->b, one_way);
  } else {
    LLVMValueRef t = lw_true_lanes(L, cond);
    e[0] = (edge){cb->succs[0], t}, e[1] = (edge){cb->succs[1], LLVMBuildXor(L->b, t, L->mask, "")};
    lw_write_phis(L, x, e, 2);
    to_first = LLVMBuildICmp(L->b, LLVMIntEQ, t, L->mask, "");
    LLVMValueRef split = LLVMBuildAnd(L->b, LLVMBuildNot(L->b, to_first, ""),
                                      LLVMBuildICmp(L->b, LLVMIntNE, t, zero, ""), "");
    LLVMBasicBlockRef diverged = new_block(L, "diverged");
    LLVMBuildCondBr(L->b, split, diverged, one_way);
    LLVMPositionBuilderAtEnd(L->b, diverged);
    run_sides(L, x, e, LLVMConstInt(LLVMInt1TypeInContext(L->c), cb->ipdom == rpc, 0));
    LLVMBuildBr(L->b, join);
  }
  LLVMPositionBuilderAtEnd(L->b, one_way);
  LLVMBuildCondBr(L->b, to_first, first, second);
  LLVMBasicBlockRef side[2] = {first, second};
  for (int k = 0; k < 2; k++) {
    LLVMPositionBuilderAtEnd(L->b, side[k]);
    run_path(L, cb->succs[k], cb->ipdom, rpc);
    LLVMBuildBr(L->b, join);
  }
  LLVMPositionBuilderAtEnd(L->b, join);
}

/* Runs the blocks from x to `until` (not included) with the running split's lanes. */
static void run_path(lower *L, int x, int until, int rpc) {
  while (x != until) {
    const cfg_block *cb = &L->cfg->blocks[x];
    lw_count_block(L, cfg_instrs(cb->bb));
    lw_emit_body(L, cb->bb);
    if (cfg_is_branch(cb)) {
      run_branch(L, x, rpc);
      x = cb->ipdom;
      continue;
    }
    edge e = {cb->succs[0], L->mask};
    lw_write_phis(L, x, &e, 1);
    x = cb->succs[0];
  }
}

/* ---- small regions as selects ----
 * A structured branch whose region is a few instructions that can neither trap nor write (no
 * memory access, no integer division, no call but of arithmetic: lw_speculation_cost, such as
 * a ray tracer's sqrt) runs, when the launch does not count, as
 * straight code: each block of each side runs with all the running split's lanes, and a join's
 * phis take, lane by lane, the value that the lane's own path brought (its edges' masks). A lane
 * computes what its side never would, but nothing reads it: a side's values are read only in
 * that side and by the joins' phis. The running split's mask never changes and no branch tests
 * a mask, so a small if/else costs its two sides and the blends, as in ISPC, instead of the
 * tests, mask changes and counts of run_sides (bench/: the helper's loop 10% faster, nested
 * if/else 5%).
 * The counting launch runs the masked sequence, whose counts are the policy's; the results are
 * the same. Only regions that run each block once (WEFT_REGIONS_PC_ORDER's order). */
#define SELECT_MAX_INSTRS 24

/* What instruction i costs run for every lane, in kernel instructions, or -1 when it may not
 * run for lanes that do not take its block. */
static int speculation_cost(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMCall: return lw_speculation_cost(i);
  case LLVMAdd:
  case LLVMFAdd:
  case LLVMSub:
  case LLVMFSub:
  case LLVMMul:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFNeg:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMICmp:
  case LLVMFCmp:
  case LLVMSelect:
  case LLVMPHI:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMUIToFP:
  case LLVMSIToFP:
  case LLVMFPToUI:
  case LLVMFPToSI:
  case LLVMBitCast:
  case LLVMGetElementPtr:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMFreeze: return 1;
  default: return -1;
  }
}

/* Whether the blocks from x to `until` (not included) may run as selects, within *budget
 * instructions. */
static int select_scan(lower *L, int x, int until, int *budget) {
  while (x != until) {
    const cfg_block *cb = &L->cfg->blocks[x];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(cb->bb);
    for (LLVMValueRef i = LLVMGetFirstInstruction(cb->bb); i != term;
         i = LLVMGetNextInstruction(i)) {
      int cost = speculation_cost(i);
      if (cost < 0 || (*budget -= cost) < 0) return 0;
    }
    if (!cfg_is_branch(cb)) {
      x = cb->succs[0];
      continue;
    }
    for (int k = 0; k < 2; k++)
      if (cb->succs[k] != cb->ipdom && !select_scan(L, cb->succs[k], cb->ipdom, budget)) return 0;
    x = cb->ipdom;
  }
  return 1;
}

static int selectable(lower *L, int b) {
  const cfg_block *cb = &L->cfg->blocks[b];
  int budget = SELECT_MAX_INSTRS;
  if (!(L->region_masked[b] & WEFT_REGIONS_PC_ORDER)) return 0;
  for (int k = 0; k < 2; k++)
    if (cb->succs[k] != cb->ipdom && !select_scan(L, cb->succs[k], cb->ipdom, &budget)) return 0;
  return 1;
}

static LLVMValueRef both_ways(lower *L, const edge *e) {
  LLVMValueRef zero = lw_const_i64(L, 0);
  return LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntNE, e[0].mask, zero, ""),
                      LLVMBuildICmp(L->b, LLVMIntNE, e[1].mask, zero, ""), "");
}

static void select_path(lower *L, int x, int until, LLVMValueRef path, LLVMValueRef *diverged);

/* A uniform branch at x on a select path: all of `path` goes one way, so it branches, as
 * run_branch does. Both ways run as straight code would write the join's phis one after the
 * other, unblended (only the slots of lanes that can wait blend: lower_step.c), and the way
 * emitted last would win. */
static void select_one_way(lower *L, int x, LLVMValueRef path, LLVMValueRef *diverged) {
  const cfg_block *cb = &L->cfg->blocks[x];
  LLVMValueRef cond = LLVMGetCondition(LLVMGetBasicBlockTerminator(cb->bb));
  LLVMBasicBlockRef way[2] = {new_block(L, "first"), new_block(L, "second")},
                    join = new_block(L, ""), end[2];
  LLVMValueRef was = *diverged, after[2];
  LLVMBuildCondBr(L->b, lw_scalar_of(L, cond), way[0], way[1]);
  for (int k = 0; k < 2; k++) {
    LLVMPositionBuilderAtEnd(L->b, way[k]);
    after[k] = was;
    lw_write_phis(L, x, &(edge){cb->succs[k], path}, 1);
    if (cb->succs[k] != cb->ipdom) select_path(L, cb->succs[k], cb->ipdom, path, &after[k]);
    end[k] = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
  }
  LLVMPositionBuilderAtEnd(L->b, join);
  *diverged = LLVMBuildPhi(L->b, LLVMInt1TypeInContext(L->c), "");
  LLVMAddIncoming(*diverged, after, end, 2);
}

/* The blocks from x to `until` (not included) with all the running lanes; `path`: the lanes
 * that take them, for the phis their edges write. *diverged (i1) becomes 1 where a branch's
 * lanes go two ways, as mp's tables need to know (region_diverged). */
static void select_path(lower *L, int x, int until, LLVMValueRef path, LLVMValueRef *diverged) {
  while (x != until) {
    const cfg_block *cb = &L->cfg->blocks[x];
    lw_emit_body(L, cb->bb);
    if (!cfg_is_branch(cb)) {
      lw_write_phis(L, x, &(edge){cb->succs[0], path}, 1);
      x = cb->succs[0];
      continue;
    }
    LLVMValueRef cond = LLVMGetCondition(LLVMGetBasicBlockTerminator(cb->bb));
    if (divergence_of(L->dv, cond).shape == UNIFORM) {
      select_one_way(L, x, path, diverged);
      x = cb->ipdom;
      continue;
    }
    LLVMValueRef first = LLVMBuildAnd(L->b, lw_true_lanes(L, cond), path, "");
    edge e[2] = {{cb->succs[0], first}, {cb->succs[1], LLVMBuildXor(L->b, first, path, "")}};
    lw_write_phis(L, x, e, 2);
    *diverged = LLVMBuildOr(L->b, *diverged, both_ways(L, e), "");
    for (int k = 0; k < 2; k++)
      if (e[k].to != cb->ipdom) select_path(L, e[k].to, cb->ipdom, e[k].mask, diverged);
    x = cb->ipdom;
  }
}

/* The region of the divergence at b, its lanes in e, as selects. */
static void run_selects(lower *L, int b, const edge *e) {
  int r = L->cfg->blocks[b].ipdom;
  LLVMValueRef diverged = both_ways(L, e);
  L->every_group = 1; /* no test of a group's lanes: its values go where no lane reads them */
  for (int k = 0; k < 2; k++)
    if (e[k].to != r) select_path(L, e[k].to, r, e[k].mask, &diverged);
  L->every_group = 0;
  LLVMValueRef p = lw_ctx_field(L, offsetof(weft_warp_ctx, region_diverged));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMBuildStore(
      L->b,
      LLVMBuildSelect(L->b, diverged, lw_const_i32(L, 1), LLVMBuildLoad2(L->b, i32, p, ""), ""), p);
}

/* A divergence at x, its lanes in e: as selects where it may and the launch does not count,
 * else its sides one after the other (run_sides). */
static void run_divergence(lower *L, int x, edge *e, LLVMValueRef replaced) {
  if (!selectable(L, x)) return run_sides(L, x, e, replaced);
  LLVMBasicBlockRef selects = new_block(L, "selects"), sides = new_block(L, "sides"),
                    after = new_block(L, "");
  LLVMBuildCondBr(L->b, lw_counting(L), sides, selects);
  LLVMPositionBuilderAtEnd(L->b, selects);
  run_selects(L, x, e);
  LLVMBuildBr(L->b, after);
  LLVMPositionBuilderAtEnd(L->b, sides);
  run_sides(L, x, e, replaced);
  LLVMBuildBr(L->b, after);
  LLVMPositionBuilderAtEnd(L->b, after);
}

static LLVMValueRef has_bit(lower *L, LLVMValueRef v, unsigned bit) {
  LLVMValueRef x = LLVMBuildAnd(L->b, v, lw_const_i32(L, bit), "");
  return LLVMBuildICmp(L->b, LLVMIntNE, x, lw_const_i32(L, 0), "");
}

/* What a branch that may go on without the policy's step reads of it: which policies' rules
 * apply (ctx->regions), the running split's guard, and the lowest PC of another split (mp's
 * ctx->ahead). */
typedef struct split_view {
  LLVMValueRef regions, guard, ahead; /* i32 */
} split_view;

static split_view view_split(lower *L) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  return (split_view){L->regions, LLVMBuildLoad2(L->b, i32, L->guard_var, ""), L->ahead};
}

/* i1: x (a view's guard or ahead) compares with block pc as pred says. */
static LLVMValueRef compare_pc(lower *L, LLVMIntPredicate pred, LLVMValueRef x, int pc) {
  return LLVMBuildICmp(L->b, pred, x, lw_const_i32(L, (uint64_t)pc), "");
}

void lw_region_run(lower *L, int b, edge *e, LLVMBasicBlockRef runtime) {
  int r = L->cfg->blocks[b].ipdom;
  LLVMBasicBlockRef masked = new_block(L, "region"), reconverge = new_block(L, "reconverge"),
                    arrival = new_block(L, "region.arrival");
  split_view v = view_split(L);
  LLVMValueRef regions = LLVMBuildAnd(L->b, v.regions, lw_const_i32(L, L->region_masked[b]), "");
  /* pc: no lane of another split waits before R; mp: every other split waits above R */
  LLVMValueRef clear = compare_pc(L, LLVMIntUGE, v.guard, r);
  LLVMValueRef alone = compare_pc(L, LLVMIntUGT, v.ahead, r);
  LLVMValueRef ok = LLVMBuildOr(
      L->b, has_bit(L, regions, WEFT_REGIONS_STACK),
      LLVMBuildOr(L->b, LLVMBuildAnd(L->b, has_bit(L, regions, WEFT_REGIONS_PC_ORDER), clear, ""),
                  LLVMBuildAnd(L->b, has_bit(L, regions, WEFT_REGIONS_LOWEST_PC), alone, ""), ""),
      "");
  LLVMBuildCondBr(L->b, ok, masked, runtime);
  LLVMPositionBuilderAtEnd(L->b, masked);
  L->chain_splits = 0, L->chain_entries = lw_const_i32(L, 0);
  LLVMValueRef replaced = compare_pc(L, LLVMIntEQ, v.guard, r);
  run_divergence(L, b, e, replaced);
  LLVMBuildCondBr(L->b, replaced, arrival, reconverge);
  LLVMPositionBuilderAtEnd(L->b, reconverge);
  LLVMBuildBr(L->b, L->bbs[r]);
  LLVMPositionBuilderAtEnd(L->b, arrival); /* the split's own arrival at its point */
  lw_arrive(L, b, r);
}

/* A loop's exit (or an early return) at b whose lanes that stay go on at `to` while the others
 * go to b's IPDOM R; the policy's step would narrow the running split and go on at `to`:
 *   - `stack`, when the split's point is R (guard == R): the top entry's lanes that go to R
 *     join the entry below, which waits there, and the top entry becomes one for the others
 *     (policy_stack.c's diverge when R is the top's RPC): weft_stack_leave; when R is below
 *     the split's point (an early return around a loop), the top entry waits at R and one for
 *     the others goes on top (diverge() again): weft_stack_open; a loop's first exit takes the
 *     general step instead (bench/'s helper ran 1.14x slower with this one in its loop);
 *   - `mp` under lowest-pc, when the split's point is R (guard == R: mp-orec, whose guard may
 *     be below the split's RPC, then says ahead 0) and every other split waits past `to`:
 *     the lanes that go to R arrive at the split's reconvergence entry, whose other lanes are
 *     still pending, and the split with the others takes the first free slot, as the policy's
 *     diverge() leaves it (policy_mp.c). The code saves the values live at R of the lanes that
 *     go there (the policy resumes them from the frame), counts the divergence, narrows
 *     ctx->mask (the split's lanes, for the events it returns) and hands the scheduler the
 *     lanes that arrived (ctx->region_left), which tells the policy when the split returns;
 *   - `mp` so, when R is below the split's point (a loop's first exit, an early return):
 *     diverge() would make an entry at R for the split's lanes, whose split the others become,
 *     with R as its point; the code opens it (ctx->region_open, made by the policy when the
 *     split returns, kernel.h), leaves as above, with the lanes that arrive at R the entry's,
 *     and goes on with R as its guard. When the others arrive at R in the same call, the
 *     entry resolves there (lw_region_close);
 *   - `pc`, when `to` is below R and below every other lane (to < guard): the lanes that go
 *     to R wait there, the others run on, up to a guard no higher than R: weft_pc_leave.
 * Each goes on in the code: no step, no return. */
typedef enum leave_kind {
  LEAVE_STACK,
  LEAVE_STACK_OPEN,
  LEAVE_MP,
  LEAVE_MP_OPEN,
  LEAVE_PC,
  LEAVE_KINDS
} leave_kind;

/* i1: the policy's leave applies (see above). */
static LLVMValueRef leave_applies(lower *L, const split_view *v, leave_kind k, int r, int to) {
  if (k == LEAVE_PC)
    return LLVMBuildAnd(L->b, has_bit(L, v->regions, WEFT_REGIONS_PC_ORDER),
                        compare_pc(L, LLVMIntUGT, v->guard, to), "");
  if (k == LEAVE_STACK_OPEN)
    return LLVMBuildAnd(L->b, has_bit(L, v->regions, WEFT_REGIONS_STACK),
                        compare_pc(L, LLVMIntUGT, v->guard, r), "");
  if (k == LEAVE_MP_OPEN)
    return LLVMBuildAnd(L->b,
                        LLVMBuildAnd(L->b, has_bit(L, v->regions, WEFT_REGIONS_LOWEST_PC),
                                     compare_pc(L, LLVMIntUGT, v->guard, r), ""),
                        LLVMBuildAnd(L->b, compare_pc(L, LLVMIntUGT, v->ahead, to),
                                     compare_pc(L, LLVMIntULT, opens(L), WEFT_REGION_OPENS), ""),
                        "");
  LLVMValueRef ok = LLVMBuildAnd(
      L->b, has_bit(L, v->regions, k == LEAVE_STACK ? WEFT_REGIONS_STACK : WEFT_REGIONS_LOWEST_PC),
      compare_pc(L, LLVMIntEQ, v->guard, r), "");
  if (k == LEAVE_STACK) return ok;
  return LLVMBuildAnd(L->b, ok, compare_pc(L, LLVMIntUGT, v->ahead, to), "");
}

/* mp's leave: what the policy hears of when the split returns (see above). */
static void leave_mp(lower *L, int r, LLVMValueRef left, LLVMValueRef stay) {
  L->chain_splits = 0, L->chain_entries = lw_const_i32(L, 0);
  count_divergence(L, 1, LLVMConstInt(LLVMInt1TypeInContext(L->c), 1, 0));
  LLVMBuildStore(L->b, lw_const_i32(L, 1),
                 lw_ctx_field(L, offsetof(weft_warp_ctx, region_diverged)));
  lw_frame_save_of(L, &r, 1, left); /* as the split's return would */
  LLVMBuildStore(L->b, stay, lw_ctx_field(L, offsetof(weft_warp_ctx, mask)));
  LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, opens(L), lw_const_i32(L, 0), "");
  LLVMValueRef p = LLVMBuildSelect(L->b, any, top_field(L, offsetof(struct weft_region_open, left)),
                                   lw_ctx_field(L, offsetof(weft_warp_ctx, region_left)), "");
  LLVMBuildStore(L->b, LLVMBuildOr(L->b, LLVMBuildLoad2(L->b, LLVMTypeOf(left), p, ""), left, ""),
                 p);
}

/* mp's first leave for R below the split's point (see above): the entry opens. */
static void open_mp(lower *L, const split_view *v, int r, LLVMValueRef left, LLVMValueRef stay) {
  LLVMValueRef n = opens(L);
  LLVMBuildStore(L->b, L->mask, open_field(L, n, offsetof(struct weft_region_open, mask)));
  LLVMBuildStore(L->b, lw_const_i64(L, 0),
                 open_field(L, n, offsetof(struct weft_region_open, left)));
  LLVMBuildStore(L->b, lw_const_i32(L, (uint64_t)r),
                 open_field(L, n, offsetof(struct weft_region_open, pc)));
  LLVMBuildStore(L->b, v->guard, open_field(L, n, offsetof(struct weft_region_open, rpc)));
  LLVMBuildStore(L->b, LLVMBuildAdd(L->b, n, lw_const_i32(L, 1), ""),
                 lw_ctx_field(L, offsetof(weft_warp_ctx, region_opens)));
  LLVMBuildStore(L->b, lw_const_i32(L, (uint64_t)r), L->guard_var);
  LLVMBuildStore(L->b, lw_const_i32(L, (uint64_t)r), /* for another part's code */
                 lw_ctx_field(L, offsetof(weft_warp_ctx, guard)));
  leave_mp(L, r, left, stay);
}

void lw_region_leave(lower *L, int b, edge *e) {
  int r = L->cfg->blocks[b].ipdom, stay = e[0].to == r, to = e[stay].to;
  if (r >= L->cfg->nblocks || (e[0].to != r && e[1].to != r) || to == r || to >= L->cfg->nblocks ||
      L->cfg->blocks[to].part != L->part)
    return;
  LLVMBasicBlockRef go = new_block(L, "leave.loop"), step = new_block(L, "");
  split_view v = view_split(L);
  for (leave_kind k = 0; k < LEAVE_KINDS; k++) {
    if (k == LEAVE_PC && to > r) continue; /* pc runs the lower PC first: the lanes leaving */
    if ((k == LEAVE_MP_OPEN || k == LEAVE_STACK_OPEN) && to > r) continue; /* R runs first */
    if (k == LEAVE_STACK_OPEN && L->in_loop[b]) continue; /* see below */
    LLVMBasicBlockRef leave = new_block(L, "leave"), next = new_block(L, "");
    LLVMBuildCondBr(L->b, leave_applies(L, &v, k, r, to), leave, next);
    LLVMPositionBuilderAtEnd(L->b, leave);
    if (k == LEAVE_MP) {
      leave_mp(L, r, e[1 - stay].mask, e[stay].mask);
    } else if (k == LEAVE_MP_OPEN) {
      open_mp(L, &v, r, e[1 - stay].mask, e[stay].mask);
    } else {
      lw_store_event(L, b, 1, to, e[stay].mask);
      LLVMValueRef f = k == LEAVE_STACK ? L->stack_leave
                       : k == LEAVE_PC  ? L->pc_leave
                                        : L->stack_open;
      LLVMValueRef args[2] = {L->ctx, lw_const_i32(L, (uint64_t)r)};
      LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, k == LEAVE_STACK ? 1 : 2, "");
      if (k != LEAVE_STACK)
        LLVMBuildStore(
            L->b,
            lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, guard), LLVMInt32TypeInContext(L->c)),
            L->guard_var);
    }
    LLVMBuildBr(L->b, go);
    LLVMPositionBuilderAtEnd(L->b, next);
  }
  LLVMBuildBr(L->b, step);
  LLVMPositionBuilderAtEnd(L->b, go);
  set_mask(L, e[stay].mask);
  lw_stop_check(L, b, to, to <= b); /* as the step's split would start there, guard or not */
  LLVMBuildBr(L->b, L->bbs[to]);
  LLVMPositionBuilderAtEnd(L->b, step);
}

/* The entry at `to` resolves (see lw_region_close): one block per part and PC, which every
 * arrival there shares. */
static LLVMBasicBlockRef closing(lower *L, int to) {
  if (L->closing[to]) return L->closing[to];
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  LLVMBasicBlockRef close = L->closing[to] = new_block(L, "close");
  LLVMPositionBuilderAtEnd(L->b, close);
  LLVMBasicBlockRef done = lw_counting_begin(L);
  add_region_counts(L, NULL, lw_const_i64(L, 1), lw_const_i64(L, 1)); /* as arrive() counts */
  lw_counting_end(L, done);
  LLVMValueRef lanes = LLVMBuildLoad2(L->b, i64,
                                      top_field(L, offsetof(struct weft_region_open, mask)), "");
  LLVMValueRef rpc = LLVMBuildLoad2(L->b, LLVMInt32TypeInContext(L->c),
                                    top_field(L, offsetof(struct weft_region_open, rpc)), "");
  LLVMBuildStore(L->b, rpc, L->guard_var);
  LLVMBuildStore(L->b, rpc, lw_ctx_field(L, offsetof(weft_warp_ctx, guard)));
  LLVMBuildStore(L->b, LLVMBuildSub(L->b, opens(L), lw_const_i32(L, 1), ""),
                 lw_ctx_field(L, offsetof(weft_warp_ctx, region_opens)));
  LLVMBuildStore(L->b, lanes, lw_ctx_field(L, offsetof(weft_warp_ctx, mask)));
  LLVMValueRef was = L->mask;
  set_mask(L, lanes);
  L->mask = was;
  lw_stop_check(L, to, to, 0); /* as where a split starts */
  LLVMBuildBr(L->b, L->bbs[to]);
  LLVMPositionBuilderAtEnd(L->b, here);
  return close;
}

/* The arrival of the split that the code's innermost entry, at `to`, made in the same call (see
 * lw_region_leave): the entry resolves as the policy's arrive() resolves it, a reconvergence, and
 * its lanes go on at `to` as the split of the entry's own point and guard, when lowest-pc picks
 * them (every other split waits past `to`) and all of them started the call (their values are
 * in registers: the blends kept those of the lanes that left). */
void lw_region_close(lower *L, int to) {
  if (to >= L->cfg->nblocks || !L->may_open[to] || L->cfg->blocks[to].part != L->part) return;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  LLVMBasicBlockRef keep = new_block(L, "");
  LLVMValueRef any = LLVMBuildICmp(L->b, LLVMIntNE, opens(L), lw_const_i32(L, 0), "");
  LLVMValueRef pc = LLVMBuildLoad2(L->b, LLVMInt32TypeInContext(L->c),
                                   top_field(L, offsetof(struct weft_region_open, pc)), "");
  LLVMValueRef lanes = LLVMBuildLoad2(L->b, i64,
                                      top_field(L, offsetof(struct weft_region_open, mask)), "");
  LLVMValueRef others = LLVMBuildAnd(L->b, lanes, LLVMBuildNot(L->b, L->call_lanes, ""), "");
  LLVMValueRef ok = LLVMBuildAnd(
      L->b,
      LLVMBuildAnd(L->b, has_bit(L, L->regions, WEFT_REGIONS_LOWEST_PC),
                   compare_pc(L, LLVMIntUGT, L->ahead, to), ""),
      LLVMBuildAnd(L->b, LLVMBuildAnd(L->b, any, compare_pc(L, LLVMIntEQ, pc, to), ""),
                   LLVMBuildICmp(L->b, LLVMIntEQ, others, lw_const_i64(L, 0), ""), ""),
      "");
  LLVMBuildCondBr(L->b, ok, closing(L, to), keep);
  LLVMPositionBuilderAtEnd(L->b, keep);
}
