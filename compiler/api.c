/* The public host API (include/weft.h): contexts, programs and kernels. A program is built in
 * one go: clang-19, then every kernel is lowered for the context's W and G, optimised and
 * JIT-compiled, for x-aligned work-groups (rt_x_aligned); launching hands the compiled kernel to
 * the runtime, after building its variant for the other work-groups when the launch has those
 * and it is not built yet. */
#include <llvm-c/BitWriter.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "runtime.h"

struct weft_context {
  weft_options opts; /* resolved: no 0 or NULL */
  char policy[32];
  weft_runtime *rt;
  weft_jit *jit;
  int avx512;
  unsigned programs_built; /* names each program's symbols apart in the one JIT */
  weft_program *cache;     /* built programs, for builds of the same source again */
  char *error;
};

/* A built program is shared: building the same source with the same options in the same
 * context (so the same W and G) again returns it with one more reference. */
struct weft_program {
  weft_context *ctx;
  unsigned refs;
  char *key; /* path, options and source text */
  weft_program *next;
  char *log;
  unsigned nkernels;
  lowered_kernel *kernels;
  LLVMOrcResourceTrackerRef code;
  /* The front end's module as bitcode, from which the kernels' variant for work-groups that are
   * not x-aligned (rt_x_aligned) is built at the first launch that needs it, into its own code. */
  LLVMMemoryBufferRef front_end;
  unsigned instrs; /* of its kernels in the front end's module: how much there is to lower */
  LLVMOrcResourceTrackerRef code_unaligned;
};

struct weft_kernel {
  weft_program *program;
  const weft_compiled_kernel *k;
};

static weft_status set_error(weft_context *ctx, weft_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  free(ctx->error);
  if (vasprintf(&ctx->error, fmt, ap) < 0) ctx->error = NULL;
  va_end(ap);
  return st;
}

/* Takes ownership of msg. */
static weft_status set_error_msg(weft_context *ctx, weft_status st, char *msg) {
  free(ctx->error);
  ctx->error = msg;
  return st;
}

const char *weft_last_error(const weft_context *ctx) {
  return ctx && ctx->error ? ctx->error : "";
}

static int valid_width(unsigned w) { return w == 4 || w == 8 || w == 16 || w == 32 || w == 64; }

/* 0 when `policy` names a policy; else 1, with why saying which there are. */
static int unknown_policy(const char *policy, char *why, size_t n) {
  if (policy && policy_find(policy)) return 0;
  char names[128];
  policy_names(names, sizeof names);
  snprintf(why, n, "unknown policy '%s' (policies: %s)", policy ? policy : "(null)", names);
  return 1;
}

/* Replaces o's zeros and NULLs by their values and checks the result; why says what is wrong. */
static weft_status resolve(weft_options *o, int avx512, char *why, size_t n) {
  if (o->lanes && o->warp && o->lanes > o->warp)
    return snprintf(why, n, "lane-group width G %u is wider than the warp width W %u (G must divide W)", o->lanes, o->warp), WEFT_ERROR_INVALID_VALUE;
  if (!o->threads) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus > 0 ? (unsigned)cpus : 1;
  }
  if (o->threads > 1024) return snprintf(why, n, "threads must be 1..1024, not %u", o->threads), WEFT_ERROR_INVALID_VALUE;
  if (!o->warp) o->warp = 32;
  if (!valid_width(o->warp)) return snprintf(why, n, "warp width W must be 4, 8, 16, 32 or 64, not %u", o->warp), WEFT_ERROR_INVALID_VALUE;
  if (!o->lanes) o->lanes = avx512 ? 16 : 8;
  if (o->lanes > o->warp) o->lanes = o->warp;
  if (o->lanes != 4 && o->lanes != 8 && o->lanes != 16)
    return snprintf(why, n, "lane-group width G must be 4, 8 or 16, not %u", o->lanes), WEFT_ERROR_INVALID_VALUE;
  if (!o->policy) o->policy = "stack";
  if (unknown_policy(o->policy, why, n)) return WEFT_ERROR_INVALID_VALUE;
  policy_config cfg;
  if (policy_config_make(o->split_order, o->max_splits, o->warp, &cfg, why, n))
    return WEFT_ERROR_INVALID_VALUE;
  o->split_order = split_order_name(cfg.order), o->max_splits = cfg.max_splits;
  return WEFT_SUCCESS;
}

weft_status weft_options_check(const weft_options *options, char *why, size_t n) {
  weft_options o = options ? *options : (weft_options){0};
  char own[256];
  return why && n ? resolve(&o, jit_host_has_avx512(), why, n)
                  : resolve(&o, jit_host_has_avx512(), own, sizeof own);
}

weft_status weft_context_create(const weft_options *options, weft_context **out) {
  if (!out) return WEFT_ERROR_INVALID_VALUE;
  *out = NULL;
  weft_options o = options ? *options : (weft_options){0};
  char why[256];
  int avx512 = jit_host_has_avx512();
  weft_status st = resolve(&o, avx512, why, sizeof why);
  if (st) return st;
  weft_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return WEFT_ERROR_OUT_OF_MEMORY;
  ctx->avx512 = avx512;
  snprintf(ctx->policy, sizeof ctx->policy, "%s", o.policy);
  o.policy = ctx->policy;
  ctx->opts = o;
  char *err = NULL;
  if ((st = runtime_create(&o, &ctx->rt)) || (st = jit_create(&ctx->jit, &err))) {
    free(err);
    weft_context_release(ctx);
    return st;
  }
  cc1_start(); /* after jit_create, whose dlopen of libmvec would wait for clang's */
  *out = ctx;
  return WEFT_SUCCESS;
}

void weft_context_release(weft_context *ctx) {
  if (!ctx) return;
  jit_release(ctx->jit);
  runtime_release(ctx->rt);
  free(ctx->error);
  free(ctx);
}

weft_status weft_context_set_policy(weft_context *ctx, const char *policy) {
  if (!ctx) return WEFT_ERROR_INVALID_VALUE;
  char why[256];
  if (unknown_policy(policy, why, sizeof why)) return set_error(ctx, WEFT_ERROR_INVALID_VALUE, "%s", why);
  snprintf(ctx->policy, sizeof ctx->policy, "%s", policy);
  return WEFT_SUCCESS;
}

weft_status weft_context_set_splits(weft_context *ctx, const char *split_order,
                                    unsigned max_splits) {
  if (!ctx) return WEFT_ERROR_INVALID_VALUE;
  char why[128];
  weft_status st = runtime_set_splits(ctx->rt, split_order, max_splits, why, sizeof why);
  return st ? set_error(ctx, st, "%s", why) : WEFT_SUCCESS;
}

weft_options weft_context_options(const weft_context *ctx) {
  weft_options o = ctx->opts, r = runtime_options(ctx->rt);
  o.policy = ctx->policy;
  o.split_order = r.split_order, o.max_splits = r.max_splits;
  return o;
}

/* ---- programs ---- */

void weft_program_release(weft_program *p) {
  if (!p || --p->refs > 0) return;
  for (weft_program **at = &p->ctx->cache; *at; at = &(*at)->next)
    if (*at == p) {
      *at = p->next;
      break;
    }
  free(p->key);
  jit_remove(p->code_unaligned); /* it refers to the first build's global variables */
  jit_remove(p->code);
  if (p->front_end) LLVMDisposeMemoryBuffer(p->front_end);
  for (unsigned i = 0; i < p->nkernels; i++) kernel_info_free(&p->kernels[i]);
  free(p->kernels);
  free(p->log);
  free(p);
}

/* What each compile unit of a build lowers (jit_compile). */
typedef struct program_lowering {
  const weft_context *ctx;
  weft_program *p;
  unsigned id; /* the build's number in its context */
  int x_aligned_only;
  lowered_kernel *out; /* per kernel */
} program_lowering;

/* jit_lower_fn: the unit's parts of every kernel of m (each kernel's description comes from the
 * unit that has its entry), then only the generated functions are left in m. */
static weft_status lower_unit(void *arg, LLVMModuleRef m, int unit, int nunits, char **err) {
  program_lowering *pl = arg;
  const weft_options *o = &pl->ctx->opts;
  lower_split split = {.unit = unit, .nunits = nunits};
  lower_target t = {o->warp, o->lanes, pl->ctx->avx512, pl->x_aligned_only};
  unsigned i = 0;
  for (LLVMValueRef f = frontend_next_kernel(m, NULL); f; f = frontend_next_kernel(m, f), i++) {
    lowered_kernel k;
    weft_status st = lower_kernel(f, pl->id, &t, &split, &k, err);
    if (!st && k.has_entry && i < pl->p->nkernels) pl->out[i] = k;
    else kernel_info_free(&k);
    if (st) return st;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    if (!LLVMIsDeclaration(f) && strncmp(LLVMGetValueName2(f, &len), "__weft_", 7)) LLVMDeleteFunction(f);
  }
  return WEFT_SUCCESS;
}

/* The instructions of m's kernels, how much there is to lower; *n: how many kernels. */
static unsigned kernel_instrs(LLVMModuleRef m, unsigned *n) {
  unsigned size = 0, count = 0;
  for (LLVMValueRef f = frontend_next_kernel(m, NULL); f; f = frontend_next_kernel(m, f), count++)
    size += cfg_fn_instrs(f);
  if (n) *n = count;
  return size;
}

/* Lowers and compiles p's kernels from the front end's module m (p->front_end holds it as
 * bitcode; m is NULL in a later build, which reads it back) into `out` and new code under
 * *tracker: for x-aligned work-groups only, or for all. */
static weft_status build_variant(weft_program *p, LLVMModuleRef m, int x_aligned_only,
                                 lowered_kernel *out, LLVMOrcResourceTrackerRef *tracker,
                                 char **err) {
  weft_context *ctx = p->ctx;
  program_lowering pl = {ctx, p, ctx->programs_built++, x_aligned_only, out};
  return jit_compile(ctx->jit, m, p->front_end, p->instrs, lower_unit, &pl, tracker, err);
}

/* Sets p's kernels' function pointers to the code of the variant `built`: the warp function
 * for x-aligned work-groups and the setargs, or (unaligned) the warp function for the others. */
static weft_status link_kernels(weft_program *p, const lowered_kernel *built, int unaligned,
                                char **err) {
  for (unsigned i = 0; i < p->nkernels; i++) {
    void *run, *setargs = NULL;
    weft_status st = jit_lookup(p->ctx->jit, built[i].run_name, &run, err);
    if (!st && !unaligned) st = jit_lookup(p->ctx->jit, built[i].setargs_name, &setargs, err);
    if (st) return st;
    weft_compiled_kernel *info = &p->kernels[i].info;
    if (unaligned) info->run_unaligned = (weft_warp_fn)run;
    else info->run = (weft_warp_fn)run, info->setargs = (void (*)(void))setargs;
  }
  return WEFT_SUCCESS;
}

/* The whole of a kernel file, for the cache key; NULL when it cannot be read (the front end
 * then says why) or holds a NUL byte (a string would not be all of it). */
static char *read_file(const char *path) {
  size_t len = 0;
  char *text = file_read(path, &len);
  if (text && strlen(text) != len) free(text), text = NULL;
  return text;
}

/* The cache key: what the build depends on besides the context (text: the source). NULL when
 * there is no text. */
static char *cache_key(const char *path, const char *text, const char *opts) {
  char *key = NULL;
  opts = opts ? opts : "";
  if (text && asprintf(&key, "%zu:%s%zu:%s%s", strlen(path), path, strlen(opts), opts, text) < 0)
    key = NULL;
  return key;
}

static weft_program *cache_find(weft_context *ctx, const char *key) {
  for (weft_program *p = ctx->cache; p && key; p = p->next)
    if (!strcmp(p->key, key)) return p;
  return NULL;
}

/* The first build in a process warms up code generation while clang works: on the thread that
 * waits for clang, then on the JIT's other compile threads (jit_warm_up). In a new
 * process, bench/k50.cl's largest compile unit took 51 ms to generate without it and 28 ms with
 * it; with each thread's heap warmed too, the back end takes 35 ms instead of 50. */
static void warm_up(void *arg) {
  static atomic_flag done = ATOMIC_FLAG_INIT;
  weft_context *ctx = arg;
  if (atomic_flag_test_and_set(&done)) return;
  double t = debug_time(NULL, 0);
  jit_warm_up(ctx->jit, ctx->opts.lanes);
  debug_time("warm-up", t);
}

static weft_status compile(weft_context *ctx, const char *path, const char *source, const char *opts, weft_program **out) {
  char *file_text = source ? NULL : read_file(path);
  char *key = cache_key(path, source ? source : file_text, opts);
  weft_program *cached = cache_find(ctx, key);
  if (cached) {
    free(key), free(file_text);
    cached->refs++;
    *out = cached;
    return set_error(ctx, WEFT_SUCCESS, "%s", "");
  }
  weft_program *p = calloc(1, sizeof *p);
  if (!p) return free(key), free(file_text), WEFT_ERROR_OUT_OF_MEMORY;
  p->ctx = ctx, p->refs = 1;
  LLVMContextRef llvm = LLVMContextCreate();
  frontend_result fr;
  char *err = NULL;
  double t = debug_time(NULL, 0);
  frontend_idle idle = {warm_up, ctx};
  weft_status st = frontend_compile(llvm, path, source, opts, &idle, &fr);
  free(file_text);
  if (st) {
    err = fr.log ? fr.log : strdup("weft: the front end failed");
    goto fail;
  }
  p->log = fr.log ? fr.log : strdup("");
  t = debug_time("front end", t);
  p->instrs = kernel_instrs(fr.module, &p->nkernels);
  p->kernels = calloc(p->nkernels ? p->nkernels : 1, sizeof *p->kernels);
  p->front_end = LLVMWriteBitcodeToMemoryBuffer(fr.module);
  st = p->kernels && p->front_end ? build_variant(p, fr.module, 1, p->kernels, &p->code, &err)
                                  : WEFT_ERROR_OUT_OF_MEMORY;
  LLVMDisposeModule(fr.module);
  if (!st) st = link_kernels(p, p->kernels, 0, &err);
  if (st) goto fail;
  debug_time("back end", t);
  LLVMContextDispose(llvm);
  if (key) p->key = key, p->next = ctx->cache, ctx->cache = p;
  *out = p;
  return set_error(ctx, WEFT_SUCCESS, "%s", "");
fail:
  free(key);
  LLVMContextDispose(llvm);
  weft_program_release(p);
  return set_error_msg(ctx, st, err ? err : strdup("weft: build failed"));
}

static weft_status build(weft_context *ctx, const char *path, const char *source, const char *opts, weft_program **out) {
  if (!ctx || !path || !out) return ctx ? set_error(ctx, WEFT_ERROR_INVALID_VALUE, "no file name") : WEFT_ERROR_INVALID_VALUE;
  *out = NULL;
  return compile(ctx, path, source, opts, out);
}

weft_status weft_program_build_file(weft_context *ctx, const char *path, const char *build_options, weft_program **out) {
  return build(ctx, path, NULL, build_options, out);
}

weft_status weft_program_build_source(weft_context *ctx, const char *name, const char *source,
                                      const char *build_options, weft_program **out) {
  if (!source) return ctx ? set_error(ctx, WEFT_ERROR_INVALID_VALUE, "no source") : WEFT_ERROR_INVALID_VALUE;
  return build(ctx, name ? name : "<source>", source, build_options, out);
}

const char *weft_program_build_log(const weft_program *p) { return p && p->log ? p->log : ""; }

const char *weft_program_kernel_name(const weft_program *p, unsigned index) {
  return p && index < p->nkernels ? p->kernels[index].info.name : NULL;
}

/* ---- kernels ---- */

weft_status weft_kernel_create(weft_program *p, const char *name, weft_kernel **out) {
  if (!p || !out) return WEFT_ERROR_INVALID_VALUE;
  *out = NULL;
  for (unsigned i = 0; i < p->nkernels; i++)
    if (name && !strcmp(p->kernels[i].info.name, name)) {
      weft_kernel *k = calloc(1, sizeof *k);
      if (!k) return WEFT_ERROR_OUT_OF_MEMORY;
      k->program = p, k->k = &p->kernels[i].info;
      *out = k;
      return WEFT_SUCCESS;
    }
  char names[256] = "";
  for (unsigned i = 0; i < p->nkernels; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", p->kernels[i].info.name);
  return set_error(p->ctx, WEFT_ERROR_KERNEL_NOT_FOUND, "no kernel named '%s' (kernels: %s)",
                   name ? name : "(null)", p->nkernels ? names : "none");
}

void weft_kernel_release(weft_kernel *k) { free(k); }

const char *weft_kernel_name(const weft_kernel *k) { return k ? k->k->name : NULL; }

unsigned weft_kernel_num_args(const weft_kernel *k) { return k ? k->k->nparams : 0; }

weft_status weft_kernel_arg_info(const weft_kernel *k, unsigned index, weft_arg_info *info) {
  if (!k || !info || index >= k->k->nparams) return WEFT_ERROR_INVALID_VALUE;
  const weft_param *p = &k->k->params[index];
  *info = (weft_arg_info){p->name, p->type_name, p->kind, p->type, p->vector_width, p->size};
  return WEFT_SUCCESS;
}

weft_status weft_kernel_launch(weft_kernel *k, const weft_ndrange *range, unsigned nargs,
                               const weft_arg *args, weft_stats *stats) {
  return weft_kernel_launch_traced(k, range, nargs, args, stats, NULL);
}

/* The variant of p's kernels for work-groups that are not x-aligned, from the front end's
 * bitcode; its global variables are the first build's. */
static weft_status build_unaligned(weft_program *p, char **err) {
  double t = debug_time(NULL, 0);
  lowered_kernel *out = calloc(p->nkernels ? p->nkernels : 1, sizeof *out);
  weft_status st = out ? build_variant(p, NULL, 0, out, &p->code_unaligned, err)
                       : WEFT_ERROR_OUT_OF_MEMORY;
  if (!st) st = link_kernels(p, out, 1, err);
  for (unsigned i = 0; out && i < p->nkernels; i++) kernel_info_free(&out[i]);
  free(out);
  debug_time("back end for work-groups not x-aligned", t);
  return st;
}

weft_status weft_kernel_launch_traced(weft_kernel *k, const weft_ndrange *range, unsigned nargs,
                                      const weft_arg *args, weft_stats *stats,
                                      const weft_trace_options *trace) {
  if (!k) return WEFT_ERROR_INVALID_VALUE;
  weft_context *ctx = k->program->ctx;
  if (range && range->dims >= 1 && range->dims <= 3 && !k->k->run_unaligned &&
      !rt_x_aligned(range, k->k->lanes)) {
    char *msg = NULL;
    weft_status st = build_unaligned(k->program, &msg);
    if (st) return set_error_msg(ctx, st, msg ? msg : strdup("weft: the build of the kernel "
                                                                "for these work-groups failed"));
  }
  char err[512] = "";
  weft_status st = runtime_launch_traced(ctx->rt, k->k, ctx->policy, range, nargs, args, stats,
                                         trace, err, sizeof err);
  return set_error(ctx, st, "%s", st ? err : "");
}

unsigned weft_kernel_num_blocks(const weft_kernel *k) { return k ? k->k->nblocks : 0; }

weft_status weft_kernel_block_lines(const weft_kernel *k, unsigned pc, unsigned *first_line,
                                    unsigned *last_line) {
  if (!k || !first_line || !last_line || pc >= k->k->nblocks) return WEFT_ERROR_INVALID_VALUE;
  *first_line = k->k->first_line ? k->k->first_line[pc] : 0;
  *last_line = k->k->last_line ? k->k->last_line[pc] : 0;
  return WEFT_SUCCESS;
}
