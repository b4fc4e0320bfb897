/* Immediate post-dominators, by Cooper, Harvey and Kennedy's "A Simple, Fast Dominance Algorithm"
 * run on the reversed CFG. LLVM's C API has no dominator trees, so this is weft's own.
 *
 * The reversed CFG is rooted at a virtual exit (PC nblocks) with an edge to every block that ends
 * the kernel (ret, unreachable). Blocks that cannot reach the exit (an infinite loop) would be left
 * out of the tree; each such region gets an extra edge to the exit from its block with the
 * largest PC, the region's last block in layout order, before the tree is computed.
 *
 * A block from which every path ends in `unreachable` never runs (clang makes the default of a
 * switch that covers every possible value so), so it is no way out for the blocks before it:
 * their post-dominators are computed as if the edges into it were not there. Counted as an
 * exit, it would put the switch's IPDOM at the kernel's end, and the cases' lanes would never
 * wait for each other, not even at a barrier.
 * Needs: cfg_build. Fills: cfg_block.ipdom for every block. */
#include "compiler.h"

typedef struct rgraph {
  int n;         /* blocks; node n is the virtual exit */
  char *to_exit; /* block has an edge to the exit (real or added) */
  char *dead;    /* every path from the block ends in `unreachable` */
  int *po_num;   /* post-order number in the reversed graph */
  int *po;       /* nodes in that post-order */
} rgraph;

/* Marks everything that reaches `start` in the CFG, walking predecessor edges. */
static void mark_reaching(weft_arena *a, const cfg *g, int start, char *seen) {
  int *stack = ARENA_NEW(a, int, g->nblocks), sp = 0;
  if (seen[start]) return;
  seen[start] = 1, stack[sp++] = start;
  while (sp > 0) {
    const cfg_block *b = &g->blocks[stack[--sp]];
    for (int p = 0; p < b->npreds; p++)
      if (!seen[b->preds[p]]) seen[b->preds[p]] = 1, stack[sp++] = b->preds[p];
  }
}

/* A live block reaches the exit through live blocks only (a dead one is no way out). */
static void connect_exits(weft_arena *a, const cfg *g, rgraph *r) {
  char *seen = ARENA_NEW(a, char, g->nblocks);
  for (int pc = 0; pc < g->nblocks; pc++)
    if (g->blocks[pc].nsuccs == 0) {
      r->to_exit[pc] = 1;
      if (!r->dead[pc]) mark_reaching(a, g, pc, seen);
    }
  for (int pc = g->nblocks - 1; pc >= 0; pc--)
    if (!seen[pc] && !r->dead[pc]) r->to_exit[pc] = 1, mark_reaching(a, g, pc, seen);
}

/* Reversed-graph children of node x: the exit's are the blocks that reach it directly, a
 * block's are its CFG predecessors, but for a dead block the live ones (an edge that is no way
 * out is in neither the tree nor the order that the iteration relies on). */
static int rchild(const cfg *g, const rgraph *r, int x, int i, int *out) {
  if (x == r->n) {
    for (int pc = 0; pc < r->n; pc++)
      if (r->to_exit[pc] && i-- == 0) return *out = pc, 1;
    return 0;
  }
  for (int p = 0; p < g->blocks[x].npreds; p++) {
    int pred = g->blocks[x].preds[p];
    if ((!r->dead[x] || r->dead[pred]) && i-- == 0) return *out = pred, 1;
  }
  return 0;
}

static void reverse_post_order(weft_arena *a, const cfg *g, rgraph *r) {
  int *stack = ARENA_NEW(a, int, r->n + 1), *next = ARENA_NEW(a, int, r->n + 1);
  char *seen = ARENA_NEW(a, char, r->n + 1);
  int sp = 0, count = 0, child;
  stack[sp++] = r->n, seen[r->n] = 1;
  while (sp > 0) {
    int x = stack[sp - 1];
    if (!rchild(g, r, x, next[x]++, &child)) {
      r->po_num[x] = count, r->po[count++] = x, sp--;
      continue;
    }
    if (!seen[child]) seen[child] = 1, stack[sp++] = child;
  }
}

static int intersect(const rgraph *r, const int *idom, int x, int y) {
  while (x != y) {
    while (r->po_num[x] < r->po_num[y]) x = idom[x];
    while (r->po_num[y] < r->po_num[x]) y = idom[y];
  }
  return x;
}

/* Blocks that end in `unreachable`, and those whose successors are all dead, to a fixpoint. */
static void find_dead(const cfg *g, rgraph *r) {
  for (int pc = 0; pc < g->nblocks; pc++) {
    LLVMBasicBlockRef bb = g->blocks[pc].bb; /* NULL in the unit tests' graphs */
    LLVMValueRef term = bb ? LLVMGetBasicBlockTerminator(bb) : NULL;
    r->dead[pc] = term && LLVMGetInstructionOpcode(term) == LLVMUnreachable;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = g->nblocks - 1; pc >= 0; pc--) {
      const cfg_block *b = &g->blocks[pc];
      int all = b->nsuccs > 0;
      for (int s = 0; s < b->nsuccs && all; s++) all = r->dead[b->succs[s]];
      if (all && !r->dead[pc]) r->dead[pc] = 1, changed = 1;
    }
  }
}

/* One pass of the data-flow iteration over node x: meet of its reversed-graph parents, which
 * are the block's CFG successors and the exit; a live block ignores its dead successors. */
static int new_idom(const cfg *g, const rgraph *r, const int *idom, int x) {
  int best = -1;
  const cfg_block *b = &g->blocks[x];
  for (int s = 0; s <= b->nsuccs; s++) {
    int p = s < b->nsuccs ? b->succs[s] : (r->to_exit[x] ? r->n : -1);
    if (p < 0 || idom[p] < 0 || (p < r->n && r->dead[p] && !r->dead[x])) continue;
    best = best < 0 ? p : intersect(r, idom, p, best);
  }
  return best;
}

void postdom_compute(weft_arena *a, cfg *g) {
  rgraph r = {g->nblocks, ARENA_NEW(a, char, g->nblocks), ARENA_NEW(a, char, g->nblocks),
              ARENA_NEW(a, int, g->nblocks + 1), ARENA_NEW(a, int, g->nblocks + 1)};
  find_dead(g, &r);
  connect_exits(a, g, &r);
  reverse_post_order(a, g, &r);
  int *idom = ARENA_NEW(a, int, r.n + 1);
  for (int i = 0; i <= r.n; i++) idom[i] = -1;
  idom[r.n] = r.n;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = r.n - 1; i >= 0; i--) { /* reverse post-order, the root (last) skipped */
      int x = r.po[i], d = new_idom(g, &r, idom, x);
      if (d != idom[x]) idom[x] = d, changed = 1;
    }
  }
  for (int pc = 0; pc < g->nblocks; pc++) g->blocks[pc].ipdom = idom[pc];
}

int postdom_dominates(const cfg *g, int a, int b) {
  for (int x = b;; x = g->blocks[x].ipdom) {
    if (x == a) return 1;
    if (x == g->nblocks) return 0;
  }
}
