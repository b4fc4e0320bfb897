/* weft_kernel_launch_traced: tracing changes neither the results nor the stats of a launch (on
 * kernels with loops, barriers, calls and several warps and work-groups, under every policy);
 * the steps belong to the traced work-group and warps, in order; on_step can stop the trace;
 * a work-group or warp that does not exist is an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "weft.h"

/* A kernel and its launch: i32 buffers (iota or zero) and __local i32 arrays, in order. */
typedef struct buffer {
  weft_arg_kind kind;
  size_t count;
  int iota;
} buffer;

typedef struct kernel_case {
  const char *path, *name;
  unsigned warp, lanes;
  weft_ndrange range;
  uint64_t group; /* the work-group to trace */
  int nbufs;
  buffer bufs[3];
} kernel_case;

static const kernel_case cases[] = {
    {WEFT_SOURCE_DIR "/samples/teaching/mp_fig10.cl",
     "mp_fig10",
     4,
     4,
     {1, {4}, {4}},
     0,
     2,
     {{WEFT_ARG_GLOBAL, 4, 1}, {WEFT_ARG_GLOBAL, 4, 0}}},
    {WEFT_SOURCE_DIR "/samples/teaching/collange_listing1.cl",
     "collange_listing1",
     4,
     4,
     {1, {4}, {4}},
     0,
     2,
     {{WEFT_ARG_GLOBAL, 8, 1}, {WEFT_ARG_GLOBAL, 4, 0}}},
    {WEFT_SOURCE_DIR "/tests/kernels/prefix_sum.cl",
     "prefix_sum",
     8,
     4,
     {1, {128}, {64}},
     1,
     3,
     {{WEFT_ARG_GLOBAL, 128, 1}, {WEFT_ARG_GLOBAL, 128, 0}, {WEFT_ARG_LOCAL, 64, 0}}},
    {WEFT_SOURCE_DIR "/tests/kernels/loop_divergent_trip.cl",
     "loop_divergent_trip",
     8,
     4,
     {1, {64}, {32}},
     1,
     2,
     {{WEFT_ARG_GLOBAL, 64, 1}, {WEFT_ARG_GLOBAL, 64, 0}}},
};

typedef struct launched {
  weft_context *ctx;
  weft_program *program;
  weft_kernel *kernel;
  weft_arg args[3];
  int32_t *mem[3];
} launched;

static void open_case(launched *l, const kernel_case *c) {
  weft_options o = {.threads = 2, .warp = c->warp, .lanes = c->lanes};
  assert_int_equal(weft_context_create(&o, &l->ctx), WEFT_SUCCESS);
  if (weft_program_build_file(l->ctx, c->path, NULL, &l->program))
    fail_msg("%s: %s", c->path, weft_last_error(l->ctx));
  assert_int_equal(weft_kernel_create(l->program, c->name, &l->kernel), WEFT_SUCCESS);
  for (int i = 0; i < c->nbufs; i++) {
    size_t bytes = c->bufs[i].count * sizeof(int32_t);
    l->mem[i] = c->bufs[i].kind == WEFT_ARG_LOCAL ? NULL : malloc(bytes);
    l->args[i] = (weft_arg){c->bufs[i].kind, WEFT_I32, bytes, l->mem[i]};
  }
}

static void fill(launched *l, const kernel_case *c) {
  for (int i = 0; i < c->nbufs; i++)
    for (size_t j = 0; l->mem[i] && j < c->bufs[i].count; j++)
      l->mem[i][j] = c->bufs[i].iota ? (int32_t)(j * 7 % 23) : 0;
}

static void close_case(launched *l, const kernel_case *c) {
  for (int i = 0; i < c->nbufs; i++) free(l->mem[i]);
  weft_kernel_release(l->kernel);
  weft_program_release(l->program);
  weft_context_release(l->ctx);
}

/* What on_step saw. */
typedef struct seen {
  uint64_t group[3];
  int warp; /* the only warp expected, -1: any */
  unsigned calls, stop_at;
  uint64_t blocks;
} seen;

static int on_step(void *user, const weft_trace_step *s) {
  seen *v = user;
  assert_int_equal(s->step, v->calls);
  assert_memory_equal(s->group_id, v->group, sizeof v->group);
  if (v->warp >= 0) assert_int_equal(s->warp, v->warp);
  assert_true(s->mask != 0 && s->state_text[0] && s->state_json[0] == '{');
  assert_true(s->blocks >= 1 && s->groups_run >= s->blocks &&
              (s->groups_run + s->groups_skipped) % s->blocks == 0);
  v->blocks += s->blocks;
  return ++v->calls == v->stop_at;
}

/* The stats without the time, which differs from launch to launch, and the round trips: a
 * traced warp returns to the runtime at every step, even with the policy in code. */
static void untimed(weft_stats *s) { s->time_ms = 0, s->round_trips = 0; }

static void same_with_and_without_trace(void **state) {
  (void)state;
  static const char *const policies[] = {"stack", "mp", "mp-orec", "pc"};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const kernel_case *c = &cases[k];
    launched l;
    open_case(&l, c);
    size_t out_bytes = l.args[1].size;
    int32_t *plain = malloc(out_bytes);
    for (int p = 0; p < 4; p++) {
      weft_stats a, b;
      assert_int_equal(weft_context_set_policy(l.ctx, policies[p]), WEFT_SUCCESS);
      fill(&l, c);
      assert_int_equal(weft_kernel_launch(l.kernel, &c->range, (unsigned)c->nbufs, l.args, &a),
                       WEFT_SUCCESS);
      memcpy(plain, l.mem[1], out_bytes);
      fill(&l, c);
      seen v = {.group = {c->group}, .warp = -1};
      weft_trace_options t = {on_step, &v, c->group, -1};
      if (weft_kernel_launch_traced(l.kernel, &c->range, (unsigned)c->nbufs, l.args, &b, &t))
        fail_msg("%s under %s: %s", c->name, policies[p], weft_last_error(l.ctx));
      untimed(&a), untimed(&b);
      if (memcmp(&a, &b, sizeof a))
        fail_msg("%s under %s: traced stats differ", c->name, policies[p]);
      assert_memory_equal(plain, l.mem[1], out_bytes);
      assert_true(v.calls > 0 && v.blocks <= a.block_execs);
    }
    free(plain);
    close_case(&l, c);
  }
}

/* One warp of work-group 1, and a trace stopped after 3 steps while the launch goes on. */
static void selects_and_stops(void **state) {
  (void)state;
  const kernel_case *c = &cases[2]; /* prefix_sum: 2 work-groups of 8 warps */
  launched l;
  open_case(&l, c);
  fill(&l, c);
  seen v = {.group = {1}, .warp = 5};
  weft_trace_options t = {on_step, &v, 1, 5};
  assert_int_equal(weft_kernel_launch_traced(l.kernel, &c->range, 3, l.args, NULL, &t),
                   WEFT_SUCCESS);
  assert_true(v.calls > 3);
  int32_t full = l.mem[1][127];
  fill(&l, c);
  seen w = {.group = {0}, .warp = -1, .stop_at = 3};
  t = (weft_trace_options){on_step, &w, 0, -1};
  assert_int_equal(weft_kernel_launch_traced(l.kernel, &c->range, 3, l.args, NULL, &t),
                   WEFT_SUCCESS);
  assert_int_equal(w.calls, 3);
  assert_int_equal(l.mem[1][127], full); /* the launch ran to its end */
  close_case(&l, c);
}

static void bad_selection_is_an_error(void **state) {
  (void)state;
  const kernel_case *c = &cases[2];
  launched l;
  open_case(&l, c);
  seen v = {.warp = -1};
  weft_trace_options t = {on_step, &v, 2, -1};
  assert_int_equal(weft_kernel_launch_traced(l.kernel, &c->range, 3, l.args, NULL, &t),
                   WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(weft_last_error(l.ctx), "cannot trace work-group 2"));
  t = (weft_trace_options){on_step, &v, 0, 8};
  assert_int_equal(weft_kernel_launch_traced(l.kernel, &c->range, 3, l.args, NULL, &t),
                   WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(weft_last_error(l.ctx), "cannot trace warp 8"));
  t = (weft_trace_options){NULL, &v, 0, -1};
  assert_int_equal(weft_kernel_launch_traced(l.kernel, &c->range, 3, l.args, NULL, &t),
                   WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(v.calls, 0);
  close_case(&l, c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_with_and_without_trace),
      cmocka_unit_test(selects_and_stops),
      cmocka_unit_test(bad_selection_is_an_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
