/* Structured divergent branches, run masked without the policy.
 *
 * Under `stack`, a divergent branch whose region (the blocks from its targets to its IPDOM R)
 * has no loop, barrier, return or switch always runs the same way: each target other than R,
 * in PC order, runs with its lanes until R, and then all the lanes go on at R. Where the code
 * takes the policy's steps itself (lower_step.c), such a branch runs that sequence directly:
 * each block of a side under the side's mask, values blended into their lanes as at any step,
 * and no call of the policy. It counts what the policy would have counted, so that the stats
 * are those of the runtime path:
 *   - 1 divergent branch; 1 policy call for the branch and 1 per side arriving at R;
 *   - 1 reconvergence at R, unless R is the reconvergence point of the split that branched:
 *     then the stack replaces that split's entry by the sides, and the last side's arrival is
 *     the split's own arrival at R, which the enclosing rules count (or, outermost, the policy
 *     itself, in the step that follows at R).
 * A branch inside a side follows the same rules with the side's R as the split's point; only
 * the outermost branch's is the guard, read when it runs. Branches whose lanes all go one way
 * cost nothing here, as they cost the policy nothing. */
#include "lower.h"

#define REGION_MAX_INSTRS 160 /* kernel instructions one branch's masked sequence may emit */
#define REGION_MAX_DEPTH 8

static int ends_in_barrier(LLVMBasicBlockRef bb) {
  LLVMValueRef last = LLVMGetPreviousInstruction(LLVMGetBasicBlockTerminator(bb));
  return last && is_barrier_call(last);
}

/* Kernel instructions that running the path from block x to block `until` emits (every side
 * of every branch on the way), or -1 when it cannot run so or would emit more than budget. */
static int path_cost(lower *L, int x, int until, int budget, int depth) {
  int cost = 0;
  while (x != until) {
    if (x > until || depth > REGION_MAX_DEPTH) return -1;
    const cfg_block *cb = &L->cfg->blocks[x];
    if (cb->part != L->cfg->blocks[until].part) return -1; /* the code is the part's own */
    if (cb->nsuccs == 0 || ends_in_barrier(cb->bb) ||
        LLVMIsASwitchInst(LLVMGetBasicBlockTerminator(cb->bb)))
      return -1;
    for (int k = 0; k < cb->nsuccs; k++)
      if (cb->succs[k] <= x) return -1; /* a loop */
    cost += (int)cfg_instrs(cb->bb);
    if (cost > budget) return -1;
    if (!cfg_is_branch(cb)) {
      x = cb->succs[0];
      continue;
    }
    if (cb->ipdom > until) return -1;
    for (int k = 0; k < cb->nsuccs; k++) {
      if (cb->succs[k] == cb->ipdom) continue;
      int c = path_cost(L, cb->succs[k], cb->ipdom, budget - cost, depth + 1);
      if (c < 0) return -1;
      cost += c;
    }
    x = cb->ipdom;
  }
  return cost;
}

void lw_region_setup(lower *L) {
  int n = L->cfg->nblocks;
  L->region_masked = ARENA_NEW(L->arena, unsigned char, (size_t)n);
  for (int b = 0; b < n; b++) {
    const cfg_block *cb = &L->cfg->blocks[b];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(cb->bb);
    if (!cfg_is_branch(cb) || !LLVMIsABranchInst(term) || cb->ipdom >= n ||
        divergence_of(L->dv, LLVMGetCondition(term)).shape == UNIFORM)
      continue;
    L->region_masked[b] = path_cost(L, b, cb->ipdom, REGION_MAX_INSTRS, 0) >= 0;
  }
}

/* What one divergence counts: n sides, and whether R is the split's point (`replaced`, i1).
 * Straight into ctx->counters (set where this code runs): counters carried in registers through
 * a loop of such branches were spilled anyway. */
static void count_divergence(lower *L, int n, LLVMValueRef replaced) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  LLVMValueRef counters = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, counters),
                                     LLVMPointerTypeInContext(L->c, 0));
  LLVMValueRef met = LLVMBuildZExt(L->b, LLVMBuildNot(L->b, replaced, ""), i64, "");
  size_t field[3] = {offsetof(policy_counters, divergent_branches),
                     offsetof(policy_counters, reconvergences),
                     offsetof(policy_counters, policy_calls)};
  LLVMValueRef add[3] = {lw_const_i64(L, 1), met,
                         LLVMBuildAdd(L->b, lw_const_i64(L, (uint64_t)n), met, "")};
  for (int i = 0; i < 3; i++) {
    LLVMValueRef p = lw_field_at(L, counters, field[i]);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, LLVMBuildLoad2(L->b, i64, p, ""), add[i], ""), p);
  }
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
  for (int k = 0; k < 2; k++)
    if (e[k].to != r) set_mask(L, e[k].mask), run_path(L, e[k].to, r, r);
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

void lw_region_run(lower *L, int b, edge *e, LLVMBasicBlockRef runtime) {
  int r = L->cfg->blocks[b].ipdom;
  LLVMBasicBlockRef masked = new_block(L, "region"), reconverge = new_block(L, "reconverge"),
                    arrival = new_block(L, "region.arrival");
  LLVMValueRef policy = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, policy),
                                   LLVMPointerTypeInContext(L->c, 0));
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, policy, ""), runtime, masked);
  LLVMPositionBuilderAtEnd(L->b, masked);
  LLVMValueRef guard = LLVMBuildLoad2(L->b, LLVMInt32TypeInContext(L->c), L->guard_var, "");
  LLVMValueRef replaced = LLVMBuildICmp(L->b, LLVMIntEQ, guard, lw_const_i32(L, (uint64_t)r), "");
  run_sides(L, b, e, replaced);
  LLVMBuildCondBr(L->b, replaced, arrival, reconverge);
  LLVMPositionBuilderAtEnd(L->b, reconverge);
  LLVMBuildBr(L->b, L->bbs[r]);
  LLVMPositionBuilderAtEnd(L->b, arrival); /* the split's own arrival at its point */
  lw_step_arrival_at(L, b, r);
}
