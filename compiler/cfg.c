/* The CFG of one kernel, with blocks numbered by PC.
 *
 * The PC is the block's index in a reverse post-order of the reachable blocks, so every forward
 * edge goes to a larger PC. Among the reverse post-orders we take the one that reads like the
 * source: the DFS visits a block's successors latest source line first, which numbers a
 * branch's `then` side before its `else` side and a loop's body before its exit, even where
 * InstCombine swapped a branch's targets (`x != c` becomes `x == c` with the successors
 * exchanged). Successors without a line keep the terminator's order, last first. Blocks that
 * cannot be reached from the entry are left out: they never run.
 *
 * `pc` needs more (policy_pc.c): a branch's reconvergence point must have a larger PC than the
 * code on the way to it, for lanes that left a loop to wait there for those still in it. Lines
 * do not always give that: a helper inlined after a loop brings the earlier lines of its
 * definition, and the loop's exit gets numbered before its body. cfg_keep_loops_before_ipdoms
 * checks it once the IPDOMs are known, and where it fails numbers the blocks again: the DFS then
 * visits, at a loop's header, first the IPDOMs of the loop's branches that lie outside the loop,
 * so that they take their PCs after all of the loop's blocks. Loops are found as strongly
 * connected components, nested ones within each once the edges back to its header are cut. */
#include "compiler.h"

#include <stdint.h>
#include <string.h>

typedef struct bb_index {
  LLVMBasicBlockRef *bbs; /* in function order */
  int *line;              /* first source line of each, 0 when it has none */
  int *nsucc, **succ;     /* successors, as function-order indices */
  int *loop;              /* the header of the innermost loop holding the block, or -1 */
  int *nfirst, **first;   /* per loop header: the blocks the DFS visits there first */
  ptrmap at;              /* block -> function-order index + 1 */
  int n;
} bb_index;

static int first_line(LLVMBasicBlockRef bb) {
  int first = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    int line = (int)LLVMGetDebugLocLine(i);
    if (line > 0 && (!first || line < first)) first = line;
  }
  return first;
}

static void index_blocks(weft_arena *a, LLVMValueRef fn, bb_index *ix) {
  unsigned nbb = LLVMCountBasicBlocks(fn);
  ptrmap at = {0};
  ptrmap_init(a, &at, nbb);
  ix->loop = NULL, ix->nfirst = NULL, ix->first = NULL;
  ix->bbs = ARENA_NEW(a, LLVMBasicBlockRef, nbb), ix->line = ARENA_NEW(a, int, nbb);
  ix->nsucc = ARENA_NEW(a, int, nbb), ix->succ = ARENA_NEW(a, int *, nbb), ix->n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    ptrmap_put(a, &at, bb, (void *)(intptr_t)(ix->n + 1));
    ix->line[ix->n] = first_line(bb), ix->bbs[ix->n++] = bb;
  }
  for (int i = 0; i < ix->n; i++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(ix->bbs[i]);
    ix->nsucc[i] = (int)LLVMGetNumSuccessors(term);
    ix->succ[i] = ARENA_NEW(a, int, ix->nsucc[i] + 1);
    for (int s = 0; s < ix->nsucc[i]; s++)
      ix->succ[i][s] = (int)(intptr_t)ptrmap_get(&at, LLVMGetSuccessor(term, (unsigned)s)) - 1;
  }
  ix->at = at;
}

static int index_of(const bb_index *ix, LLVMBasicBlockRef bb) {
  return (int)(intptr_t)ptrmap_get(&ix->at, bb) - 1;
}

/* Scratch for Tarjan's algorithm over the blocks of one region. */
typedef struct scc_work {
  int *num, *low, *next, *call, *stack, *comp;
  char *on;
  int count;
} scc_work;

/* Tarjan's strongly connected components of the blocks b with in[b] == id, following no edge
 * into `cut` (the region's own header): comp[b] gets the DFS number of its component's root.
 * Without recursion: a kernel may have thousands of blocks. */
typedef struct graph {
  int n, *nsucc, **succ;
} graph;

static void components(const graph *ix, const int *in, int id, int cut, scc_work *w) {
  int sp = 0, cp = 0;
  w->count = 0;
  for (int root = 0; root < ix->n; root++) {
    if (in[root] != id || root == cut || w->num[root]) continue;
    w->call[cp++] = root, w->num[root] = w->low[root] = ++w->count;
    w->stack[sp++] = root, w->on[root] = 1;
    while (cp > 0) {
      int b = w->call[cp - 1];
      if (w->next[b] < ix->nsucc[b]) {
        int s = ix->succ[b][w->next[b]++];
        if (in[s] != id || s == cut) continue;
        if (!w->num[s])
          w->call[cp++] = s, w->num[s] = w->low[s] = ++w->count, w->stack[sp++] = s, w->on[s] = 1;
        else if (w->on[s] && w->num[s] < w->low[b]) w->low[b] = w->num[s];
        continue;
      }
      if (--cp > 0 && w->low[b] < w->low[w->call[cp - 1]]) w->low[w->call[cp - 1]] = w->low[b];
      if (w->low[b] != w->num[b]) continue;
      int x;
      do x = w->stack[--sp], w->on[x] = 0, w->comp[x] = w->num[b];
      while (x != b);
    }
  }
}

/* Discovery order of a DFS from the entry: a reducible loop's header comes first of its blocks. */
static int *discovery(weft_arena *a, const bb_index *ix) {
  int *disc = ARENA_NEW(a, int, ix->n), *stack = ARENA_NEW(a, int, ix->n + 1), sp = 0, t = 0;
  for (int i = 0; i < ix->n; i++) disc[i] = INT32_MAX;
  stack[sp++] = 0, disc[0] = t++;
  while (sp > 0) {
    int b = stack[--sp];
    for (int k = 0; k < ix->nsucc[b]; k++) {
      int s = ix->succ[b][k];
      if (disc[s] == INT32_MAX) disc[s] = t++, stack[sp++] = s;
    }
  }
  return disc;
}

/* The loops, innermost first for each block (ix->loop, parent): each strongly connected
 * component with a cycle of a region is a loop, headed by its first block in discovery order;
 * its blocks become a region of their own, where the edges back to the header are cut, so that
 * the loops inside it show. Region 0 is the whole function. */
static scc_work scc_work_new(weft_arena *a, int n) {
  return (scc_work){
      ARENA_NEW(a, int, n), ARENA_NEW(a, int, n), ARENA_NEW(a, int, n),  ARENA_NEW(a, int, n),
      ARENA_NEW(a, int, n), ARENA_NEW(a, int, n), ARENA_NEW(a, char, n), 0};
}

static void loop_forest(weft_arena *a, bb_index *ix, int *parent) {
  int n = ix->n, *in = ARENA_NEW(a, int, n), *cutof = ARENA_NEW(a, int, n + 1);
  int *todo = ARENA_NEW(a, int, n + 1), *disc = discovery(a, ix), ntodo = 0, ids = 0;
  int *head = ARENA_NEW(a, int, n + 1), *size = ARENA_NEW(a, int, n + 1),
      *region = ARENA_NEW(a, int, n + 1);
  scc_work w = scc_work_new(a, n);
  graph gr = {n, ix->nsucc, ix->succ};
  cutof[0] = -1, todo[ntodo++] = 0;
  while (ntodo > 0) {
    int id = todo[--ntodo], cut = cutof[id];
    components(&gr, in, id, cut, &w);
    for (int c = 0; c <= w.count; c++) head[c] = -1, size[c] = 0, region[c] = 0;
    for (int b = 0; b < n; b++) {
      if (in[b] != id || b == cut) continue;
      int c = w.comp[b];
      size[c]++;
      if (head[c] < 0 || disc[b] < disc[head[c]]) head[c] = b;
    }
    for (int b = 0; b < n; b++) {
      if (in[b] != id || b == cut) continue;
      int c = w.comp[b], h = head[c], cycle = size[c] > 1;
      for (int k = 0; k < ix->nsucc[h] && !cycle; k++) cycle = ix->succ[h][k] == h;
      if (!cycle) continue;
      if (!region[c]) { /* a new loop: a region of its own */
        region[c] = ++ids, cutof[ids] = h, todo[ntodo++] = ids;
        parent[h] = cut;
      }
      ix->loop[b] = h, in[b] = region[c];
    }
    for (int b = 0; b < n; b++) w.num[b] = w.next[b] = 0;
  }
}

static int in_loop(const bb_index *ix, const int *parent, int b, int h) {
  for (int x = ix->loop[b]; x >= 0; x = parent[x])
    if (x == h) return 1;
  return 0;
}

/* Per loop header h, the blocks to visit first there: the IPDOMs (in `prev`, numbered by lines
 * alone) of the branches of h's loop that lie outside it. Two passes: count, then fill. */
static void find_first(weft_arena *a, bb_index *ix, const int *parent, const cfg *prev) {
  int n = ix->n, *count = ARENA_NEW(a, int, n), *stamp = ARENA_NEW(a, int, n);
  ix->nfirst = count, ix->first = ARENA_NEW(a, int *, n);
  for (int pass = 0; pass < 2; pass++) {
    for (int pc = 0; pc < prev->nblocks; pc++) {
      const cfg_block *cb = &prev->blocks[pc];
      if (!cfg_is_branch(cb) || cb->ipdom >= prev->nblocks) continue;
      int b = index_of(ix, cb->bb), r = index_of(ix, prev->blocks[cb->ipdom].bb);
      for (int h = ix->loop[b]; h >= 0; h = parent[h]) {
        if (in_loop(ix, parent, r, h) || stamp[r] == h + 1 + pass * n) continue;
        stamp[r] = h + 1 + pass * n;
        if (pass) ix->first[h][count[h]] = r;
        count[h]++;
      }
    }
    for (int h = 0; h < n && !pass; h++)
      ix->first[h] = ARENA_NEW(a, int, count[h] + 1), count[h] = 0;
  }
}

/* The order in which the DFS visits from b, the first to visit first in `to`: at a loop's header
 * (when find_first ran) the blocks to visit first there, then the block's successors; each part
 * by source line, the latest first (ties: the terminator's order, the last first). Returns how
 * many. */
static int visit_order(const bb_index *ix, int b, int *to) {
  int n = 0, own = ix->nfirst && ix->loop[b] == b ? ix->nfirst[b] : 0;
  for (int part = 0; part < 2; part++) {
    int count = part ? ix->nsucc[b] : own, *from = part ? ix->succ[b] : own ? ix->first[b] : NULL;
    int start = n;
    for (int k = 0; k < count; k++) { /* insertion by line, latest first, stable */
      int s = from[k], j = n++;
      for (; j > start && ix->line[to[j - 1]] <= ix->line[s]; j--) to[j] = to[j - 1];
      to[j] = s;
    }
  }
  return n;
}

/* Iterative DFS post-order; returns the number of reachable blocks, order[] in post-order. */
static int post_order(weft_arena *a, const bb_index *ix, int *order) {
  int *stack = ARENA_NEW(a, int, ix->n), *left = ARENA_NEW(a, int, ix->n);
  int **visit = ARENA_NEW(a, int *, ix->n), *nvisit = ARENA_NEW(a, int, ix->n);
  char *seen = ARENA_NEW(a, char, ix->n);
  int sp = 0, count = 0;
  stack[sp++] = 0, seen[0] = 1;
  for (int i = 0; i < ix->n; i++) {
    int most = ix->nsucc[i] + (ix->nfirst && ix->loop[i] == i ? ix->nfirst[i] : 0);
    visit[i] = ARENA_NEW(a, int, most + 1);
    left[i] = nvisit[i] = visit_order(ix, i, visit[i]);
  }
  while (sp > 0) {
    int b = stack[sp - 1];
    if (left[b] == 0) {
      order[count++] = b, sp--;
      continue;
    }
    int s = visit[b][nvisit[b] - left[b]--];
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
  return (int)(intptr_t)ptrmap_get(&g->pc_of, bb) - 1; /* a lookup: it runs per instruction */
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

/* The CFG of the blocks ix indexes, numbered by the DFS of post_order. */
static cfg *number(weft_arena *a, LLVMValueRef fn, const bb_index *ix) {
  int *order = ARENA_NEW(a, int, ix->n);
  cfg *g = ARENA_NEW(a, cfg, 1);
  g->fn = fn;
  g->nblocks = post_order(a, ix, order);
  g->blocks = ARENA_NEW(a, cfg_block, g->nblocks);
  for (int pc = 0; pc < g->nblocks; pc++) {
    cfg_block *b = &g->blocks[pc];
    b->bb = ix->bbs[order[g->nblocks - 1 - pc]];
    b->pc = pc;
    b->ipdom = g->nblocks;
    block_lines(b);
  }
  ptrmap_init(a, &g->pc_of, (unsigned)g->nblocks);
  for (int pc = 0; pc < g->nblocks; pc++)
    ptrmap_put(a, &g->pc_of, g->blocks[pc].bb, (void *)(intptr_t)(pc + 1));
  add_edges(a, g);
  return g;
}

cfg *cfg_build(weft_arena *a, LLVMValueRef fn) {
  bb_index ix;
  index_blocks(a, fn, &ix);
  return number(a, fn, &ix);
}

/* Whether in g every branch has its IPDOM after all the blocks of each loop that holds the
 * branch but not the IPDOM. */
static int loops_before_ipdoms(weft_arena *a, const bb_index *ix, const int *parent, const cfg *g) {
  int *last = ARENA_NEW(a, int, ix->n); /* per loop header: the loop's largest PC */
  for (int pc = 0; pc < g->nblocks; pc++)
    for (int h = ix->loop[index_of(ix, g->blocks[pc].bb)]; h >= 0; h = parent[h])
      if (pc > last[h]) last[h] = pc;
  for (int pc = 0; pc < g->nblocks; pc++) {
    int r = g->blocks[pc].ipdom;
    if (!cfg_is_branch(&g->blocks[pc]) || r >= g->nblocks) continue;
    int ri = index_of(ix, g->blocks[r].bb);
    for (int h = ix->loop[index_of(ix, g->blocks[pc].bb)]; h >= 0; h = parent[h])
      if (!in_loop(ix, parent, ri, h) && r < last[h]) return 0;
  }
  return 1;
}

cfg *cfg_keep_loops_before_ipdoms(weft_arena *a, cfg *g) {
  bb_index ix;
  index_blocks(a, g->fn, &ix);
  int *parent = ARENA_NEW(a, int, ix.n);
  ix.loop = ARENA_NEW(a, int, ix.n);
  for (int b = 0; b < ix.n; b++) ix.loop[b] = parent[b] = -1;
  loop_forest(a, &ix, parent);
  if (loops_before_ipdoms(a, &ix, parent, g)) return g;
  find_first(a, &ix, parent, g);
  cfg *again = number(a, g->fn, &ix);
  postdom_compute(a, again);
  return again;
}

int cfg_is_branch(const cfg_block *b) {
  for (int s = 1; s < b->nsuccs; s++)
    if (b->succs[s] != b->succs[0]) return 1;
  return 0;
}
