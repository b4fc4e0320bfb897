/* The kernel generator: a seed gives one kernel tree (fuzz.h). The generator only decides the
 * shape; print.c adds the guards that keep every variant of the tree (including what the
 * reducer leaves) free of undefined behaviour: masked indexes and shift counts, odd divisors,
 * loop bounds masked to at most 7 (15 for while/do). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef struct gen {
  fz_kernel *k;
  uint64_t rng;
  int helper;      /* the helper being generated, -1 for the kernel */
  int loops[16];   /* enclosing loops, innermost last: their counters can be read */
  int nloops;
  int breakable;   /* enclosing loops and switches: `break` is allowed inside */
  int continuable; /* enclosing loops: `continue` is allowed */
  int phase;       /* kernel: the phase being generated */
  bool tail;       /* kernel: the last phase, where `return` is allowed */
  int budget;      /* statements left to generate */
  int calls;       /* helper calls left: each is inlined, with the helpers it calls */
} gen;

static uint64_t next(gen *g) { /* splitmix64 */
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static unsigned below(gen *g, unsigned n) { return (unsigned)(next(g) % n); }
static bool chance(gen *g, unsigned percent) { return below(g, 100) < percent; }

int fz_new_node(fz_kernel *k, fz_kind kind) {
  if (k->nnodes == k->cap) {
    k->cap = k->cap ? 2 * k->cap : 256;
    k->nodes = realloc(k->nodes, (size_t)k->cap * sizeof *k->nodes);
    if (!k->nodes) abort();
  }
  fz_node *n = &k->nodes[k->nnodes];
  memset(n, 0, sizeof *n);
  n->kind = kind;
  return k->nnodes++;
}

static int node1(gen *g, fz_kind kind, int op, int kid) {
  int i = fz_new_node(g->k, kind);
  g->k->nodes[i].op = op;
  g->k->nodes[i].nkids = 1;
  g->k->nodes[i].kids[0] = kid;
  return i;
}

static int node2(gen *g, fz_kind kind, int op, int kid0, int kid1) {
  int i = node1(g, kind, op, kid0);
  g->k->nodes[i].nkids = 2;
  g->k->nodes[i].kids[1] = kid1;
  return i;
}

static void block_add(fz_kernel *k, int block, int stmt) {
  fz_node *b = &k->nodes[block];
  b->list = realloc(b->list, (size_t)(b->nlist + 1) * sizeof *b->list);
  if (!b->list) abort();
  b->list[b->nlist++] = stmt;
}

/* ---- expressions ---- */

static int gen_expr(gen *g, int depth);

static int leaf(gen *g) {
  fz_kernel *k = g->k;
  unsigned r = below(g, 10);
  int i;
  if (r < 3) {
    i = fz_new_node(k, E_CONST);
    k->nodes[i].a = chance(g, 60) ? (int)below(g, 17) : (int)(uint32_t)next(g);
  } else if (r < 6) {
    i = fz_new_node(k, E_VAR);
    k->nodes[i].a = (int)below(g, g->helper >= 0 ? 3 : FZ_NVARS);
  } else if (r < 8 && g->nloops) {
    i = fz_new_node(k, E_COUNTER);
    k->nodes[i].a = g->loops[below(g, (unsigned)g->nloops)];
  } else {
    i = fz_new_node(k, E_WORKITEM);
    k->nodes[i].op = (int)below(g, 7);
  }
  return i;
}

/* A condition: comparisons joined by && || ! (short-circuit: a helper call on the right
 * is a branch of its own). */
static int gen_cond(gen *g, int depth) {
  unsigned r = below(g, 10);
  if (depth > 0 && r < 2)
    return node2(g, r ? E_OR : E_AND, 0, gen_cond(g, depth - 1), gen_cond(g, depth - 1));
  if (depth > 0 && r == 2) return node1(g, E_NOT, 0, gen_cond(g, depth - 1));
  int i = node2(g, E_CMP, (int)below(g, 6), gen_expr(g, depth - 1), gen_expr(g, depth - 1));
  g->k->nodes[i].a = chance(g, 30); /* signed */
  return i;
}

static int gen_call(gen *g, fz_kind kind, int depth) {
  unsigned n = g->helper >= 0 ? (unsigned)g->helper : g->k->nhelpers;
  if (!n || g->calls <= 0) return -1;
  g->calls--;
  int i = node2(g, kind, 0, gen_expr(g, depth - 1), gen_expr(g, depth - 1));
  g->k->nodes[i].b = (int)below(g, n);
  return i;
}

static int gen_expr(gen *g, int depth) {
  if (depth <= 0 || chance(g, 35)) return leaf(g);
  unsigned r = below(g, 20);
  if (r < 10) {
    int op = (int)below(g, 15);
    int a = gen_expr(g, depth - 1);
    if (op >= 13) return node1(g, E_BIN, op, a); /* popcount, clz */
    return node2(g, E_BIN, op, a, gen_expr(g, depth - 1));
  }
  if (r < 12) return gen_cond(g, depth - 1);
  if (r < 13) {
    int i = node2(g, E_COND, 0, gen_cond(g, depth - 1), gen_expr(g, depth - 1));
    g->k->nodes[i].nkids = 3;
    int third = gen_expr(g, depth - 1); /* first: it may move the nodes */
    g->k->nodes[i].kids[2] = third;
    return i;
  }
  if (r < 15) return node1(g, E_IN, 0, gen_expr(g, depth - 1));
  if (r < 17 && g->helper < 0) return node1(g, E_LREAD, chance(g, 25), gen_expr(g, depth - 1));
  if (r < 19) {
    int c = gen_call(g, E_CALLX, depth);
    if (c >= 0) return c;
  }
  return leaf(g);
}

/* ---- statements ---- */

static int gen_block(gen *g, int depth, unsigned n);

static int gen_loop(gen *g, int depth) {
  fz_kernel *k = g->k;
  fz_kind kind = (fz_kind[]){S_FOR, S_FOR, S_WHILE, S_DO}[below(g, 4)];
  int i = fz_new_node(k, kind);
  int bound = kind == S_FOR ? (chance(g, 50) ? gen_expr(g, 2) : leaf(g)) : gen_cond(g, 1);
  k->nodes[i].a = 1 + (int)below(g, 6);
  g->loops[g->nloops++] = i;
  g->breakable++, g->continuable++;
  int body = gen_block(g, depth - 1, 1 + below(g, 4));
  g->nloops--, g->breakable--, g->continuable--;
  k->nodes[i].nkids = 2;
  k->nodes[i].kids[0] = bound;
  k->nodes[i].kids[1] = body;
  return i;
}

static int gen_switch(gen *g, int depth) {
  fz_kernel *k = g->k;
  int i = fz_new_node(k, S_SWITCH);
  int sel = gen_expr(g, 2);
  int cases = fz_new_node(k, S_BLOCK); /* the S_CASE nodes, in order */
  k->nodes[i].nkids = 2;
  k->nodes[i].kids[0] = sel;
  k->nodes[i].kids[1] = cases;
  unsigned used = 0, n = 1 + below(g, 4);
  g->breakable++;
  for (unsigned c = 0; c < n; c++) {
    int v = c + 1 == n && chance(g, 50) ? -1 : (int)below(g, 8);
    if (v >= 0 && (used >> v & 1)) continue;
    if (v >= 0) used |= 1u << v;
    int cs = node1(g, S_CASE, chance(g, 70), gen_block(g, depth - 1, 1 + below(g, 3)));
    k->nodes[cs].a = v;
    block_add(k, cases, cs);
  }
  g->breakable--;
  return i;
}

/* `if (cond) break;` and its kin: the jumps come under a condition, or they would cut every
 * path alike. */
static int gen_jump(gen *g, fz_kind kind) {
  fz_kernel *k = g->k;
  int jump = fz_new_node(k, kind);
  if (kind == S_RETURN && g->helper >= 0) {
    k->nodes[jump].nkids = 1;
    int value = gen_expr(g, 2); /* first: it may move the nodes */
    k->nodes[jump].kids[0] = value;
  }
  int then = fz_new_node(k, S_BLOCK);
  block_add(k, then, jump);
  return node2(g, S_IF, 0, gen_cond(g, 2), then);
}

static int gen_simple(gen *g) {
  fz_kernel *k = g->k;
  unsigned r = below(g, 10);
  int i;
  if (g->helper < 0 && r == 0) {
    i = node1(g, S_OUT, (int)below(g, 3), gen_expr(g, 3));
    k->nodes[i].a = (int)below(g, FZ_NOUT - 1);
  } else if (r == 1) {
    i = node1(g, S_GATOMIC, (int)below(g, 3), gen_expr(g, 2));
    k->nodes[i].a = (int)below(g, FZ_NGC);
  } else if (g->helper < 0 && r == 2 && !g->tail) {
    i = node1(g, S_LATOMIC, (int)below(g, 3), gen_expr(g, 2));
    k->nodes[i].a = (int)below(g, FZ_NLC);
  } else if (g->helper < 0 && r == 3) {
    i = node1(g, S_LSTORE, 0, gen_expr(g, 3));
  } else if ((r == 4 || r == 5) && (i = gen_call(g, S_CALL, 3)) >= 0) {
    k->nodes[i].a = (int)below(g, g->helper >= 0 ? 3 : FZ_NVARS);
  } else {
    i = node1(g, S_ASSIGN, (int)below(g, 3), gen_expr(g, 3));
    k->nodes[i].a = (int)below(g, g->helper >= 0 ? 3 : FZ_NVARS);
  }
  return i;
}

static int gen_stmt(gen *g, int depth) {
  g->budget--;
  unsigned r = below(g, 20);
  if (depth > 0 && r < 4) {
    int i = node2(g, S_IF, 0, gen_cond(g, 2), gen_block(g, depth - 1, 1 + below(g, 3)));
    if (chance(g, 50)) {
      g->k->nodes[i].nkids = 3;
      int other = gen_block(g, depth - 1, 1 + below(g, 3)); /* first: it may move the nodes */
      g->k->nodes[i].kids[2] = other;
    }
    return i;
  }
  if (depth > 0 && r < 7) return gen_loop(g, depth);
  if (depth > 0 && r < 8) return gen_switch(g, depth);
  if (r == 8 && g->breakable) return gen_jump(g, S_BREAK);
  if (r == 9 && g->continuable) return gen_jump(g, S_CONTINUE);
  if (r == 10 && (g->tail || g->helper >= 0)) return gen_jump(g, S_RETURN);
  return gen_simple(g);
}

static int gen_block(gen *g, int depth, unsigned n) {
  int b = fz_new_node(g->k, S_BLOCK);
  for (unsigned s = 0; s < n && g->budget > 0; s++) block_add(g->k, b, gen_stmt(g, depth));
  return b;
}

/* ---- the kernel ---- */

/* Statements only the top level of a phase may hold: every work-item of the work-group gets
 * there, so the warps are whole. */
static int gen_uniform(gen *g) {
  fz_kernel *k = g->k;
  if (chance(g, 30)) {
    int body = gen_block(g, 2, 1 + below(g, 3));
    return node2(g, S_SGIF, chance(g, 50), gen_cond(g, 2), body);
  }
  int op = (int)below(g, 10); /* see print.c: 8 and 9 are votes, on a condition */
  int i = node1(g, S_SUBGROUP, op, op >= 8 ? gen_cond(g, 2) : gen_expr(g, 2));
  k->nodes[i].a = (int)below(g, FZ_NVARS);
  k->nodes[i].b = (int)below(g, 64); /* the broadcast's lane, modulo the warp's size */
  return i;
}

static void gen_helper(gen *g, unsigned h) {
  g->helper = (int)h;
  g->budget = 4 + (int)below(g, 6);
  g->calls = 1;
  int body = fz_new_node(g->k, S_BLOCK);
  while (g->budget > 0) block_add(g->k, body, gen_stmt(g, 3));
  g->k->helper[h].body = body;
}

static void gen_phase(gen *g, int body, unsigned statements) {
  fz_kernel *k = g->k;
  g->budget = (int)statements;
  while (g->budget > 0) {
    int s = !g->tail && chance(g, 15) ? gen_uniform(g) : gen_stmt(g, 4);
    k->nodes[s].phase = g->phase;
    block_add(k, body, s);
  }
}

void fz_generate(fz_kernel *k, uint64_t seed) {
  memset(k, 0, sizeof *k);
  gen g = {.k = k, .rng = seed * 0x2545f4914f6cdd1dull + 1, .helper = -1};
  static const unsigned sizes[] = {16, 32, 40, 64, 96, 100, 128};
  k->seed = seed;
  k->local_size = sizes[below(&g, sizeof sizes / sizeof *sizes)];
  k->groups = 1 + below(&g, 3);
  k->local_params = chance(&g, 50);
  for (unsigned i = 0; i < FZ_NIN; i++)
    k->in[i] = chance(&g, 50) ? below(&g, 40) : (uint32_t)next(&g);
  k->nhelpers = below(&g, FZ_HELPERS + 1);
  for (unsigned h = 0; h < k->nhelpers; h++) gen_helper(&g, h);
  g.helper = -1;
  g.calls = 4;
  k->body = fz_new_node(k, S_BLOCK);
  k->nphases = 1 + below(&g, 4);
  unsigned statements = 4 + below(&g, 20);
  for (unsigned p = 0; p < k->nphases; p++) {
    g.phase = (int)p;
    g.tail = p + 1 == k->nphases;
    gen_phase(&g, k->body, 1 + statements / k->nphases);
    if (!g.tail) {
      int b = fz_new_node(k, S_BARRIER);
      k->nodes[b].phase = (int)p;
      block_add(k, k->body, b);
    }
  }
}

void fz_free(fz_kernel *k) {
  for (int i = 0; i < k->nnodes; i++) free(k->nodes[i].list);
  free(k->nodes);
  k->nodes = NULL;
  k->nnodes = k->cap = 0;
}
