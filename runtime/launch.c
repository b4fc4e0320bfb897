/* The runtime object and a launch.
 *
 * runtime_launch checks everything before it runs anything: the compiled kernel's description, the
 * NDRange (OpenCL 1.2 rules: uniform work-groups), the policy name and each argument against the
 * kernel's parameters. Then it lays out the work-group's __local memory (the kernel's own arrays
 * first, then each LOCAL argument, all 64-byte aligned), builds the argument block by calling the
 * kernel's setargs through libffi, and hands the work-groups to the pool. A failed check names the
 * argument (0-based index, as clSetKernelArg counts) and says what was expected. */
#include <ffi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>

#include "runtime.h"

struct weft_runtime {
  weft_options opts; /* resolved; opts.policy is the policy's own (static) name */
  const weft_policy_ops *policy;
  policy_config cfg; /* opts.split_order and opts.max_splits, for the policy's init */
  weft_pool *pool;
  sched_worker *workers; /* one per pool worker */
  uint64_t serial;       /* launches so far */
  _Atomic uint32_t stop; /* the running launch's stop flag (watchdog.c) */
};

static int valid_width(unsigned w, unsigned lo, unsigned hi) {
  return w >= lo && w <= hi && (w & (w - 1)) == 0;
}

weft_status runtime_create(const weft_options *resolved, weft_runtime **out) {
  if (!out) return WEFT_ERROR_INVALID_VALUE;
  *out = NULL;
  if (!resolved || resolved->threads == 0 || !valid_width(resolved->warp, 4, WEFT_MAX_WARP) ||
      !valid_width(resolved->lanes, 4, 16) || resolved->warp % resolved->lanes ||
      !(resolved->timeout_s >= 0 && resolved->timeout_s <= WEFT_MAX_TIMEOUT_S))
    return WEFT_ERROR_INVALID_VALUE;
  const weft_policy_ops *policy = policy_find(resolved->policy);
  policy_config cfg;
  if (!policy || policy_config_make(resolved->split_order, resolved->max_splits, resolved->warp,
                                    &cfg, NULL, 0))
    return WEFT_ERROR_INVALID_VALUE;
  weft_runtime *rt = calloc(1, sizeof *rt);
  if (!rt) return WEFT_ERROR_OUT_OF_MEMORY;
  rt->opts = *resolved;
  rt->opts.policy = policy->name;
  rt->policy = policy;
  rt->cfg = cfg;
  size_t bytes = resolved->threads * sizeof(sched_worker);
  rt->workers = aligned_alloc(RT_CACHE_LINE, bytes);
  weft_status s = WEFT_ERROR_OUT_OF_MEMORY;
  if (rt->workers) s = pool_create(resolved->threads, &rt->pool);
  if (s != WEFT_SUCCESS) {
    free(rt->workers);
    free(rt);
    return s;
  }
  memset(rt->workers, 0, bytes);
  *out = rt;
  return WEFT_SUCCESS;
}

void runtime_release(weft_runtime *rt) {
  if (!rt) return;
  pool_release(rt->pool);
  for (unsigned i = 0; i < rt->opts.threads; i++) sched_worker_free(&rt->workers[i]);
  free(rt->workers);
  free(rt);
}

weft_options runtime_options(const weft_runtime *rt) {
  weft_options o = rt->opts;
  o.split_order = split_order_name(rt->cfg.order);
  o.max_splits = rt->cfg.max_splits;
  return o;
}

weft_status runtime_set_splits(weft_runtime *rt, const char *split_order, unsigned max_splits,
                               char *why, size_t n) {
  return policy_config_make(split_order, max_splits, rt->opts.warp, &rt->cfg, why, n);
}

void runtime_set_policy_in_runtime(weft_runtime *rt, int on) {
  rt->opts.policy_in_runtime = on != 0;
}

void runtime_set_timeout(weft_runtime *rt, double seconds) { rt->opts.timeout_s = seconds; }

void runtime_stop(weft_runtime *rt) {
  uint32_t run = WATCH_RUN; /* a timeout that came first keeps its reason */
  atomic_compare_exchange_strong(&rt->stop, &run, WATCH_STOP);
}

/* ---- checks ---- */

/* A VALUE passed to setargs as its C type (else by pointer: vectors and WEFT_OTHER). */
static int by_value(const weft_param *q) { return q->vector_width == 1 && weft_type_size(q->type); }

/* Bytes of a parameter's slot in the argument block. */
static size_t slot_size(const weft_param *q) { return q->kind == WEFT_ARG_VALUE ? q->size : 8; }

static weft_status check_params(const weft_compiled_kernel *k, char *err, size_t errlen) {
  for (unsigned i = 0; i < k->nparams; i++) {
    const weft_param *q = &k->params[i];
    int bad = !q->name || (unsigned)q->kind > WEFT_ARG_LOCAL || (unsigned)q->type > WEFT_OTHER ||
              q->vector_width == 0 || (by_value(q) && q->size != weft_type_size(q->type)) ||
              q->offset > k->args_size || slot_size(q) > k->args_size - q->offset;
    if (bad)
      return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE,
                      "compiled kernel '%s': parameter %u is described inconsistently", k->name, i);
  }
  return WEFT_SUCCESS;
}

static weft_status check_kernel(const weft_compiled_kernel *k, char *err, size_t errlen) {
  if (!k || !k->name)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE, "launch of a NULL or unnamed kernel");
  const char *why = NULL;
  if (!valid_width(k->warp, 4, WEFT_MAX_WARP) || !valid_width(k->lanes, 4, 16) ||
      k->warp % k->lanes)
    why = "warp or lane-group width";
  else if (k->nblocks == 0 || !k->ipdom || !k->run || !k->setargs)
    why = "missing blocks, IPDOM table, warp function or setargs";
  else if (k->nparams && !k->params) why = "missing parameters";
  for (unsigned pc = 0; !why && pc < k->nblocks; pc++)
    if (k->ipdom[pc] > k->nblocks) why = "IPDOM out of range";
  if (why)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE, "compiled kernel '%s' is invalid: %s",
                    k->name, why);
  return check_params(k, err, errlen);
}

/* Fills the NDRange part of the plan. */
static weft_status check_range(const weft_ndrange *r, launch_plan *p, char *err, size_t errlen) {
  if (!r) return rt_error(err, errlen, WEFT_ERROR_NDRANGE, "no NDRange given");
  if (r->dims < 1 || r->dims > 3)
    return rt_error(err, errlen, WEFT_ERROR_NDRANGE, "work_dim %u is not 1, 2 or 3", r->dims);
  p->dims = r->dims;
  p->ngroups = 1;
  uint64_t items = 1;
  for (unsigned d = 0; d < 3; d++) {
    uint64_t g = d < r->dims ? r->global[d] : 1, l = d < r->dims ? r->local[d] : 1;
    if (g == 0 || l == 0)
      return rt_error(err, errlen, WEFT_ERROR_NDRANGE, "%s size in dimension %u is 0",
                      g == 0 ? "global" : "local", d);
    if (g % l)
      return rt_error(err, errlen, WEFT_ERROR_NDRANGE,
                      "local size %llu does not divide global size %llu in dimension %u "
                      "(OpenCL 1.2 needs work-groups of one size)",
                      (unsigned long long)l, (unsigned long long)g, d);
    p->global[d] = g, p->local[d] = l, p->num_groups[d] = g / l;
    if (l > RT_MAX_GROUP_ITEMS || __builtin_mul_overflow(items, l, &items)) items = UINT64_MAX;
    if (__builtin_mul_overflow(p->ngroups, g / l, &p->ngroups))
      return rt_error(err, errlen, WEFT_ERROR_NDRANGE, "the number of work-groups overflows");
  }
  if (items > RT_MAX_GROUP_ITEMS)
    return rt_error(err, errlen, WEFT_ERROR_NDRANGE,
                    "work-group size %llux%llux%llu is above the limit of %d work-items",
                    (unsigned long long)p->local[0], (unsigned long long)p->local[1],
                    (unsigned long long)p->local[2], RT_MAX_GROUP_ITEMS);
  p->group_items = (unsigned)items;
  return WEFT_SUCCESS;
}

/* GLOBAL and CONSTANT are both buffers: either may be passed for the other, as with cl_mem. */
static int same_kind(weft_arg_kind param, weft_arg_kind arg) {
  int pbuf = param == WEFT_ARG_GLOBAL || param == WEFT_ARG_CONSTANT;
  int abuf = arg == WEFT_ARG_GLOBAL || arg == WEFT_ARG_CONSTANT;
  return param == arg || (pbuf && abuf);
}

/* The kernel's code loads and stores an element at the alignment of its type (a float4 with
 * an aligned 16-byte instruction), as OpenCL C may: a buffer that is not so aligned would stop
 * the host with a fault in the middle of the launch. */
static weft_status check_buffer_alignment(const weft_param *q, unsigned i, const weft_arg *a,
                                          char *err, size_t errlen) {
  size_t align = q->align;
  if (q->kind == WEFT_ARG_LOCAL || align <= 1 || (align & (align - 1)) ||
      (uintptr_t)a->value % align == 0)
    return WEFT_SUCCESS;
  return rt_error(err, errlen, WEFT_ERROR_ARGUMENT,
                  "argument %u '%s' (%s): buffer at %p is not %zu-byte aligned, as its elements "
                  "must be (weft_buffer_alloc and aligned_alloc give such memory)",
                  i, q->name, q->type_name ? q->type_name : "?", a->value, align);
}

static weft_status check_arg(const weft_param *q, unsigned i, const weft_arg *a, char *err,
                             size_t errlen) {
  if (!same_kind(q->kind, a->kind))
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "argument %u '%s': expected %s (%s), got %s",
                    i, q->name, weft_arg_kind_name(q->kind), q->type_name ? q->type_name : "?",
                    weft_arg_kind_name(a->kind));
  if (q->kind == WEFT_ARG_LOCAL && a->size == 0)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "argument %u '%s': __local size is 0", i,
                    q->name);
  /* a kernel may read or write any buffer it is given: at NULL, that is a fault of the host */
  if (q->kind != WEFT_ARG_VALUE && q->kind != WEFT_ARG_LOCAL && !a->value)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT,
                    "argument %u '%s': NULL buffer of %zu bytes (the kernel may read or write "
                    "it: pass memory, even for 0 bytes)",
                    i, q->name, a->size);
  if (q->kind != WEFT_ARG_VALUE) return check_buffer_alignment(q, i, a, err, errlen);
  if (a->type != q->type || a->size != q->size) {
    char vec[16] = "";
    if (q->vector_width > 1) snprintf(vec, sizeof vec, "x%u", q->vector_width);
    const char *want = q->type == WEFT_OTHER && q->type_name ? q->type_name
                                                             : weft_type_name(q->type);
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT,
                    "argument %u '%s': expected %s%s (%zu bytes), got %s (%zu bytes)", i, q->name,
                    want, vec, q->size, weft_type_name(a->type), a->size);
  }
  if (!a->value)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "argument %u '%s': no value given", i,
                    q->name);
  return WEFT_SUCCESS;
}

static weft_status check_args(const weft_compiled_kernel *k, unsigned nargs, const weft_arg *args,
                              char *err, size_t errlen) {
  if (nargs != k->nparams)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "kernel '%s' takes %u argument%s, got %u",
                    k->name, k->nparams, k->nparams == 1 ? "" : "s", nargs);
  if (nargs && !args)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "kernel '%s': no arguments given", k->name);
  for (unsigned i = 0; i < nargs; i++) {
    weft_status s = check_arg(&k->params[i], i, &args[i], err, errlen);
    if (s != WEFT_SUCCESS) return s;
  }
  return WEFT_SUCCESS;
}

/* Offsets of the LOCAL arguments in local memory (offsets[i] for parameter i) and the total. */
static weft_status layout_local(const weft_compiled_kernel *k, const weft_arg *args,
                                uint64_t *offsets, launch_plan *p, char *err, size_t errlen) {
  size_t at = rt_align64(k->static_local_size);
  int overflow = at < k->static_local_size;
  for (unsigned i = 0; i < k->nparams && !overflow; i++) {
    if (k->params[i].kind != WEFT_ARG_LOCAL) continue;
    size_t size = rt_align64(args[i].size);
    offsets[i] = at;
    overflow = size < args[i].size || __builtin_add_overflow(at, size, &at);
  }
  if (overflow)
    return rt_error(err, errlen, WEFT_ERROR_ARGUMENT, "kernel '%s': __local memory size overflows",
                    k->name);
  p->local_bytes = at;
  return WEFT_SUCCESS;
}

/* ---- the argument block, through libffi ---- */

static ffi_type *param_ffi_type(const weft_param *q) {
  static ffi_type *const scalars[] = {
      &ffi_type_sint8,  &ffi_type_uint8,  &ffi_type_sint16, &ffi_type_uint16, &ffi_type_sint32,
      &ffi_type_uint32, &ffi_type_sint64, &ffi_type_uint64, &ffi_type_float,  &ffi_type_double};
  if (q->kind == WEFT_ARG_LOCAL) return &ffi_type_uint64;
  if (q->kind != WEFT_ARG_VALUE || !by_value(q)) return &ffi_type_pointer;
  return scalars[q->type];
}

/* One argument of setargs, stored so that libffi reads it at its own alignment. */
typedef union ffi_slot {
  void *ptr;
  uint64_t u64;
  double f64;
  unsigned char bytes[8];
} ffi_slot;

static weft_status call_setargs(const weft_compiled_kernel *k, const weft_arg *args,
                                const uint64_t *offsets, void *block, char *err, size_t errlen) {
  unsigned n = k->nparams + 1;
  ffi_type **types = malloc(n * sizeof *types);
  void **values = malloc(n * sizeof *values);
  ffi_slot *slots = malloc(n * sizeof *slots);
  ffi_cif cif;
  weft_status s = WEFT_SUCCESS;
  if (!types || !values || !slots) {
    s = rt_error(err, errlen, WEFT_ERROR_OUT_OF_MEMORY, "out of memory for the arguments of '%s'",
                 k->name);
    goto out;
  }
  types[0] = &ffi_type_pointer, slots[0].ptr = block, values[0] = &slots[0];
  for (unsigned i = 1; i < n; i++) {
    const weft_param *q = &k->params[i - 1];
    const weft_arg *a = &args[i - 1];
    types[i] = param_ffi_type(q);
    values[i] = &slots[i];
    if (q->kind == WEFT_ARG_LOCAL) slots[i].u64 = offsets[i - 1];
    else if (q->kind == WEFT_ARG_VALUE && by_value(q)) memcpy(slots[i].bytes, a->value, q->size);
    else slots[i].ptr = (void *)a->value;
  }
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, &ffi_type_void, types) != FFI_OK) {
    s = rt_error(err, errlen, WEFT_ERROR_JIT, "kernel '%s': libffi cannot call setargs", k->name);
    goto out;
  }
  ffi_call(&cif, FFI_FN(k->setargs), NULL, values);
out:
  free(slots);
  free(values);
  free(types);
  return s;
}

/* ---- running ---- */

typedef struct launch_job {
  weft_runtime *rt;
  const launch_plan *plan;
} launch_job;

/* A kernel built with -cl-denorms-are-zero runs with the CPU flushing denormal results to zero
 * and reading denormal operands as zero (MXCSR's FTZ and DAZ bits), which the vector unit does
 * at full speed; the worker's own mode comes back after each work-group. */
#define MXCSR_FLUSH_DENORMALS 0x8040u

static weft_status run_item(void *arg, unsigned worker, uint64_t item) {
  const launch_job *j = arg;
  sched_worker *w = &j->rt->workers[worker];
  if (!j->plan->k->flush_denormals) return sched_run_group(w, j->plan, item);
  unsigned mode = _mm_getcsr();
  _mm_setcsr(mode | MXCSR_FLUSH_DENORMALS);
  weft_status s = sched_run_group(w, j->plan, item);
  _mm_setcsr(mode);
  return s;
}

/* Runs the planned work-groups on the pool, under the watchdog, and sums the workers'
 * counters. */
static weft_status run_plan(weft_runtime *rt, launch_plan *p, run_counters *sum, char *err,
                            size_t errlen) {
  unsigned nworkers = pool_size(rt->pool), failed = 0;
  p->serial = ++rt->serial;
  for (unsigned i = 0; i < nworkers; i++) {
    rt->workers[i].counters = (run_counters){0};
    free(rt->workers[i].report);
    rt->workers[i].report = NULL;
  }
  launch_job job = {rt, p};
  double start = rt_now_ms();
  atomic_store(&rt->stop, WATCH_RUN);
  p->stop = &rt->stop;
  watchdog *d = watchdog_start(&rt->stop, rt->opts.timeout_s);
  weft_status s = pool_run(rt->pool, p->ngroups, run_item, &job, &failed);
  watchdog_end(d);
  if (s == WEFT_ERROR_TIMEOUT || s == WEFT_ERROR_STOPPED)
    watchdog_message(err, errlen, p, rt->workers, nworkers, s, rt->opts.timeout_s,
                     rt_now_ms() - start);
  else if (s != WEFT_SUCCESS) rt_error(err, errlen, s, "%s", rt->workers[failed].err);
  for (unsigned i = 0; i < nworkers; i++) {
    sched_collect(&rt->workers[i], p);
    counters_add(sum, &rt->workers[i].counters);
  }
  return s;
}

static weft_status check_all(weft_runtime *rt, const weft_compiled_kernel *k, const char *policy,
                             const weft_ndrange *range, unsigned nargs, const weft_arg *args,
                             launch_plan *p, char *err, size_t errlen) {
  weft_status s = check_kernel(k, err, errlen);
  if (s == WEFT_SUCCESS) s = check_range(range, p, err, errlen);
  if (s != WEFT_SUCCESS) return s;
  p->k = k;
  p->cfg = rt->cfg;
  p->policy = policy_find(policy ? policy : rt->opts.policy);
  if (!p->policy) {
    char names[128];
    policy_names(names, sizeof names);
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE, "unknown policy '%s' (known: %s)",
                    policy, names);
  }
  int in_code = !rt->opts.policy_in_runtime;
  p->steps = !in_code                     ? 0
             : p->policy == &policy_stack ? WEFT_STEPS_STACK
             : p->policy == &policy_pc    ? WEFT_STEPS_PC
                                          : 0;
  p->regions = !in_code                     ? 0
               : p->policy == &policy_stack ? WEFT_REGIONS_STACK
               : p->policy == &policy_pc    ? WEFT_REGIONS_PC_ORDER
               : p->policy->ahead && p->cfg.order == SPLIT_LOWEST_PC && p->cfg.max_splits >= k->warp
                   ? WEFT_REGIONS_LOWEST_PC
                   : 0;
  p->x_aligned = rt_x_aligned(range, k->lanes);
  p->run = p->x_aligned ? k->run : k->run_unaligned;
  if (!p->run)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE,
                    "compiled kernel '%s' has no warp function for work-groups whose x size "
                    "(%llu) is not a multiple of G (%u)",
                    k->name, (unsigned long long)p->local[0], k->lanes);
  p->nwarps = (p->group_items + k->warp - 1) / k->warp;
  unsigned tail = p->group_items - (p->nwarps - 1) * k->warp; /* 1..warp */
  p->live[0] = rt_first_lanes(k->warp), p->live[1] = rt_first_lanes(tail);
  return check_args(k, nargs, args, err, errlen);
}

weft_status runtime_launch(weft_runtime *rt, const weft_compiled_kernel *k, const char *policy,
                           const weft_ndrange *range, unsigned nargs, const weft_arg *args,
                           weft_stats *stats, char *err, size_t errlen) {
  return runtime_launch_traced(rt, k, policy, range, nargs, args, stats, NULL, err, errlen);
}

/* The traced work-group and warp must exist, so that a trace is never silently empty. */
static weft_status check_trace(const weft_trace_options *t, const launch_plan *p, char *err,
                               size_t errlen) {
  if (!t->on_step)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE, "trace without an on_step callback");
  if (t->group >= p->ngroups)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE,
                    "cannot trace work-group %llu: the launch has %llu (0 to %llu)",
                    (unsigned long long)t->group, (unsigned long long)p->ngroups,
                    (unsigned long long)p->ngroups - 1);
  if (t->warp >= 0 && (unsigned)t->warp >= p->nwarps)
    return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE,
                    "cannot trace warp %d: a work-group has %u warp%s (0 to %u)", t->warp,
                    p->nwarps, p->nwarps == 1 ? "" : "s", p->nwarps - 1);
  return WEFT_SUCCESS;
}

weft_status runtime_launch_traced(weft_runtime *rt, const weft_compiled_kernel *k,
                                  const char *policy, const weft_ndrange *range, unsigned nargs,
                                  const weft_arg *args, weft_stats *stats,
                                  const weft_trace_options *trace, char *err, size_t errlen) {
  return runtime_launch_at(rt, k, policy, range, NULL, nargs, args, stats, trace, err, errlen);
}

weft_status runtime_launch_at(weft_runtime *rt, const weft_compiled_kernel *k, const char *policy,
                              const weft_ndrange *range, const size_t *offset, unsigned nargs,
                              const weft_arg *args, weft_stats *stats,
                              const weft_trace_options *trace, char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (stats) *stats = (weft_stats){0};
  if (!rt) return rt_error(err, errlen, WEFT_ERROR_INVALID_VALUE, "no runtime");
  launch_plan p = {0};
  trace_run tr = {trace, 0, 0};
  weft_status s = check_all(rt, k, policy, range, nargs, args, &p, err, errlen);
  if (s == WEFT_SUCCESS && trace) s = check_trace(trace, &p, err, errlen);
  if (s != WEFT_SUCCESS) return s;
  for (unsigned d = 0; offset && d < p.dims; d++) p.offset[d] = offset[d];
  p.trace = trace ? &tr : NULL;
  p.counting = stats || trace; /* what is not reported is not counted */

  double start = rt_now_ms();
  uint64_t *offsets = calloc(k->nparams + 1, sizeof *offsets);
  void *block = aligned_alloc(RT_CACHE_LINE, rt_align64(k->args_size ? k->args_size : 1));
  run_counters sum = {0};
  if (!offsets || !block) {
    s = rt_error(err, errlen, WEFT_ERROR_OUT_OF_MEMORY, "out of memory for the arguments of '%s'",
                 k->name);
    goto out;
  }
  memset(block, 0, k->args_size);
  p.args = block;
  s = layout_local(k, args, offsets, &p, err, errlen);
  if (s == WEFT_SUCCESS) s = call_setargs(k, args, offsets, block, err, errlen);
  if (s == WEFT_SUCCESS) s = run_plan(rt, &p, &sum, err, errlen);
  if (stats) stats_fill(stats, &sum, k, rt_now_ms() - start);
out:
  free(block);
  free(offsets);
  return s;
}
