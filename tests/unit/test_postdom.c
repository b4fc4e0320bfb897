/* Unit tests of cfg_build and postdom_compute on hand-built CFGs, one per control-flow shape.
 *
 * Each test builds a function with the LLVM C API (cfg_builder.h), names its blocks A, B, C...
 * in creation order, and asserts the immediate post-dominator (the reconvergence point) of every
 * branch, the PC layout (forward edges go to larger PCs, a branch's `then` side comes first), and
 * for some shapes the whole post-dominator tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cfg_builder.h"

enum { A, B, C, D, E, F, G, H, I };
#define EXIT TB_EXIT

static void check_ipdoms(const tb *t, const int *expected) { /* expected[i] for block i */
  for (int i = 0; i < t->n; i++)
    if (tb_ipdom(t, i) != expected[i])
      fail_msg("ipdom of block %c is %d, expected %d", 'A' + i, tb_ipdom(t, i), expected[i]);
}

/* A: if (c) B else C; D: return. */
static void if_else(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 4);
  tb_condbr(&t, A, B, C), tb_br(&t, B, D), tb_br(&t, C, D), tb_ret(&t, D);
  cfg *g = tb_analyse(&t);
  assert_int_equal(g->nblocks, 4);
  for (int i = A; i <= D; i++) assert_int_equal(tb_pc(&t, i), i);
  check_ipdoms(&t, (int[]){D, D, D, EXIT});
  assert_true(cfg_is_branch(&g->blocks[0]));
  assert_false(cfg_is_branch(&g->blocks[1]));
  tb_check_order(&t), tb_check_then_first(&t, A);
  tb_dispose(&t);
}

/* The text printer on the if/else diamond (no debug locations, so no lines). */
static void text_printer(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 4);
  tb_condbr(&t, A, B, C), tb_br(&t, B, D), tb_br(&t, C, D), tb_ret(&t, D);
  cfg *g = tb_analyse(&t);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  cfg_print_text(f, g, "k");
  fclose(f);
  assert_string_equal(text, "kernel k: 4 blocks\n"
                            "  pc    lines     succs                ipdom (reconvergence)\n"
                            "  B0    -         B1 B2                B3\n"
                            "  B1    -         B3                  \n"
                            "  B2    -         B3                  \n"
                            "  B3    -         exit                \n");
  free(text);
  tb_dispose(&t);
}

/* A: if (c) { B: if (d) C else D; E } else F; G: return. */
static void nested_ifs(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 7);
  tb_condbr(&t, A, B, F), tb_condbr(&t, B, C, D), tb_br(&t, C, E), tb_br(&t, D, E);
  tb_br(&t, E, G), tb_br(&t, F, G), tb_ret(&t, G);
  cfg *g = tb_analyse(&t);
  check_ipdoms(&t, (int[]){G, E, E, E, G, G, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, A), tb_check_then_first(&t, B);
  /* then side of A (B..E) entirely before its else side F */
  assert_true(tb_pc(&t, E) < tb_pc(&t, F));
  assert_true(postdom_dominates(g, tb_pc(&t, G), tb_pc(&t, C)));
  assert_true(postdom_dominates(g, tb_pc(&t, E), tb_pc(&t, B)));
  assert_true(postdom_dominates(g, tb_pc(&t, B), tb_pc(&t, B)));
  assert_true(postdom_dominates(g, g->nblocks, tb_pc(&t, A)));
  assert_false(postdom_dominates(g, tb_pc(&t, E), tb_pc(&t, A)));
  assert_false(postdom_dominates(g, tb_pc(&t, C), tb_pc(&t, B)));
  assert_false(postdom_dominates(g, tb_pc(&t, F), tb_pc(&t, A)));
  tb_dispose(&t);
}

/* A: if (c) B; C: return. The branch reconverges at its own else target. */
static void if_without_else(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 3);
  tb_condbr(&t, A, B, C), tb_br(&t, B, C), tb_ret(&t, C);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){C, C, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, A);
  tb_dispose(&t);
}

/* A; B: while (c) { C: if (d) D; E } F: return. */
static void while_loop(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 6);
  tb_br(&t, A, B), tb_condbr(&t, B, C, F), tb_condbr(&t, C, D, E), tb_br(&t, D, E);
  tb_br(&t, E, B), tb_ret(&t, F);
  tb_back(&t, E, B);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){B, F, E, E, B, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, B), tb_check_then_first(&t, C);
  tb_dispose(&t);
}

/* A; do { B: if (c) C; D } while (d); E: return. */
static void do_while_loop(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 5);
  tb_br(&t, A, B), tb_condbr(&t, B, C, D), tb_br(&t, C, D), tb_condbr(&t, D, B, E);
  tb_ret(&t, E), tb_back(&t, D, B);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){B, D, D, E, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, B);
  tb_dispose(&t);
}

/* A; B: while (c) { C: if (d) break; D: if (e) continue; E } F: return. */
static void break_continue(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 6);
  tb_br(&t, A, B), tb_condbr(&t, B, C, F), tb_condbr(&t, C, F, D), tb_condbr(&t, D, B, E);
  tb_br(&t, E, B), tb_ret(&t, F);
  tb_back(&t, D, B), tb_back(&t, E, B);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){B, F, F, B, B, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, B);
  /* the loop body comes before the loop's exit, which both B and C branch to */
  assert_true(tb_pc(&t, E) < tb_pc(&t, F));
  tb_dispose(&t);
}

/* A; B: while (c) { C: if (d) { D: return } E } F; G: return. Two returns: the loop's branches
 * only meet again at the virtual exit. */
static void return_in_loop(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 7);
  tb_br(&t, A, B), tb_condbr(&t, B, C, F), tb_condbr(&t, C, D, E), tb_ret(&t, D);
  tb_br(&t, E, B), tb_br(&t, F, G), tb_ret(&t, G);
  tb_back(&t, E, B);
  cfg *g = tb_analyse(&t);
  check_ipdoms(&t, (int[]){B, EXIT, EXIT, EXIT, B, G, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, B), tb_check_then_first(&t, C);
  assert_false(postdom_dominates(g, tb_pc(&t, G), tb_pc(&t, B)));
  tb_dispose(&t);
}

/* A: switch (x) { case 0: B (falls through); case 1: C; break; case 2: D; break;
 * default: E } F: return. LLVM lists the default first: successors E, B, C, D. */
static void switch_fallthrough(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 6);
  tb_switch(&t, A, E, 3, (int[]){B, C, D});
  tb_br(&t, B, C), tb_br(&t, C, F), tb_br(&t, D, F), tb_br(&t, E, F), tb_ret(&t, F);
  cfg *g = tb_analyse(&t);
  check_ipdoms(&t, (int[]){F, C, F, F, F, EXIT});
  assert_true(cfg_is_branch(&g->blocks[tb_pc(&t, A)]));
  tb_check_order(&t);
  /* successors in the switch's order, except where fall-through forces B before C */
  assert_true(tb_pc(&t, E) < tb_pc(&t, B));
  assert_true(tb_pc(&t, B) < tb_pc(&t, C) && tb_pc(&t, C) < tb_pc(&t, D));
  assert_int_equal(g->blocks[tb_pc(&t, A)].nsuccs, 4);
  assert_int_equal(g->blocks[tb_pc(&t, C)].npreds, 2);
  tb_dispose(&t);
}

/* A condbr or switch whose targets are all one block cannot split a warp. */
static void same_target_is_no_branch(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 3);
  tb_condbr(&t, A, B, B), tb_switch(&t, B, C, 2, (int[]){C, C}), tb_ret(&t, C);
  cfg *g = tb_analyse(&t);
  assert_int_equal(g->nblocks, 3);
  assert_false(cfg_is_branch(&g->blocks[0]));
  assert_false(cfg_is_branch(&g->blocks[1]));
  assert_int_equal(g->blocks[1].npreds, 2); /* one per edge */
  check_ipdoms(&t, (int[]){B, C, EXIT});
  tb_dispose(&t);
}

/* A: if (c) { B: if (d) C: return else D: unreachable } else E: return. Three ends. */
static void two_exits(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 5);
  tb_condbr(&t, A, B, E), tb_condbr(&t, B, C, D), tb_ret(&t, C), tb_unreachable(&t, D);
  tb_ret(&t, E);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){EXIT, C, EXIT, EXIT, EXIT}); /* D never runs: B goes on at C */
  tb_check_order(&t), tb_check_then_first(&t, A), tb_check_then_first(&t, B);
  tb_dispose(&t);
}

/* A: if (c) { for (;;) { B: if (d) C else D; E } } else F: return. The loop B..E never reaches
 * the exit; it is tied to the exit at its largest PC (E), so B still reconverges at E and A at
 * the exit. */
static void infinite_loop(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 6);
  tb_condbr(&t, A, B, F), tb_condbr(&t, B, C, D), tb_br(&t, C, E), tb_br(&t, D, E);
  tb_br(&t, E, B), tb_ret(&t, F);
  tb_back(&t, E, B);
  tb_analyse(&t);
  assert_int_equal(tb_pc(&t, E), 4);
  check_ipdoms(&t, (int[]){EXIT, E, E, E, EXIT, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, A), tb_check_then_first(&t, B);
  tb_dispose(&t);
}

/* A whole kernel that never ends: A; for (;;) { B: if (c) C; D }. */
static void infinite_kernel(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 4);
  tb_br(&t, A, B), tb_condbr(&t, B, C, D), tb_br(&t, C, D), tb_br(&t, D, B);
  tb_back(&t, D, B);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){B, D, D, EXIT});
  tb_check_order(&t), tb_check_then_first(&t, B);
  tb_dispose(&t);
}

/* Irreducible: A branches into both B and C, which branch to each other and to D: return.
 * The DFS reaches B through C (C -> B is a forward edge), so here B follows C. */
static void irreducible(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 4);
  tb_condbr(&t, A, B, C), tb_condbr(&t, B, C, D), tb_condbr(&t, C, B, D), tb_ret(&t, D);
  tb_back(&t, B, C);
  tb_analyse(&t);
  check_ipdoms(&t, (int[]){D, D, D, EXIT});
  assert_int_equal(tb_pc(&t, C), 1);
  assert_int_equal(tb_pc(&t, B), 2);
  tb_check_order(&t);
  tb_dispose(&t);
}

/* Blocks that the entry cannot reach get no PC; edges from them are not predecessors. */
static void unreachable_blocks_dropped(void **state) {
  (void)state;
  tb t;
  tb_init(&t, 5);
  tb_condbr(&t, A, B, C), tb_br(&t, B, E), tb_br(&t, C, E), tb_br(&t, D, C), tb_ret(&t, E);
  cfg *g = tb_analyse(&t);
  assert_int_equal(g->nblocks, 4);
  assert_int_equal(tb_pc(&t, D), -1);
  assert_int_equal(g->blocks[tb_pc(&t, C)].npreds, 1);
  assert_int_equal(g->blocks[tb_pc(&t, A)].ipdom, tb_pc(&t, E));
  tb_dispose(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(if_else),
      cmocka_unit_test(text_printer),
      cmocka_unit_test(nested_ifs),
      cmocka_unit_test(if_without_else),
      cmocka_unit_test(while_loop),
      cmocka_unit_test(do_while_loop),
      cmocka_unit_test(break_continue),
      cmocka_unit_test(return_in_loop),
      cmocka_unit_test(switch_fallthrough),
      cmocka_unit_test(same_target_is_no_branch),
      cmocka_unit_test(two_exits),
      cmocka_unit_test(infinite_loop),
      cmocka_unit_test(infinite_kernel),
      cmocka_unit_test(irreducible),
      cmocka_unit_test(unreachable_blocks_dropped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
