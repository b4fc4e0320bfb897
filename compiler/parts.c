/* Parts of a warp function. A large kernel's blocks are cut into runs of PCs of similar size,
 * each lowered into a function of its own, so that the JIT can optimise and generate their code
 * on several threads at once: code generation is most of a first launch, and it grows with the
 * size of the function.
 *
 * A cut is only made where no loop is open (no back edge spans it), so that a warp crosses each
 * cut at most once on its way through the kernel: it saves its live values into the frame and
 * tail-calls the next part, which resumes there. Loops, and so the hot code, stay whole inside
 * one function, with their values in registers. The cuts depend on the kernel alone, never on
 * the machine, so the code generated for a kernel is the same everywhere. */
#include "compiler.h"

#include <stdlib.h>

/* open[k] != 0: a loop spans the cut before PC k (some back edge u -> v has v < k <= u). */
static void mark_open(weft_arena *a, const cfg *g, int *open) {
  int *delta = ARENA_NEW(a, int, g->nblocks + 2);
  for (int u = 0; u < g->nblocks; u++)
    for (int s = 0; s < g->blocks[u].nsuccs; s++) {
      int v = g->blocks[u].succs[s];
      if (v <= u) delta[v + 1]++, delta[u + 1]--;
    }
  for (int k = 0, depth = 0; k <= g->nblocks; k++) open[k] = depth += delta[k];
}

/* The cut nearest to `target` instructions among PCs after `after` where no loop is open, or -1. */
static int nearest_cut(const cfg *g, const int *before, const int *open, int after, int target) {
  int best = -1;
  for (int k = after + 1; k < g->nblocks; k++)
    if (!open[k] && (best < 0 || abs(before[k] - target) < abs(before[best] - target))) best = k;
  return best;
}

void parts_compute(weft_arena *a, cfg *g) {
  int n = g->nblocks, *before = ARENA_NEW(a, int, n + 1), *open = ARENA_NEW(a, int, n + 1);
  for (int pc = 0; pc < n; pc++) before[pc + 1] = before[pc] + (int)cfg_instrs(g->blocks[pc].bb);
  mark_open(a, g, open);
  int total = before[n], want = total / PART_MIN_INSTRS;
  want = want < 1 ? 1 : want > PARTS_MAX ? PARTS_MAX : want;
  g->part_first = ARENA_NEW(a, int, want + 1);
  g->nparts = 0;
  for (int i = 1, last = 0; i < want; i++) {
    int k = nearest_cut(g, before, open, last, total * i / want);
    /* a part too small to be worth a thread of its own joins its neighbour */
    if (k < 0 || before[k] - before[last] < PART_MIN_INSTRS / 2 ||
        total - before[k] < PART_MIN_INSTRS / 2)
      continue;
    g->part_first[++g->nparts] = last = k;
  }
  g->part_first[++g->nparts] = n;
  g->part_instrs = ARENA_NEW(a, unsigned, g->nparts);
  for (int p = 0; p < g->nparts; p++) {
    g->part_instrs[p] = (unsigned)(before[g->part_first[p + 1]] - before[g->part_first[p]]);
    for (int pc = g->part_first[p]; pc < g->part_first[p + 1]; pc++) g->blocks[pc].part = p;
  }
}
