/* Lowering a kernel to per-warp code: uint32_t run(weft_warp_ctx *ctx), see runtime/kernel.h.
 *
 * The function restores the frame, dispatches on ctx->pc and runs blocks for the lanes in
 * ctx->mask, which stay the same for the whole call. A block runs
 *   - its uniform instructions once, as scalars (hoisted to the top when they are pure),
 *   - then its other instructions once per lane group with an active lane (BCC: an empty group
 *     is skipped), as <G x T> vector code under the group's mask;
 * and its terminator computes, per successor, the W-bit mask of the lanes that take it. When all
 * active lanes take one successor and it is a back edge or below ctx->guard, the code jumps
 * there directly; otherwise it stores the targets in ctx and returns to the scheduler, which
 * asks the policy what runs next. A phi of the successor is written on the edge, for exactly the
 * lanes that take it. Counters for the stats stay in registers and are added to ctx on return.
 * A large kernel's function comes in parts (parts.c), each with its own entry, dispatch and
 * exits: going on into another part is a tail call, after the values live there are saved.
 * Needs: barrier_split, cfg_build, postdom_compute, parts_compute, divergence_compute. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

static LLVMTypeRef i32t(lower *L) { return LLVMInt32TypeInContext(L->c); }
static LLVMTypeRef i64t(lower *L) { return LLVMInt64TypeInContext(L->c); }

static void store_ctx(lower *L, size_t off, LLVMValueRef v) {
  LLVMBuildStore(L->b, v, lw_ctx_field(L, off));
}

/* One add per block: the lanes of a call never change, so the block count and the instruction
 * count are all the stats need (lane_instrs and groups_run follow at the end of the call). Both
 * share one register: blocks above bit 40, instructions below. */
void lw_count_block(lower *L, unsigned ninstr) {
  LLVMValueRef old = LLVMBuildLoad2(L->b, i64t(L), L->count, "");
  uint64_t step = (1ull << COUNT_BLOCK_SHIFT) | ninstr;
  LLVMBuildStore(L->b, LLVMBuildAdd(L->b, old, lw_const_i64(L, step), ""), L->count);
}

/* ---- counters and tail calls, which every exit uses ---- */

static void add_to(lower *L, LLVMValueRef p, LLVMValueRef v) {
  LLVMBuildStore(
      L->b, LLVMBuildAdd(L->b, LLVMBuildLoad2(L->b, LLVMInt64TypeInContext(L->c), p, ""), v, ""),
      p);
}

/* The counters in ctx that __weft_count adds to, side by side. */
_Static_assert(offsetof(weft_warp_ctx, instr_execs) == offsetof(weft_warp_ctx, block_execs) + 8 &&
                   offsetof(weft_warp_ctx, lane_instrs) ==
                       offsetof(weft_warp_ctx, block_execs) + 16 &&
                   offsetof(weft_warp_ctx, groups_run) == offsetof(weft_warp_ctx, block_execs) + 24,
               "count_fn adds to four consecutive counters");

LLVMValueRef lw_mask_here(lower *L) { return LLVMBuildLoad2(L->b, i64t(L), L->mask_var, ""); }

/* Lanes and lane groups of mask: what each block that a split of those lanes ran counts for. */
static void count_active(lower *L, LLVMValueRef mask, LLVMValueRef *lanes, LLVMValueRef *groups) {
  LLVMTypeRef i64 = i64t(L);
  *lanes = lw_intrinsic(L, "llvm.ctpop", &i64, 1, &mask, 1);
  *groups = lw_const_i64(L, 0);
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef nz = LLVMBuildICmp(L->b, LLVMIntNE, lw_group_bits(L, mask, g),
                                    LLVMConstInt(LLVMIntTypeInContext(L->c, L->G), 0, 0), "");
    *groups = LLVMBuildAdd(L->b, *groups, LLVMBuildZExt(L->b, nz, i64, ""), "");
  }
}

/* __weft_count(dst, mask, count): adds what the blocks counted (L->count's packing) by a split of
 * mask's lanes to the four counters at dst, in the order of weft_warp_ctx's block_execs ..
 * groups_run. One function of the module, out of line: only counting launches call it, and
 * written at each place the counts are taken it was 8% of bench/k50.cl's optimised code. */
static LLVMValueRef count_fn(lower *L) {
  char name[40];
  snprintf(name, sizeof name, "__weft_count.g%u.w%u", L->G, L->W); /* kept: pipeline.c */
  LLVMValueRef f = LLVMGetNamedFunction(L->m, name);
  if (f) return f;
  LLVMTypeRef i64 = i64t(L), params[3] = {LLVMPointerTypeInContext(L->c, 0), i64, i64};
  f = LLVMAddFunction(L->m, name, LLVMFunctionType(LLVMVoidTypeInContext(L->c), params, 3, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  static const char *const flags[] = {"noinline", "cold", "nounwind", "willreturn"};
  for (int i = 0; i < 4; i++) ir_fn_attr(f, flags[i], 0);
  ir_fn_attr(f, "memory", 3); /* argmem: readwrite */
  LLVMBasicBlockRef at = LLVMGetInsertBlock(L->b);
  LLVMMetadataRef line = LLVMGetCurrentDebugLocation2(L->b); /* the kernel's, not f's */
  LLVMSetCurrentDebugLocation2(L->b, NULL);
  LLVMPositionBuilderAtEnd(L->b, LLVMAppendBasicBlockInContext(L->c, f, ""));
  LLVMValueRef dst = LLVMGetParam(f, 0), count = LLVMGetParam(f, 2), lanes, groups;
  count_active(L, LLVMGetParam(f, 1), &lanes, &groups);
  LLVMValueRef blocks = LLVMBuildLShr(L->b, count, lw_const_i64(L, COUNT_BLOCK_SHIFT), "");
  LLVMValueRef instrs = LLVMBuildAnd(L->b, count, lw_const_i64(L, (1ull << COUNT_BLOCK_SHIFT) - 1),
                                     "");
  LLVMValueRef v[4] = {blocks, instrs, LLVMBuildMul(L->b, instrs, lanes, ""),
                       LLVMBuildMul(L->b, blocks, groups, "")};
  for (unsigned i = 0; i < 4; i++) {
    LLVMValueRef p = LLVMBuildGEP2(L->b, i64, dst, (LLVMValueRef[]){lw_const_i64(L, i)}, 1, "");
    add_to(L, p, v[i]);
  }
  LLVMBuildRetVoid(L->b);
  LLVMPositionBuilderAtEnd(L->b, at);
  LLVMSetCurrentDebugLocation2(L->b, line);
  return f;
}

LLVMValueRef lw_counting(lower *L) { return L->counting; }

LLVMBasicBlockRef lw_counting_begin(lower *L) {
  LLVMBasicBlockRef count = LLVMAppendBasicBlockInContext(L->c, L->fn, "count"),
                    done = LLVMAppendBasicBlockInContext(L->c, L->fn, "counted");
  LLVMBuildCondBr(L->b, lw_counting(L), count, done);
  LLVMPositionBuilderAtEnd(L->b, count);
  return done;
}

void lw_counting_end(lower *L, LLVMBasicBlockRef done) {
  LLVMBuildBr(L->b, done);
  LLVMPositionBuilderAtEnd(L->b, done);
}

/* Adds what the blocks counted since the running split's lanes last changed to the four
 * counters at dst, when the launch counts; the count starts again from 0 either way. */
static void count_into(lower *L, LLVMValueRef dst) {
  LLVMBasicBlockRef done = lw_counting_begin(L);
  LLVMValueRef f = count_fn(L);
  LLVMValueRef args[3] = {dst, lw_mask_here(L), LLVMBuildLoad2(L->b, i64t(L), L->count, "")};
  LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, args, 3, "");
  lw_counting_end(L, done);
  LLVMBuildStore(L->b, lw_const_i64(L, 0), L->count);
}

/* Into the running warp's own ctx, even in a chain (kernel.h): the scheduler adds up every
 * warp's. */
void lw_count_to_ctx(lower *L) {
  count_into(L, lw_ctx_field(L, offsetof(weft_warp_ctx, block_execs)));
}

LLVMValueRef lw_tail_call(lower *L, int part, LLVMValueRef ctx) {
  LLVMValueRef f = L->part_fns[part];
  LLVMValueRef r = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &ctx, 1, "");
  LLVMSetTailCallKind(r, LLVMTailCallKindMustTail);
  return r;
}

/* ---- leaving the function ---- */

void lw_store_event(lower *L, int from, int ntargets, int to, LLVMValueRef mask) {
  store_ctx(L, offsetof(weft_warp_ctx, from_pc), lw_const_i32(L, (uint64_t)from));
  store_ctx(L, offsetof(weft_warp_ctx, ntargets), lw_const_i32(L, (uint64_t)ntargets));
  store_ctx(L, offsetof(weft_warp_ctx, target_pc), lw_const_i32(L, (uint64_t)to));
  store_ctx(L, offsetof(weft_warp_ctx, target_mask), mask);
}

/* Returns `event` to the scheduler with one target (pc, the whole mask). */
static void leave_one(lower *L, int from, uint32_t event, int to) {
  lw_frame_save(L, &to, 1);
  lw_store_event(L, from, 1, to, L->mask);
  LLVMBuildStore(L->b, lw_const_i32(L, event), L->event);
  LLVMBuildBr(L->b, L->leave);
}

/* The one exit of a kind towards `to`, made at its first use (cache[to]): it saves the values
 * live there, which is most of an exit's code, once per target (or set of live values) instead
 * of once per edge, and `tail` ends it. */
typedef void exit_tail(lower *L, int to);
static LLVMBasicBlockRef exit_to(lower *L, LLVMBasicBlockRef *cache, const char *name, int to,
                                 exit_tail *tail) {
  if (cache[to]) return cache[to];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  LLVMValueRef block_mask = L->mask;
  cache[to] = LLVMAppendBasicBlockInContext(L->c, L->fn, name);
  LLVMPositionBuilderAtEnd(L->b, cache[to]);
  L->mask = lw_mask_here(L); /* the exit is shared by blocks: each has its own read */
  lw_frame_save(L, &to, 1);
  tail(L, to);
  L->mask = block_mask;
  LLVMPositionBuilderAtEnd(L->b, here);
  return cache[to];
}

/* Arriving at a target: back to the scheduler (the edge has stored from_pc and target_pc). */
static void arrive_tail(lower *L, int to) {
  (void)to;
  store_ctx(L, offsetof(weft_warp_ctx, ntargets), lw_const_i32(L, 1));
  store_ctx(L, offsetof(weft_warp_ctx, target_mask), L->mask);
  LLVMBuildStore(L->b, lw_const_i32(L, WEFT_EVENT_BRANCH), L->event);
  LLVMBuildBr(L->b, L->leave);
}

/* Arriving at the kernel's end: in a first call with a chain (kernel.h) the next warp starts
 * at PC 0, so that warps without divergence run one after another without the scheduler: in
 * part 0 around the loop from its start block, from another part by a tail call. Else back to
 * the scheduler. */
void lw_chain_or(lower *L, LLVMBasicBlockRef none) {
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->c, L->fn, "chain");
  LLVMValueRef chain = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, chain),
                                  LLVMPointerTypeInContext(L->c, 0));
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, chain, ""), none, next);
  LLVMPositionBuilderAtEnd(L->b, next);
  if (L->part == 0) {
    lw_count_to_ctx(L);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b); /* counting added blocks */
    LLVMAddIncoming(L->ctx, &chain, &from, 1);
    LLVMBuildBr(L->b, L->start);
  } else {
    lw_count_to_ctx(L);
    LLVMBuildRet(L->b, lw_tail_call(L, 0, chain));
  }
}

static void end_tail(lower *L, int to) {
  LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  lw_chain_or(L, back);
  LLVMPositionBuilderAtEnd(L->b, back);
  store_ctx(L, offsetof(weft_warp_ctx, from_pc),
            LLVMBuildLoad2(L->b, LLVMInt32TypeInContext(L->c), L->end_from, ""));
  store_ctx(L, offsetof(weft_warp_ctx, target_pc), lw_const_i32(L, (uint64_t)to));
  arrive_tail(L, to);
}

/* Going on at `to` in another part, through part 0's dispatch, every value of the call's lanes
 * in the frame (lw_step_elsewhere: lanes of other splits may wait anywhere). */
static LLVMBasicBlockRef crossing(lower *L, int to) {
  if (L->crossing[to]) return L->crossing[to];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  L->crossing[to] = LLVMAppendBasicBlockInContext(L->c, L->fn, "cross");
  LLVMPositionBuilderAtEnd(L->b, L->crossing[to]);
  store_ctx(L, offsetof(weft_warp_ctx, pc), lw_const_i32(L, (uint64_t)to));
  LLVMBuildBr(L->b, lw_step_elsewhere(L));
  LLVMPositionBuilderAtEnd(L->b, here);
  return L->crossing[to];
}

/* Returns to the scheduler, arriving at `to` from `from`. Targets with the same live values
 * share one exit (the blocks of one loop or one branch, say). */
void lw_arrive(lower *L, int from, int to) {
  if (L->reconverges[to] && (to == L->cfg->nblocks || L->steps[from])) {
    LLVMBasicBlockRef step = LLVMAppendBasicBlockInContext(L->c, L->fn, "step.stack"),
                      runtime = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
    LLVMValueRef policy = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, policy),
                                     LLVMPointerTypeInContext(L->c, 0));
    LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, policy, ""), runtime, step);
    LLVMPositionBuilderAtEnd(L->b, step);
    lw_step_arrival_at(L, from, to, runtime);
    LLVMPositionBuilderAtEnd(L->b, runtime);
    lw_region_close(L, to);
  } else if (to < L->cfg->nblocks) { /* once per warp: no step in the code */
    LLVMBasicBlockRef runtime = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
    lw_store_event(L, from, 1, to, L->mask);
    lw_step_runtime(L, runtime);
    LLVMPositionBuilderAtEnd(L->b, runtime);
  }
  if (to == L->cfg->nblocks) { /* nothing is live at the end; a chain stores nothing (end_tail) */
    LLVMBuildStore(L->b, lw_const_i32(L, (uint64_t)from), L->end_from);
    LLVMBuildBr(L->b, exit_to(L, L->arrive, "end", to, end_tail));
    return;
  }
  store_ctx(L, offsetof(weft_warp_ctx, from_pc), lw_const_i32(L, (uint64_t)from));
  store_ctx(L, offsetof(weft_warp_ctx, target_pc), lw_const_i32(L, (uint64_t)to));
  LLVMBuildBr(L->b, exit_to(L, L->arrive, "arrive", L->live_set[to], arrive_tail));
}

/* The watchdog's check (kernel.h, weft_group.stop), where a warp could loop forever: one load
 * and a branch that LLVM lays out of the way. The load is atomic (monotonic) because another
 * thread writes the flag, and so that it is done again on every trip (a plain load could be
 * hoisted out of the loop); it needs no ordering, since nothing else is read through it. */
void lw_stop_check(lower *L, int from, int to, int loop) {
  LLVMTypeRef i1 = LLVMInt1TypeInContext(L->c);
  LLVMValueRef at = LLVMBuildIntToPtr(L->b, lw_group_u64(L, offsetof(weft_group, stop)),
                                      LLVMPointerTypeInContext(L->c, 0), "");
  LLVMValueRef flag = LLVMBuildLoad2(L->b, i32t(L), at, "stop");
  LLVMSetOrdering(flag, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(flag, 4);
  LLVMValueRef expect[2] = {LLVMBuildICmp(L->b, LLVMIntNE, flag, lw_const_i32(L, 0), ""),
                            LLVMConstInt(i1, 0, 0)};
  LLVMBasicBlockRef stopped = LLVMAppendBasicBlockInContext(L->c, L->fn, "stopped"),
                    go_on = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMBuildCondBr(L->b, lw_intrinsic(L, "llvm.expect", &i1, 1, expect, 2), stopped, go_on);
  LLVMPositionBuilderAtEnd(L->b, stopped);
  lw_store_event(L, from, loop != 0, to, lw_mask_here(L));
  LLVMBuildStore(L->b, lw_const_i32(L, WEFT_EVENT_STOPPED), L->event);
  LLVMBuildBr(L->b, L->leave); /* saving nothing: the warp never resumes */
  LLVMPositionBuilderAtEnd(L->b, go_on);
}

/* Goes on at `to` with all active lanes: inline when it is a back edge or below the guard (in
 * another part, by a tail call). */
static void go(lower *L, int from, int to) {
  if (to <= from) { /* no cut is inside a loop: the same part */
    lw_stop_check(L, from, to, 1);
    LLVMBuildBr(L->b, L->bbs[to]);
    return;
  }
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMValueRef guard = LLVMBuildLoad2(L->b, i32t(L), L->guard_var, "");
  LLVMValueRef below = to < L->cfg->nblocks
                           ? LLVMBuildICmp(L->b, LLVMIntULT, lw_const_i32(L, (uint64_t)to), guard,
                                           "")
                           : NULL;
  if (below && L->cfg->blocks[to].part != L->part)
    LLVMBuildCondBr(L->b, below, crossing(L, to), out);
  else if (below) LLVMBuildCondBr(L->b, below, L->bbs[to], out);
  else LLVMBuildBr(L->b, out);
  LLVMPositionBuilderAtEnd(L->b, out);
  lw_arrive(L, from, to);
}

/* ---- phis on edges ---- */

static LLVMValueRef incoming_for(LLVMValueRef phi, LLVMBasicBlockRef from) {
  for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
    if (LLVMGetIncomingBlock(phi, i) == from) return LLVMGetIncomingValue(phi, i);
  DIE("phi without an incoming value for its predecessor");
}

/* Writes the successors' phis. A lane that does not take an edge does not read the phi it
 * writes, and the frame keeps other calls' lanes; only where the code takes the policy's steps
 * itself do the other splits' lanes need keeping (lower_step.c). All incoming values are read
 * before any phi is written, as phis are parallel copies. */
void lw_write_phis(lower *L, int from, const edge *e, int n) {
  LLVMBasicBlockRef src = L->cfg->blocks[from].bb;
  enum { MAX = 1024 };
  LLVMValueRef *vals = ARENA_NEW(L->arena, LLVMValueRef, MAX),
               **dst = ARENA_NEW(L->arena, LLVMValueRef *, MAX);
  int nv = 0;
  for (int k = 0; k < n; k++) {
    if (e[k].to >= L->cfg->nblocks) continue;
    for (LLVMValueRef phi = LLVMGetFirstInstruction(L->cfg->blocks[e[k].to].bb);
         phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
      slot *s = lw_slot(L, phi);
      LLVMValueRef in = incoming_for(phi, src);
      unsigned groups = s->shape == UNIFORM ? 1 : L->ngroups;
      if (nv + (int)groups > MAX)
        return lw_unsupported(L, phi, "this many phis on one block's edges");
      for (unsigned g = 0; g < groups; g++, nv++) {
        L->lane_group = g;
        vals[nv] = s->shape == UNIFORM ? lw_scalar_of(L, in) : lw_vector_of(L, in);
        dst[nv] = s->shape == UNIFORM ? &s->u : &s->v[g];
        if (e[k].to <= from ? lw_blends_at(L, s, from) : s->blend)
          vals[nv] = LLVMBuildSelect(
              L->b, lw_expand_mask(L, lw_group_mask(L, e[k].mask, g), lw_width(s->type)), vals[nv],
              LLVMBuildLoad2(L->b, lw_vtype(L, s->type), *dst[nv], ""), "");
      }
    }
  }
  for (int i = 0; i < nv; i++) LLVMBuildStore(L->b, vals[i], *dst[i]);
}

/* ---- terminators ---- */

/* The warp's bits of the lane groups' <G x i1> h[0..n), n a power of two: with AVX-512 the
 * halves join as masks (kunpck), and the warp's mask leaves the mask registers once; shifted
 * and or-ed as integers, each group's would leave on its own. */
static LLVMValueRef join_lane_bits(lower *L, LLVMValueRef *h, unsigned n) {
  LLVMValueRef idx[64];
  for (unsigned width = L->G; n > 1; width *= 2, n /= 2) {
    for (unsigned i = 0; i < 2 * width; i++) idx[i] = lw_const_i32(L, i);
    for (unsigned k = 0; k < n / 2; k++)
      h[k] = LLVMBuildShuffleVector(L->b, h[2 * k], h[2 * k + 1], LLVMConstVector(idx, 2 * width),
                                    "");
  }
  LLVMValueRef bits = LLVMBuildBitCast(L->b, h[0], LLVMIntTypeInContext(L->c, L->W), "");
  return L->W < 64 ? LLVMBuildZExt(L->b, bits, i64t(L), "") : bits;
}

/* Lanes of `mask` whose i1 condition is true, from the condition's per-group slots, or from
 * the bits its block gathered as it computed it (emit_segment). */
LLVMValueRef lw_lanes_where(lower *L, LLVMIntPredicate pred, LLVMValueRef x, LLVMValueRef y) {
  if (x == L->branch_cond && L->branch_bits && pred == LLVMIntNE && LLVMIsNull(y))
    return LLVMBuildAnd(L->b, LLVMBuildLoad2(L->b, i64t(L), L->branch_bits, ""), L->mask, "");
  slot *s = lw_slot(L, x);
  if (!L->avx512 && s && s->remat && s->shape != UNIFORM)
    lw_remat(L, x); /* its compare here, not a <G x i1> kept from elsewhere (emit_segment) */
  LLVMValueRef lanes = lw_const_i64(L, 0), h[64];
  unsigned was = L->lane_group;
  for (unsigned g = 0; g < L->ngroups; g++) {
    L->lane_group = g;
    LLVMValueRef v = lw_vector_of(L, x);
    if (LLVMGetTypeKind(lw_elem_type(LLVMTypeOf(v))) == LLVMIntegerTypeKind)
      h[g] = LLVMBuildICmp(L->b, pred, v, lw_splat(L, y), "");
    else
      h[g] = LLVMBuildFCmp(L->b, pred == LLVMIntEQ ? LLVMRealOEQ : LLVMRealUNE, v, lw_splat(L, y),
                           "");
  }
  L->lane_group = was;
  if (L->avx512 && !(L->ngroups & (L->ngroups - 1)))
    return LLVMBuildAnd(L->b, join_lane_bits(L, h, L->ngroups), L->mask, "");
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef bits = LLVMBuildBitCast(L->b, h[g], LLVMIntTypeInContext(L->c, L->G), "");
    bits = LLVMBuildShl(L->b, LLVMBuildZExt(L->b, bits, i64t(L), ""),
                        lw_const_i64(L, (uint64_t)g * L->G), "");
    lanes = LLVMBuildOr(L->b, lanes, bits, "");
  }
  return LLVMBuildAnd(L->b, lanes, L->mask, "");
}

LLVMValueRef lw_true_lanes(lower *L, LLVMValueRef cond) {
  return lw_lanes_where(L, LLVMIntNE, cond, LLVMConstNull(LLVMTypeOf(cond)));
}

/* Several targets with their lanes: go on inline if one target has them all, else return the
 * non-empty ones, in PC order, to the scheduler. */
static void branch_multi(lower *L, int from, edge *e, int n) {
  for (int i = 1; i < n; i++) /* insertion sort by PC */
    for (int j = i; j > 0 && e[j].to < e[j - 1].to; j--) {
      edge t = e[j];
      e[j] = e[j - 1], e[j - 1] = t;
    }
  LLVMBasicBlockRef next = NULL;
  for (int i = 0; i < n; i++) {
    LLVMBasicBlockRef all = LLVMAppendBasicBlockInContext(L->c, L->fn, "uniform");
    next = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, e[i].mask, L->mask, ""), all, next);
    LLVMPositionBuilderAtEnd(L->b, all);
    lw_write_phis(L, from, &(edge){e[i].to, L->mask}, 1);
    go(L, from, e[i].to);
    LLVMPositionBuilderAtEnd(L->b, next);
  }
  lw_write_phis(L, from, e, n);
  int masked = n == 2 && L->region_masked[from];
  LLVMBasicBlockRef event = LLVMAppendBasicBlockInContext(L->c, L->fn, "diverged");
  if (masked) lw_region_run(L, from, e, event); /* else to the event, with no check */
  else LLVMBuildBr(L->b, event);
  LLVMPositionBuilderAtEnd(L->b, event);
  if (n == 2 && !masked && L->steps[from]) lw_region_leave(L, from, e);
  /* diverged: append each non-empty target, overwriting the slot of an empty one */
  LLVMValueRef count = lw_const_i32(L, 0);
  for (int i = 0; i < n; i++) {
    LLVMValueRef idx[2] = {lw_const_i32(L, 0), count};
    LLVMTypeRef pcs = LLVMArrayType(i32t(L), WEFT_MAX_WARP),
                masks = LLVMArrayType(i64t(L), WEFT_MAX_WARP);
    LLVMBuildStore(
        L->b, lw_const_i32(L, (uint64_t)e[i].to),
        LLVMBuildGEP2(L->b, pcs, lw_ctx_field(L, offsetof(weft_warp_ctx, target_pc)), idx, 2, ""));
    LLVMBuildStore(L->b, e[i].mask,
                   LLVMBuildGEP2(L->b, masks, lw_ctx_field(L, offsetof(weft_warp_ctx, target_mask)),
                                 idx, 2, ""));
    LLVMValueRef nonempty = LLVMBuildICmp(L->b, LLVMIntNE, e[i].mask, lw_const_i64(L, 0), "");
    count = LLVMBuildAdd(L->b, count, LLVMBuildZExt(L->b, nonempty, i32t(L), ""), "");
  }
  int *to = ARENA_NEW(L->arena, int, (size_t)n);
  for (int i = 0; i < n; i++) to[i] = e[i].to;
  store_ctx(L, offsetof(weft_warp_ctx, from_pc), lw_const_i32(L, (uint64_t)from));
  store_ctx(L, offsetof(weft_warp_ctx, ntargets), count);
  LLVMBasicBlockRef runtime = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  /* A step only where steps repeat, in a loop or in a region around one (lower_step.c: once
   * per warp it costs more to compile than it saves), and not for a structured branch that
   * comes here (under pc, another split's lanes wait before R). */
  if (L->steps[from] && !masked) lw_step_site(L, to, n, runtime);
  else lw_step_runtime(L, runtime);
  LLVMPositionBuilderAtEnd(L->b, runtime);
  lw_frame_save(L, to, n);
  LLVMBuildStore(L->b, lw_const_i32(L, WEFT_EVENT_BRANCH), L->event);
  LLVMBuildBr(L->b, L->leave);
}

static void lower_condbr(lower *L, int pc, LLVMValueRef term) {
  const cfg_block *cb = &L->cfg->blocks[pc];
  LLVMValueRef cond = LLVMGetCondition(term);
  if (divergence_of(L->dv, cond).shape == UNIFORM) {
    LLVMBasicBlockRef side[2] = {LLVMAppendBasicBlockInContext(L->c, L->fn, "then"),
                                 LLVMAppendBasicBlockInContext(L->c, L->fn, "else")};
    LLVMBuildCondBr(L->b, lw_scalar_of(L, cond), side[0], side[1]);
    for (int k = 0; k < 2; k++) { /* the phis of the side taken only */
      LLVMPositionBuilderAtEnd(L->b, side[k]);
      lw_write_phis(L, pc, &(edge){cb->succs[k], L->mask}, 1);
      go(L, pc, cb->succs[k]);
    }
    return;
  }
  LLVMValueRef t = lw_true_lanes(L, cond);
  edge e[2] = {{cb->succs[0], t}, {cb->succs[1], LLVMBuildXor(L->b, t, L->mask, "")}};
  branch_multi(L, pc, e, 2);
}

/* Lanes per distinct successor of a switch. */
static int switch_edges(lower *L, int pc, LLVMValueRef term, edge *e) {
  const cfg_block *cb = &L->cfg->blocks[pc];
  LLVMValueRef cond = LLVMGetOperand(term, 0), rest = L->mask;
  int n = 0;
  int uniform = divergence_of(L->dv, cond).shape == UNIFORM;
  for (int s = 1; s < cb->nsuccs; s++) { /* successor 0 is the default */
    LLVMValueRef c = LLVMGetOperand(term, (unsigned)(2 * s)), m;
    if (uniform) {
      LLVMValueRef eq = LLVMBuildICmp(L->b, LLVMIntEQ, lw_scalar_of(L, cond), c, "");
      m = LLVMBuildSelect(L->b, eq, L->mask, lw_const_i64(L, 0), "");
    } else { /* the first matching case wins */
      m = LLVMBuildAnd(L->b, lw_lanes_where(L, LLVMIntEQ, cond, c), rest, "");
    }
    rest = LLVMBuildAnd(L->b, rest, LLVMBuildNot(L->b, m, ""), "");
    int k = 0;
    while (k < n && e[k].to != cb->succs[s]) k++;
    if (k == n) e[n++] = (edge){cb->succs[s], m};
    else e[k].mask = LLVMBuildOr(L->b, e[k].mask, m, "");
  }
  int k = 0;
  while (k < n && e[k].to != cb->succs[0]) k++;
  if (k == n) e[n++] = (edge){cb->succs[0], rest};
  else e[k].mask = LLVMBuildOr(L->b, e[k].mask, rest, "");
  return n;
}

static void lower_terminator(lower *L, int pc) {
  const cfg_block *cb = &L->cfg->blocks[pc];
  LLVMValueRef term = LLVMGetBasicBlockTerminator(cb->bb);
  LLVMValueRef last = LLVMGetPreviousInstruction(term);
  if (cb->nsuccs == 0) { /* ret, unreachable: the lanes are done */
    lw_arrive(L, pc, L->cfg->nblocks);
    return;
  }
  if (LLVMIsASwitchInst(term) && cfg_is_branch(cb)) {
    edge *e = ARENA_NEW(L->arena, edge, (size_t)cb->nsuccs);
    int n = switch_edges(L, pc, term, e);
    branch_multi(L, pc, e, n);
    return;
  }
  if (LLVMIsABranchInst(term) && LLVMIsConditional(term) && cfg_is_branch(cb)) {
    lower_condbr(L, pc, term);
    return;
  }
  edge e = {cb->succs[0], L->mask};
  lw_write_phis(L, pc, &e, 1);
  if (last && is_barrier_call(last)) leave_one(L, pc, WEFT_EVENT_BARRIER, e.to);
  else go(L, pc, e.to);
}

/* ---- blocks ---- */

static void group_begin(lower *L, unsigned g, LLVMBasicBlockRef *cont) {
  L->lane_group = g;
  L->lane_group_mask = lw_group_mask(L, L->mask, g);
  *cont = NULL;
  if (L->ngroups == 1) return; /* a block never runs with no active lane */
  if (L->every_group) return;  /* selects: what an empty group computes, no lane reads */
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(L->c, L->fn, "group");
  *cont = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMValueRef active = LLVMBuildICmp(L->b, LLVMIntNE, lw_group_bits(L, L->mask, g),
                                      LLVMConstInt(LLVMIntTypeInContext(L->c, L->G), 0, 0), "");
  LLVMBuildCondBr(L->b, active, run, *cont);
  LLVMPositionBuilderAtEnd(L->b, run);
}

static void group_end(lower *L, LLVMBasicBlockRef cont) {
  if (!cont) return;
  LLVMBuildBr(L->b, cont);
  LLVMPositionBuilderAtEnd(L->b, cont);
}

/* A group with no active lane skips the segment, so its copy of a value the segment defines
 * would keep the last trip's: a phi around every loop, which the back end keeps in memory
 * (the compare feeding a branch: a mask store and reload each trip). A value used only in its
 * block is read in the lanes the group runs, so it starts each segment as 0. */
static void clear_locals(lower *L, LLVMValueRef *insts, int n, unsigned g) {
  for (int i = 0; i < n && L->ngroups > 1; i++) {
    slot *s = lw_slot(L, insts[i]);
    if (s && s->v && !s->cross) LLVMBuildStore(L->b, LLVMConstNull(lw_vtype(L, s->type)), s->v[g]);
  }
}

/* The branch condition's bits, gathered in each group where the group computes it: the
 * condition's <G x i1> then becomes a movmsk in the group, where the compare's vector still is.
 * Taken after the groups, a skipped group's <G x i1> is a phi, which AVX2 keeps as 16-bit lanes
 * and turns into bits with four more instructions per group and branch. */
static LLVMValueRef gather_bits_begin(lower *L, LLVMValueRef *insts, int n) {
  int here = 0;
  for (int i = 0; i < n && L->branch_cond; i++) here |= insts[i] == L->branch_cond;
  if (!here) return NULL;
  LLVMBasicBlockRef at = lw_at_entry(L);
  LLVMValueRef bits = LLVMBuildAlloca(L->b, i64t(L), "branch_bits");
  LLVMPositionBuilderAtEnd(L->b, at);
  LLVMBuildStore(L->b, lw_const_i64(L, 0), bits);
  return bits;
}

static void gather_bits(lower *L, LLVMValueRef bits, unsigned g) {
  LLVMValueRef group = LLVMBuildBitCast(L->b, lw_vector_of(L, L->branch_cond),
                                        LLVMIntTypeInContext(L->c, L->G), "");
  group = LLVMBuildShl(L->b, LLVMBuildZExt(L->b, group, i64t(L), ""),
                       lw_const_i64(L, (uint64_t)g * L->G), "");
  LLVMBuildStore(L->b, LLVMBuildOr(L->b, LLVMBuildLoad2(L->b, i64t(L), bits, ""), group, ""), bits);
}

/* Runs insts[0..n) for every lane group with an active lane. */
static void emit_segment(lower *L, LLVMValueRef *insts, int n) {
  if (n == 0) return;
  LLVMValueRef bits = gather_bits_begin(L, insts, n);
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMBasicBlockRef cont;
    clear_locals(L, insts, n, g);
    group_begin(L, g, &cont);
    for (int i = 0; i < n; i++) lw_inst_group(L, insts[i]);
    if (bits) gather_bits(L, bits, g);
    group_end(L, cont);
  }
  if (bits) L->branch_bits = bits;
}

static int is_uniform_inst(lower *L, LLVMValueRef i) {
  slot *s = lw_slot(L, i);
  return s && s->shape == UNIFORM;
}

/* Whether an operand of i is an instruction of its block that stays in place (in `kept`). */
static int uses_kept(LLVMValueRef i, const ptrmap *kept) {
  for (int o = 0; o < LLVMGetNumOperands(i); o++)
    if (ptrmap_get(kept, LLVMGetOperand(i, o))) return 1;
  return 0;
}

/* The varying condition of bb's branch, when bb computes it and the groups' bits help. */
static LLVMValueRef branch_condition(lower *L, LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (L->avx512 || !LLVMIsABranchInst(term) || !LLVMIsConditional(term)) return NULL;
  LLVMValueRef cond = LLVMGetCondition(term);
  if (!LLVMIsAInstruction(cond) || LLVMGetInstructionParent(cond) != bb) return NULL;
  return divergence_of(L->dv, cond).shape == UNIFORM ? NULL : cond;
}

/* Uniform instructions go first, once per warp, where they can: pure, and using nothing that
 * the block computes after them. The rest runs in order, lane group by lane group. */
void lw_emit_body(lower *L, LLVMBasicBlockRef bb) {
  LLVMValueRef *seg = ARENA_NEW(L->arena, LLVMValueRef, cfg_instrs(bb));
  L->branch_cond = branch_condition(L, bb), L->branch_bits = NULL;
  int wrote = 0, ns = 0;
  ptrmap kept; /* the instructions (phis apart) that were not hoisted */
  ptrmap_init(L->arena, &kept, 16);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != LLVMGetBasicBlockTerminator(bb);
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAPHINode(i)) continue;
    if (is_uniform_inst(L, i) && lw_is_hoistable(i, wrote) && !uses_kept(i, &kept))
      lw_inst_uniform(L, i);
    else ptrmap_put(L->arena, &kept, i, i);
    wrote |= lw_writes_memory(i) && !is_barrier_call(i);
  }
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != LLVMGetBasicBlockTerminator(bb);
       i = LLVMGetNextInstruction(i)) {
    if (!ptrmap_get(&kept, i) || is_barrier_call(i)) continue;
    if (is_uniform_inst(L, i)) {
      emit_segment(L, seg, ns), ns = 0;
      lw_inst_uniform(L, i);
    } else if (lw_runs_alone(L, i)) {
      emit_segment(L, seg, ns), ns = 0;
      emit_segment(L, &i, 1);
    } else seg[ns++] = i;
  }
  emit_segment(L, seg, ns);
}

static void emit_block(lower *L, int pc) {
  LLVMPositionBuilderAtEnd(L->b, L->bbs[pc]);
  L->mask = lw_mask_here(L);
  unsigned n = cfg_instrs(L->cfg->blocks[pc].bb);
  lw_count_block(L, n);
  lw_emit_body(L, L->cfg->blocks[pc].bb);
  lower_terminator(L, pc);
}

void lw_emit_blocks(lower *L) {
  L->arrive = ARENA_NEW(L->arena, LLVMBasicBlockRef, L->cfg->nblocks + 1);
  L->crossing = ARENA_NEW(L->arena, LLVMBasicBlockRef, L->cfg->nblocks);
  for (int pc = L->cfg->part_first[L->part]; pc < L->cfg->part_first[L->part + 1]; pc++)
    emit_block(L, pc);
}
