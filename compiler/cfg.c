/* The CFG of one kernel, with blocks numbered by PC.
 *
 * The PC is the block's index in a reverse post-order of the reachable blocks, so every forward
 * edge goes to a larger PC and a branch's reconvergence point has a larger PC than the code on the
 * way to it. Among the reverse post-orders we take the one that reads like the source: the DFS
 * visits a block's successors latest source line first, which numbers a branch's `then` side
 * before its `else` side and a loop's body before its exit, even where InstCombine swapped a
 * branch's targets (`x != c` becomes `x == c` with the successors exchanged). Successors without
 * a line keep the terminator's order, last first. Blocks that cannot be reached from the entry
 * are left out: they never run. */
#include "compiler.h"

#include <string.h>

typedef struct bb_index {
  LLVMBasicBlockRef *bbs; /* in function order */
  int *line;              /* first source line of each, 0 when it has none */
  int n;
} bb_index;

static int index_of(const bb_index *ix, LLVMBasicBlockRef bb) {
  for (int i = 0; i < ix->n; i++)
    if (ix->bbs[i] == bb) return i;
  DIE("basic block not in its function");
}

/* Successor s of block i as a function-order index. */
static int succ_index(const bb_index *ix, int i, unsigned s) {
  return index_of(ix, LLVMGetSuccessor(LLVMGetBasicBlockTerminator(ix->bbs[i]), s));
}

static int first_line(LLVMBasicBlockRef bb) {
  int first = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    int line = (int)LLVMGetDebugLocLine(i);
    if (line > 0 && (!first || line < first)) first = line;
  }
  return first;
}

/* The successor of b to visit next among those not yet taken (taken[s] set): the one with the
 * latest line; without lines, the last in terminator order. */
static int next_successor(const bb_index *ix, int b, char *taken, int nsucc) {
  int best = -1;
  for (int s = nsucc - 1; s >= 0; s--) {
    if (taken[s]) continue;
    int line = ix->line[succ_index(ix, b, (unsigned)s)];
    if (best < 0 || (line && line > ix->line[succ_index(ix, b, (unsigned)best)])) best = s;
  }
  taken[best] = 1;
  return succ_index(ix, b, (unsigned)best);
}

/* Iterative DFS post-order; returns the number of reachable blocks, order[] in post-order. */
static int post_order(weft_arena *a, const bb_index *ix, int *order) {
  int *stack = ARENA_NEW(a, int, ix->n), *left = ARENA_NEW(a, int, ix->n);
  char *seen = ARENA_NEW(a, char, ix->n), **taken = ARENA_NEW(a, char *, ix->n);
  int sp = 0, count = 0;
  stack[sp++] = 0, seen[0] = 1;
  for (int i = 0; i < ix->n; i++) {
    left[i] = (int)LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(ix->bbs[i]));
    taken[i] = ARENA_NEW(a, char, left[i] + 1);
  }
  while (sp > 0) {
    int b = stack[sp - 1];
    if (left[b] == 0) {
      order[count++] = b, sp--;
      continue;
    }
    int nsucc = (int)LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(ix->bbs[b]));
    left[b]--;
    int s = next_successor(ix, b, taken[b], nsucc);
    if (!seen[s]) seen[s] = 1, stack[sp++] = s;
  }
  return count;
}

static void block_lines(cfg_block *b) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i)) {
    int line = (int)LLVMGetDebugLocLine(i);
    if (line <= 0) continue;
    if (is_barrier_call(i)) b->barrier_line = line; /* last line is often the '}' after it */
    if (!b->first_line || line < b->first_line) b->first_line = line;
    if (line > b->last_line) b->last_line = line;
  }
}

unsigned cfg_instrs(LLVMBasicBlockRef bb) {
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) n++;
  return n;
}

unsigned cfg_fn_instrs(LLVMValueRef fn) {
  unsigned n = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    n += cfg_instrs(b);
  return n;
}

int cfg_pc_of(const cfg *g, LLVMBasicBlockRef bb) {
  for (int pc = 0; pc < g->nblocks; pc++)
    if (g->blocks[pc].bb == bb) return pc;
  return -1;
}

static void add_edges(weft_arena *a, cfg *g) {
  for (int pc = 0; pc < g->nblocks; pc++) {
    cfg_block *b = &g->blocks[pc];
    LLVMValueRef term = LLVMGetBasicBlockTerminator(b->bb);
    b->nsuccs = (int)LLVMGetNumSuccessors(term);
    b->succs = ARENA_NEW(a, int, b->nsuccs);
    for (int s = 0; s < b->nsuccs; s++) {
      b->succs[s] = cfg_pc_of(g, LLVMGetSuccessor(term, (unsigned)s));
      g->blocks[b->succs[s]].npreds++;
    }
  }
  for (int pc = 0; pc < g->nblocks; pc++)
    g->blocks[pc].preds = ARENA_NEW(a, int, g->blocks[pc].npreds), g->blocks[pc].npreds = 0;
  for (int pc = 0; pc < g->nblocks; pc++)
    for (int s = 0; s < g->blocks[pc].nsuccs; s++) {
      cfg_block *t = &g->blocks[g->blocks[pc].succs[s]];
      t->preds[t->npreds++] = pc;
    }
}

cfg *cfg_build(weft_arena *a, LLVMValueRef fn) {
  unsigned nbb = LLVMCountBasicBlocks(fn);
  bb_index ix = {ARENA_NEW(a, LLVMBasicBlockRef, nbb), ARENA_NEW(a, int, nbb), 0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    ix.line[ix.n] = first_line(bb), ix.bbs[ix.n++] = bb;
  int *order = ARENA_NEW(a, int, ix.n);
  cfg *g = ARENA_NEW(a, cfg, 1);
  g->fn = fn;
  g->nblocks = post_order(a, &ix, order);
  g->blocks = ARENA_NEW(a, cfg_block, g->nblocks);
  for (int pc = 0; pc < g->nblocks; pc++) {
    cfg_block *b = &g->blocks[pc];
    b->bb = ix.bbs[order[g->nblocks - 1 - pc]];
    b->pc = pc;
    b->ipdom = g->nblocks;
    block_lines(b);
  }
  add_edges(a, g);
  return g;
}

int cfg_is_branch(const cfg_block *b) {
  for (int s = 1; s < b->nsuccs; s++)
    if (b->succs[s] != b->succs[0]) return 1;
  return 0;
}
