/* Internal interface of weft's runtime, one section per file (as QBE's all.h).
 *
 * A launch (launch.c) checks the NDRange and the arguments against the compiled kernel, builds the
 * argument block with libffi, and hands work-group indices to the worker pool (pool.c). A worker
 * runs whole work-groups with the scheduler (scheduler.c): it runs the splits of each warp that
 * the reconvergence policy (policy.c, policy_<name>.c) picks, feeds the warp function's events back
 * to the policy, and completes barriers, until every work-item has finished. Counters end up in
 * the launch's weft_stats (stats.c). The generated code is reached only through kernel.h; no LLVM
 * header is included anywhere in runtime/.
 */
#ifndef WEFT_RUNTIME_H
#define WEFT_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "kernel.h"
#include "weft.h"

#define RT_CACHE_LINE 64
#define RT_MAX_GROUP_ITEMS 1024 /* work-items per work-group, as OpenCL devices commonly allow */
#define RT_ERR_LEN 256          /* bytes of an error message kept per worker */

static inline size_t rt_align64(size_t n) { return (n + 63) & ~(size_t)63; }
/* The mask of lanes 0..n-1, n at most 64. */
static inline uint64_t rt_first_lanes(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
/* Every lane i in mask m, lowest first: the one way to visit the active lanes of a mask. */
#define FOR_LANES(m, i) \
  for (uint64_t m_ = (m), i; m_ && ((i) = (uint64_t)__builtin_ctzll(m_), 1); m_ &= m_ - 1)
/* Whether get_local_id(0) is lane-affine in every lane group of G lanes of r's work-groups: a
 * lane group holds G consecutive work-items, whose x ids are consecutive unless the group wraps
 * from one x row to the next, which a work-group of one row never does. */
static inline int rt_x_aligned(const weft_ndrange *r, unsigned lanes) {
  uint64_t rows = (r->dims > 1 ? r->local[1] : 1) * (r->dims > 2 ? r->local[2] : 1);
  return r->local[0] % lanes == 0 || rows == 1;
}

/* Milliseconds on the monotonic clock: launch times, and the build's phases (compiler/). */
static inline double rt_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* --- status.c: status names and one-line error messages --- */
/* Writes the message into err (when err and errlen allow) and returns status. */
weft_status rt_error(char *err, size_t errlen, weft_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* JSON members after the first of an object: `, "key": "0101"` (weft_mask_string) and
 * `, "key": 3` (a block or slot number; null when it is `none`). */
void rt_json_mask(FILE *f, const char *key, uint64_t mask, unsigned width);
void rt_json_index(FILE *f, const char *key, uint32_t x, uint32_t none);

/* --- policy.c: reconvergence policies behind one table, chosen by name --- */
/* policy_counters: in kernel.h, since generated code counts into them too. */

/* How a policy with many runnable splits (mp, mp-orec) picks them; the others ignore it. Made
 * from weft_options' split_order and max_splits. */
typedef enum split_order_kind {
  SPLIT_RR,        /* round robin over the split table's slots, as the MP paper simulates */
  SPLIT_LOWEST_PC, /* the ready split with the smallest PC (ties: the lowest slot); the default:
                      the code can follow it, so structured branches and a loop's later exits
                      run there without a return (kernel.h, WEFT_REGIONS_LOWEST_PC) */
} split_order_kind;

typedef struct policy_config {
  split_order_kind order;
  unsigned max_splits; /* runnable splits per warp, 2..W; a split past it waits (paper's Sec. 5) */
} policy_config;

/* The config of weft_options' split_order (NULL: "lowest-pc") and max_splits (0, or above W: W) for
 * warps of width warp; WEFT_ERROR_INVALID_VALUE with the reason in why for anything else. */
weft_status policy_config_make(const char *split_order, unsigned max_splits, unsigned warp,
                               policy_config *cfg, char *why, size_t n);
const char *split_order_name(split_order_kind order); /* "rr", "lowest-pc" */

/* One reconvergence policy, as QBE's struct Target: the scheduler only talks to a policy through
 * this table, so `stack`, `mp`/`mp-orec` (split + reconvergence tables, many runnable splits) and
 * `pc` (a PC per lane, min-PC arbitration) all fit behind it.
 *
 * The state of one warp is an opaque block of state_size(k) bytes, 64-byte aligned, owned by the
 * scheduler. The protocol for one warp is:
 *     init(live)
 *     while next() gives a split: run it from (pc, mask, guard); hand the warp function's event
 *         to branch() or barrier_arrive() -- always before the next call of next(), so a policy
 *         with many splits knows which split the event belongs to (the one next() returned last).
 *     when no warp of the work-group can run: the scheduler reads barrier_waiting() and
 *         finished() of every warp and, when every work-item waits at the same barrier, calls
 *         barrier_release() on each.
 * A policy never blocks and never loops: every call does a bounded amount of work. Events reach
 * the policy already checked (scheduler.c: targets <= nblocks, in PC order, disjoint non-empty
 * masks whose union is the split's mask). A returned error status is a user error in the kernel
 * (WEFT_ERROR_DIVERGENT_BARRIER, WEFT_ERROR_BARRIER_DEADLOCK); the scheduler writes the message. */
typedef struct weft_policy_ops {
  const char *name;
  size_t (*state_size)(const weft_compiled_kernel *k);
  /* A warp whose lanes `live` start at PC 0; the other lanes do not exist. */
  void (*init)(void *st, const weft_compiled_kernel *k, const policy_config *cfg, uint64_t live);
  /* One runnable split: 1 and its first block, lanes and guard (the point the policy published:
   * a branch to a PC >= guard must come back as an event); 0 when no split can run (the warp
   * finished, or waits at a barrier, or waits for lanes that wait at one). */
  int (*next)(void *st, uint32_t *pc, uint64_t *mask, uint32_t *guard);
  /* The split returned BRANCH: ntargets == 1 is an arrival at a PC >= guard, 2+ a divergence. */
  weft_status (*branch)(void *st, const weft_warp_ctx *ctx, policy_counters *c);
  /* The split's lanes ctx->mask reached the barrier ending block ctx->from_pc. */
  weft_status (*barrier_arrive)(void *st, const weft_warp_ctx *ctx, policy_counters *c);
  /* Lanes waiting at a barrier (0: none) and the block that the barrier ends. */
  uint64_t (*barrier_waiting)(const void *st, uint32_t *barrier_pc);
  /* The work-group's barrier completed: the waiting lanes go on after it. */
  void (*barrier_release)(void *st, policy_counters *c);
  /* Lanes that reached the kernel's end (PC nblocks). */
  uint64_t (*finished)(const void *st);
  /* Where each live lane is, for a stopped launch's report (watchdog.c): pc[i] is the block
   * lane i runs or waits at (its split's PC, the reconvergence point it waits at, where it
   * resumes after a barrier; nblocks when finished). The lanes of a split that was running
   * show where it started. */
  void (*lane_pcs)(const void *st, uint32_t pc[WEFT_MAX_WARP]);
  /* The state for people: several lines, ending in '\n'. */
  void (*print)(FILE *f, const void *st);
  /* The same state as one JSON object, for traces (trace.c); masks as print shows them. */
  void (*print_json)(FILE *f, const void *st);
  /* NULL, or frees what the calls since init allocated; the scheduler calls it once for every
   * init, when the warp's work-group is over (finished or failed). */
  void (*release)(void *st);
  /* For a policy whose split order the code can follow (kernel.h, WEFT_REGIONS_LOWEST_PC):
   * ahead() is ctx->ahead for the split next() gave; after a call in which branches ran masked,
   * regions_ran() makes the state and counters what the policy's own steps would have left
   * (ctx->region_*), st NULL for a warp that ended in its first call, before any state. */
  uint32_t (*ahead)(const void *st);
  void (*regions_ran)(void *st, const weft_warp_ctx *ctx, policy_counters *c);
} weft_policy_ops;

/* NULL when no policy has that name. */
const weft_policy_ops *policy_find(const char *name);
/* The known names, comma-separated, for error messages. */
void policy_names(char *buf, size_t n);

/* For a policy's steps in generated code (kernel.h, ctx->policy): the warp's state starts at its
 * first step, with `init`, the kernel and the call's lanes. 0 when the step is the warp's end
 * without an earlier one: the warp finished, all its lanes together, and needs no state. */
static inline int rt_step_started(weft_warp_ctx *ctx,
                                  void (*init)(void *st, const weft_compiled_kernel *k,
                                               const policy_config *cfg, uint64_t live)) {
  if (ctx->started) return 1;
  if (ctx->ntargets == 1 && ctx->target_pc[0] >= ctx->kernel->nblocks) return 0;
  init(ctx->policy, ctx->kernel, NULL, ctx->mask);
  return ctx->started = 1;
}

/* --- policy_stack.c: the IPDOM reconvergence stack (`stack`) --- */
extern const weft_policy_ops policy_stack;
/* The steps generated code takes (kernel.h): an arrival, a divergence. */
uint32_t weft_stack_arrive(weft_warp_ctx *ctx);
uint32_t weft_stack_diverge(weft_warp_ctx *ctx);
uint32_t weft_stack_leave(weft_warp_ctx *ctx); /* a loop's exit: the top entry narrows */
uint32_t weft_stack_open(weft_warp_ctx *ctx, uint32_t r); /* the first: an entry for R */

/* --- policy_mp.c: multi-path IPDOM, split + reconvergence tables (`mp`, `mp-orec`) --- */
extern const weft_policy_ops policy_mp, policy_mp_orec;

/* --- policy_pc.c: stack-less reconvergence by PC arbitration (`pc`) --- */
extern const weft_policy_ops policy_pc;
/* Its steps in generated code, as `stack`'s. */
uint32_t weft_pc_arrive(weft_warp_ctx *ctx);
uint32_t weft_pc_diverge(weft_warp_ctx *ctx);
void weft_pc_leave(weft_warp_ctx *ctx, uint32_t exit); /* a loop's exit: the split narrows */

/* --- stats.c: counters of a work-group, a worker and a launch --- */
typedef struct run_counters {
  uint64_t work_groups, warps, barriers;
  uint64_t round_trips; /* calls into the warp function after a warp's first (weft_stats) */
  uint64_t block_execs, instr_execs, lane_instrs, groups_run; /* from the warp function */
  policy_counters policy;
} run_counters;

void counters_add_warp(run_counters *c, const weft_warp_ctx *ctx, const policy_counters *pc);
void counters_add(run_counters *sum, const run_counters *part);
/* The public stats of a launch of k from its summed counters. */
void stats_fill(weft_stats *s, const run_counters *c, const weft_compiled_kernel *k, double ms);
/* A launch's stats as one JSON object on one line, as `weft run --stats-json` and the OpenCL
 * ICD's WEFT_STATS write them: the kernel's name, the context's options w, the NDRange, the
 * number of launches the time is the median of, and the counts. */
void stats_write_json(FILE *f, const char *kernel, const weft_options *w, const weft_ndrange *r,
                      unsigned repeat, const weft_stats *st);
/* s as a JSON string: quoted, with '"', '\\' and control characters escaped. */
void json_string(FILE *f, const char *s);

/* --- trace.c: the steps of traced warps (weft_kernel_launch_traced) --- */
/* The trace of one launch. Only the worker that runs the traced work-group writes it, so it
 * has one writer and needs no lock. */
typedef struct trace_run {
  const weft_trace_options *opts;
  uint64_t steps; /* steps handed to on_step */
  int stopped; /* on_step asked for no more */
} trace_run;

/* A warp's counters when a step began: the step's share is what they grew by. */
typedef struct trace_mark {
  uint32_t pc;
  uint64_t block_execs, groups_run, reconvergences, early_reconvergences;
} trace_mark;

struct launch_plan;
/* Whether warp `warp` of the traced work-group (opts->group) is traced. */
int trace_wants(const trace_run *t, unsigned warp);
void trace_begin(trace_mark *m, const weft_warp_ctx *c, const policy_counters *pc);
/* The step that began at m has run: `inline_` when it went on without the policy (a branch the
 * policy does not see outside traces). Hands it to on_step. */
void trace_step(trace_run *t, const struct launch_plan *p, unsigned warp, const weft_warp_ctx *c,
                const trace_mark *m, int inline_, const policy_counters *pc, const void *st);

/* --- scheduler.c: one work-group on the calling worker --- */
/* Everything a work-group needs; built by launch.c, read-only while the launch runs. */
typedef struct launch_plan {
  /* Every worker reads the plan, on the launching thread's stack, while that thread (a worker
   * too) pushes its calls' frames just below it: on cache lines of its own, no write to the
   * stack takes a line away from the other workers' reads. */
  _Alignas(RT_CACHE_LINE) const weft_compiled_kernel *k;
  const weft_policy_ops *policy;
  policy_config cfg; /* handed to policy->init */
  const void *args; /* the argument block */
  size_t local_bytes; /* __local memory of one work-group: static + LOCAL arguments */
  unsigned dims;
  uint64_t global[3], local[3], num_groups[3]; /* 1 in the dimensions past dims */
  uint64_t offset[3]; /* the global offset; 0 in the dimensions past dims */
  uint64_t ngroups; /* work-groups of the launch */
  unsigned group_items; /* work-items per work-group */
  unsigned nwarps; /* warps per work-group */
  int x_aligned; /* rt_x_aligned */
  weft_warp_fn run; /* k->run, or k->run_unaligned where not x_aligned */
  uint64_t live[2]; /* lanes that are work-items: of a warp but the last, of the last */
  uint64_t serial; /* tells the launches apart: workers lay out their buffers once each */
  trace_run *trace; /* NULL: no warp is traced */
  uint32_t steps; /* the policy whose steps the warp function takes: WEFT_STEPS_*, 0 none */
  uint32_t regions; /* ctx->regions: the structured branches that run masked (kernel.h) */
  uint32_t counting; /* ctx->counting: the launch reports stats or is traced */
  const _Atomic uint32_t *stop; /* the watchdog's flag (weft_group.stop), a WATCH_ value */
} launch_plan;

/* The head of a warp's ctx, up to the targets, as it starts in every work-group: copied over
 * the ctx at each work-group's start in a few vector stores, where setting its dozen fields
 * one by one took a tenth of the runtime's samples on a kernel without divergence (select_once,
 * groups of 256: 0.46 of the generated code's samples before, 0.41 with the copy). */
#define WARP_START_BYTES offsetof(weft_warp_ctx, target_pc)
typedef struct warp_start {
  _Alignas(32) char bytes[WARP_START_BYTES];
} warp_start;

/* The data of one worker, reused across work-groups and launches. Hot and written by one thread
 * only, so each sits on its own cache lines. */
typedef struct sched_worker {
  _Alignas(RT_CACHE_LINE) run_counters counters; /* of the current launch */
  uint64_t serial; /* the launch the buffers are laid out for */
  char *buf; /* weft_buffer_alloc: all below but __local memory */
  size_t cap;
  char *local_buf; /* weft_buffer_alloc: __local memory, apart from the runtime's state */
  size_t local_cap;
  weft_warp_ctx *ctx; /* per warp */
  warp_start *start; /* per warp: how its ctx starts in every work-group */
  char *frames, *states; /* per warp, strides below */
  size_t frame_stride, state_stride;
  policy_counters *pcount; /* per warp */
  unsigned char *ended; /* per warp: ended in its first call */
  /* per warp: the barrier that a warp whose policy never started waits at with all its lanes,
   * and where it goes on (pc NO_RESUME: none; scheduler.c) */
  struct warp_resume {
    uint32_t barrier, pc;
  } *resume;
  char *local_mem;
  weft_group group;
  int traced; /* the current work-group has traced warps */
  unsigned whole_arrivals; /* warps at a barrier with all their live lanes (settle_group) */
  char err[RT_ERR_LEN]; /* why the last work-group failed */
  char *report; /* malloc'd: where the warp it ran was when the launch stopped, or NULL */
} sched_worker;

void sched_worker_free(sched_worker *w);
/* Adds the counters of the warps this worker ran in launch p to w->counters: the warps count
 * over all their work-groups, so this happens once, after the launch. */
void sched_collect(sched_worker *w, const launch_plan *p);
/* Runs work-group `index` (linear, x fastest) of the launch to its end. On error the message is
 * in w->err. */
weft_status sched_run_group(sched_worker *w, const launch_plan *p, uint64_t index);

/* --- watchdog.c: stopping a launch, and saying where its warps were --- */
/* The values of the stop flag (weft_group.stop): why the launch must stop. */
enum { WATCH_RUN = 0, WATCH_TIMEOUT = 1, WATCH_STOP = 2 };

typedef struct watchdog watchdog;
/* A thread that sets *flag to WATCH_TIMEOUT after `seconds`, unless watchdog_end comes first;
 * NULL when seconds is 0 (no limit) or no thread could be made (the launch runs unwatched). */
watchdog *watchdog_start(_Atomic uint32_t *flag, double seconds);
void watchdog_end(watchdog *d);
/* Warp i of w's work-group returned WEFT_EVENT_STOPPED (or its step saw the flag): writes
 * where its lanes were and what they wait for into w->report, and returns the flag's status
 * (WEFT_ERROR_TIMEOUT or WEFT_ERROR_STOPPED). has_policy: the warp's policy state is set up. */
weft_status watchdog_report(sched_worker *w, const launch_plan *p, unsigned i, int has_policy);
/* The status for the flag's value: WEFT_ERROR_TIMEOUT, WEFT_ERROR_STOPPED, or WEFT_SUCCESS. */
weft_status watchdog_status(uint32_t flag);
/* The message of launch p that stopped with status s after ms: why, then the reports of the
 * n workers' warps (sched_worker.report), several lines. */
void watchdog_message(char *err, size_t errlen, const launch_plan *p, const sched_worker *workers,
                      unsigned n, weft_status s, double timeout_s, double ms);

/* --- pool.c: worker threads kept alive across launches --- */
typedef struct weft_pool weft_pool;
/* Runs item `item` of a job on worker `worker` (0 .. pool_size-1). */
typedef weft_status (*pool_task)(void *arg, unsigned worker, uint64_t item);

/* threads >= 1 workers: the calling thread of pool_run is worker 0, threads-1 are created. */
weft_status pool_create(unsigned threads, weft_pool **out);
void pool_release(weft_pool *p);
unsigned pool_size(const weft_pool *p);
/* Runs task for items 0..n-1, each once, spread over the workers; returns when all are done.
 * After the first error no worker starts another item; that error is returned and *failed tells
 * which worker reported it. One job at a time per pool. */
weft_status pool_run(weft_pool *p, uint64_t n, pool_task task, void *arg, unsigned *failed);

/* --- launch.c: the runtime object and runtime_launch --- */
typedef struct weft_runtime weft_runtime;

/* `resolved` has no 0 or NULL left (weft_context_options) but split_order and max_splits, which
 * may keep their defaults; the policy must exist. */
weft_status runtime_create(const weft_options *resolved, weft_runtime **out);
void runtime_release(weft_runtime *rt);
/* The options in force: split_order and max_splits resolved ("lowest-pc", W). */
weft_options runtime_options(const weft_runtime *rt);
/* The split order and split bound of the following launches (weft_options' meaning); on error
 * nothing changes and why says what is wrong. */
weft_status runtime_set_splits(weft_runtime *rt, const char *split_order, unsigned max_splits,
                               char *why, size_t n);
/* Whether the following launches hand every policy event to the runtime
 * (weft_options.policy_in_runtime). */
void runtime_set_policy_in_runtime(weft_runtime *rt, int on);
/* The timeout of the following launches (weft_options.timeout_s, checked by the caller). */
void runtime_set_timeout(weft_runtime *rt, double seconds);
/* Stops the launch running, if any (weft_context_stop): async-signal-safe. */
void runtime_stop(weft_runtime *rt);
/* Runs k over range with the policy named `policy` (NULL: the runtime's). Everything is checked
 * first; on error the status is returned and a one-line message is in err. stats may be NULL. */
weft_status runtime_launch(weft_runtime *rt, const weft_compiled_kernel *k, const char *policy,
                           const weft_ndrange *range, unsigned nargs, const weft_arg *args,
                           weft_stats *stats, char *err, size_t errlen);
/* runtime_launch with the steps of the warps that `trace` selects handed to trace->on_step. */
weft_status runtime_launch_traced(weft_runtime *rt, const weft_compiled_kernel *k,
                                  const char *policy, const weft_ndrange *range, unsigned nargs,
                                  const weft_arg *args, weft_stats *stats,
                                  const weft_trace_options *trace, char *err, size_t errlen);
/* runtime_launch_traced with a global offset per dimension (get_global_offset; NULL: none). */
weft_status runtime_launch_at(weft_runtime *rt, const weft_compiled_kernel *k, const char *policy,
                              const weft_ndrange *range, const size_t *offset, unsigned nargs,
                              const weft_arg *args, weft_stats *stats,
                              const weft_trace_options *trace, char *err, size_t errlen);

#endif
