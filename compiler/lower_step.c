/* The `stack` and `pc` policies' steps inside the warp function (kernel.h, ctx->policy).
 *
 * Where the code would return an event to the scheduler (a divergent branch, an arrival at the
 * guard, the kernel's end), it first checks ctx->policy: when set, it hands the event to
 * weft_stack_arrive or weft_stack_diverge (runtime/policy_stack.c), or to weft_pc_arrive or
 * weft_pc_diverge (policy_pc.c), as ctx->steps says (linked in as bitcode by policy_code.c and
 * inlined; pc goes on after a divergence only with its smallest target's lanes, whose waiting
 * points are the stack's)
 * and goes on at the block the policy picked, with that split's lanes and guard, in the same
 * call. The blocks a site can go on at are few and known here: a divergent branch's targets; for
 * an arrival at R, R itself (the lanes waiting there reconverge) and the targets of the branches
 * whose IPDOM is R (a sibling split that waited). Any other pick leaves with WEFT_EVENT_NEXT after
 * saving every value of the lanes that ran; the scheduler then asks the policy as usual.
 *
 * Values stay in registers across these steps because every definition of a value that lives
 * across blocks blends into the running split's lanes (lw_set_vector, write_phis): the lanes of
 * the other splits keep theirs. A split with lanes that did not start the call (left waiting by
 * an earlier one) has its values in the frame only: the call leaves (NEXT) after saving its own
 * lanes', and the next call reads them all back. */
#include <string.h>

#include "lower.h"

static LLVMTypeRef i32t(lower *L) { return LLVMInt32TypeInContext(L->c); }
static LLVMTypeRef i64t(lower *L) { return LLVMInt64TypeInContext(L->c); }

static LLVMValueRef ctx_load(lower *L, size_t off, LLVMTypeRef t) {
  return lw_load_at(L, L->ctx, off, t);
}

/* Whether block b ends in a branch whose lanes may go more than one way. */
static int diverges(lower *L, int b) {
  const cfg_block *cb = &L->cfg->blocks[b];
  if (!cfg_is_branch(cb)) return 0;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(cb->bb);
  LLVMValueRef cond = LLVMIsABranchInst(term) ? LLVMGetCondition(term) : LLVMGetOperand(term, 0);
  return divergence_of(L->dv, cond).shape != UNIFORM;
}

/* Calls f(L, R, t) for every target t of a divergent branch whose IPDOM R is not t. */
static void for_each_sibling(lower *L, void (*f)(lower *L, int r, int t)) {
  for (int b = 0; b < L->cfg->nblocks; b++) {
    const cfg_block *cb = &L->cfg->blocks[b];
    if (diverges(L, b))
      for (int k = 0; k < cb->nsuccs; k++)
        if (cb->succs[k] != cb->ipdom) f(L, cb->ipdom, cb->succs[k]);
  }
}

static void count_sibling(lower *L, int r, int t) {
  (void)t;
  L->nsiblings[r]++; /* an upper bound: a target may come twice */
}

static void add_sibling(lower *L, int r, int t) {
  int *list = L->siblings[r], i = 0;
  while (i < L->nsiblings[r] && list[i] != t) i++;
  if (i == L->nsiblings[r]) list[L->nsiblings[r]++] = t;
}

/* The blocks an arrival at R may go on at, besides R: the targets of the branches whose IPDOM is
 * R (siblings[R], made once: a scan per arrival would make the lowering quadratic). */
static void find_siblings(lower *L) {
  int n = L->cfg->nblocks;
  L->nsiblings = ARENA_NEW(L->arena, int, (size_t)n + 1);
  L->siblings = ARENA_NEW(L->arena, int *, (size_t)n + 1);
  for_each_sibling(L, count_sibling);
  for (int r = 0; r <= n; r++) {
    L->siblings[r] = ARENA_NEW(L->arena, int, (size_t)L->nsiblings[r] + 1);
    L->nsiblings[r] = 0;
  }
  for_each_sibling(L, add_sibling);
}

/* The target of a divergent branch at b that runs first: the smallest, its IPDOM apart. */
static int first_target(lower *L, int b) {
  const cfg_block *cb = &L->cfg->blocks[b];
  int first = L->cfg->nblocks;
  for (int k = 0; k < cb->nsuccs; k++)
    if (cb->succs[k] != cb->ipdom && cb->succs[k] < first) first = cb->succs[k];
  return first;
}

/* ---- which waiting lanes a definition can reach ----
 * A divergence at b parks lanes at its IPDOM R and at its later targets until they meet at R,
 * and the lanes that run meanwhile stay in b's region: the blocks reachable from b's targets
 * before R (a branch in the region has its own region inside it, as its IPDOM cannot be
 * passed before R). pc may, at R, run the targets of another branch whose IPDOM is R, with b's
 * lanes still parked, so a block of b's region sees the waits of every branch whose IPDOM is
 * R. Any other step leaves the call, which saves the lanes' values first. So a write in
 * block x need keep other lanes' values only for the slots live at the waits of the branches
 * around x and of x's own branch: pending[x], a set of cross slots. Only a loop's back edge
 * uses it (lower.c, lw_write_phis): its lanes that left wait after the loop, so it writes its
 * phis whole (the helper's and nested loops of bench/ lose their blends there). Elsewhere the
 * blends that it would drop run once per branch, and dropping them only moved registers
 * (mandelbrot 15% slower in three interleaved runs for four blends of its entry block). */
#define PENDING_MAX_WORK (1 << 22) /* blocks x branches: more, and every wait is pending */

static void or_live(lower *L, uint64_t *to, int pc) {
  if (pc >= L->cfg->nblocks) return; /* the kernel's end: done lanes read nothing */
  for (int k = 0; k < L->live_words; k++) to[k] |= L->live_in[(size_t)pc * L->live_words + k];
}

/* at_ipdom[R]: the slots live at the waits of the divergences whose IPDOM is R. */
static uint64_t *waits_by_ipdom(lower *L) {
  int n = L->cfg->nblocks, w = L->live_words;
  uint64_t *at = ARENA_NEW(L->arena, uint64_t, (size_t)(n + 1) * w);
  for (int b = 0; b < n; b++) {
    const cfg_block *cb = &L->cfg->blocks[b];
    if (!diverges(L, b)) continue;
    int first = first_target(L, b);
    uint64_t *to = at + (size_t)cb->ipdom * w;
    or_live(L, to, cb->ipdom);
    for (int k = 0; k < cb->nsuccs; k++)
      if (cb->succs[k] != first) or_live(L, to, cb->succs[k]);
  }
  return at;
}

/* The slots live at any wait: at[R] over every R. */
static uint64_t *waits_anywhere(lower *L, const uint64_t *at) {
  int n = L->cfg->nblocks, w = L->live_words;
  uint64_t *any = ARENA_NEW(L->arena, uint64_t, (size_t)w);
  for (int r = 0; r <= n; r++)
    for (int k = 0; k < w; k++) any[k] |= at[(size_t)r * w + k];
  return any;
}

/* A value live at no wait is read only by the lanes that run, so its definitions need not keep
 * the other lanes' (mandelbrot's z is so: only its count is read after the loop). The IPDOMs
 * of divergent branches are also the only points a `stack` split arrives at (reconverges). */
static void find_blended(lower *L, const uint64_t *any) {
  int n = L->cfg->nblocks;
  L->reconverges = ARENA_NEW(L->arena, unsigned char, (size_t)n + 1);
  L->reconverges[n] = 1; /* the kernel's end: the bottom entry's point */
  L->divergent = 0;
  for (int b = 0; b < n; b++)
    if (diverges(L, b)) L->reconverges[L->cfg->blocks[b].ipdom] = 1, L->divergent = 1;
  for (int i = 0; i < L->ncross; i++) {
    slot *s = L->cross[i];
    s->blend = s->shape != UNIFORM && !s->remat && (any[i / 64] >> (i % 64) & 1);
  }
}

/* Adds what waits around b (at its IPDOM's divergences) to pending[x] for x in b's region and
 * b itself; seen[] holds the last b that reached a block. When the region holds a loop (a back
 * edge), its blocks take their steps in the code (find_loops). */
static void mark_region(lower *L, int b, const uint64_t *waits, int *seen, int *queue) {
  const cfg *g = L->cfg;
  int w = L->live_words, r = g->blocks[b].ipdom, head = 0, tail = 0, loop = 0;
  seen[b] = b, queue[tail++] = b;
  while (head < tail) {
    int x = queue[head++];
    for (int k = 0; k < w; k++) L->pending[(size_t)x * w + k] |= waits[k];
    for (int s = 0; s < g->blocks[x].nsuccs; s++) {
      int y = g->blocks[x].succs[s];
      loop |= y <= x && x != b;
      if (y != r && y < g->nblocks && seen[y] != b) seen[y] = b, queue[tail++] = y;
    }
  }
  for (int i = 0; i < tail && loop; i++) L->steps[queue[i]] = 1;
}

static void find_pending(lower *L, const uint64_t *at, const uint64_t *any) {
  int n = L->cfg->nblocks, w = L->live_words, branches = 0;
  L->pending = ARENA_NEW(L->arena, uint64_t, (size_t)n *w);
  for (int b = 0; b < n; b++) branches += diverges(L, b);
  if ((long long)branches * n > PENDING_MAX_WORK) { /* every wait, everywhere */
    for (int x = 0; x < n; x++) memcpy(L->pending + (size_t)x * w, any, w * sizeof *any);
    return;
  }
  int *seen = ARENA_NEW(L->arena, int, (size_t)n), *queue = ARENA_NEW(L->arena, int, (size_t)n);
  for (int x = 0; x < n; x++) seen[x] = -1;
  for (int b = 0; b < n; b++)
    if (diverges(L, b)) mark_region(L, b, at + (size_t)L->cfg->blocks[b].ipdom * w, seen, queue);
}

/* WEFT_DEBUG=blends: per back edge, how many of its phis that blend elsewhere it writes
 * whole. */
static void print_pending(lower *L) {
  const cfg *g = L->cfg;
  for (int x = 0; x < g->nblocks; x++)
    for (int k = 0; k < g->blocks[x].nsuccs; k++) {
      int y = g->blocks[x].succs[k], blended = 0, whole = 0;
      if (y > x) continue;
      for (LLVMValueRef phi = LLVMGetFirstInstruction(g->blocks[y].bb); phi && LLVMIsAPHINode(phi);
           phi = LLVMGetNextInstruction(phi)) {
        slot *s = lw_slot(L, phi);
        blended += s->blend, whole += s->blend && !lw_blends_at(L, s, x);
      }
      fprintf(stderr,
              "weft: blends: %s: back edge B%d -> B%d writes %d of its %d blended phis whole\n",
              LLVMGetValueName(g->fn), x, y, whole, blended);
    }
}

int lw_blends_at(const lower *L, const slot *s, int site) {
  if (!s->blend) return 0;
  return (int)(L->pending[(size_t)site * L->live_words + s->index / 64] >> (s->index % 64) & 1);
}

/* A block between a back edge's target and its source, in PC order: in a loop, or close. Only
 * there do steps repeat enough to pay for their code: each site costs some hundred instructions
 * to compile, and a site that runs once per warp costs a round trip without it. The region of
 * a divergent branch around a loop (find_pending: an early return before it, as BFS's) runs
 * once per warp too, but such regions are few and their warps run a loop in them: their steps
 * are in the code. */
static void find_loops(lower *L) {
  int n = L->cfg->nblocks;
  L->in_loop = ARENA_NEW(L->arena, unsigned char, (size_t)n + 1);
  for (int x = 0; x < n; x++)
    for (int k = 0; k < L->cfg->blocks[x].nsuccs; k++)
      for (int pc = L->cfg->blocks[x].succs[k]; pc <= x; pc++) L->in_loop[pc] = L->steps[pc] = 1;
}

void lw_step_setup(lower *L) {
  L->steps = ARENA_NEW(L->arena, unsigned char, (size_t)L->cfg->nblocks + 1);
  uint64_t *at = waits_by_ipdom(L), *any = waits_anywhere(L, at);
  find_blended(L, any);
  find_pending(L, at, any);
  if (debug_wants(DEBUG_BLENDS)) print_pending(L);
  find_loops(L);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(L->c, 0);
  static const char *const name[2][2] = {{"weft_stack_diverge", "weft_stack_arrive"},
                                         {"weft_pc_diverge", "weft_pc_arrive"}};
  LLVMTypeRef step = LLVMFunctionType(i32t(L), &ptr, 1, 0);
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 2; i++) L->step[p][i] = ir_function(L->m, name[p][i], step);
  L->stack_leave = ir_function(L->m, "weft_stack_leave", step);
  L->stack_open = ir_function(L->m, "weft_stack_open",
                              LLVMFunctionType(i32t(L), (LLVMTypeRef[]){ptr, i32t(L)}, 2, 0));
  L->pc_leave = ir_function(
      L->m, "weft_pc_leave",
      LLVMFunctionType(LLVMVoidTypeInContext(L->c), (LLVMTypeRef[]){ptr, i32t(L)}, 2, 0));
  find_siblings(L);
}

/* Per part (lower_warp.c): the blocks that every site shares are made at their first use. */
void lw_step_begin_part(lower *L) {
  L->enter = ARENA_NEW(L->arena, LLVMBasicBlockRef, (size_t)L->cfg->nblocks);
  L->arrival = ARENA_NEW(L->arena, LLVMBasicBlockRef, (size_t)L->cfg->nblocks + 1);
  L->closing = ARENA_NEW(L->arena, LLVMBasicBlockRef, (size_t)L->cfg->nblocks);
  L->next_leave = L->finished = L->elsewhere = L->leave_all = L->save_all = NULL;
}

/* A split the policy picked starts at pc: the counters so far go with the lanes that ran them,
 * and the split's lanes and guard come from ctx, unless some of its lanes did not start the
 * call: their values are in the frame only (next_leave). */
static LLVMBasicBlockRef next_leave(lower *L);

static LLVMBasicBlockRef enter(lower *L, int pc) {
  if (L->enter[pc]) return L->enter[pc];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  LLVMBasicBlockRef e = L->enter[pc] = LLVMAppendBasicBlockInContext(L->c, L->fn, "enter"),
                    in_registers = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMPositionBuilderAtEnd(L->b, e);
  LLVMValueRef mask = ctx_load(L, offsetof(weft_warp_ctx, mask), i64t(L));
  LLVMValueRef other = LLVMBuildAnd(L->b, mask, LLVMBuildNot(L->b, L->call_lanes, ""), "");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, other, lw_const_i64(L, 0), ""), in_registers,
                  next_leave(L));
  LLVMPositionBuilderAtEnd(L->b, in_registers);
  LLVMBuildStore(L->b, mask, L->mask_var);
  LLVMBuildStore(L->b, ctx_load(L, offsetof(weft_warp_ctx, guard), i32t(L)), L->guard_var);
  lw_stop_check(L, pc, pc, 0); /* a warp can loop through the policy's steps too */
  LLVMBuildBr(L->b, L->bbs[pc]);
  LLVMPositionBuilderAtEnd(L->b, here);
  return e;
}

/* Every value of the call's lanes to the frame, then back to the scheduler with L->event, or,
 * when it is 0, on at ctx->pc in another part through part 0's dispatch (lw_step_elsewhere).
 * Splits this call ran through the policy's steps have theirs in registers only, and the next
 * call reads back what it needs. One block per part for every such exit: the saving is most of
 * what they cost to compile (a tenth of a fuzzed kernel's code, when each had its own). */
static LLVMBasicBlockRef save_all(lower *L) {
  if (L->save_all) return L->save_all;
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b),
                    elsewhere = LLVMAppendBasicBlockInContext(L->c, L->fn, "elsewhere.part");
  L->save_all = LLVMAppendBasicBlockInContext(L->c, L->fn, "save.all");
  LLVMPositionBuilderAtEnd(L->b, L->save_all);
  lw_frame_save_lanes(L, L->call_lanes);
  LLVMValueRef event = LLVMBuildLoad2(L->b, i32t(L), L->event, "");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, event, lw_const_i32(L, 0), ""), elsewhere,
                  L->leave);
  LLVMPositionBuilderAtEnd(L->b, elsewhere);
  lw_count_to_ctx(L);
  LLVMBuildRet(L->b, lw_tail_call(L, 0, L->ctx)); /* whose dispatch hands ctx->pc on */
  LLVMPositionBuilderAtEnd(L->b, here);
  return L->save_all;
}

/* `event` (0: on in another part), then save_all: made once per part, in *cache. */
static LLVMBasicBlockRef leave_saving_all(lower *L, LLVMBasicBlockRef *cache, uint32_t event) {
  if (*cache) return *cache;
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  *cache = LLVMAppendBasicBlockInContext(L->c, L->fn, "leave.all");
  LLVMPositionBuilderAtEnd(L->b, *cache);
  LLVMBuildStore(L->b, lw_const_i32(L, event), L->event);
  LLVMBuildBr(L->b, save_all(L));
  LLVMPositionBuilderAtEnd(L->b, here);
  return *cache;
}

/* The policy picked a block this site cannot go on at: it has taken the event already. */
static LLVMBasicBlockRef next_leave(lower *L) {
  return leave_saving_all(L, &L->next_leave, WEFT_EVENT_NEXT);
}

/* The event in ctx goes to the scheduler as without ctx->policy. */
static LLVMBasicBlockRef leave_all(lower *L) {
  return leave_saving_all(L, &L->leave_all, WEFT_EVENT_BRANCH);
}

void lw_step_runtime(lower *L, LLVMBasicBlockRef runtime) {
  LLVMValueRef policy = ctx_load(L, offsetof(weft_warp_ctx, policy),
                                 LLVMPointerTypeInContext(L->c, 0));
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, policy, ""), runtime, leave_all(L));
}

/* Nothing of the warp can run: it finished (the policy's other outcome, an overflowing table,
 * leaves lanes that the scheduler reports). The next warp of a chain goes on. */
static LLVMBasicBlockRef finished(lower *L) {
  if (L->finished) return L->finished;
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b),
                    none = LLVMAppendBasicBlockInContext(L->c, L->fn, "handled");
  L->finished = LLVMAppendBasicBlockInContext(L->c, L->fn, "finished");
  LLVMPositionBuilderAtEnd(L->b, L->finished);
  lw_chain_or(L, none);
  LLVMPositionBuilderAtEnd(L->b, none);
  LLVMBuildStore(L->b, lw_const_i32(L, WEFT_EVENT_HANDLED), L->event);
  LLVMBuildBr(L->b, L->leave);
  LLVMPositionBuilderAtEnd(L->b, here);
  return L->finished;
}

LLVMBasicBlockRef lw_step_elsewhere(lower *L) { return leave_saving_all(L, &L->elsewhere, 0); }

/* The policy's step (ctx->steps says whose): the next split in ctx, or 0 when none can run. */
static LLVMValueRef call_step(lower *L, int arrival) {
  LLVMBasicBlockRef block[2] = {LLVMAppendBasicBlockInContext(L->c, L->fn, "step.stack"),
                                LLVMAppendBasicBlockInContext(L->c, L->fn, "step.pc")},
                    join = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMValueRef steps = ctx_load(L, offsetof(weft_warp_ctx, steps), i32t(L)), r[2];
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, steps, lw_const_i32(L, WEFT_STEPS_PC), ""),
                  block[1], block[0]);
  for (int p = 0; p < 2; p++) {
    LLVMPositionBuilderAtEnd(L->b, block[p]);
    LLVMValueRef f = L->step[p][arrival != 0];
    r[p] = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &L->ctx, 1, "");
    LLVMBuildBr(L->b, join);
  }
  LLVMPositionBuilderAtEnd(L->b, join);
  LLVMValueRef phi = LLVMBuildPhi(L->b, i32t(L), "");
  LLVMAddIncoming(phi, r, block, 2);
  return phi;
}

/* The step and what follows it: ctx holds the event, and ctx->policy is set. */
static void take_step(lower *L, int arrival, const int *to, int n) {
  LLVMBasicBlockRef go_on = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMValueRef r = call_step(L, arrival);
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, r, lw_const_i32(L, 0), ""), finished(L),
                  go_on);
  LLVMPositionBuilderAtEnd(L->b, go_on);
  lw_count_to_ctx(L);
  LLVMValueRef pc = ctx_load(L, offsetof(weft_warp_ctx, pc), i32t(L));
  LLVMValueRef sw = LLVMBuildSwitch(L->b, pc, next_leave(L), (unsigned)n);
  for (int i = 0; i < n; i++) {
    if (to[i] >= L->cfg->nblocks) continue;
    LLVMBasicBlockRef go = L->cfg->blocks[to[i]].part == L->part ? enter(L, to[i])
                                                                 : lw_step_elsewhere(L);
    LLVMAddCase(sw, lw_const_i32(L, (uint64_t)to[i]), go);
  }
}

void lw_step_site(lower *L, const int *to, int n, LLVMBasicBlockRef runtime) {
  LLVMBasicBlockRef step = LLVMAppendBasicBlockInContext(L->c, L->fn, "step.stack");
  LLVMValueRef policy = ctx_load(L, offsetof(weft_warp_ctx, policy),
                                 LLVMPointerTypeInContext(L->c, 0));
  LLVMBuildCondBr(L->b, LLVMBuildIsNull(L->b, policy, ""), runtime, step);
  LLVMPositionBuilderAtEnd(L->b, step);
  take_step(L, 0, to, n);
}

/* The step of every arrival at `to` in this part, one block (an arrival's step does not depend
 * on where the lanes came from): its code is most of what a step costs to compile. */
static LLVMBasicBlockRef arrival_step(lower *L, int to) {
  if (L->arrival[to]) return L->arrival[to];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  L->arrival[to] = LLVMAppendBasicBlockInContext(L->c, L->fn, "step.arrive");
  LLVMPositionBuilderAtEnd(L->b, L->arrival[to]);
  int n = L->nsiblings[to];
  int *cands = ARENA_NEW(L->arena, int, (size_t)n + 1);
  for (int i = 0; i < n; i++) cands[i] = L->siblings[to][i];
  cands[n] = to; /* the kernel's end is no block: take_step skips it */
  take_step(L, 1, cands, n + 1);
  LLVMPositionBuilderAtEnd(L->b, here);
  return L->arrival[to];
}

void lw_step_arrival_at(lower *L, int from, int to, LLVMBasicBlockRef runtime) {
  if (to == L->cfg->nblocks) { /* every warp: one whose state never started just finished */
    LLVMBasicBlockRef step = L->divergent ? LLVMAppendBasicBlockInContext(L->c, L->fn, "")
                                          : runtime;
    LLVMValueRef started = ctx_load(L, offsetof(weft_warp_ctx, started), i32t(L));
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, started, lw_const_i32(L, 0), ""),
                    finished(L), step);
    if (!L->divergent) return;
    LLVMPositionBuilderAtEnd(L->b, step);
  }
  lw_store_event(L, from, 1, to, L->mask);
  LLVMBuildBr(L->b, arrival_step(L, to));
}
