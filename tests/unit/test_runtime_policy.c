/* Unit tests of the `stack` policy, driven event by event without a warp function: each test
 * replays what a warp does on a small CFG (the MP paper's Figures 2/3 and 6, a loop with a
 * per-lane trip count, an early return, barriers) and checks the policy's printed state after
 * every step, so a failure shows the whole stack. W = 4, masks print with thread 0 rightmost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime.h"
#include "policy_replay.h"

/* Figures 2 and 3: A: if (id % 2 == 0) B else C; D. A=0 B=1 C=2 D=3, the end is 4. */
static void figure3_if_else(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3, 4};
  replay r;
  replay_init(&r, "stack", 4, ipdom, 0xf);
  expect_state(&r, "stack: 1 entry, top first\n"
                   "    PC  RPC  mask\n"
                   "     0    4  1111\n"); /* (1) */
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  expect_state(&r, "stack: 3 entries, top first\n" /* (2): B0101 on top, then C1010, D1111 */
                   "    PC  RPC  mask\n"
                   "     1    3  0101\n"
                   "     2    3  1010\n"
                   "     3    4  1111\n");
  expect_next(&r, 1, 0x5, 3);
  jump(&r, 1, 3); /* (3): B reaches D and pops */
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     2    3  1010\n"
                   "     3    4  1111\n");
  assert_int_equal(r.c.reconvergences, 0);
  expect_next(&r, 2, 0xa, 3);
  jump(&r, 2, 3); /* (4): C reaches D: the warp reconverges */
  expect_state(&r, "stack: 1 entry, top first\n"
                   "    PC  RPC  mask\n"
                   "     3    4  1111\n");
  expect_next(&r, 3, 0xf, 4);
  jump(&r, 3, 4);
  expect_state(&r, "stack: empty; finished 1111\n");
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0xf);
  assert_int_equal(r.c.divergent_branches, 1);
  assert_int_equal(r.c.reconvergences, 1);
  assert_int_equal(r.c.policy_calls, 3); /* reaching the kernel's end is not counted */
  replay_done(&r);
}

/* Figure 6: A: if (id % 2 == 0) B else { C: if (id == 1) D else E; F } G.
 * A=0 B=1 C=2 D=3 E=4 F=5 G=6; the end is 7. Under `stack` the splits run one at a time, the
 * smaller PC first: B, then D, E, F, then G. */
static void figure6_nested_if(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {6, 6, 5, 5, 5, 6, 7};
  replay r;
  replay_init(&r, "stack", 7, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 7);
  split2(&r, 0, 1, 0x5, 2, 0xa);
  expect_state(&r, "stack: 3 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     1    6  0101\n"
                   "     2    6  1010\n"
                   "     6    7  1111\n");
  expect_next(&r, 1, 0x5, 6);
  jump(&r, 1, 6);
  expect_next(&r, 2, 0xa, 6);
  split2(&r, 2, 3, 0x2, 4, 0x8);
  expect_state(&r, "stack: 4 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     3    5  0010\n"
                   "     4    5  1000\n"
                   "     5    6  1010\n"
                   "     6    7  1111\n");
  expect_next(&r, 3, 0x2, 5);
  jump(&r, 3, 5);
  expect_next(&r, 4, 0x8, 5);
  jump(&r, 4, 5);
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     5    6  1010\n"
                   "     6    7  1111\n");
  expect_next(&r, 5, 0xa, 6);
  jump(&r, 5, 6);
  expect_state(&r, "stack: 1 entry, top first\n"
                   "    PC  RPC  mask\n"
                   "     6    7  1111\n");
  expect_next(&r, 6, 0xf, 7);
  jump(&r, 6, 7);
  expect_none(&r);
  assert_int_equal(r.c.divergent_branches, 2);
  assert_int_equal(r.c.reconvergences, 2);
  replay_done(&r);
}

/* if (c) B; C -- a one-sided branch: only B's lanes are pushed, the rest wait at C. */
static void if_without_else(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {2, 2, 3};
  replay r;
  replay_init(&r, "stack", 3, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 3);
  split2(&r, 0, 1, 0x3, 2, 0xc);
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     1    2  0011\n"
                   "     2    3  1111\n");
  expect_next(&r, 1, 0x3, 2);
  jump(&r, 1, 2);
  expect_next(&r, 2, 0xf, 3);
  assert_int_equal(r.c.reconvergences, 1);
  replay_done(&r);
}

/* 0; 1: while (cnt < lane) 2: cnt++; 3. The loop exit's IPDOM (3) is the top's RPC after the
 * first divergence, so later divergences replace the top entry instead of pushing. */
static void loop_trip_count(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 3, 1, 4};
  replay r;
  replay_init(&r, "stack", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 1, 2, 0xe, 3, 0x1); /* lane 0 leaves at once */
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     2    3  1110\n"
                   "     3    4  1111\n");
  expect_next(&r, 2, 0xe, 3);
  split2(&r, 1, 2, 0xc, 3, 0x2);
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     2    3  1100\n"
                   "     3    4  1111\n");
  expect_next(&r, 2, 0xc, 3);
  split2(&r, 1, 2, 0x8, 3, 0x4);
  expect_next(&r, 2, 0x8, 3);
  jump(&r, 1, 3); /* lane 3 leaves last */
  expect_state(&r, "stack: 1 entry, top first\n"
                   "    PC  RPC  mask\n"
                   "     3    4  1111\n");
  assert_int_equal(r.c.divergent_branches, 3);
  assert_int_equal(r.c.reconvergences, 1);
  replay_done(&r);
}

/* 0: if (odd) 1: return; 2: ...; end 3. The lanes that return are finished at once. */
static void early_return(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3};
  replay r;
  replay_init(&r, "stack", 3, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 3);
  split2(&r, 0, 1, 0xa, 2, 0x5);
  expect_state(&r, "stack: 2 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     1    3  1010\n"
                   "     2    3  0101\n");
  expect_next(&r, 1, 0xa, 3);
  jump(&r, 1, 3);
  expect_state(&r, "stack: 1 entry, top first; finished 1010\n"
                   "    PC  RPC  mask\n"
                   "     2    3  0101\n");
  expect_next(&r, 2, 0x5, 3);
  assert_int_equal(r.ops->finished(r.st), 0xa);
  /* A barrier now can never be reached by the lanes that returned. */
  assert_int_equal(barrier(&r, 2, 3), WEFT_ERROR_BARRIER_DEADLOCK);
  replay_done(&r);
}

/* A branch straight to the kernel's end (a target PC nblocks) finishes those lanes. */
static void branch_to_end(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {2, 2};
  replay r;
  replay_init(&r, "stack", 2, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 2);
  split2(&r, 0, 1, 0x3, 2, 0xc);
  expect_state(&r, "stack: 1 entry, top first; finished 1100\n"
                   "    PC  RPC  mask\n"
                   "     1    2  0011\n");
  expect_next(&r, 1, 0x3, 2);
  jump(&r, 1, 2);
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0xf);
  replay_done(&r);
}

/* A barrier reached by the whole warp waits, then resumes after it; part of the warp is an
 * error. */
static void barriers(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 3, 3, 4};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "stack", 4, ipdom, 0x7); /* a tail warp: lane 3 is not a work-item */
  expect_next(&r, 0, 0x7, 4);
  assert_int_equal(barrier(&r, 0, 1), 0);
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0x7);
  assert_int_equal(pc, 0);
  expect_state(&r, "stack: 1 entry, top first; waiting at the barrier ending block 0\n"
                   "    PC  RPC  mask\n"
                   "     1    4  0111\n");
  r.ops->barrier_release(r.st, &r.c);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
  expect_next(&r, 1, 0x7, 4);
  split2(&r, 1, 2, 0x1, 3, 0x6); /* lane 0 alone goes on to a barrier, the others wait at 3 */
  expect_next(&r, 2, 0x1, 3);
  assert_int_equal(barrier(&r, 2, 3), WEFT_ERROR_DIVERGENT_BARRIER);
  assert_int_equal(r.c.policy_calls, 3);
  replay_done(&r);
}

/* A branch with more than two targets (a switch): one entry each, smallest PC on top. */
static void switch_three_ways(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {4, 4, 4, 4, 5};
  replay r;
  replay_init(&r, "stack", 5, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 5);
  assert_int_equal(branch(&r, 0, 3, (uint32_t[]){1, 2, 4}, (uint64_t[]){0x1, 0x6, 0x8}), 0);
  expect_state(&r, "stack: 3 entries, top first\n"
                   "    PC  RPC  mask\n"
                   "     1    4  0001\n"
                   "     2    4  0110\n"
                   "     4    5  1111\n");
  replay_done(&r);
}

/* With a W = 64 warp, the printer and masks use all 64 lanes. */
static void wide_warp_mask(void **state) {
  (void)state;
  char m[WEFT_MASK_CHARS];
  assert_string_equal(weft_mask_string(m, 0x5, 4), "0101");
  assert_string_equal(weft_mask_string(m, 1ull << 63, 64),
                      "1000000000000000000000000000000000000000000000000000000000000000");
  assert_null(policy_find("nope"));
  assert_null(policy_find(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(figure3_if_else), cmocka_unit_test(figure6_nested_if),
      cmocka_unit_test(if_without_else), cmocka_unit_test(loop_trip_count),
      cmocka_unit_test(early_return),    cmocka_unit_test(branch_to_end),
      cmocka_unit_test(barriers),        cmocka_unit_test(switch_three_ways),
      cmocka_unit_test(wide_warp_mask),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
