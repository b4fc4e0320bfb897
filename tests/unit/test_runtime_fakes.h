/* Hand-written "compiled" kernels for the runtime's tests: each is a weft_compiled_kernel whose
 * warp function is C code that does what kernel.h asks of generated code -- runs blocks for the
 * lanes ctx->mask from ctx->pc, jumps inline while the lanes agree on a successor below the guard,
 * and otherwise returns an event -- plus a setargs that fills its argument block.
 *
 * W and G are chosen per test (fake_config); the warp functions read them from here, because the
 * runtime does not pass the kernel to the warp function. They are set before a launch and only
 * read while it runs. */
#ifndef TEST_RUNTIME_FAKES_H
#define TEST_RUNTIME_FAKES_H

#include <stdint.h>
#include <string.h>

#include "runtime.h"

static unsigned fake_w = 4, fake_g = 4;
static const uint32_t *fake_ninstr;

/* Accounts one execution of block c->pc, as generated code does. */
static inline void fake_exec(weft_warp_ctx *c) {
  uint32_t n = fake_ninstr ? fake_ninstr[c->pc] : 1;
  uint64_t gmask = rt_first_lanes(fake_g);
  c->block_execs++;
  c->instr_execs += n;
  c->lane_instrs += (uint64_t)__builtin_popcountll(c->mask) * n;
  for (unsigned g = 0; g < fake_w; g += fake_g) c->groups_run += (c->mask >> g & gmask) != 0;
}

/* The lanes of the current block go to `to` together: 1 when the warp goes on inline at c->pc,
 * 0 when the caller must return the BRANCH event. */
static inline int fake_jump(weft_warp_ctx *c, uint32_t to) {
  if (to < c->guard) return c->pc = to, 1;
  c->event = WEFT_EVENT_BRANCH, c->from_pc = c->pc, c->ntargets = 1;
  c->target_pc[0] = to, c->target_mask[0] = c->mask;
  return 0;
}

/* A two-way branch: lanes `taken` go to t, the others to f (t < f). */
static inline int fake_branch(weft_warp_ctx *c, uint32_t t, uint64_t taken, uint32_t f) {
  taken &= c->mask;
  if (taken == c->mask) return fake_jump(c, t);
  if (taken == 0) return fake_jump(c, f);
  c->event = WEFT_EVENT_BRANCH, c->from_pc = c->pc, c->ntargets = 2;
  c->target_pc[0] = t, c->target_mask[0] = taken;
  c->target_pc[1] = f, c->target_mask[1] = c->mask & ~taken;
  return 0;
}

static inline uint32_t fake_barrier(weft_warp_ctx *c, uint32_t resume) {
  c->event = WEFT_EVENT_BARRIER, c->from_pc = c->pc, c->ntargets = 1;
  c->target_pc[0] = resume, c->target_mask[0] = c->mask;
  return c->event;
}

/* Lane i's global linear id (x fastest) and local linear id. */
static inline uint64_t fake_gid(const weft_warp_ctx *c, uint64_t i) {
  const weft_group *g = c->group;
  uint64_t x = g->group_id[0] * g->local_size[0] + c->lid[0][i];
  uint64_t y = g->group_id[1] * g->local_size[1] + c->lid[1][i];
  uint64_t z = g->group_id[2] * g->local_size[2] + c->lid[2][i];
  return x + g->global_size[0] * (y + g->global_size[1] * z);
}
static inline uint32_t fake_lid(const weft_warp_ctx *c, uint64_t i) {
  const weft_group *g = c->group;
  uint32_t lx = (uint32_t)g->local_size[0], ly = (uint32_t)g->local_size[1];
  return c->lid[0][i] + lx * (c->lid[1][i] + ly * c->lid[2][i]);
}
/* The active lanes for which pred holds. */
static inline uint64_t fake_lanes_where(const weft_warp_ctx *c,
                                        int (*pred)(const weft_warp_ctx *, uint64_t)) {
  uint64_t m = 0;
  FOR_LANES(c->mask, i) if (pred(c, i)) m |= 1ull << i;
  return m;
}

#define FAKE_PARAM_GLOBAL(nm, tn, off) {nm, tn, WEFT_ARG_GLOBAL, WEFT_I32, 1, 4, off, 0, 4}
#define FAKE_PARAM_I32(nm, off) {nm, "int", WEFT_ARG_VALUE, WEFT_I32, 1, 4, off, 0, 0}
#define FAKE_PARAM_LOCAL(nm, off) {nm, "int*", WEFT_ARG_LOCAL, WEFT_I32, 1, 4, off, 0, 0}

/* ---- ifelse(global int *out, int n): A: if (lid even) B: out = 2*gid; else C: out = 3*gid;
 *      D: if (gid < n) out += 1000 ---- */
typedef struct ifelse_args {
  int32_t *out;
  int32_t n;
} ifelse_args;
static void ifelse_setargs(void *block, int32_t *out, int32_t n) {
  *(ifelse_args *)block = (ifelse_args){out, n};
}
static int lid_even(const weft_warp_ctx *c, uint64_t i) { return (c->lid[0][i] & 1) == 0; }
static uint32_t ifelse_run(weft_warp_ctx *c) {
  const ifelse_args *a = c->group->args;
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      if (!fake_branch(c, 1, fake_lanes_where(c, lid_even), 2)) return c->event;
      break;
    case 1:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = 2 * (int32_t)fake_gid(c, i);
      if (!fake_jump(c, 3)) return c->event;
      break;
    case 2:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = 3 * (int32_t)fake_gid(c, i);
      if (!fake_jump(c, 3)) return c->event;
      break;
    default:
      FOR_LANES(c->mask, i) if ((int64_t)fake_gid(c, i) < a->n) a->out[fake_gid(c, i)] += 1000;
      if (!fake_jump(c, 4)) return c->event;
      break;
    }
  }
}
static const uint32_t ifelse_ipdom[] = {3, 3, 3, 4};
static const uint32_t ifelse_ninstr[] = {2, 3, 3, 1};
static const uint32_t ifelse_lines[] = {2, 3, 5, 7};
static const weft_param ifelse_params[] = {FAKE_PARAM_GLOBAL("out", "int*", 0),
                                           FAKE_PARAM_I32("n", 8)};

/* ---- loop(global int *out): lane i of its warp iterates i times: acc = 1 + 2 + ... + i.
 *      0: cnt = acc = 0; 1: while (cnt < lane) { 2: cnt++; acc += cnt; } 3: out = acc ---- */
typedef struct loop_frame {
  uint32_t cnt[WEFT_MAX_WARP];
  int32_t acc[WEFT_MAX_WARP];
} loop_frame;
static void loop_setargs(void *block, int32_t *out) { *(int32_t **)block = out; }
static int loop_more(const weft_warp_ctx *c, uint64_t i) {
  return ((loop_frame *)c->frame)->cnt[i] < i;
}
static uint32_t loop_run(weft_warp_ctx *c) {
  int32_t *out = *(int32_t *const *)c->group->args;
  loop_frame *f = (loop_frame *)c->frame;
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      FOR_LANES(c->mask, i) f->cnt[i] = 0, f->acc[i] = 0;
      if (!fake_jump(c, 1)) return c->event;
      break;
    case 1:
      if (!fake_branch(c, 2, fake_lanes_where(c, loop_more), 3)) return c->event;
      break;
    case 2:
      FOR_LANES(c->mask, i) f->acc[i] += (int32_t)++f->cnt[i];
      if (!fake_jump(c, 1)) return c->event;
      break;
    default:
      FOR_LANES(c->mask, i) out[fake_gid(c, i)] = f->acc[i];
      if (!fake_jump(c, 4)) return c->event;
      break;
    }
  }
}
static const uint32_t loop_ipdom[] = {1, 3, 1, 4};
static const uint32_t loop_ninstr[] = {1, 2, 3, 1};
static const weft_param loop_params[] = {FAKE_PARAM_GLOBAL("out", "int*", 0)};

/* ---- early(global int *out, int mode): 0: if (returns) 1: return; 2: out = gid; [barrier]
 *      mode 0: odd lanes return, no barrier; mode 1: odd lanes return, then a barrier;
 *      mode 2: work-items with local id >= 4 return, then a barrier ---- */
typedef struct early_args {
  int32_t *out;
  int32_t mode;
} early_args;
static void early_setargs(void *block, int32_t *out, int32_t mode) {
  *(early_args *)block = (early_args){out, mode};
}
static int early_returns(const weft_warp_ctx *c, uint64_t i) {
  const early_args *a = c->group->args;
  return a->mode == 2 ? fake_lid(c, i) >= 4 : (c->lid[0][i] & 1);
}
static uint32_t early_run(weft_warp_ctx *c) {
  const early_args *a = c->group->args;
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      if (!fake_branch(c, 1, fake_lanes_where(c, early_returns), 2)) return c->event;
      break;
    case 1:
      if (!fake_jump(c, 3)) return c->event;
      break;
    default:
      FOR_LANES(c->mask, i) a->out[fake_gid(c, i)] = (int32_t)fake_gid(c, i);
      if (a->mode) return fake_barrier(c, 3);
      if (!fake_jump(c, 3)) return c->event;
      break;
    }
  }
}
static const uint32_t early_ipdom[] = {3, 3, 3};
static const uint32_t early_lines[] = {10, 11, 12};
static const weft_param early_params[] = {FAKE_PARAM_GLOBAL("out", "int*", 0),
                                          FAKE_PARAM_I32("mode", 8)};

/* ---- exchange(global int *out, local int *buf): two barriers and __local memory shared by
 *      the warps, both the kernel's own array and a LOCAL argument:
 *      0: tmp[lid] = gid; buf[lid] = 2*gid; barrier;
 *      1: r = (lid + W) % size; out[gid] = tmp[r] + buf[r]; barrier;   2: return ---- */
#define EXCHANGE_STATIC (4 * RT_MAX_GROUP_ITEMS)
typedef struct exchange_args {
  int32_t *out;
  uint64_t buf;
} exchange_args;
static void exchange_setargs(void *block, int32_t *out, uint64_t buf) {
  *(exchange_args *)block = (exchange_args){out, buf};
}
static uint32_t exchange_run(weft_warp_ctx *c) {
  const exchange_args *a = c->group->args;
  int32_t *tmp = (int32_t *)c->group->local_mem;
  int32_t *buf = (int32_t *)(c->group->local_mem + a->buf);
  uint32_t size = (uint32_t)(c->group->local_size[0] * c->group->local_size[1] *
                             c->group->local_size[2]);
  fake_exec(c);
  switch (c->pc) {
  case 0:
    FOR_LANES(c->mask, i) {
      tmp[fake_lid(c, i)] = (int32_t)fake_gid(c, i);
      buf[fake_lid(c, i)] = 2 * (int32_t)fake_gid(c, i);
    }
    return fake_barrier(c, 1);
  case 1:
    FOR_LANES(c->mask, i) {
      uint32_t r = (fake_lid(c, i) + fake_w) % size;
      a->out[fake_gid(c, i)] = tmp[r] + buf[r];
    }
    return fake_barrier(c, 2);
  default: fake_jump(c, 3); return c->event;
  }
}
static const uint32_t exchange_ipdom[] = {1, 2, 3};
static const weft_param exchange_params[] = {FAKE_PARAM_GLOBAL("out", "int*", 0),
                                             FAKE_PARAM_LOCAL("buf", 8)};

/* ---- divbar(global int *out): 0: if (lid odd) { 1: barrier; } 2: out = 1 ---- */
static uint32_t divbar_run(weft_warp_ctx *c) {
  int32_t *out = *(int32_t *const *)c->group->args;
  for (;;) {
    fake_exec(c);
    switch (c->pc) {
    case 0:
      if (!fake_branch(c, 1, ~fake_lanes_where(c, lid_even), 2)) return c->event;
      break;
    case 1: return fake_barrier(c, 2);
    default:
      FOR_LANES(c->mask, i) out[fake_gid(c, i)] = 1;
      if (!fake_jump(c, 3)) return c->event;
      break;
    }
  }
}
static const uint32_t divbar_ipdom[] = {2, 2, 3};
static const uint32_t divbar_first[] = {4, 5, 6}, divbar_last[] = {4, 7, 8};

/* A kernel description around a warp function. */
static inline weft_compiled_kernel fake_kernel(const char *name, weft_warp_fn run,
                                               void (*setargs)(void), unsigned nblocks,
                                               const uint32_t *ipdom, unsigned nparams,
                                               const weft_param *params, size_t args_size) {
  return (weft_compiled_kernel){.name = name,
                                .warp = fake_w,
                                .lanes = fake_g,
                                .nblocks = nblocks,
                                .ipdom = ipdom,
                                .ninstr = fake_ninstr,
                                .args_size = args_size,
                                .nparams = nparams,
                                .params = params,
                                .run = run,
                                .run_unaligned = run,
                                .setargs = setargs};
}
#define FAKE_SETARGS(f) ((void (*)(void))(f))

static inline void fake_config(unsigned w, unsigned g, const uint32_t *ninstr) {
  fake_w = w, fake_g = g, fake_ninstr = ninstr;
}

/* ---- launching the fakes: arguments, the error text, checking it ---- */

static char err[RT_ERR_LEN] __attribute__((unused)); /* the last launch's message */

static inline weft_arg buf_arg(void *p, size_t bytes) {
  return (weft_arg){WEFT_ARG_GLOBAL, WEFT_I32, bytes, p};
}
static inline weft_arg i32_arg(const int32_t *v) {
  return (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, v};
}
static inline weft_arg local_arg(size_t bytes) {
  return (weft_arg){WEFT_ARG_LOCAL, WEFT_I32, bytes, NULL};
}
static inline weft_ndrange range1(size_t global, size_t local) {
  return (weft_ndrange){1, {global, 1, 1}, {local, 1, 1}};
}

/* The status must be `want` and the message in err one line that contains message_part. */
static inline void expect_error(weft_status got, weft_status want, const char *message_part) {
  if (got != want)
    fail_msg("status %s, expected %s (%s)", weft_status_name(got), weft_status_name(want), err);
  if (!strstr(err, message_part)) fail_msg("message '%s' lacks '%s'", err, message_part);
  assert_null(strchr(err, '\n'));
}

#endif
