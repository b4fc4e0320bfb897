/* Property test of cfg_build and postdom_compute on thousands of random CFGs.
 *
 * A seeded generator builds functions of 2..30 blocks with random terminators (ret, unreachable,
 * br, condbr, switch with 3-4 targets), so the set includes unreachable blocks, infinite loops and
 * irreducible regions. The test recomputes everything independently, the slow and obvious way:
 *   - the PCs, by a recursive DFS that visits successors last-to-first (reverse post-order with
 *     the `then` side first), and the successor and predecessor lists;
 *   - the post-dominator sets, by iterating pdom(b) = {b} + the intersection of pdom(s) over b's
 *     successors s to a fixed point on bitsets, with the virtual-exit convention of postdom.c:
 *     ret and unreachable go to the exit; a block whose every path ends in unreachable is dead,
 *     and a live block's successors that are dead do not count; then, from the largest PC down,
 *     a live block that does not reach the exit through live blocks yet gets an edge to it, and
 *     everything that reaches it counts as connected;
 *   - the immediate post-dominator: the strict post-dominator whose own set is one smaller.
 * It compares them with cfg.blocks[] and postdom_dominates for every block and pair of blocks, and
 * checks that the generator produced enough infinite loops, irreducible graphs and switches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg_builder.h"

#ifndef NGRAPHS
#define NGRAPHS 10000
#endif
#define SEED 0x5eedcf9ull

typedef uint64_t set; /* bit i: PC i; bit nblocks: the virtual exit */

/* The graph under test, named in failure messages; WEFT_TEST_SEED=0x... reruns only that one and
 * prints its CFG. */
static unsigned long long current_seed;
#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) fail_msg("graph 0x%llx: %s:%d: %s", current_seed, __FILE__, __LINE__, #cond); \
  } while (0)

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int rng_below(uint64_t *s, int n) { return (int)(rng_next(s) % (uint64_t)n); }

/* A target other than the entry (LLVM's entry block has no predecessors): mostly a near block
 * ahead, which makes long paths, otherwise any block. */
static int random_target(uint64_t *s, int n, int from) {
  if (rng_below(s, 4) && from + 1 < n) {
    int t = from + 1 + rng_below(s, 3);
    return t < n ? t : n - 1;
  }
  return 1 + rng_below(s, n - 1);
}

/* `dense`: the first half of the blocks never end the function, which makes larger graphs. */
static void random_terminator(tb *t, uint64_t *s, int i, int dense) {
  int n = t->n, k = dense && i < n / 2 ? 13 + rng_below(s, 87) : rng_below(s, 100);
  if (k < 10) tb_ret(t, i);
  else if (k < 13) tb_unreachable(t, i);
  else if (k < 45) tb_br(t, i, random_target(s, n, i));
  else if (k < 85) tb_condbr(t, i, random_target(s, n, i), random_target(s, n, i));
  else {
    int cases[4], ncases = 2 + rng_below(s, 2); /* with the default: 3 or 4 targets */
    for (int c = 0; c < ncases; c++) cases[c] = random_target(s, n, i);
    tb_switch(t, i, random_target(s, n, i), ncases, cases);
  }
}

/* The reference model: the graph by PC, built from the test's own successor lists. */
typedef struct model {
  int n;              /* reachable blocks */
  int pc[TB_MAX];     /* by block number, -1 if unreachable */
  int blk[TB_MAX];    /* by PC */
  int nsuccs[TB_MAX]; /* by PC */
  int succs[TB_MAX][TB_MAX_SUCCS];
  set to_exit;      /* PCs with an edge to the virtual exit */
  set dead;         /* PCs whose every path ends in unreachable */
  set pdom[TB_MAX + 1];
} model;

static void dfs(const tb *t, int b, char *seen, int *post, int *npost) {
  seen[b] = 1;
  for (int s = t->nsuccs[b] - 1; s >= 0; s--)
    if (!seen[t->succs[b][s]]) dfs(t, t->succs[b][s], seen, post, npost);
  post[(*npost)++] = b;
}

static void model_layout(const tb *t, model *m) {
  char seen[TB_MAX] = {0};
  int post[TB_MAX];
  m->n = 0;
  dfs(t, 0, seen, post, &m->n);
  for (int b = 0; b < t->n; b++) m->pc[b] = -1;
  for (int pc = 0; pc < m->n; pc++) m->blk[pc] = post[m->n - 1 - pc], m->pc[m->blk[pc]] = pc;
  for (int pc = 0; pc < m->n; pc++) {
    m->nsuccs[pc] = t->nsuccs[m->blk[pc]];
    for (int s = 0; s < m->nsuccs[pc]; s++) m->succs[pc][s] = m->pc[t->succs[m->blk[pc]][s]];
  }
}

/* The PCs that reach any PC in `from` (including those), by growing the set to a fixed point. */
static set reaching(const model *m, set from) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = 0; pc < m->n; pc++)
      for (int s = 0; s < m->nsuccs[pc]; s++)
        if ((from >> m->succs[pc][s] & 1) && !(from >> pc & 1)) from |= 1ull << pc, changed = 1;
  }
  return from;
}

static void model_dead(const tb *t, model *m) {
  m->dead = 0;
  for (int pc = 0; pc < m->n; pc++) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(t->bb[m->blk[pc]]);
    if (LLVMGetInstructionOpcode(term) == LLVMUnreachable) m->dead |= 1ull << pc;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = 0; pc < m->n; pc++) {
      int all = m->nsuccs[pc] > 0;
      for (int s = 0; s < m->nsuccs[pc]; s++) all &= (int)(m->dead >> m->succs[pc][s] & 1);
      if (all && !(m->dead >> pc & 1)) m->dead |= 1ull << pc, changed = 1;
    }
  }
}

static void model_exits(model *m) {
  m->to_exit = 0;
  for (int pc = 0; pc < m->n; pc++)
    if (m->nsuccs[pc] == 0) m->to_exit |= 1ull << pc;
  set connected = reaching(m, m->to_exit & ~m->dead);
  for (int pc = m->n - 1; pc >= 0; pc--)
    if (!(connected >> pc & 1) && !(m->dead >> pc & 1))
      m->to_exit |= 1ull << pc, connected |= reaching(m, 1ull << pc);
}

static void model_postdoms(model *m) {
  set all = (2ull << m->n) - 1;
  m->pdom[m->n] = 1ull << m->n;
  for (int pc = 0; pc < m->n; pc++) m->pdom[pc] = all;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = m->n - 1; pc >= 0; pc--) {
      set meet = m->to_exit >> pc & 1 ? m->pdom[m->n] : all;
      for (int s = 0; s < m->nsuccs[pc]; s++)
        if (!(m->dead >> m->succs[pc][s] & 1) || (m->dead >> pc & 1))
          meet &= m->pdom[m->succs[pc][s]];
      meet |= 1ull << pc;
      if (meet != m->pdom[pc]) m->pdom[pc] = meet, changed = 1;
    }
  }
}

static int model_ipdom(const model *m, int pc) {
  set strict = m->pdom[pc] & ~(1ull << pc);
  for (int d = 0; d <= m->n; d++)
    if ((strict >> d & 1) && m->pdom[d] == strict) return d;
  CHECK(!"every block has an immediate post-dominator");
  return -1;
}

static void check_layout(const tb *t, const model *m, const cfg *g) {
  CHECK(g->nblocks == m->n);
  for (int b = 0; b < t->n; b++) CHECK(cfg_pc_of(g, t->bb[b]) == m->pc[b]);
  int npreds[TB_MAX] = {0};
  for (int pc = 0; pc < m->n; pc++) {
    CHECK(g->blocks[pc].pc == pc);
    CHECK(g->blocks[pc].nsuccs == m->nsuccs[pc]);
    for (int s = 0; s < m->nsuccs[pc]; s++) {
      CHECK(g->blocks[pc].succs[s] == m->succs[pc][s]);
      npreds[m->succs[pc][s]]++;
      int found = 0; /* the edge is in its target's predecessor list */
      for (int p = 0; p < g->blocks[m->succs[pc][s]].npreds; p++)
        found |= g->blocks[m->succs[pc][s]].preds[p] == pc;
      CHECK(found);
    }
  }
  for (int pc = 0; pc < m->n; pc++) CHECK(g->blocks[pc].npreds == npreds[pc]);
}

static void check_postdoms(const model *m, const cfg *g) {
  for (int pc = 0; pc < m->n; pc++) CHECK(g->blocks[pc].ipdom == model_ipdom(m, pc));
  for (int b = 0; b < m->n; b++)
    for (int a = 0; a <= m->n; a++) CHECK(postdom_dominates(g, a, b) == (int)(m->pdom[b] >> a & 1));
}

/* Irreducible: some retreating edge (to a PC no larger) whose target does not dominate its
 * source. Dominators by the same set iteration, forwards. */
static int irreducible(const model *m) {
  set dom[TB_MAX], all = (1ull << m->n) - 1;
  dom[0] = 1;
  for (int pc = 1; pc < m->n; pc++) dom[pc] = all;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = 1; pc < m->n; pc++) {
      set meet = all;
      for (int p = 0; p < m->n; p++)
        for (int s = 0; s < m->nsuccs[p]; s++)
          if (m->succs[p][s] == pc) meet &= dom[p];
      meet |= 1ull << pc;
      if (meet != dom[pc]) dom[pc] = meet, changed = 1;
    }
  }
  for (int pc = 0; pc < m->n; pc++)
    for (int s = 0; s < m->nsuccs[pc]; s++)
      if (m->succs[pc][s] <= pc && !(dom[pc] >> m->succs[pc][s] & 1)) return 1;
  return 0;
}

typedef struct coverage {
  int graphs, infinite, irreducible, switches, dropped, blocks;
} coverage;

static void one_graph(LLVMContextRef ctx, uint64_t seed, coverage *cov, int print) {
  uint64_t s = current_seed = seed;
  tb t;
  tb_init_in(&t, ctx, 2 + rng_below(&s, 29));
  int dense = rng_below(&s, 2);
  for (int i = 0; i < t.n; i++) random_terminator(&t, &s, i, dense);
  cfg *g = tb_analyse(&t);
  if (print) {
    char *ir = LLVMPrintValueToString(t.fn);
    printf("%s\n", ir);
    LLVMDisposeMessage(ir);
    cfg_print_text(stdout, g, "k");
  }
  model m;
  model_layout(&t, &m);
  check_layout(&t, &m, g);
  model_dead(&t, &m);
  model_exits(&m);
  model_postdoms(&m);
  check_postdoms(&m, g);
  set ends = 0;
  for (int pc = 0; pc < m.n; pc++) {
    if (m.nsuccs[pc] == 0) ends |= 1ull << pc;
    if (m.nsuccs[pc] > 2 && cfg_is_branch(&g->blocks[pc])) cov->switches++;
  }
  cov->graphs++, cov->blocks += m.n;
  cov->infinite += m.to_exit != ends;
  cov->irreducible += irreducible(&m);
  cov->dropped += m.n < t.n;
  tb_dispose(&t);
}

static void random_cfgs(void **state) {
  (void)state;
  LLVMContextRef ctx = LLVMContextCreate();
  coverage cov = {0};
  const char *only = getenv("WEFT_TEST_SEED");
  if (only) {
    one_graph(ctx, strtoull(only, NULL, 0), &cov, 1);
    LLVMContextDispose(ctx);
    return;
  }
  uint64_t seeds = SEED;
  for (int i = 0; i < NGRAPHS; i++) one_graph(ctx, rng_next(&seeds), &cov, 0);
  LLVMContextDispose(ctx);
  print_message("%d graphs of %.1f blocks on average: %d with infinite loops, %d irreducible, "
                "%d with unreachable blocks, %d switch branches\n",
                cov.graphs, (double)cov.blocks / cov.graphs, cov.infinite, cov.irreducible,
                cov.dropped, cov.switches);
  assert_true(cov.infinite > NGRAPHS / 20);
  assert_true(cov.irreducible > NGRAPHS / 20);
  assert_true(cov.dropped > NGRAPHS / 20);
  assert_true(cov.switches > NGRAPHS / 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(random_cfgs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
