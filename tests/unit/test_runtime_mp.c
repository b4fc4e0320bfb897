/* Unit tests of the `mp` and `mp-orec` policies (runtime/policy_mp.c). The replays drive the
 * policy event by event on the MP paper's CFGs and compare both printed tables after every step
 * with the paper's Figures 5, 6 and 11 (W = 4, masks with thread 0 rightmost). The figures show
 * one possible interleaving of the splits; run() asks next() until it offers the split the figure
 * runs, which round robin does within one turn. Then launches of hand-written kernels
 * (test_runtime_fakes.h): both sides of a divergent branch wait at a barrier, which completes
 * under mp; results agree with `stack`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_runtime_fakes.h"
#include "policy_replay.h"

/* The split (pc, mask) runs next: round robin offers it within W calls of next(). */
static void run(replay *r, uint32_t pc, uint64_t mask, uint32_t guard) {
  for (unsigned n = 0; n < r->k.warp; n++) {
    assert_int_equal(r->ops->next(r->st, &r->ctx.pc, &r->ctx.mask, &r->ctx.guard), 1);
    if (r->ctx.pc == pc && r->ctx.mask == mask) {
      assert_int_equal(r->ctx.guard, guard);
      return;
    }
  }
  fail_msg("next() never offered the split at PC %u with mask 0x%llx", pc,
           (unsigned long long)mask);
}

/* Figure 5 (the CFG of Figure 2): A: if (id % 2 == 0) B else C; D. A=0 B=1 C=2 D=3, end 4. */
static void figure5_if_else(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3, 4};
  replay r;
  replay_init(&r, "mp", 4, ipdom, 0xf);
  expect_state(&r, "warp split table: 1 split\n" /* (1): A1111, the RT empty */
                   "     #    PC   RPC    R  mask\n"
                   "     0     0     4    -  1111\n"
                   "reconvergence table: 0 entries\n");
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  expect_state(&r, "warp split table: 2 splits\n" /* (2a) A moves to the RT at D, (2b) B, C */
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     3    0  0101\n"
                   "     1     2     3    0  1010\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     3     4    -  1111    1111\n");
  run(&r, 1, 0x5, 3);
  jump(&r, 1, 3); /* (3): B reaches D first */
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     1     2     3    0  1010\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     3     4    -  1111    1010\n");
  assert_int_equal(r.c.reconvergences, 0);
  run(&r, 2, 0xa, 3);
  jump(&r, 2, 3); /* (4) C reaches D: nothing pending, (5) D1111 moves to the ST */
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     4    -  1111\n"
                   "reconvergence table: 0 entries\n");
  expect_next(&r, 3, 0xf, 4);
  jump(&r, 3, 4);
  expect_state(&r, "warp split table: 0 splits; finished 1111\n"
                   "reconvergence table: 0 entries\n");
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0xf);
  assert_int_equal(r.c.divergent_branches, 1);
  assert_int_equal(r.c.reconvergences, 1);
  assert_int_equal(r.c.policy_calls, 3); /* reaching the kernel's end is not counted */
  replay_done(&r);
}

/* Figure 6: A: if (id % 2 == 0) B else { C: if (id == 1) D else E; F } G.
 * A=0 B=1 C=2 D=3 E=4 F=5 G=6, end 7; in the figure's order: C diverges, B reaches G, E and
 * then D reach F, F reaches G. */
static void figure6_nested(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {6, 6, 5, 5, 5, 6, 7};
  replay r;
  replay_init(&r, "mp", 7, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 7); /* (1) */
  split2(&r, 0, 1, 0x5, 2, 0xa);
  expect_state(&r, "warp split table: 2 splits\n" /* (2) */
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     6    0  0101\n"
                   "     1     2     6    0  1010\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1111\n");
  run(&r, 2, 0xa, 6);
  split2(&r, 2, 3, 0x2, 4, 0x8);
  expect_state(&r, "warp split table: 3 splits\n" /* (3): three parallel paths */
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     6    0  0101\n"
                   "     1     3     5    1  0010\n"
                   "     2     4     5    1  1000\n"
                   "reconvergence table: 2 entries\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1111\n"
                   "     1     5     6    0  1010    1010\n");
  run(&r, 1, 0x5, 6);
  jump(&r, 1, 6);
  expect_state(&r, "warp split table: 2 splits\n" /* (4): B reaches G */
                   "     #    PC   RPC    R  mask\n"
                   "     1     3     5    1  0010\n"
                   "     2     4     5    1  1000\n"
                   "reconvergence table: 2 entries\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1010\n"
                   "     1     5     6    0  1010    1010\n");
  run(&r, 4, 0x8, 5);
  jump(&r, 4, 5);
  expect_state(&r, "warp split table: 1 split\n" /* (5): E reaches F */
                   "     #    PC   RPC    R  mask\n"
                   "     1     3     5    1  0010\n"
                   "reconvergence table: 2 entries\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1010\n"
                   "     1     5     6    0  1010    0010\n");
  run(&r, 3, 0x2, 5);
  jump(&r, 3, 5);
  expect_state(&r, "warp split table: 1 split\n" /* (6) D reaches F, (7) F1010 moves to the ST */
                   "     #    PC   RPC    R  mask\n"
                   "     0     5     6    0  1010\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1010\n");
  expect_next(&r, 5, 0xa, 6);
  jump(&r, 5, 6);
  expect_state(&r, "warp split table: 1 split\n" /* (8) F reaches G, (9) G1111 to the ST */
                   "     #    PC   RPC    R  mask\n"
                   "     0     6     7    -  1111\n"
                   "reconvergence table: 0 entries\n");
  expect_next(&r, 6, 0xf, 7);
  jump(&r, 6, 7);
  expect_none(&r);
  assert_int_equal(r.c.divergent_branches, 2);
  assert_int_equal(r.c.reconvergences, 2);
  assert_int_equal(r.c.policy_calls, 6);
  replay_done(&r);
}

/* Figures 10 and 11: do { A: if (c1) { B: break; } else { C } } while (c2); D.
 * A=0 B=1 C=2 D=3, end 4; every branch reconverges at D. A1111 diverged into B1010 and C0101;
 * C0101 went back to A, and A0101 goes to B where B1010 still waits. At block granularity the
 * splits merge as soon as A0101 is inserted at B (the paper's (2)-(4) in one step: B1111 at the
 * start of B with RPC D). Generated code runs C -> A -> B inline (below the guard D), so here
 * the replay hands those two moves to the policy as events; early_merge_at_divergence shows the
 * same merge from a divergence, which generated code does return. */
static void figure11_orec(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3, 4};
  static const char *const before =
      "warp split table: 2 splits\n" /* (1a) A0101 and B1010, (1b) both reconverge at D */
      "     #    PC   RPC    R  mask\n"
      "     0     1     3    0  1010\n"
      "     1     0     3    0  0101\n"
      "reconvergence table: 1 entry\n"
      "     #    PC   RPC    R  reconv  pending\n"
      "     0     3     4    -  1111    1111\n";
  for (int orec = 0; orec <= 1; orec++) {
    replay r;
    replay_init(&r, orec ? "mp-orec" : "mp", 4, ipdom, 0xf);
    expect_next(&r, 0, 0xf, 4);
    split2(&r, 0, 1, 0xa, 2, 0x5);
    /* Under mp-orec a split publishes the PC where its sibling waits (B), so that the generated
     * code gives it back on the way there: C0101 loops back to A inline and returns at A's
     * branch to B. Under mp its guard is its RPC D, and A to B would stay inline. */
    run(&r, 2, 0x5, orec ? 1 : 3);
    /* the guard below C's RPC is no point of C's own: the code must not take it for one (a
     * loop's lanes leaving to it would arrive at C's entry, past B), so ahead() is 0 */
    assert_int_equal(r.ops->ahead(r.st), orec ? 0 : 1);
    jump(&r, 2, 0); /* C0101 back to A */
    expect_state(&r, before);
    run(&r, 0, 0x5, orec ? 1 : 3);
    jump(&r, 0, 1); /* A0101 to B */
    if (orec) {
      expect_state(&r, "warp split table: 1 split\n" /* (4b): B1111 */
                       "     #    PC   RPC    R  mask\n"
                       "     0     1     3    0  1111\n"
                       "reconvergence table: 1 entry\n"
                       "     #    PC   RPC    R  reconv  pending\n"
                       "     0     3     4    -  1111    1111\n");
      assert_int_equal(r.c.early_reconvergences, 1);
      assert_int_equal(r.c.reconvergences, 0);
      expect_next(&r, 1, 0xf, 3);
      jump(&r, 1, 3);
    } else { /* mp: two splits run B */
      expect_state(&r, "warp split table: 2 splits\n"
                       "     #    PC   RPC    R  mask\n"
                       "     0     1     3    0  1010\n"
                       "     1     1     3    0  0101\n"
                       "reconvergence table: 1 entry\n"
                       "     #    PC   RPC    R  reconv  pending\n"
                       "     0     3     4    -  1111    1111\n");
      run(&r, 1, 0xa, 3);
      jump(&r, 1, 3);
      run(&r, 1, 0x5, 3);
      jump(&r, 1, 3);
    }
    expect_state(&r, "warp split table: 1 split\n"
                     "     #    PC   RPC    R  mask\n"
                     "     0     3     4    -  1111\n"
                     "reconvergence table: 0 entries\n");
    assert_int_equal(r.c.reconvergences, 1); /* at D, under both */
    assert_int_equal(r.c.early_reconvergences, orec);
    replay_done(&r);
  }
}

/* The Figure 10 loop as generated code returns it: C0101 runs C, A (inline) and diverges at A,
 * whose RPC D is its own (no new entry, the paper's second special case); its lanes going to B
 * merge with the waiting B1010 under mp-orec. */
static void early_merge_at_divergence(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3, 4};
  replay r;
  replay_init(&r, "mp-orec", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 0, 1, 0xa, 2, 0x5);
  expect_next(&r, 2, 0x5, 1); /* round robin: the slot after the one that ran; guard B */
  split2(&r, 0, 1, 0x1, 2, 0x4);
  expect_state(&r, "warp split table: 2 splits\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     3    0  1011\n"
                   "     1     2     3    0  0100\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     3     4    -  1111    1111\n");
  assert_int_equal(r.c.early_reconvergences, 1);
  assert_int_equal(r.c.reconvergences, 0);
  assert_int_equal(r.c.divergent_branches, 2);
  expect_next(&r, 1, 0xb, 2); /* round robin wraps to slot 0; guard C, where C0100 waits */
  jump(&r, 1, 3);
  expect_next(&r, 2, 0x4, 3);
  jump(&r, 2, 3); /* C0100 leaves the loop: everybody is at D */
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     4    -  1111\n"
                   "reconvergence table: 0 entries\n");
  assert_int_equal(r.c.reconvergences, 1);
  assert_int_equal(r.c.early_reconvergences, 1);
  replay_done(&r);
}

/* The first special case: if (c) B; C -- the lanes going straight to C arrive at once. */
static void if_without_else(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {2, 2, 3};
  replay r;
  replay_init(&r, "mp", 3, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 3);
  split2(&r, 0, 1, 0x3, 2, 0xc);
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     2    0  0011\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     2     3    -  1111    0011\n");
  expect_next(&r, 1, 0x3, 2);
  jump(&r, 1, 2);
  expect_next(&r, 2, 0xf, 3);
  assert_int_equal(r.c.reconvergences, 1);
  replay_done(&r);
}

/* The second special case: 0; 1: while (cnt < lane) 2: cnt++; 3. After the first divergence
 * the loop's exit (3) is the split's own RPC: no new entry, the leaving lanes arrive. */
static void loop_trip_count(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 3, 1, 4};
  replay r;
  replay_init(&r, "mp", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 1, 2, 0xe, 3, 0x1);
  expect_next(&r, 2, 0xe, 3);
  split2(&r, 1, 2, 0xc, 3, 0x2);
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     2     3    0  1100\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     3     4    -  1111    1100\n");
  expect_next(&r, 2, 0xc, 3);
  split2(&r, 1, 2, 0x8, 3, 0x4);
  expect_next(&r, 2, 0x8, 3);
  jump(&r, 1, 3);
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     4    -  1111\n"
                   "reconvergence table: 0 entries\n");
  assert_int_equal(r.c.divergent_branches, 3);
  assert_int_equal(r.c.reconvergences, 1);
  replay_done(&r);
}

/* Early returns and a three-way switch. */
static void returns_and_switch(void **state) {
  (void)state;
  static const uint32_t ret_ipdom[] = {3, 3, 3};
  static const uint32_t sw_ipdom[] = {4, 4, 4, 4, 5};
  replay r;
  replay_init(&r, "mp", 3, ret_ipdom, 0xf);
  expect_next(&r, 0, 0xf, 3);
  split2(&r, 0, 1, 0xa, 2, 0x5);
  run(&r, 1, 0xa, 3);
  jump(&r, 1, 3);
  expect_state(&r, "warp split table: 1 split; finished 1010\n"
                   "     #    PC   RPC    R  mask\n"
                   "     1     2     3    -  0101\n"
                   "reconvergence table: 0 entries\n");
  assert_int_equal(r.ops->finished(r.st), 0xa);
  replay_done(&r);
  replay_init(&r, "mp", 5, sw_ipdom, 0xf);
  expect_next(&r, 0, 0xf, 5);
  assert_int_equal(branch(&r, 0, 3, (uint32_t[]){1, 2, 4}, (uint64_t[]){0x1, 0x6, 0x8}), 0);
  expect_state(&r, "warp split table: 2 splits\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     4    0  0001\n"
                   "     1     2     4    0  0110\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     4     5    -  1111    0111\n");
  replay_done(&r);
}

/* Both sides of a branch wait at a barrier on their own; the release lets each go on, and a side
 * that resumes at the RPC arrives there. */
static void barriers_in_both_sides(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {5, 3, 4, 5, 5, 6};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "mp", 6, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 6);
  split2(&r, 0, 1, 0xa, 2, 0x5);
  run(&r, 1, 0xa, 5);
  assert_int_equal(barrier(&r, 1, 3), 0);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xa);
  assert_int_equal(pc, 1);
  expect_next(&r, 2, 0x5, 5); /* the other side still runs */
  assert_int_equal(barrier(&r, 2, 5), 0);
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xf);
  assert_int_equal(pc, 1); /* the lowest barrier block */
  expect_state(&r, "warp split table: 2 splits\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     5    0  1010  waiting at the barrier ending block 1\n"
                   "     1     5     5    0  0101  waiting at the barrier ending block 2\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     5     6    -  1111    1111\n");
  r.ops->barrier_release(r.st, &r.c);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
  expect_state(&r, "warp split table: 1 split\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     5    0  1010\n"
                   "reconvergence table: 1 entry\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     5     6    -  1111    1010\n");
  expect_next(&r, 3, 0xa, 5);
  jump(&r, 3, 5);
  expect_next(&r, 5, 0xf, 6);
  assert_int_equal(r.c.policy_calls, 4);
  replay_done(&r);
}

/* The warp's only split at a barrier, in slot 1 (the lanes of slot 0 returned): the release
 * puts it back in the first slot, ready, as place() puts any split. A: if B else C; B returns;
 * C ends in a barrier that resumes at D; D returns. A=0 B=1 C=2 D=3, end 4. */
static void lone_split_at_a_barrier(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {4, 4, 3, 4};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "mp", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  run(&r, 1, 0x5, 4);
  jump(&r, 1, 4); /* B's lanes are done */
  expect_next(&r, 2, 0xa, 4);
  assert_int_equal(barrier(&r, 2, 3), 0);
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xa);
  expect_state(&r, "warp split table: 1 split; finished 0101\n"
                   "     #    PC   RPC    R  mask\n"
                   "     1     3     4    -  1010  waiting at the barrier ending block 2\n"
                   "reconvergence table: 0 entries\n");
  r.ops->barrier_release(r.st, &r.c);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
  expect_state(&r, "warp split table: 1 split; finished 0101\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     4    -  1010\n"
                   "reconvergence table: 0 entries\n");
  assert_int_equal(r.c.max_splits, 2);
  expect_next(&r, 3, 0xa, 4);
  jump(&r, 3, 4);
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0xf);
  replay_done(&r);
}

/* mp-orec with splits that keep filling their entry: a chain of entries with the same mask,
 * one per branch of an (inconsistent) ipdom table, longer than the 2W entries the state holds:
 * the RT grows on the heap (replay_done releases it; ASan would see a leak) and every entry is
 * kept. */
static void deep_chains_grow(void **state) {
  (void)state;
  static uint32_t ipdom[40];
  for (unsigned b = 0; b < 40; b++) ipdom[b] = 40 - b / 2; /* branch 2i: ipdom 40-i */
  replay r;
  replay_init(&r, "mp-orec", 41, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 41);
  for (unsigned i = 0; i < 16; i++) {
    uint32_t b = 2 * i, rpc = ipdom[b];
    split2(&r, b, b + 2, 0x3, b + 3, 0xc);
    run(&r, b + 3, 0xc, b + 2 < rpc ? b + 2 : rpc); /* guard: where its sibling waits */
    jump(&r, b + 3, b + 2); /* merges with the split at b + 2 */
    expect_next(&r, b + 2, 0xf, rpc);
  }
  assert_int_equal(r.c.max_rt_entries, 16); /* 2W = 8 in the state */
  assert_int_equal(r.c.early_reconvergences, 16);
  assert_int_equal(r.c.max_splits, 2);
  replay_done(&r);
}

/* --split-order lowest-pc on Figure 6: the ready split with the smallest PC runs first, B before
 * C, then D before E, whatever slot they are in. */
static void lowest_pc_order(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {6, 6, 5, 5, 5, 6, 7};
  replay r;
  replay_init_cfg(&r, "mp", 7, ipdom, 0xf, (policy_config){SPLIT_LOWEST_PC, 4});
  expect_next(&r, 0, 0xf, 7);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  expect_next(&r, 1, 0x5, 6);
  step(&r, 1, 0x5, 6, 6); /* still the lowest: rr would have moved on to C */
  expect_next(&r, 2, 0xa, 6);
  split2(&r, 2, 3, 0x2, 4, 0x8);
  step(&r, 3, 0x2, 5, 5);
  step(&r, 4, 0x8, 5, 5);
  step(&r, 5, 0xa, 6, 6);
  expect_next(&r, 6, 0xf, 7);
  replay_done(&r);
}

/* Figure 6 under lowest-pc up to C's branch, after B arrived: C's split is alone in slot 1. */
static void figure6_to_c(replay *r) {
  static const uint32_t ipdom[] = {6, 6, 5, 5, 5, 6, 7};
  replay_init_cfg(r, "mp", 7, ipdom, 0xf, (policy_config){SPLIT_LOWEST_PC, 4});
  expect_next(r, 0, 0xf, 7);
  split2(r, 0, 1, 0x5, 2, 0xa);
  expect_next(r, 1, 0x5, 6);
  assert_int_equal(r->ops->ahead(r->st), 2); /* C waits at 2 */
  jump(r, 1, 6);
  expect_next(r, 2, 0xa, 6);
  assert_int_equal(r->ops->ahead(r->st), UINT32_MAX);
}

/* C's branch to D and E run masked in the code (WEFT_REGIONS_LOWEST_PC), then F reaches a
 * barrier: regions_ran() leaves the tables and counters as the steps do, F in the slot the
 * reconvergence put it in (0, not C's 1). */
static void regions_ran_as_steps(void **state) {
  (void)state;
  replay steps, code;
  figure6_to_c(&steps);
  split2(&steps, 2, 3, 0x2, 4, 0x8);
  step(&steps, 3, 0x2, 5, 5);
  step(&steps, 4, 0x8, 5, 5);
  expect_next(&steps, 5, 0xa, 6);
  assert_int_equal(barrier(&steps, 5, 6), 0);
  figure6_to_c(&code);
  code.ctx.region_diverged = 1;
  code.ctx.region_splits = 2; /* C's two sides above the others */
  code.ctx.region_entries = 1; /* F's entry above A's */
  code.ops->regions_ran(code.st, &code.ctx, &code.c);
  assert_int_equal(barrier(&code, 5, 6), 0);
  const char *want = "warp split table: 1 split\n"
                     "     #    PC   RPC    R  mask\n"
                     "     0     6     6    0  1010  waiting at the barrier ending block 5\n"
                     "reconvergence table: 1 entry\n"
                     "     #    PC   RPC    R  reconv  pending\n"
                     "     0     6     7    -  1111    1010\n";
  expect_state(&steps, want);
  expect_state(&code, want);
  assert_int_equal(code.c.max_splits, 2);
  assert_int_equal(code.c.max_rt_entries, 2);
  assert_int_equal(code.c.max_splits, steps.c.max_splits);
  assert_int_equal(code.c.max_st_entries, steps.c.max_st_entries);
  assert_int_equal(code.c.max_rt_entries, steps.c.max_rt_entries);
  assert_int_equal(code.c.split_excess, steps.c.split_excess);
  replay_done(&steps), replay_done(&code);
}

/* A loop whose later exits the code takes (WEFT_REGIONS_LOWEST_PC), then a divergence it
 * returns: A; H: exit to X or B; B: if C; D; back to H. A=0 H=1 B=2 C=3 D=4 X=5, end 6. Lane 1
 * left the loop in the code: it arrived at X's entry, and the split that diverges at B is the
 * lanes that stayed, so that its new entry at D waits for them only. */
static void loop_left_in_code(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 5, 4, 4, 1, 6};
  replay r;
  replay_init_cfg(&r, "mp", 6, ipdom, 0xf, (policy_config){SPLIT_LOWEST_PC, 4});
  expect_next(&r, 0, 0xf, 6);
  split2(&r, 1, 2, 0xe, 5, 0x1); /* lane 0 leaves first: X's entry */
  expect_next(&r, 2, 0xe, 5);
  r.ctx.region_diverged = 1, r.ctx.region_left = 0x2, r.ctx.mask = 0xc;
  r.ops->regions_ran(r.st, &r.ctx, &r.c);
  split2(&r, 2, 3, 0x4, 4, 0x8);
  expect_state(&r, "warp split table: 1 split\n" /* lane 3 went straight to D */
                   "     #    PC   RPC    R  mask\n"
                   "     0     3     4    1  0100\n"
                   "reconvergence table: 2 entries\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     5     6    -  1111    1100\n"
                   "     1     4     5    0  1100    0100\n");
  replay_done(&r);
}

/* --max-splits 2 (the paper's Section 5, the dual-path stack) on Figure 6: when C diverges, D
 * takes the slot C left and E finds both taken: it waits, is never offered, and becomes ready
 * when D arrives at F. The stats count E among the splits but not among the ST entries. */
static void max_splits_parks(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {6, 6, 5, 5, 5, 6, 7};
  replay r;
  replay_init_cfg(&r, "mp", 7, ipdom, 0xf, (policy_config){SPLIT_RR, 2});
  expect_next(&r, 0, 0xf, 7);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  run(&r, 2, 0xa, 6);
  split2(&r, 2, 3, 0x2, 4, 0x8);
  expect_state(&r, "warp split table: 3 splits\n"
                   "     #    PC   RPC    R  mask\n"
                   "     0     1     6    0  0101\n"
                   "     1     3     5    1  0010\n"
                   "     2     4     5    1  1000  waiting for a table slot\n"
                   "reconvergence table: 2 entries\n"
                   "     #    PC   RPC    R  reconv  pending\n"
                   "     0     6     7    -  1111    1111\n"
                   "     1     5     6    0  1010    1010\n");
  for (int n = 0; n < 4; n++) { /* B and D take turns; E never comes */
    assert_int_equal(r.ops->next(r.st, &r.ctx.pc, &r.ctx.mask, &r.ctx.guard), 1);
    assert_int_not_equal(r.ctx.pc, 4);
  }
  run(&r, 3, 0x2, 5);
  jump(&r, 3, 5); /* D arrives at F: its slot goes to E */
  run(&r, 4, 0x8, 5);
  jump(&r, 4, 5);
  run(&r, 5, 0xa, 6);
  jump(&r, 5, 6);
  run(&r, 1, 0x5, 6);
  jump(&r, 1, 6);
  expect_next(&r, 6, 0xf, 7);
  assert_int_equal(r.c.max_splits, 3);
  assert_int_equal(r.c.split_excess, 2);
  assert_int_equal(r.c.max_st_entries, 2);
  assert_int_equal(r.c.max_rt_entries, 2);
  assert_int_equal(r.c.reconvergences, 2);
  replay_done(&r);
}

/* Waiting for a slot never deadlocks: a three-way switch under --max-splits 2; when B and C
 * have arrived at E, E waits for D's lanes, and D, parked, has become ready. */
static void max_splits_no_deadlock(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {4, 4, 4, 4, 5};
  replay r;
  replay_init_cfg(&r, "mp-orec", 5, ipdom, 0xf, (policy_config){SPLIT_LOWEST_PC, 2});
  expect_next(&r, 0, 0xf, 5);
  assert_int_equal(branch(&r, 0, 3, (uint32_t[]){1, 2, 3}, (uint64_t[]){0x1, 0x2, 0xc}), 0);
  step(&r, 1, 0x1, 2, 4); /* guards: the lowest PC where a sibling waits, else E */
  step(&r, 2, 0x2, 3, 4);
  step(&r, 3, 0xc, 4, 4);
  expect_next(&r, 4, 0xf, 5);
  replay_done(&r);
}

/* Splits at a barrier hold no slot: three paths each reach a barrier under --max-splits 2, the
 * third gets a slot when the first waits, and the barrier sees the whole warp. */
static void max_splits_barriers(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {4, 4, 4, 4, 5};
  uint32_t pc = 0;
  replay r;
  replay_init_cfg(&r, "mp", 5, ipdom, 0xf, (policy_config){SPLIT_RR, 2});
  expect_next(&r, 0, 0xf, 5);
  assert_int_equal(branch(&r, 0, 3, (uint32_t[]){1, 2, 3}, (uint64_t[]){0x1, 0x2, 0xc}), 0);
  for (uint32_t b = 1; b <= 3; b++) {
    run(&r, b, b == 3 ? 0xc : b, 4);
    assert_int_equal(barrier(&r, b, 4), 0);
  }
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xf);
  assert_int_equal(pc, 1);
  r.ops->barrier_release(r.st, &r.c);
  expect_next(&r, 4, 0xf, 5);
  replay_done(&r);
}

/* ---- launches ---- */

/* bothbar(global int *out, local int *buf): 0: if (lid odd) { 1: buf[lid] = 2 lid; barrier;
 * 3: out = buf[lid ^ 1]; } else { 2: buf[lid] = 3 lid; barrier; 4: out = buf[lid ^ 1]; }
 * 5: out += 1000. The two sides wait at different barriers. */
static int lid_odd(const weft_warp_ctx *c, uint64_t i) { return c->lid[0][i] & 1; }
static uint32_t bothbar_run(weft_warp_ctx *c) {
  const exchange_args *a = c->group->args;
  int32_t *buf = (int32_t *)(c->group->local_mem + a->buf);
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      if (!fake_branch(c, 1, fake_lanes_where(c, lid_odd), 2)) return c->event;
      break;
    case 1:
    case 2:
      FOR_LANES(c->mask, i) buf[fake_lid(c, i)] = (int32_t)((c->pc + 1) * fake_lid(c, i));
      return fake_barrier(c, c->pc + 2);
    case 3:
    case 4:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = buf[fake_lid(c, i) ^ 1];
      if (!fake_jump(c, 5)) return c->event;
      break;
    default:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] += 1000;
      if (!fake_jump(c, 6)) return c->event;
      break;
    }
  }
}
static const uint32_t bothbar_ipdom[] = {5, 3, 4, 5, 5, 6};

static weft_status launch_with(const char *policy, const weft_compiled_kernel *k, size_t global,
                               size_t local, unsigned nargs, const weft_arg *args,
                               weft_stats *stats, char *why) {
  weft_options o = {.threads = 2, .policy = policy, .warp = fake_w, .lanes = fake_g};
  weft_runtime *rt = NULL;
  assert_int_equal(runtime_create(&o, &rt), WEFT_SUCCESS);
  weft_ndrange r = {1, {global, 1, 1}, {local, 1, 1}};
  weft_status s = runtime_launch(rt, k, NULL, &r, nargs, args, stats, why, RT_ERR_LEN);
  runtime_release(rt);
  return s;
}

static void barrier_in_both_sides_launch(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_compiled_kernel k = fake_kernel("bothbar", bothbar_run, FAKE_SETARGS(exchange_setargs), 6,
                                       bothbar_ipdom, 2, exchange_params, sizeof(exchange_args));
  static const char *const policies[] = {"mp", "mp-orec"};
  char why[RT_ERR_LEN];
  for (int p = 0; p < 2; p++) {
    int32_t out[32];
    memset(out, 0, sizeof out);
    weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out},
                       {WEFT_ARG_LOCAL, WEFT_I32, 4 * 16, NULL}};
    weft_stats s;
    weft_status st = launch_with(policies[p], &k, 32, 16, 2, args, &s, why);
    if (st != WEFT_SUCCESS) fail_msg("%s: %s", policies[p], why);
    for (int i = 0; i < 32; i++) {
      int l = i % 16, n = l ^ 1;
      assert_int_equal(out[i], (n & 1 ? 2 * n : 3 * n) + 1000);
    }
    assert_int_equal(s.barriers, 2); /* one per work-group */
    assert_int_equal(s.divergent_branches, 8);
    assert_int_equal(s.reconvergences, 8);
  }
  int32_t out[32];
  weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out},
                     {WEFT_ARG_LOCAL, WEFT_I32, 4 * 16, NULL}};
  assert_int_equal(launch_with("stack", &k, 32, 16, 2, args, NULL, why),
                   WEFT_ERROR_DIVERGENT_BARRIER);
}

/* if (odd) barrier; -- the even lanes wait at the reconvergence point for lanes that wait at the
 * barrier: reported, never a hang. */
static void one_sided_barrier_deadlock(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_compiled_kernel k = fake_kernel("divbar", divbar_run, FAKE_SETARGS(loop_setargs), 3,
                                       divbar_ipdom, 1, loop_params, 8);
  char why[RT_ERR_LEN];
  int32_t out[8];
  weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out}};
  assert_int_equal(launch_with("mp", &k, 8, 8, 1, args, NULL, why), WEFT_ERROR_BARRIER_DEADLOCK);
  assert_non_null(strstr(why, "policy 'mp'"));
}

/* The fake kernels give stack's results and the same SIMD efficiency (IPDOM reconvergence). */
static void same_results_as_stack(void **state) {
  (void)state;
  static const char *const policies[] = {"stack", "mp", "mp-orec"};
  char why[RT_ERR_LEN];
  fake_config(8, 4, loop_ninstr);
  weft_compiled_kernel loop = fake_kernel("loop", loop_run, FAKE_SETARGS(loop_setargs), 4,
                                          loop_ipdom, 1, loop_params, 8);
  loop.frame_size = sizeof(loop_frame);
  fake_config(8, 4, ifelse_ninstr);
  weft_compiled_kernel ifelse = fake_kernel("ifelse", ifelse_run, FAKE_SETARGS(ifelse_setargs), 4,
                                            ifelse_ipdom, 2, ifelse_params, sizeof(ifelse_args));
  weft_stats want[2];
  for (int p = 0; p < 3; p++) {
    int32_t out[64], n = 40;
    weft_stats s[2];
    fake_config(8, 4, loop_ninstr);
    weft_arg la[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out}};
    assert_int_equal(launch_with(policies[p], &loop, 64, 16, 1, la, &s[0], why), 0);
    for (int i = 0; i < 64; i++) assert_int_equal(out[i], (i % 8) * (i % 8 + 1) / 2);
    fake_config(8, 4, ifelse_ninstr);
    weft_arg ia[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out},
                     {WEFT_ARG_VALUE, WEFT_I32, 4, &n}};
    assert_int_equal(launch_with(policies[p], &ifelse, 64, 16, 2, ia, &s[1], why), 0);
    for (int i = 0; i < 64; i++) assert_int_equal(out[i], (i % 2 ? 3 * i : 2 * i) + (i < n) * 1000);
    for (int j = 0; j < 2; j++) {
      if (p == 0) want[j] = s[j];
      assert_int_equal(s[j].lane_instrs, want[j].lane_instrs);
      assert_int_equal(s[j].instr_execs, want[j].instr_execs);
      assert_int_equal(s[j].divergent_branches, want[j].divergent_branches);
      assert_int_equal(s[j].policy_calls, want[j].policy_calls);
    }
  }
}

/* Whole-warp barriers between warps with __local memory, and early returns: as under stack. A
 * barrier after some work-items returned is reported. */
static void exchange_and_early_return(void **state) {
  (void)state;
  char why[RT_ERR_LEN];
  fake_config(4, 4, NULL);
  weft_compiled_kernel ex = fake_kernel("exchange", exchange_run, FAKE_SETARGS(exchange_setargs), 3,
                                        exchange_ipdom, 2, exchange_params, sizeof(exchange_args));
  ex.static_local_size = EXCHANGE_STATIC;
  weft_compiled_kernel early = fake_kernel("early", early_run, FAKE_SETARGS(early_setargs), 3,
                                           early_ipdom, 2, early_params, sizeof(early_args));
  for (int orec = 0; orec <= 1; orec++) {
    const char *policy = orec ? "mp-orec" : "mp";
    int32_t out[32], mode = 0;
    weft_stats s;
    weft_arg xa[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out},
                     {WEFT_ARG_LOCAL, WEFT_I32, 4 * 16, NULL}};
    assert_int_equal(launch_with(policy, &ex, 32, 16, 2, xa, &s, why), 0);
    for (int i = 0; i < 32; i++) {
      int g = i / 16 * 16, r = (i % 16 + 4) % 16;
      assert_int_equal(out[i], 3 * (g + r));
    }
    assert_int_equal(s.barriers, 4);
    memset(out, 0, sizeof out);
    weft_arg ea[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out},
                     {WEFT_ARG_VALUE, WEFT_I32, 4, &mode}};
    assert_int_equal(launch_with(policy, &early, 32, 8, 2, ea, NULL, why), 0);
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], i % 2 ? 0 : i);
    mode = 1;
    assert_int_equal(launch_with(policy, &early, 32, 8, 2, ea, NULL, why),
                     WEFT_ERROR_BARRIER_DEADLOCK);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(figure5_if_else),
      cmocka_unit_test(figure6_nested),
      cmocka_unit_test(figure11_orec),
      cmocka_unit_test(early_merge_at_divergence),
      cmocka_unit_test(if_without_else),
      cmocka_unit_test(loop_trip_count),
      cmocka_unit_test(returns_and_switch),
      cmocka_unit_test(barriers_in_both_sides),
      cmocka_unit_test(lone_split_at_a_barrier),
      cmocka_unit_test(deep_chains_grow),
      cmocka_unit_test(lowest_pc_order),
      cmocka_unit_test(regions_ran_as_steps),
      cmocka_unit_test(loop_left_in_code),
      cmocka_unit_test(max_splits_parks),
      cmocka_unit_test(max_splits_no_deadlock),
      cmocka_unit_test(max_splits_barriers),
      cmocka_unit_test(barrier_in_both_sides_launch),
      cmocka_unit_test(one_sided_barrier_deadlock),
      cmocka_unit_test(same_results_as_stack),
      cmocka_unit_test(exchange_and_early_return),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
