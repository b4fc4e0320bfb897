/* Unit tests of runtime_launch with hand-written compiled kernels (test_runtime_fakes.h): results
 * and stats of if/else, a per-lane loop, early returns, barriers with __local memory between
 * warps, 2-D/3-D NDRanges with a partial last warp, arguments of every type through libffi; every
 * launch error with its message; and the same results and stats with 1, 2 and 4 worker threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_runtime_fakes.h"

static weft_runtime *make_rt(unsigned threads) {
  weft_options o = {.threads = threads, .policy = "stack", .warp = fake_w, .lanes = fake_g};
  weft_runtime *rt = NULL;
  assert_int_equal(runtime_create(&o, &rt), WEFT_SUCCESS);
  return rt;
}

static weft_status launch(weft_runtime *rt, const weft_compiled_kernel *k, const weft_ndrange *r,
                          unsigned nargs, const weft_arg *args, weft_stats *stats) {
  return runtime_launch(rt, k, NULL, r, nargs, args, stats, err, sizeof err);
}

static weft_compiled_kernel ifelse_kernel(void) {
  weft_compiled_kernel k = fake_kernel("ifelse", ifelse_run, FAKE_SETARGS(ifelse_setargs), 4,
                                       ifelse_ipdom, 2, ifelse_params, sizeof(ifelse_args));
  k.first_line = k.last_line = k.barrier_line = ifelse_lines;
  return k;
}

/* ---- results and stats ---- */

static void ifelse_results_and_stats(void **state) {
  (void)state;
  fake_config(4, 4, ifelse_ninstr);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = ifelse_kernel();
  int32_t out[16], n = 12;
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&n)};
  weft_ndrange r = range1(16, 8);
  weft_stats s;
  assert_int_equal(launch(rt, &k, &r, 2, args, &s), WEFT_SUCCESS);
  assert_string_equal(err, "");
  for (int i = 0; i < 16; i++) assert_int_equal(out[i], (i % 2 ? 3 * i : 2 * i) + (i < n) * 1000);
  /* per warp: A 1111, B 0101, C 1010, D 1111; one divergence, one reconvergence, 4 events of
   * which the last (D to the kernel's end) is not a policy call */
  assert_int_equal(s.work_groups, 2);
  assert_int_equal(s.warps, 4);
  assert_int_equal(s.block_execs, 16);
  assert_int_equal(s.instr_execs, 4 * 9);
  assert_int_equal(s.lane_instrs, 4 * (4 * 2 + 2 * 3 + 2 * 3 + 4 * 1));
  assert_true(s.simd_efficiency > 0.666 && s.simd_efficiency < 0.667);
  assert_int_equal(s.groups_run, 16);
  assert_int_equal(s.groups_skipped, 0);
  assert_int_equal(s.divergent_branches, 4);
  assert_int_equal(s.reconvergences, 4);
  assert_int_equal(s.policy_calls, 12);
  assert_int_equal(s.barriers, 0);
  assert_true(s.time_ms >= 0);
  runtime_release(rt);
}

static void same_stats(const weft_stats *a, const weft_stats *b);

/* ---- chained first calls (kernel.h): split(global int *out, int n):
 *      0: if (gid >= n) 1: out = -1; else 2: out = gid --  a warp splits only where n falls ---- */
static int at_or_past_n(const weft_warp_ctx *c, uint64_t i) {
  return (int64_t)fake_gid(c, i) >= ((const ifelse_args *)c->group->args)->n;
}
static uint32_t split_run(weft_warp_ctx *c) {
  const ifelse_args *a = c->group->args;
  for (;;) {
    fake_exec(c);
    if (c->pc == 0 && !fake_branch(c, 1, fake_lanes_where(c, at_or_past_n), 2)) return c->event;
    if (c->pc == 1 || c->pc == 2) {
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = c->pc == 1 ? -1 : (int32_t)fake_gid(c, i);
      if (!fake_jump(c, 3)) return c->event;
    }
  }
}
/* split_run as generated code runs it: a warp that ends in its first call stores no event and
 * goes on with the warp its chain points to. */
static unsigned split_chained;
static uint32_t split_chained_run(weft_warp_ctx *c) {
  for (;; c = c->chain, split_chained++) {
    uint32_t ev = split_run(c);
    if (!c->chain || c->ntargets != 1 || c->target_pc[0] != 3) return ev;
    c->event = 0;
  }
}
static const uint32_t split_ipdom[] = {3, 3, 3};

/* The scheduler takes a chain of first calls back at the warp that split (it goes on with the
 * next warp) and at the last warp; results and stats are those of warps run one by one. */
static void chained_first_calls(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  int32_t out[2][32], n = 6;
  weft_stats s[2];
  for (int chained = 0; chained < 2; chained++) {
    weft_runtime *rt = make_rt(1);
    weft_compiled_kernel k = fake_kernel("split", chained ? split_chained_run : split_run,
                                         FAKE_SETARGS(ifelse_setargs), 3, split_ipdom, 2,
                                         ifelse_params, sizeof(ifelse_args));
    weft_arg args[] = {buf_arg(out[chained], sizeof out[0]), i32_arg(&n)};
    weft_ndrange r = range1(32, 16);
    split_chained = 0;
    assert_int_equal(launch(rt, &k, &r, 2, args, &s[chained]), WEFT_SUCCESS);
    runtime_release(rt);
  }
  for (int i = 0; i < 32; i++) assert_int_equal(out[1][i], i >= n ? -1 : i);
  assert_memory_equal(out[0], out[1], sizeof out[0]);
  /* work-group 0: warp 0 ends and goes on with warp 1, which splits (gid 4-7 around n = 6) and
   * comes back; warp 2 goes on with warp 3. Work-group 1: 0 to 1 to 2 to 3. */
  assert_int_equal(split_chained, 2 + 3);
  assert_int_equal(s[1].divergent_branches, 1);
  same_stats(&s[0], &s[1]);
}

static void loop_per_lane_trip_count(void **state) {
  (void)state;
  fake_config(8, 4, loop_ninstr);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("loop", loop_run, FAKE_SETARGS(loop_setargs), 4, loop_ipdom,
                                       1, loop_params, 8);
  k.frame_size = sizeof(loop_frame);
  int32_t out[16];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(16, 16);
  weft_stats s;
  assert_int_equal(launch(rt, &k, &r, 1, args, &s), WEFT_SUCCESS);
  for (int i = 0; i < 16; i++) assert_int_equal(out[i], (i % 8) * (i % 8 + 1) / 2);
  /* per warp: block 0 once, the header 8 times (lanes >= k at visit k), the body 7 times
   * (lanes > k), block 3 once; the lanes leave one by one: 7 divergences, 1 reconvergence */
  assert_int_equal(s.warps, 2);
  assert_int_equal(s.block_execs, 2 * 17);
  assert_int_equal(s.instr_execs, 2 * (1 + 8 * 2 + 7 * 3 + 1));
  assert_int_equal(s.lane_instrs, 2 * (8 + 36 * 2 + 28 * 3 + 8));
  assert_int_equal(s.groups_run, 2 * 26);
  assert_int_equal(s.groups_skipped, 2 * (17 * 2 - 26));
  assert_int_equal(s.divergent_branches, 2 * 7);
  assert_int_equal(s.reconvergences, 2 * 1);
  assert_int_equal(s.policy_calls, 2 * 8);
  runtime_release(rt);
}

static weft_compiled_kernel early_kernel(void) {
  weft_compiled_kernel k = fake_kernel("early", early_run, FAKE_SETARGS(early_setargs), 3,
                                       early_ipdom, 2, early_params, sizeof(early_args));
  k.first_line = k.last_line = k.barrier_line = early_lines;
  return k;
}

static void early_return(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = early_kernel();
  int32_t out[8], mode = 0;
  memset(out, 0xff, sizeof out);
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&mode)};
  weft_ndrange r = range1(8, 8);
  weft_stats s;
  assert_int_equal(launch(rt, &k, &r, 2, args, &s), WEFT_SUCCESS);
  for (int i = 0; i < 8; i++) assert_int_equal(out[i], i % 2 ? -1 : i);
  assert_int_equal(s.divergent_branches, 2);
  assert_int_equal(s.reconvergences, 0); /* the lanes that returned never meet the others */
  runtime_release(rt);
}

/* Work-items that returned can no longer reach a barrier: reported, within a warp (mode 1) and
 * when a whole warp returned while the other waits (mode 2, found by the scheduler). */
static void barrier_after_return(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = early_kernel();
  int32_t out[8], mode = 1;
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&mode)};
  weft_ndrange r = range1(8, 8);
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_BARRIER_DEADLOCK,
               "barrier in kernel 'early' at line 12 can never complete");
  assert_non_null(strstr(err, "returned before reaching it"));
  mode = 2;
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_BARRIER_DEADLOCK,
               "barrier in kernel 'early' at line 12 can never complete: some work-items of "
               "work-group (0,0,0) returned before reaching it");
  runtime_release(rt);
}

static void divergent_barrier(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("divbar", divbar_run, FAKE_SETARGS(loop_setargs), 3,
                                       divbar_ipdom, 1, loop_params, 8);
  k.first_line = divbar_first, k.last_line = k.barrier_line = divbar_last;
  int32_t out[8];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(8, 4);
  expect_error(launch(rt, &k, &r, 1, args, NULL), WEFT_ERROR_DIVERGENT_BARRIER,
               "divergent barrier in kernel 'divbar' at line 7: warp 0 of work-group (0,0,0) "
               "reached it with lanes 1010 of 1111");
  runtime_release(rt);
}

/* 0: if (lid < 4) 1: barrier; else 2: barrier; -- warp 0 and warp 1 wait at different
 * barriers, which complete together: arrivals count per work-group (DESIGN.md). */
static int lid_below_4(const weft_warp_ctx *c, uint64_t i) { return fake_lid(c, i) < 4; }
static uint32_t twobar_run(weft_warp_ctx *c) {
  for (;;) {
    fake_exec(c);
    if (c->pc > 0) return fake_barrier(c, 3);
    if (!fake_branch(c, 1, fake_lanes_where(c, lid_below_4), 2)) return c->event;
  }
}

static void different_barriers(void **state) {
  (void)state;
  static const uint32_t ipdom[] = {3, 3, 3}, lines[] = {20, 21, 23};
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("twobar", twobar_run, FAKE_SETARGS(loop_setargs), 3, ipdom,
                                       1, loop_params, 8);
  k.first_line = k.last_line = k.barrier_line = lines;
  int32_t out[16];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(16, 8);
  weft_stats s;
  assert_int_equal(launch(rt, &k, &r, 1, args, &s), WEFT_SUCCESS);
  assert_int_equal(s.barriers, 2); /* one per work-group */
  runtime_release(rt);
}

static void barrier_local_exchange(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("exchange", exchange_run, FAKE_SETARGS(exchange_setargs), 3,
                                       exchange_ipdom, 2, exchange_params, sizeof(exchange_args));
  k.static_local_size = EXCHANGE_STATIC;
  for (size_t local = 8; local >= 6; local -= 2) { /* 6: the second warp has lanes 0011 */
    int32_t out[24];
    weft_arg args[] = {buf_arg(out, sizeof out), local_arg(local * 4)};
    weft_ndrange r = range1(24, local);
    weft_stats s;
    assert_int_equal(launch(rt, &k, &r, 2, args, &s), WEFT_SUCCESS);
    for (size_t i = 0; i < 24; i++) {
      size_t group = i / local, from = group * local + (i % local + 4) % local;
      assert_int_equal(out[i], 3 * (int32_t)from);
    }
    assert_int_equal(s.barriers, 2 * (24 / local));
    assert_int_equal(s.warps, 2 * (24 / local));
  }
  runtime_release(rt);
}

/* A warp that never diverged goes on after a barrier without its policy: under the policies
 * whose steps the code takes (ctx->policy set), no call finds the state started; the results
 * and the policy calls (one per arrival) are those of the barrier's exchange. */
static uint32_t exchange_seen_started;
static uint32_t exchange_spy_run(weft_warp_ctx *c) {
  exchange_seen_started |= c->started;
  return exchange_run(c);
}

static void barrier_without_policy(void **state) {
  (void)state;
  static const char *const policies[] = {"stack", "pc"};
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("exchange", exchange_spy_run, FAKE_SETARGS(exchange_setargs),
                                       3, exchange_ipdom, 2, exchange_params,
                                       sizeof(exchange_args));
  k.static_local_size = EXCHANGE_STATIC;
  for (int p = 0; p < 2; p++) {
    int32_t out[32];
    weft_arg args[] = {buf_arg(out, sizeof out), local_arg(8 * 4)};
    weft_ndrange r = range1(32, 8); /* 4 work-groups of 2 warps, on one worker */
    weft_stats s;
    exchange_seen_started = 0;
    assert_int_equal(runtime_launch(rt, &k, policies[p], &r, 2, args, &s, err, sizeof err),
                     WEFT_SUCCESS);
    assert_int_equal(exchange_seen_started, 0);
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], 3 * (i / 8 * 8 + (i % 8 + 4) % 8));
    assert_int_equal(s.barriers, 2 * 4);
    assert_int_equal(s.policy_calls, 2 * 8);
  }
  runtime_release(rt);
}

/* ---- NDRange shapes: each work-item once, with its local and group ids ---- */

static uint32_t ids_run(weft_warp_ctx *c) {
  int32_t *out = *(int32_t *const *)c->group->args;
  const weft_group *g = c->group;
  fake_exec(c);
  FOR_LANES(c->mask, i) {
    int32_t code = (int32_t)(c->lid[0][i] | c->lid[1][i] << 4 | c->lid[2][i] << 8 |
                             g->group_id[0] << 12 | g->group_id[1] << 16 | g->group_id[2] << 20);
    out[fake_gid(c, i)] = out[fake_gid(c, i)] == -1 ? code : -2; /* -2: visited twice */
  }
  fake_jump(c, 1);
  return c->event;
}
static const uint32_t ids_ipdom[] = {1};

static void ndrange_shapes(void **state) {
  (void)state;
  static const weft_ndrange ranges[] = {
      {2, {6, 4, 1}, {3, 2, 1}},  /* 6 work-items per group: warps of 4 and 2 lanes */
      {3, {4, 2, 6}, {2, 2, 3}},  /* 12 per group: 3 warps */
      {1, {10, 1, 1}, {5, 1, 1}}, /* x not a multiple of G */
  };
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(2);
  weft_compiled_kernel k = fake_kernel("ids", ids_run, FAKE_SETARGS(loop_setargs), 1, ids_ipdom, 1,
                                       loop_params, 8);
  for (size_t t = 0; t < sizeof ranges / sizeof *ranges; t++) {
    const weft_ndrange *r = &ranges[t];
    size_t n = r->global[0] * r->global[1] * r->global[2];
    int32_t out[64];
    memset(out, 0xff, sizeof out);
    weft_arg args[] = {buf_arg(out, sizeof out)};
    weft_stats s;
    assert_int_equal(launch(rt, &k, r, 1, args, &s), WEFT_SUCCESS);
    for (size_t i = 0; i < n; i++) {
      size_t x = i % r->global[0], y = i / r->global[0] % r->global[1];
      size_t z = i / (r->global[0] * r->global[1]);
      int32_t want = (int32_t)(x % r->local[0] | (y % r->local[1]) << 4 | (z % r->local[2]) << 8 |
                               (x / r->local[0]) << 12 | (y / r->local[1]) << 16 |
                               (z / r->local[2]) << 20);
      assert_int_equal(out[i], want);
    }
    assert_int_equal(out[n], -1);
    size_t items = r->local[0] * r->local[1] * r->local[2];
    assert_int_equal(s.work_groups, n / items);
    assert_int_equal(s.warps, n / items * ((items + 3) / 4));
    assert_int_equal(s.policy_calls, 0); /* no divergence: the warps only reach the end */
    assert_int_equal(s.divergent_branches, 0);
  }
  runtime_release(rt);
}

/* ---- counting: the generated code counts blocks and lanes only for a launch that reports
 *      stats (ctx->counting); each lane writes what its warp was told ---- */

static uint32_t counting_run(weft_warp_ctx *c) {
  int32_t *out = *(int32_t *const *)c->group->args;
  fake_exec(c);
  FOR_LANES(c->mask, i) out[fake_gid(c, i)] = (int32_t)c->counting;
  fake_jump(c, 1);
  return c->event;
}

static void counting_only_with_stats(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(2);
  weft_compiled_kernel k = fake_kernel("counting", counting_run, FAKE_SETARGS(loop_setargs), 1,
                                       ids_ipdom, 1, loop_params, 8);
  int32_t out[32];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(32, 8);
  weft_stats s;
  for (int with = 0; with < 2; with++) {
    memset(out, 0xff, sizeof out);
    assert_int_equal(launch(rt, &k, &r, 1, args, with ? &s : NULL), WEFT_SUCCESS);
    for (int i = 0; i < 32; i++) assert_int_equal(out[i], with);
  }
  runtime_release(rt);
}

/* ---- every argument kind and scalar type through libffi ---- */

typedef struct all_args {
  int8_t a;
  uint8_t b;
  int16_t c;
  uint16_t d;
  int32_t e;
  uint32_t f;
  int64_t g;
  uint64_t h;
  float i;
  double j;
  _Alignas(16) float v[4];
  void *out;
  uint64_t loc;
} all_args;

static void all_setargs(void *block, int8_t a, uint8_t b, int16_t c, uint16_t d, int32_t e,
                        uint32_t f, int64_t g, uint64_t h, float i, double j, const float *v,
                        void *out, uint64_t loc) {
  all_args *x = block;
  *x = (all_args){a, b, c, d, e, f, g, h, i, j, {v[0], v[1], v[2], v[3]}, out, loc};
}

typedef struct all_seen {
  all_args args;
  weft_group group;
  uint64_t args_align, local_align;
} all_seen;

static uint32_t all_run(weft_warp_ctx *c) {
  const all_args *a = c->group->args;
  all_seen *seen = a->out;
  fake_exec(c);
  seen->args = *a;
  seen->group = *c->group;
  seen->args_align = (uintptr_t)a % 64;
  seen->local_align = (uintptr_t)c->group->local_mem % 64 + (uintptr_t)c->frame % 64;
  fake_jump(c, 1);
  return c->event;
}

#define P(nm, t, sz, off) {nm, #t, WEFT_ARG_VALUE, t, 1, sz, offsetof(all_args, off), 0, 0}
static const weft_param all_params[] = {
    P("a", WEFT_I8, 1, a),
    P("b", WEFT_U8, 1, b),
    P("c", WEFT_I16, 2, c),
    P("d", WEFT_U16, 2, d),
    P("e", WEFT_I32, 4, e),
    P("f", WEFT_U32, 4, f),
    P("g", WEFT_I64, 8, g),
    P("h", WEFT_U64, 8, h),
    P("i", WEFT_F32, 4, i),
    P("j", WEFT_F64, 8, j),
    {"v", "float4", WEFT_ARG_VALUE, WEFT_F32, 4, 16, offsetof(all_args, v), 0, 0},
    {"out", "void*", WEFT_ARG_GLOBAL, WEFT_U8, 1, 1, offsetof(all_args, out), 0, 1},
    {"loc", "int*", WEFT_ARG_LOCAL, WEFT_I32, 1, 4, offsetof(all_args, loc), 0, 0},
};
#undef P

static void arguments_through_ffi(void **state) {
  (void)state;
  fake_config(8, 8, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = fake_kernel("all", all_run, FAKE_SETARGS(all_setargs), 1, ids_ipdom, 13,
                                       all_params, sizeof(all_args));
  k.static_local_size = 100; /* the LOCAL argument goes at 128 */
  k.frame_size = 8;
  int8_t a = -5;
  uint8_t b = 250;
  int16_t c = -30000;
  uint16_t d = 60000;
  int32_t e = -2000000000;
  uint32_t f = 4000000000u;
  int64_t g = -(1ll << 60);
  uint64_t h = 1ull << 63;
  float i = 1.5f, v[4] = {1, 2, 3, 4};
  double j = -2.25;
  all_seen seen;
  memset(&seen, 0, sizeof seen);
  weft_arg args[] = {
      {WEFT_ARG_VALUE, WEFT_I8, 1, &a},     {WEFT_ARG_VALUE, WEFT_U8, 1, &b},
      {WEFT_ARG_VALUE, WEFT_I16, 2, &c},    {WEFT_ARG_VALUE, WEFT_U16, 2, &d},
      {WEFT_ARG_VALUE, WEFT_I32, 4, &e},    {WEFT_ARG_VALUE, WEFT_U32, 4, &f},
      {WEFT_ARG_VALUE, WEFT_I64, 8, &g},    {WEFT_ARG_VALUE, WEFT_U64, 8, &h},
      {WEFT_ARG_VALUE, WEFT_F32, 4, &i},    {WEFT_ARG_VALUE, WEFT_F64, 8, &j},
      {WEFT_ARG_VALUE, WEFT_F32, 16, v},    {WEFT_ARG_CONSTANT, WEFT_U8, sizeof seen, &seen},
      {WEFT_ARG_LOCAL, WEFT_I32, 40, NULL},
  };
  weft_ndrange r = range1(16, 8);
  assert_int_equal(launch(rt, &k, &r, 13, args, NULL), WEFT_SUCCESS);
  all_args *x = &seen.args;
  assert_true(x->a == a && x->b == b && x->c == c && x->d == d && x->e == e && x->f == f);
  assert_true(x->g == g && x->h == h && x->i == i && x->j == j);
  assert_true(x->v[0] == 1 && x->v[1] == 2 && x->v[2] == 3 && x->v[3] == 4);
  assert_ptr_equal(x->out, &seen);
  assert_int_equal(x->loc, 128);
  assert_int_equal(seen.args_align, 0);
  assert_int_equal(seen.local_align, 0);
  assert_int_equal(seen.group.work_dim, 1);
  assert_int_equal(seen.group.local_size[0], 8);
  assert_int_equal(seen.group.global_size[0], 16);
  assert_int_equal(seen.group.num_groups[0], 2);
  assert_int_equal(seen.group.local_size[1], 1);
  assert_int_equal(seen.group.x_aligned, 1);
  runtime_release(rt);
}

/* ---- launch errors: each names what is wrong ---- */

static void argument_errors(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = ifelse_kernel();
  int32_t out[8], n = 8;
  float fl = 1;
  int64_t wide = 1;
  weft_ndrange r = range1(8, 4);
  weft_arg args[2] = {buf_arg(out, sizeof out), i32_arg(&n)};
  expect_error(launch(rt, &k, &r, 1, args, NULL), WEFT_ERROR_ARGUMENT,
               "kernel 'ifelse' takes 2 arguments, got 1");
  expect_error(launch(rt, &k, &r, 2, NULL, NULL), WEFT_ERROR_ARGUMENT, "no arguments given");
  args[1] = (weft_arg){WEFT_ARG_VALUE, WEFT_F32, 4, &fl};
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 1 'n': expected i32 (4 bytes), got f32 (4 bytes)");
  args[1] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 8, &wide};
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 1 'n': expected i32 (4 bytes), got i32 (8 bytes)");
  args[1] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, NULL};
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 1 'n': no value given");
  args[1] = buf_arg(out, sizeof out);
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 1 'n': expected a value (int), got a __global buffer");
  args[1] = i32_arg(&n);
  args[0] = i32_arg(&n);
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 0 'out': expected a __global buffer (int*), got a value");
  args[0] = local_arg(16);
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 0 'out': expected a __global buffer (int*), got a __local buffer");
  args[0] = buf_arg(NULL, 32);
  expect_error(launch(rt, &k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT,
               "argument 0 'out': NULL buffer of 32 bytes");
  args[0] = (weft_arg){WEFT_ARG_CONSTANT, WEFT_I32, sizeof out, out}; /* a buffer is a buffer */
  assert_int_equal(launch(rt, &k, &r, 2, args, NULL), WEFT_SUCCESS);

  weft_compiled_kernel x = fake_kernel("exchange", exchange_run, FAKE_SETARGS(exchange_setargs), 3,
                                       exchange_ipdom, 2, exchange_params, sizeof(exchange_args));
  weft_arg xargs[] = {buf_arg(out, sizeof out), local_arg(0)};
  expect_error(launch(rt, &x, &r, 2, xargs, NULL), WEFT_ERROR_ARGUMENT,
               "argument 1 'buf': __local size is 0");
  xargs[1] = local_arg(SIZE_MAX - 10);
  expect_error(launch(rt, &x, &r, 2, xargs, NULL), WEFT_ERROR_ARGUMENT,
               "__local memory size overflows");
  runtime_release(rt);
}

static void ndrange_errors(void **state) {
  (void)state;
  static const struct {
    weft_ndrange r;
    const char *message;
  } cases[] = {
      {{0, {8, 1, 1}, {4, 1, 1}}, "work_dim 0 is not 1, 2 or 3"},
      {{4, {8, 1, 1}, {4, 1, 1}}, "work_dim 4 is not 1, 2 or 3"},
      {{1, {0, 1, 1}, {4, 1, 1}}, "global size in dimension 0 is 0"},
      {{2, {8, 4, 1}, {4, 0, 1}}, "local size in dimension 1 is 0"},
      {{3, {8, 4, 0}, {4, 2, 1}}, "global size in dimension 2 is 0"},
      {{1, {10, 1, 1}, {4, 1, 1}},
       "local size 4 does not divide global size 10 in dimension 0 (OpenCL 1.2"},
      {{2, {64, 64, 1}, {64, 32, 1}}, "work-group size 64x32x1 is above the limit of 1024"},
      {{3, {1ull << 40, 1ull << 40, 1}, {1, 1, 1}}, "the number of work-groups overflows"},
      {{3, {SIZE_MAX, SIZE_MAX, SIZE_MAX}, {SIZE_MAX, SIZE_MAX, SIZE_MAX}},
       "work-group size 18446744073709551615x"},
  };
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = ifelse_kernel();
  int32_t out[8], n = 8;
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&n)};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    expect_error(launch(rt, &k, &cases[i].r, 2, args, NULL), WEFT_ERROR_NDRANGE, cases[i].message);
  expect_error(launch(rt, &k, NULL, 2, args, NULL), WEFT_ERROR_NDRANGE, "no NDRange");
  runtime_release(rt);
}

static uint32_t bad_event_run(weft_warp_ctx *c) {
  c->event = WEFT_EVENT_BRANCH, c->from_pc = 0, c->ntargets = 2;
  c->target_pc[0] = 1, c->target_mask[0] = c->mask; /* both targets claim every lane */
  c->target_pc[1] = 2, c->target_mask[1] = c->mask;
  return c->event;
}

static void other_errors(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(1);
  weft_compiled_kernel k = ifelse_kernel();
  int32_t out[8], n = 8;
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&n)};
  weft_ndrange r = range1(8, 4);
  expect_error(runtime_launch(rt, &k, "mp-nope", &r, 2, args, NULL, err, sizeof err),
               WEFT_ERROR_INVALID_VALUE, "unknown policy 'mp-nope' (known: stack, ");
  expect_error(launch(rt, NULL, &r, 2, args, NULL), WEFT_ERROR_INVALID_VALUE, "NULL");
  weft_compiled_kernel bad = k;
  bad.warp = 6;
  expect_error(launch(rt, &bad, &r, 2, args, NULL), WEFT_ERROR_INVALID_VALUE,
               "compiled kernel 'ifelse' is invalid: warp or lane-group width");
  bad = k, bad.ipdom = (const uint32_t[]){3, 3, 9, 4};
  expect_error(launch(rt, &bad, &r, 2, args, NULL), WEFT_ERROR_INVALID_VALUE, "IPDOM");
  bad = k, bad.args_size = 8; /* n's slot at 8 no longer fits */
  expect_error(launch(rt, &bad, &r, 2, args, NULL), WEFT_ERROR_INVALID_VALUE,
               "parameter 1 is described inconsistently");
  bad = k, bad.run_unaligned = NULL; /* work-groups 3 wide, 2 rows: G does not divide x */
  weft_ndrange rows = {2, {6, 2, 1}, {3, 2, 1}};
  expect_error(launch(rt, &bad, &rows, 2, args, NULL), WEFT_ERROR_INVALID_VALUE,
               "no warp function for work-groups whose x size (3) is not a multiple of G");
  bad = k, bad.run = bad.run_unaligned = bad_event_run;
  expect_error(launch(rt, &bad, &r, 2, args, NULL), WEFT_ERROR_JIT,
               "kernel 'ifelse': bad event 1 from block 0 of warp 0 of work-group (0,0,0)");
  /* No message buffer at all is fine too. */
  assert_int_equal(runtime_launch(rt, &bad, NULL, &r, 2, args, NULL, NULL, 0), WEFT_ERROR_JIT);
  assert_int_equal(runtime_launch(NULL, &k, NULL, &r, 2, args, NULL, NULL, 0),
                   WEFT_ERROR_INVALID_VALUE);
  /* The runtime's own options are checked too. */
  weft_runtime *none = NULL;
  weft_options o = {.threads = 1, .policy = "mp-nope", .warp = 4, .lanes = 4};
  assert_int_equal(runtime_create(&o, &none), WEFT_ERROR_INVALID_VALUE);
  o = (weft_options){.threads = 1, .policy = "stack", .warp = 4, .lanes = 8};
  assert_int_equal(runtime_create(&o, &none), WEFT_ERROR_INVALID_VALUE);
  o = (weft_options){.threads = 0, .policy = "stack", .warp = 32, .lanes = 8};
  assert_int_equal(runtime_create(&o, &none), WEFT_ERROR_INVALID_VALUE);
  assert_null(none);
  weft_options got = runtime_options(rt);
  assert_string_equal(got.policy, "stack");
  runtime_release(rt);
}

/* ---- threads: the same results and stats with 1, 2 and 4 workers ---- */

typedef struct run_result {
  int32_t ifelse[4096], loop[4096], exchange[4080];
  weft_stats s[3];
} run_result;

static void run_three(unsigned threads, run_result *res) {
  fake_config(8, 4, NULL);
  weft_runtime *rt = make_rt(threads);
  weft_compiled_kernel k1 = ifelse_kernel();
  weft_compiled_kernel k2 = fake_kernel("loop", loop_run, FAKE_SETARGS(loop_setargs), 4, loop_ipdom,
                                        1, loop_params, 8);
  k2.frame_size = sizeof(loop_frame);
  weft_compiled_kernel k3 = fake_kernel("exchange", exchange_run, FAKE_SETARGS(exchange_setargs), 3,
                                        exchange_ipdom, 2, exchange_params, sizeof(exchange_args));
  k3.static_local_size = EXCHANGE_STATIC;
  int32_t n = 3000;
  weft_arg a1[] = {buf_arg(res->ifelse, sizeof res->ifelse), i32_arg(&n)};
  weft_arg a2[] = {buf_arg(res->loop, sizeof res->loop)};
  weft_arg a3[] = {buf_arg(res->exchange, sizeof res->exchange), local_arg(24 * 4)};
  weft_ndrange r1 = range1(4096, 64), r2 = {2, {64, 64, 1}, {16, 2, 1}}, r3 = range1(4080, 24);
  for (int rep = 0; rep < 3; rep++) { /* again and again: the workers reuse their buffers */
    assert_int_equal(launch(rt, &k1, &r1, 2, a1, &res->s[0]), WEFT_SUCCESS);
    assert_int_equal(launch(rt, &k2, &r2, 1, a2, &res->s[1]), WEFT_SUCCESS);
    assert_int_equal(launch(rt, &k3, &r3, 2, a3, &res->s[2]), WEFT_SUCCESS);
  }
  runtime_release(rt);
}

static void same_stats(const weft_stats *a, const weft_stats *b) {
  weft_stats x = *a, y = *b;
  x.time_ms = y.time_ms = 0;
  assert_memory_equal(&x, &y, sizeof x);
}

static void threads_agree(void **state) {
  (void)state;
  run_result *one = calloc(1, sizeof *one), *many = calloc(1, sizeof *many);
  run_three(1, one);
  assert_int_equal(one->s[2].barriers, 2 * 4080 / 24);
  assert_int_equal(one->loop[8 * 64 + 7], 28);
  for (unsigned threads = 2; threads <= 4; threads += 2) {
    memset(many, 0, sizeof *many);
    run_three(threads, many);
    assert_memory_equal(one->ifelse, many->ifelse, sizeof one->ifelse);
    assert_memory_equal(one->loop, many->loop, sizeof one->loop);
    assert_memory_equal(one->exchange, many->exchange, sizeof one->exchange);
    for (int i = 0; i < 3; i++) same_stats(&one->s[i], &many->s[i]);
  }
  free(one);
  free(many);
}

/* An error in some work-groups stops a multi-threaded launch and is reported once. */
static void error_with_threads(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(4);
  weft_compiled_kernel k = fake_kernel("divbar", divbar_run, FAKE_SETARGS(loop_setargs), 3,
                                       divbar_ipdom, 1, loop_params, 8);
  k.first_line = divbar_first, k.last_line = k.barrier_line = divbar_last;
  static int32_t out[4096];
  weft_arg args[] = {buf_arg(out, sizeof out)};
  weft_ndrange r = range1(4096, 4);
  weft_stats s;
  for (int rep = 0; rep < 20; rep++) {
    expect_error(launch(rt, &k, &r, 1, args, &s), WEFT_ERROR_DIVERGENT_BARRIER,
                 "divergent barrier in kernel 'divbar' at line 7");
    assert_true(s.work_groups >= 1 && s.work_groups < 1024);
  }
  /* and the runtime still works afterwards */
  fake_config(4, 4, NULL);
  weft_compiled_kernel e = early_kernel();
  int32_t mode = 0;
  weft_arg eargs[] = {buf_arg(out, sizeof out), i32_arg(&mode)};
  assert_int_equal(launch(rt, &e, &r, 2, eargs, &s), WEFT_SUCCESS);
  assert_int_equal(s.work_groups, 1024);
  runtime_release(rt);
}

/* ---- the watchdog: spin(out, n): 0: back to 0, until the launch must stop (kernel.h) ---- */
static const uint32_t spin_ipdom[] = {1}, spin_lines[] = {3};
static uint32_t spin_run(weft_warp_ctx *c) {
  while (!atomic_load_explicit(c->group->stop, memory_order_relaxed)) fake_exec(c);
  c->from_pc = c->target_pc[0] = 0, c->ntargets = 1, c->target_mask[0] = c->mask;
  return c->event = WEFT_EVENT_STOPPED;
}

static weft_runtime *stop_rt;
static atomic_int stop_done;

/* Again and again: a stop that comes before the launch starts does not stop it. */
static void *stop_until_done(void *arg) {
  (void)arg;
  while (!atomic_load(&stop_done)) runtime_stop(stop_rt), usleep(10 * 1000);
  return NULL;
}

/* A warp that would spin forever is stopped by the timeout, or by runtime_stop from another
 * thread, on every worker, with the report of where it was. */
static void timeout_and_stop_end_a_spinning_launch(void **state) {
  (void)state;
  fake_config(4, 4, NULL);
  weft_runtime *rt = make_rt(2);
  weft_compiled_kernel k = fake_kernel("spin", spin_run, FAKE_SETARGS(ifelse_setargs), 1,
                                       spin_ipdom, 2, ifelse_params, sizeof(ifelse_args));
  k.first_line = k.last_line = spin_lines;
  int32_t out[16], n = 0;
  weft_arg args[] = {buf_arg(out, sizeof out), i32_arg(&n)};
  weft_ndrange r = range1(16, 8);
  char msg[4096];
  runtime_set_timeout(rt, 0.05);
  assert_int_equal(runtime_launch(rt, &k, NULL, &r, 2, args, NULL, msg, sizeof msg),
                   WEFT_ERROR_TIMEOUT);
  assert_non_null(strstr(msg, "kernel 'spin' stopped after"));
  assert_non_null(strstr(msg, "it ran longer than its timeout of 0.05 s\n"));
  assert_non_null(strstr(msg, "  lanes 1111 were running the loop at line 3 (B0)\n"));
  runtime_set_timeout(rt, 0);
  pthread_t t;
  stop_rt = rt;
  assert_int_equal(pthread_create(&t, NULL, stop_until_done, NULL), 0);
  assert_int_equal(runtime_launch(rt, &k, NULL, &r, 2, args, NULL, msg, sizeof msg),
                   WEFT_ERROR_STOPPED);
  atomic_store(&stop_done, 1);
  pthread_join(t, NULL);
  assert_non_null(strstr(msg, "it was asked to stop"));
  runtime_release(rt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(ifelse_results_and_stats),
      cmocka_unit_test(loop_per_lane_trip_count),
      cmocka_unit_test(chained_first_calls),
      cmocka_unit_test(early_return),
      cmocka_unit_test(barrier_after_return),
      cmocka_unit_test(divergent_barrier),
      cmocka_unit_test(different_barriers),
      cmocka_unit_test(barrier_local_exchange),
      cmocka_unit_test(barrier_without_policy),
      cmocka_unit_test(ndrange_shapes),
      cmocka_unit_test(counting_only_with_stats),
      cmocka_unit_test(arguments_through_ffi),
      cmocka_unit_test(argument_errors),
      cmocka_unit_test(ndrange_errors),
      cmocka_unit_test(other_errors),
      cmocka_unit_test(threads_agree),
      cmocka_unit_test(error_with_threads),
      cmocka_unit_test(timeout_and_stop_end_a_spinning_launch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
