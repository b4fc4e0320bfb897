/* Shrinks a failing kernel: each change switches part of the tree off (a statement, a whole
 * block's statements, an if's other branch, an expression replaced by an operand or by 0) and
 * is kept when the kernel still fails the same way, until a whole pass keeps nothing. Barriers
 * stay (they separate the phases that make __local accesses race-free), and no change moves a
 * node out of the loop or function it was generated in, so every kernel tried is valid. */
#include "fuzz.h"

typedef struct reducer {
  fz_kernel *k;
  fz_fails_fn fails;
  void *user;
  unsigned tests;
} reducer;

#define MAX_TESTS 600 /* a reduction stops after this many tries, kept or not */

static bool is_expr(fz_kind kind) { return kind >= E_CONST; }

/* Applies a change (already made by the caller, old values given) and keeps it if the kernel
 * still fails; else restores the node. */
static bool keep(reducer *r, int i, bool old_off, int old_pick) {
  fz_node *n = &r->k->nodes[i];
  if (r->tests < MAX_TESTS) {
    r->tests++;
    if (r->fails(r->user, r->k)) return true;
  }
  n->off = old_off;
  n->pick = old_pick;
  return false;
}

static bool try_off(reducer *r, int i) {
  r->k->nodes[i].off = true;
  return keep(r, i, false, r->k->nodes[i].pick);
}

static bool try_pick(reducer *r, int i, int pick) {
  int old = r->k->nodes[i].pick;
  r->k->nodes[i].pick = pick;
  return keep(r, i, r->k->nodes[i].off, old);
}

/* All of a block's statements at once (but its barriers), then one by one. */
static unsigned reduce_block(reducer *r, fz_node *b) {
  unsigned changed = 0, live = 0;
  for (int s = 0; s < b->nlist; s++) live += !r->k->nodes[b->list[s]].off;
  if (live > 1) {
    bool was[b->nlist];
    for (int s = 0; s < b->nlist; s++) {
      fz_node *n = &r->k->nodes[b->list[s]];
      was[s] = n->off;
      n->off = n->off || n->kind != S_BARRIER;
    }
    r->tests++;
    if (r->tests <= MAX_TESTS && r->fails(r->user, r->k)) return 1;
    for (int s = 0; s < b->nlist; s++) r->k->nodes[b->list[s]].off = was[s];
  }
  for (int s = 0; s < b->nlist; s++) {
    const fz_node *n = &r->k->nodes[b->list[s]];
    if (!n->off && n->kind != S_BARRIER) changed += try_off(r, b->list[s]);
  }
  return changed;
}

static unsigned walk(reducer *r, int i) {
  fz_node *n = &r->k->nodes[i];
  unsigned changed = 0;
  if (n->off) return 0;
  if (n->kind == S_BLOCK) changed += reduce_block(r, n);
  if (n->kind == S_IF && !n->pick) {
    if (try_pick(r, i, 2)) changed++;
    else if (n->nkids == 3 && !r->k->nodes[n->kids[2]].off)
      changed += try_pick(r, i, 3) || try_off(r, n->kids[2]);
  }
  if (is_expr(n->kind) && !n->pick) {
    for (int c = 0; c < n->nkids && !n->pick; c++) changed += try_pick(r, i, c + 1);
    if (!n->pick && n->kind != E_CONST) changed += try_pick(r, i, -1);
  }
  if (n->pick > 0) return changed + walk(r, n->kids[n->pick - 1]);
  if (n->pick < 0) return changed;
  for (int c = 0; c < n->nkids; c++) changed += walk(r, n->kids[c]);
  for (int s = 0; s < n->nlist; s++) changed += walk(r, n->list[s]);
  return changed;
}

unsigned fz_reduce(fz_kernel *k, fz_fails_fn fails, void *user) {
  reducer r = {.k = k, .fails = fails, .user = user};
  unsigned changed;
  do {
    changed = walk(&r, k->body);
    for (unsigned h = 0; h < k->nhelpers; h++) changed += walk(&r, k->helper[h].body);
  } while (changed && r.tests < MAX_TESTS);
  return r.tests;
}
