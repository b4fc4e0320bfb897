/* Unit tests of the `pc` policy (stack-less reconvergence by PC arbitration, Collange 2011).
 *
 * First replayed event by event without a warp function, checking the printed state (every
 * lane's PC, thread 0 rightmost, and the split that runs next) after each step: Collange's
 * Table 2, a loop with a per-lane trip count, a short-circuit `if (a || b)` where the lanes meet
 * before the branch's IPDOM, and barriers reached by part of a warp. Then through runtime_launch
 * with hand-written warp functions (test_runtime_fakes.h): the same results as `stack`, a barrier
 * on a loop's exit path that completes under `pc` and is reported under `stack`, and barriers
 * that can never complete. W = 4. */
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

/* ---- replays ---- */

/* The common case: no barrier; `pcs` the PC row, `next` what follows "next  ". */
static void expect_lanes(replay *r, const char *pcs, const char *next) {
  char want[256];
  snprintf(want, sizeof want, "pc: PC per lane, thread 0 rightmost\n  PC    %s\n  next  %s\n", pcs,
           next);
  expect_state(r, want);
}

/* Collange's Table 2: the if-then-else of her Figure 1, one instruction per block so that the
 * PCs are the paper's: 1 A, 2 `if(!c) br 5`, 3 B, 4 `br 6`, 5 C, 6 D; 7 is the end, and block 0
 * only enters at 1. T0 and T1 take B, T2 and T3 take C. The paper lists the PCs thread 0
 * leftmost (3355), the printer thread 0 rightmost (5 5 3 3). The replay hands every row to the
 * policy, also the jumps that generated code would take inline (below the guard). */
static void table2_if_then_else(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 2, 6, 4, 6, 6, 7};
  replay r;
  replay_init(&r, "pc", 7, ipdom, 0xf);
  expect_lanes(&r, "0 0 0 0", "PC 0, mask 1111, guard 7");
  expect_next(&r, 0, 0xf, 7);
  jump(&r, 0, 1);
  /* PC 1, A: PC_i 1111, NPC_i 2222 */
  expect_lanes(&r, "1 1 1 1", "PC 1, mask 1111, guard 7");
  expect_next(&r, 1, 0xf, 7);
  jump(&r, 1, 2);
  /* PC 2, if(!c) br 5: PC_i 2222, NPC_i 3355 */
  expect_lanes(&r, "2 2 2 2", "PC 2, mask 1111, guard 7");
  expect_next(&r, 2, 0xf, 7);
  split2(&r, 2, 3, 0x3, 5, 0xc);
  /* PC 3, B (T0 T1 active): PC_i 3355, NPC_i 4455; the guard is the other lanes' PC, 5 */
  expect_lanes(&r, "5 5 3 3", "PC 3, mask 0011, guard 5");
  expect_next(&r, 3, 0x3, 5);
  jump(&r, 3, 4);
  /* PC 4, br 6: PC_i 4455, NPC_i 6655 */
  expect_lanes(&r, "5 5 4 4", "PC 4, mask 0011, guard 5");
  expect_next(&r, 4, 0x3, 5);
  jump(&r, 4, 6);
  assert_int_equal(r.c.reconvergences, 0);
  /* PC 5, C (T2 T3 active): PC_i 6655, NPC_i 6666 */
  expect_lanes(&r, "5 5 6 6", "PC 5, mask 1100, guard 6");
  expect_next(&r, 5, 0xc, 6);
  jump(&r, 5, 6);
  /* PC 6, D: PC_i 6666, NPC_i 7777: the four threads meet again */
  expect_lanes(&r, "6 6 6 6", "PC 6, mask 1111, guard 7");
  assert_int_equal(r.c.reconvergences, 1);
  expect_next(&r, 6, 0xf, 7);
  jump(&r, 6, 7);
  expect_lanes(&r, "- - - -", "none");
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0xf);
  assert_int_equal(r.c.divergent_branches, 1);
  assert_int_equal(r.c.reconvergences, 1);
  assert_int_equal(r.c.policy_calls, 6); /* reaching the kernel's end is not counted */
  replay_done(&r);
}

/* 0; 1: while (cnt < lane) 2: cnt++; 3. The lanes that leave wait at 3 (their PC) while the
 * others loop below it: they meet once, when the last lane leaves, as under `stack`. */
static void loop_trip_count(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 3, 1, 4};
  replay r;
  replay_init(&r, "pc", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4); /* 0 and 1 run inline: the first event is 1's divergence */
  split2(&r, 1, 2, 0xe, 3, 0x1);
  expect_lanes(&r, "2 2 2 3", "PC 2, mask 1110, guard 3");
  expect_next(&r, 2, 0xe, 3);
  split2(&r, 1, 2, 0xc, 3, 0x2); /* 2 -> 1 is inline (1 < 3); 1 diverges again */
  expect_lanes(&r, "2 2 3 3", "PC 2, mask 1100, guard 3");
  expect_next(&r, 2, 0xc, 3);
  split2(&r, 1, 2, 0x8, 3, 0x4);
  expect_lanes(&r, "2 3 3 3", "PC 2, mask 1000, guard 3");
  expect_next(&r, 2, 0x8, 3);
  jump(&r, 1, 3); /* lane 3 leaves last */
  expect_lanes(&r, "3 3 3 3", "PC 3, mask 1111, guard 4");
  assert_int_equal(r.c.divergent_branches, 3);
  assert_int_equal(r.c.reconvergences, 1);
  expect_next(&r, 3, 0xf, 4);
  jump(&r, 3, 4);
  expect_none(&r);
  assert_int_equal(r.c.policy_calls, 4);
  replay_done(&r);
}

/* 0: if (a) goto 2; 1: if (b) goto 2 else goto 3; 2: body; 3: after -- `if (a || b)`. The IPDOM
 * of both branches is 3, so `stack` runs the body twice (for the b lanes, then the a lanes);
 * under `pc` the a lanes wait at 2 while 1 runs, and the b lanes join them there: one run of 2,
 * a reconvergence earlier than the IPDOM. */
static void short_circuit_meets_before_ipdom(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3, 4};
  replay r;
  replay_init(&r, "pc", 4, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 4);
  split2(&r, 0, 1, 0xe, 2, 0x1); /* a holds for lane 0 */
  expect_lanes(&r, "1 1 1 2", "PC 1, mask 1110, guard 2");
  expect_next(&r, 1, 0xe, 2);
  split2(&r, 1, 2, 0x2, 3, 0xc); /* b holds for lane 1 */
  expect_lanes(&r, "3 3 2 2", "PC 2, mask 0011, guard 3");
  assert_int_equal(r.c.reconvergences, 1);
  expect_next(&r, 2, 0x3, 3);
  jump(&r, 2, 3);
  expect_lanes(&r, "3 3 3 3", "PC 3, mask 1111, guard 4");
  assert_int_equal(r.c.reconvergences, 2);
  assert_int_equal(r.c.divergent_branches, 2);
  replay_done(&r);
}

/* A barrier reached by part of the warp: those lanes wait, the others run until they arrive. */
static void partial_warp_barrier(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {4, 4, 4, 4};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "pc", 4, ipdom, 0x7); /* a tail warp: lane 3 is not a work-item */
  expect_next(&r, 0, 0x7, 4);
  split2(&r, 0, 1, 0x1, 2, 0x6); /* lane 0 goes to the barrier ending 1 first */
  expect_next(&r, 1, 0x1, 2);
  assert_int_equal(barrier(&r, 1, 3), 0);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0x1);
  assert_int_equal(pc, 1);
  expect_state(&r, "pc: PC per lane, thread 0 rightmost; waiting at the barrier ending block 1: "
                   "0001\n"
                   "  PC    . 2 2 3\n"
                   "  next  PC 2, mask 0110, guard 4\n");
  expect_next(&r, 2, 0x6, 4);
  jump(&r, 2, 1); /* a back edge: the others come round to the same barrier */
  expect_next(&r, 1, 0x6, 4);
  assert_int_equal(barrier(&r, 1, 3), 0);
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0x7);
  expect_state(&r, "pc: PC per lane, thread 0 rightmost; waiting at the barrier ending block 1: "
                   "0111\n"
                   "  PC    . 3 3 3\n"
                   "  next  none\n");
  assert_int_equal(r.c.reconvergences, 0);
  r.ops->barrier_release(r.st, &r.c);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
  assert_int_equal(r.c.reconvergences, 1); /* they arrived apart and go on together */
  expect_next(&r, 3, 0x7, 4);
  jump(&r, 3, 4);
  expect_none(&r);
  assert_int_equal(r.ops->finished(r.st), 0x7);
  assert_int_equal(r.c.policy_calls, 4);
  replay_done(&r);
}

/* A whole warp at a barrier in a loop, twice, then on to the end: the lanes wait together, at
 * their resume PC, with nothing runnable, and go on together, with no reconvergence (they
 * never parted). 0: loop body ending in the barrier, 1: back to 0 or on to 2, 2: the end. */
static void whole_warp_barrier(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {1, 2, 3};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "pc", 3, ipdom, 0xf);
  for (int trip = 0; trip < 2; trip++) {
    expect_next(&r, 0, 0xf, 3);
    assert_int_equal(barrier(&r, 0, 1), 0);
    expect_none(&r);
    assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xf);
    assert_int_equal(pc, 0);
    expect_state(&r, "pc: PC per lane, thread 0 rightmost; waiting at the barrier ending block "
                     "0: 1111\n"
                     "  PC    1 1 1 1\n"
                     "  next  none\n");
    r.ops->barrier_release(r.st, &r.c);
    assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
    expect_lanes(&r, "1 1 1 1", "PC 1, mask 1111, guard 3");
    expect_next(&r, 1, 0xf, 3);
    if (trip == 0) jump(&r, 1, 0);
  }
  split2(&r, 1, 0, 0x3, 2, 0xc); /* lanes 0 and 1 loop once more, alone */
  expect_next(&r, 0, 0x3, 2);
  assert_int_equal(barrier(&r, 0, 1), 0);
  expect_state(&r, "pc: PC per lane, thread 0 rightmost; waiting at the barrier ending block 0: "
                   "0011\n"
                   "  PC    2 2 1 1\n"
                   "  next  PC 2, mask 1100, guard 3\n");
  assert_int_equal(r.c.reconvergences, 0);
  assert_int_equal(r.c.policy_calls, 5);
  replay_done(&r);
}

/* if (odd) { 1: barrier } else { 2: barrier }: the lanes at two barrier blocks wait at one
 * barrier, as a GPU counts arrivals (DESIGN.md), and go on together when it completes. */
static void two_barriers_in_one_warp(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3};
  uint32_t pc = 0;
  replay r;
  replay_init(&r, "pc", 3, ipdom, 0xf);
  expect_next(&r, 0, 0xf, 3);
  split2(&r, 0, 1, 0xa, 2, 0x5);
  expect_next(&r, 1, 0xa, 2);
  assert_int_equal(barrier(&r, 1, 3), 0);
  expect_next(&r, 2, 0x5, 3);
  assert_int_equal(barrier(&r, 2, 3), 0);
  expect_none(&r);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0xf);
  assert_int_equal(pc, 1); /* the lowest */
  assert_int_equal(r.ops->finished(r.st), 0);
  expect_state(&r, "pc: PC per lane, thread 0 rightmost; waiting at barriers, the lowest ending "
                   "block 1: 1111\n"
                   "  PC    3 3 3 3\n"
                   "  next  none\n");
  r.ops->barrier_release(r.st, &r.c);
  assert_int_equal(r.ops->barrier_waiting(r.st, &pc), 0);
  assert_int_equal(r.ops->finished(r.st), 0xf); /* both resume at the end */
  replay_done(&r);
}

/* ---- launches with fake kernels ---- */

static weft_runtime *make_rt(const char *policy) {
  weft_options o = {.threads = 1, .policy = policy, .warp = fake_w, .lanes = fake_g};
  weft_runtime *rt = NULL;
  assert_int_equal(runtime_create(&o, &rt), WEFT_SUCCESS);
  return rt;
}

static weft_status launch(const char *policy, const weft_compiled_kernel *k, const weft_ndrange *r,
                          unsigned nargs, const weft_arg *args, weft_stats *stats) {
  weft_runtime *rt = make_rt(policy);
  err[0] = 0;
  weft_status s = runtime_launch(rt, k, NULL, r, nargs, args, stats, err, sizeof err);
  runtime_release(rt);
  return s;
}

/* if/else and a per-lane loop: the same results and counts under both policies (structured
 * code: min-PC order is the IPDOM order). */
static void same_as_stack(void **state) {
  (void)state;
  static const char *const policies[] = {"stack", "pc"};
  int32_t out[2][64], lout[2][64], n = 40;
  weft_stats s[2], ls[2];
  for (int p = 0; p < 2; p++) {
    fake_config(4, 4, ifelse_ninstr);
    weft_compiled_kernel k = fake_kernel("ifelse", ifelse_run, FAKE_SETARGS(ifelse_setargs), 4,
                                         ifelse_ipdom, 2, ifelse_params, sizeof(ifelse_args));
    weft_arg args[] = {buf_arg(out[p], sizeof out[p]), i32_arg(&n)};
    weft_ndrange r = range1(64, 8);
    assert_int_equal(launch(policies[p], &k, &r, 2, args, &s[p]), WEFT_SUCCESS);
    fake_config(4, 4, loop_ninstr);
    weft_compiled_kernel l = fake_kernel("loop", loop_run, FAKE_SETARGS(loop_setargs), 4,
                                         loop_ipdom, 1, loop_params, 8);
    l.frame_size = sizeof(loop_frame);
    weft_arg largs[] = {buf_arg(lout[p], sizeof lout[p])};
    assert_int_equal(launch(policies[p], &l, &r, 1, largs, &ls[p]), WEFT_SUCCESS);
  }
  for (int i = 0; i < 64; i++) {
    assert_int_equal(out[1][i], (i % 2 ? 3 * i : 2 * i) + (i < n) * 1000);
    assert_int_equal(lout[1][i], (i % 4) * (i % 4 + 1) / 2);
  }
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  assert_memory_equal(lout[0], lout[1], sizeof lout[0]);
  for (int p = 0; p < 2; p++) {
    weft_stats *a = p ? &ls[0] : &s[0], *b = p ? &ls[1] : &s[1];
    assert_int_equal(a->block_execs, b->block_execs);
    assert_int_equal(a->lane_instrs, b->lane_instrs);
    assert_int_equal(a->divergent_branches, b->divergent_branches);
    assert_int_equal(a->reconvergences, b->reconvergences);
    assert_int_equal(a->policy_calls, b->policy_calls);
  }
  assert_int_equal(ls[1].divergent_branches, 16 * 3); /* 16 warps, lanes leave at 0, 1, 2, 3 */
  assert_int_equal(ls[1].reconvergences, 16);
}

/* ---- exitbar(global int *out, local int *tmp): a barrier on a loop's exit path. Lane i of its
 * warp loops i times; each lane leaves through block 2, which publishes its sum and waits at the
 * barrier; after it, every work-item reads its right neighbour's sum (of the work-group):
 *   0: cnt = acc = 0;  1: if (cnt >= lane) goto 2 else goto 3;
 *   2: tmp[lid] = acc; barrier;  ->4
 *   3: cnt++; acc += cnt; if (cnt > 1000) return; goto 1;
 *   4: out[gid] = tmp[(lid + 1) % size];
 * Block 3's (never taken) return makes the kernel's end the IPDOM of 1, so under `stack` the
 * first lane to leave reaches the barrier alone: a divergent barrier. Under `pc` it waits there
 * while the others go round the loop, and the warp goes on together after the barrier. ---- */
typedef struct exitbar_args {
  int32_t *out;
  uint64_t tmp;
} exitbar_args;
static void exitbar_setargs(void *block, int32_t *out, uint64_t tmp) {
  *(exitbar_args *)block = (exitbar_args){out, tmp};
}
static int exitbar_leaves(const weft_warp_ctx *c, uint64_t i) {
  return ((const loop_frame *)c->frame)->cnt[i] >= i;
}
static uint32_t exitbar_run(weft_warp_ctx *c) {
  const exitbar_args *a = c->group->args;
  int32_t *tmp = (int32_t *)(c->group->local_mem + a->tmp);
  uint32_t size = (uint32_t)c->group->local_size[0];
  loop_frame *f = (loop_frame *)c->frame;
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      FOR_LANES(c->mask, i) f->cnt[i] = 0, f->acc[i] = 0;
      if (!fake_jump(c, 1)) return c->event;
      break;
    case 1:
      if (!fake_branch(c, 2, fake_lanes_where(c, exitbar_leaves), 3)) return c->event;
      break;
    case 2: FOR_LANES(c->mask, i) tmp[fake_lid(c, i)] = f->acc[i]; return fake_barrier(c, 4);
    case 3: {
      uint64_t ret = 0;
      FOR_LANES(c->mask, i) {
        f->acc[i] += (int32_t)++f->cnt[i];
        if (f->cnt[i] > 1000) ret |= 1ull << i;
      }
      if (!fake_branch(c, 1, ~ret, 5)) return c->event;
      break;
    }
    default:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = tmp[(fake_lid(c, i) + 1) % size];
      if (!fake_jump(c, 5)) return c->event;
      break;
    }
  }
}
static const uint32_t exitbar_ipdom[] = {1, 5, 4, 5, 5};
static const uint32_t exitbar_lines[] = {30, 31, 32, 33, 34};
static const weft_param exitbar_params[] = {FAKE_PARAM_GLOBAL("out", "int*", 0),
                                            FAKE_PARAM_LOCAL("tmp", 8)};

static weft_compiled_kernel exitbar_kernel(void) {
  weft_compiled_kernel k = fake_kernel("exitbar", exitbar_run, FAKE_SETARGS(exitbar_setargs), 5,
                                       exitbar_ipdom, 2, exitbar_params, sizeof(exitbar_args));
  k.first_line = k.last_line = k.barrier_line = exitbar_lines;
  k.frame_size = sizeof(loop_frame);
  return k;
}

static void barrier_on_loop_exit(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_compiled_kernel k = exitbar_kernel();
  int32_t out[24];
  weft_arg args[] = {buf_arg(out, sizeof out), local_arg(12 * 4)};
  weft_ndrange r = range1(24, 12); /* 3 warps per work-group */
  weft_stats s;
  memset(out, 0x55, sizeof out);
  assert_int_equal(launch("pc", &k, &r, 2, args, &s), WEFT_SUCCESS);
  for (int i = 0; i < 24; i++) {
    int right = (i % 12 + 1) % 12 % 4; /* the right neighbour's lane */
    assert_int_equal(out[i], right * (right + 1) / 2);
  }
  /* per warp: lanes leave at 0, 1, 2, 3 (3 divergent branches, the last lane's leaving is a
   * uniform exit) and wait apart; they go on together after the barrier: 1 reconvergence */
  assert_int_equal(s.warps, 6);
  assert_int_equal(s.barriers, 2);
  assert_int_equal(s.divergent_branches, 6 * 3);
  assert_int_equal(s.reconvergences, 6);
  expect_error(launch("stack", &k, &r, 2, args, NULL), WEFT_ERROR_DIVERGENT_BARRIER,
               "divergent barrier in kernel 'exitbar' at line 32: warp 0 of work-group (0,0,0) "
               "reached it with lanes 0001 of 1111");
}

/* A barrier that can never complete is reported under `pc` too, never a hang: odd lanes at a
 * barrier the even lanes skip (they return). The two sides of a branch at two barriers complete
 * together, as arrivals count per work-group (DESIGN.md). */
static int lid_odd(const weft_warp_ctx *c, uint64_t i) { return c->lid[0][i] & 1; }
static uint32_t twobar_run(weft_warp_ctx *c) {
  for (;;) {
    fake_exec(c);
    if (c->pc > 0) return fake_barrier(c, 3);
    if (!fake_branch(c, 1, fake_lanes_where(c, lid_odd), 2)) return c->event;
  }
}

static void barriers_that_cannot_complete(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  int32_t out[8];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(8, 4);
  weft_compiled_kernel k = fake_kernel("divbar", divbar_run, FAKE_SETARGS(loop_setargs), 3,
                                       divbar_ipdom, 1, loop_params, 8);
  k.first_line = divbar_first, k.last_line = k.barrier_line = divbar_last;
  expect_error(launch("pc", &k, &r, 1, args, NULL), WEFT_ERROR_BARRIER_DEADLOCK,
               "barrier in kernel 'divbar' at line 7 can never complete: some work-items of "
               "work-group (0,0,0) returned before reaching it");
  static const uint32_t ipdom[] = {3, 3, 3}, lines[] = {20, 21, 23};
  weft_compiled_kernel t = fake_kernel("twobar", twobar_run, FAKE_SETARGS(loop_setargs), 3, ipdom,
                                       1, loop_params, 8);
  t.first_line = t.last_line = t.barrier_line = lines;
  weft_stats st;
  assert_int_equal(launch("pc", &t, &r, 1, args, &st), WEFT_SUCCESS);
  assert_int_equal(st.barriers, 2); /* arrivals count per work-group: each completes once */
}

/* Full-warp barriers with __local memory shared by the warps, and early returns, as under
 * `stack`; lanes that returned before a barrier make it a deadlock. */
static void barriers_and_returns_as_stack(void **state) {
  (void)state;
  static const char *const policies[] = {"stack", "pc"};
  int32_t out[2][48];
  fake_config(4, 4, NULL);
  for (int p = 0; p < 2; p++) {
    weft_compiled_kernel x = fake_kernel("exchange", exchange_run, FAKE_SETARGS(exchange_setargs),
                                         3, exchange_ipdom, 2, exchange_params,
                                         sizeof(exchange_args));
    x.static_local_size = EXCHANGE_STATIC;
    weft_arg args[] = {buf_arg(out[p], sizeof out[p]), local_arg(12 * 4)};
    weft_ndrange r = range1(48, 12);
    weft_stats s;
    assert_int_equal(launch(policies[p], &x, &r, 2, args, &s), WEFT_SUCCESS);
    assert_int_equal(s.barriers, 4 * 2);
    assert_int_equal(s.policy_calls, 12 * 2);
  }
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  weft_compiled_kernel e = fake_kernel("early", early_run, FAKE_SETARGS(early_setargs), 3,
                                       early_ipdom, 2, early_params, sizeof(early_args));
  e.first_line = e.last_line = e.barrier_line = early_lines;
  int32_t mode = 0;
  weft_arg eargs[] = {buf_arg(out[1], sizeof out[1]), i32_arg(&mode)};
  weft_ndrange r = range1(48, 8);
  memset(out[1], 0, sizeof out[1]);
  assert_int_equal(launch("pc", &e, &r, 2, eargs, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 48; i++) assert_int_equal(out[1][i], i % 2 ? 0 : i);
  mode = 1;
  expect_error(launch("pc", &e, &r, 2, eargs, NULL), WEFT_ERROR_BARRIER_DEADLOCK,
               "barrier in kernel 'early' at line 12 can never complete: some work-items of "
               "work-group (0,0,0) returned before reaching it");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table2_if_then_else),
      cmocka_unit_test(loop_trip_count),
      cmocka_unit_test(short_circuit_meets_before_ipdom),
      cmocka_unit_test(partial_warp_barrier),
      cmocka_unit_test(whole_warp_barrier),
      cmocka_unit_test(two_barriers_in_one_warp),
      cmocka_unit_test(same_as_stack),
      cmocka_unit_test(barrier_on_loop_exit),
      cmocka_unit_test(barriers_that_cannot_complete),
      cmocka_unit_test(barriers_and_returns_as_stack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
