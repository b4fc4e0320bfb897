/* The public host API (include/weft.h): contexts, programs and kernels, and nothing else. A
 * context holds the options, the runtime and the JIT; a program is built by pipeline.c for the
 * context's W and G, for x-aligned work-groups (rt_x_aligned), and kept in the context's cache
 * for a build of the same source again; launching hands the compiled kernel to the runtime,
 * after building its variant for the other work-groups when the launch has those and it is
 * not built yet. */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "runtime.h"

/* ---- handles ----
 * Every context, program and kernel begins with a handle: a magic number, set on create and
 * cleared when the host releases it, and a link in a table of the handles alive, from which it
 * goes when its memory is freed. Each call checks its handle there first, so a handle released
 * twice, or used after its release, is WEFT_ERROR_INVALID_VALUE and never a read of freed
 * memory (only a handle whose memory went to a new handle of the same kind passes for it). */
enum { CONTEXT_MAGIC = 0x77637478, PROGRAM_MAGIC = 0x77707267, KERNEL_MAGIC = 0x776b726e };
typedef struct handle {
  unsigned magic; /* 0: released by the host, alive for the handles that use it */
  struct handle *next;
} handle;

#define HANDLE_BUCKETS 256
static handle *handles[HANDLE_BUCKETS];
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;

static handle **bucket(const void *p) { return &handles[(uintptr_t)p / 64 % HANDLE_BUCKETS]; }

static void handle_add(handle *h, unsigned magic) {
  pthread_mutex_lock(&handles_lock);
  h->magic = magic, h->next = *bucket(h), *bucket(h) = h;
  pthread_mutex_unlock(&handles_lock);
}

static void handle_remove(handle *h) {
  pthread_mutex_lock(&handles_lock);
  for (handle **at = bucket(h); *at; at = &(*at)->next)
    if (*at == h) {
      *at = h->next;
      break;
    }
  pthread_mutex_unlock(&handles_lock);
}

/* Whether p is a handle of this kind (magic) that the host has not released. */
static int handle_live(const void *p, unsigned magic) {
  int live = 0;
  pthread_mutex_lock(&handles_lock);
  for (handle *h = p ? *bucket(p) : NULL; h && !live; h = h->next)
    live = h == p && h->magic == magic;
  pthread_mutex_unlock(&handles_lock);
  return live;
}

static void handle_retire(handle *h) {
  pthread_mutex_lock(&handles_lock);
  h->magic = 0;
  pthread_mutex_unlock(&handles_lock);
}

#define LIVE_CONTEXT(c) handle_live(c, CONTEXT_MAGIC)
#define LIVE_PROGRAM(p) handle_live(p, PROGRAM_MAGIC)
#define LIVE_KERNEL(k) handle_live(k, KERNEL_MAGIC)

struct weft_context {
  handle h;
  unsigned programs; /* programs alive: the context is freed after the last */
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
  handle h;
  weft_context *ctx;
  unsigned refs;    /* the host's: builds that returned it, less its releases */
  unsigned kernels; /* kernels alive: the program is freed after the last */
  char *key; /* path, options and source text */
  weft_program *next;
  program_code built;
};

struct weft_kernel {
  handle h;
  weft_program *program;
  const weft_compiled_kernel *k;
  unsigned index; /* of k in its program */
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
  return LIVE_CONTEXT(ctx) && ctx->error ? ctx->error : "";
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

/* 0 when `seconds` can be a timeout (0: what `zero` says); else 1, with why saying so of
 * `what`. */
static int bad_timeout(double seconds, const char *what, const char *zero, char *why, size_t n) {
  if (seconds >= 0 && seconds <= WEFT_MAX_TIMEOUT_S) return 0;
  snprintf(why, n, "%s must be 0 (%s) or a number of seconds up to %g, not %g", what, zero,
           WEFT_MAX_TIMEOUT_S, seconds);
  return 1;
}

/* A timeout of 0 in *seconds (the option `field`) takes the environment variable env_name's, for
 * hosts whose options cannot be changed. */
static int resolve_timeout(double *seconds, const char *field, const char *env_name,
                           const char *zero, char *why, size_t n) {
  const char *env = getenv(env_name);
  if (*seconds || !env || !*env) return bad_timeout(*seconds, field, zero, why, n);
  char *end;
  *seconds = strtod(env, &end);
  if (end == env || *end) *seconds = -1; /* refused below, as any bad value is */
  return bad_timeout(*seconds, env_name, zero, why, n);
}

/* The launch's timeout, then the build's, which always has one (0 is the default). */
static int resolve_timeouts(weft_options *o, char *why, size_t n) {
  if (resolve_timeout(&o->timeout_s, "timeout_s", "WEFT_TIMEOUT", "no limit", why, n) ||
      resolve_timeout(&o->build_timeout_s, "build_timeout_s", "WEFT_BUILD_TIMEOUT", "the default",
                      why, n))
    return 1;
  if (!o->build_timeout_s) o->build_timeout_s = WEFT_DEFAULT_BUILD_TIMEOUT_S;
  return 0;
}

/* Replaces o's zeros and NULLs by their values and checks the result; why says what is wrong. */
static weft_status resolve(weft_options *o, int avx512, char *why, size_t n) {
  if (o->lanes && o->warp && o->lanes > o->warp)
    return snprintf(why, n,
                    "lane-group width G %u is wider than the warp width W %u (G must divide W)",
                    o->lanes, o->warp),
           WEFT_ERROR_INVALID_VALUE;
  if (!o->threads) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus > 0 ? (unsigned)cpus : 1;
  }
  if (o->threads > WEFT_MAX_THREADS)
    return snprintf(why, n, "threads must be 1..%u, not %u", WEFT_MAX_THREADS, o->threads),
           WEFT_ERROR_INVALID_VALUE;
  if (!o->warp) o->warp = 32;
  if (!valid_width(o->warp))
    return snprintf(why, n, "warp width W must be 4, 8, 16, 32 or 64, not %u", o->warp),
           WEFT_ERROR_INVALID_VALUE;
  if (!o->lanes) o->lanes = avx512 ? 16 : 8;
  if (o->lanes > o->warp) o->lanes = o->warp;
  if (o->lanes != 4 && o->lanes != 8 && o->lanes != 16)
    return snprintf(why, n, "lane-group width G must be 4, 8 or 16, not %u", o->lanes),
           WEFT_ERROR_INVALID_VALUE;
  if (!o->policy) o->policy = "stack";
  if (unknown_policy(o->policy, why, n)) return WEFT_ERROR_INVALID_VALUE;
  policy_config splits;
  if (policy_config_make(o->split_order, o->max_splits, o->warp, &splits, why, n))
    return WEFT_ERROR_INVALID_VALUE;
  o->split_order = split_order_name(splits.order), o->max_splits = splits.max_splits;
  return resolve_timeouts(o, why, n) ? WEFT_ERROR_INVALID_VALUE : WEFT_SUCCESS;
}

weft_status weft_options_check(const weft_options *options, char *why, size_t n) {
  weft_options o = options ? *options : (weft_options){0};
  char own[256];
  return why && n ? resolve(&o, jit_host_has_avx512(), why, n)
                  : resolve(&o, jit_host_has_avx512(), own, sizeof own);
}

static void context_free(weft_context *ctx) {
  handle_remove(&ctx->h);
  jit_release(ctx->jit);
  runtime_release(ctx->rt);
  free(ctx->error);
  free(ctx);
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
    context_free(ctx);
    return st;
  }
  cc1_start(); /* after jit_create, whose dlopen of libmvec would wait for clang's */
  handle_add(&ctx->h, CONTEXT_MAGIC);
  *out = ctx;
  return WEFT_SUCCESS;
}

weft_status weft_context_release(weft_context *ctx) {
  if (!ctx) return WEFT_SUCCESS;
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  handle_retire(&ctx->h);
  if (!ctx->programs) context_free(ctx);
  return WEFT_SUCCESS;
}

weft_status weft_context_set_policy(weft_context *ctx, const char *policy) {
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  char why[256];
  if (unknown_policy(policy, why, sizeof why))
    return set_error(ctx, WEFT_ERROR_INVALID_VALUE, "%s", why);
  snprintf(ctx->policy, sizeof ctx->policy, "%s", policy);
  return WEFT_SUCCESS;
}

weft_status weft_context_set_splits(weft_context *ctx, const char *split_order,
                                    unsigned max_splits) {
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  char why[128];
  weft_status st = runtime_set_splits(ctx->rt, split_order, max_splits, why, sizeof why);
  return st ? set_error(ctx, st, "%s", why) : WEFT_SUCCESS;
}

weft_status weft_context_set_policy_in_runtime(weft_context *ctx, int on) {
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  runtime_set_policy_in_runtime(ctx->rt, on);
  return WEFT_SUCCESS;
}

weft_status weft_context_set_timeout(weft_context *ctx, double seconds) {
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  char why[128];
  if (bad_timeout(seconds, "the timeout", "no limit", why, sizeof why))
    return set_error(ctx, WEFT_ERROR_INVALID_VALUE, "%s", why);
  runtime_set_timeout(ctx->rt, seconds);
  return WEFT_SUCCESS;
}

/* No LIVE_CONTEXT: it takes a lock, which a signal handler must not (weft.h). */
weft_status weft_context_stop(weft_context *ctx) {
  if (!ctx) return WEFT_ERROR_INVALID_VALUE;
  runtime_stop(ctx->rt);
  return WEFT_SUCCESS;
}

weft_options weft_context_options(const weft_context *ctx) {
  if (!LIVE_CONTEXT(ctx)) return (weft_options){0};
  weft_options o = ctx->opts, r = runtime_options(ctx->rt);
  o.policy = ctx->policy;
  o.split_order = r.split_order, o.max_splits = r.max_splits;
  o.policy_in_runtime = r.policy_in_runtime, o.timeout_s = r.timeout_s;
  return o;
}

/* ---- programs ---- */

/* Frees p once neither the host nor a kernel holds it, and then its context if the host
 * released that and p was its last program. */
static void program_free_if_unused(weft_program *p) {
  if (p->refs || p->kernels) return;
  weft_context *ctx = p->ctx;
  handle_remove(&p->h);
  free(p->key);
  pipeline_code_free(&p->built);
  free(p);
  if (!--ctx->programs && !LIVE_CONTEXT(ctx)) context_free(ctx);
}

weft_status weft_program_release(weft_program *p) {
  if (!p) return WEFT_SUCCESS;
  if (!LIVE_PROGRAM(p)) return WEFT_ERROR_INVALID_VALUE;
  if (--p->refs > 0) return WEFT_SUCCESS;
  handle_retire(&p->h);
  for (weft_program **at = &p->ctx->cache; *at; at = &(*at)->next) /* a new build builds anew */
    if (*at == p) {
      *at = p->next;
      break;
    }
  program_free_if_unused(p);
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
static char *program_key(const char *path, const char *text, const char *opts) {
  char *key = NULL;
  opts = opts ? opts : "";
  if (text && asprintf(&key, "%zu:%s%zu:%s%s", strlen(path), path, strlen(opts), opts, text) < 0)
    key = NULL;
  return key;
}

static weft_program *program_find(weft_context *ctx, const char *key) {
  for (weft_program *p = ctx->cache; p && key; p = p->next)
    if (!strcmp(p->key, key)) return p;
  return NULL;
}

/* What ctx compiles for (pipeline.c). */
static pipeline_target target_of(weft_context *ctx) {
  return (pipeline_target){ctx->jit,    ctx->opts.warp,       ctx->opts.lanes,
                           ctx->avx512, &ctx->programs_built, ctx->opts.build_timeout_s};
}

static weft_status compile(weft_context *ctx, const char *path, const char *source,
                           const char *opts, weft_program **out) {
  char *file_text = source ? NULL : read_file(path);
  char *key = program_key(path, source ? source : file_text, opts);
  weft_program *cached = program_find(ctx, key);
  if (cached) {
    free(key), free(file_text);
    cached->refs++;
    *out = cached;
    return set_error(ctx, WEFT_SUCCESS, "%s", "");
  }
  weft_program *p = calloc(1, sizeof *p);
  if (!p) return free(key), free(file_text), WEFT_ERROR_OUT_OF_MEMORY;
  p->ctx = ctx, p->refs = 1, ctx->programs++;
  handle_add(&p->h, PROGRAM_MAGIC);
  char *err = NULL;
  pipeline_target t = target_of(ctx);
  weft_status st = pipeline_build(&t, path, source, source ? source : file_text, opts, &p->built,
                                  &err);
  free(file_text);
  if (st) {
    free(key);
    weft_program_release(p);
    return set_error_msg(ctx, st, err ? err : strdup("weft: build failed"));
  }
  if (key) p->key = key, p->next = ctx->cache, ctx->cache = p;
  *out = p;
  return set_error(ctx, WEFT_SUCCESS, "%s", "");
}

static weft_status build(weft_context *ctx, const char *path, const char *source, const char *opts,
                         weft_program **out) {
  if (!LIVE_CONTEXT(ctx)) return WEFT_ERROR_INVALID_VALUE;
  if (!path || !out)
    return set_error(ctx, WEFT_ERROR_INVALID_VALUE,
                     path ? "no place for the program" : "no file name");
  *out = NULL;
  return compile(ctx, path, source, opts, out);
}

weft_status weft_program_build_file(weft_context *ctx, const char *path, const char *build_options,
                                    weft_program **out) {
  return build(ctx, path, NULL, build_options, out);
}

weft_status weft_program_build_source(weft_context *ctx, const char *name, const char *source,
                                      const char *build_options, weft_program **out) {
  if (!source)
    return LIVE_CONTEXT(ctx) ? set_error(ctx, WEFT_ERROR_INVALID_VALUE, "no source")
                             : WEFT_ERROR_INVALID_VALUE;
  return build(ctx, name ? name : "<source>", source, build_options, out);
}

const char *weft_program_build_log(const weft_program *p) {
  return LIVE_PROGRAM(p) && p->built.log ? p->built.log : "";
}

const char *weft_program_kernel_name(const weft_program *p, unsigned index) {
  return LIVE_PROGRAM(p) && index < p->built.nkernels ? p->built.kernels[index].info.name : NULL;
}

/* ---- kernels ---- */

weft_status weft_kernel_create(weft_program *p, const char *name, weft_kernel **out) {
  if (!LIVE_PROGRAM(p)) return WEFT_ERROR_INVALID_VALUE;
  if (!out || !name)
    return set_error(p->ctx, WEFT_ERROR_INVALID_VALUE,
                     out ? "no kernel name" : "no place for the kernel");
  *out = NULL;
  for (unsigned i = 0; i < p->built.nkernels; i++)
    if (!strcmp(p->built.kernels[i].info.name, name)) {
      weft_kernel *k = calloc(1, sizeof *k);
      if (!k) return WEFT_ERROR_OUT_OF_MEMORY;
      k->program = p, k->k = &p->built.kernels[i].info, k->index = i, p->kernels++;
      handle_add(&k->h, KERNEL_MAGIC);
      *out = k;
      return WEFT_SUCCESS;
    }
  char names[256] = "";
  for (unsigned i = 0; i < p->built.nkernels; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
             p->built.kernels[i].info.name);
  return set_error(p->ctx, WEFT_ERROR_KERNEL_NOT_FOUND, "no kernel named '%s' (kernels: %s)", name,
                   p->built.nkernels ? names : "none");
}

weft_status weft_kernel_release(weft_kernel *k) {
  if (!k) return WEFT_SUCCESS;
  if (!LIVE_KERNEL(k)) return WEFT_ERROR_INVALID_VALUE;
  weft_program *p = k->program;
  handle_remove(&k->h);
  free(k);
  p->kernels--;
  program_free_if_unused(p);
  return WEFT_SUCCESS;
}

const char *weft_kernel_name(const weft_kernel *k) { return LIVE_KERNEL(k) ? k->k->name : NULL; }
size_t weft_kernel_local_mem_size(const weft_kernel *k) {
  return LIVE_KERNEL(k) ? k->k->static_local_size : 0;
}

unsigned weft_kernel_num_args(const weft_kernel *k) { return LIVE_KERNEL(k) ? k->k->nparams : 0; }

weft_status weft_kernel_arg_info(const weft_kernel *k, unsigned index, weft_arg_info *info) {
  if (!LIVE_KERNEL(k) || !info || index >= k->k->nparams) return WEFT_ERROR_INVALID_VALUE;
  const weft_param *p = &k->k->params[index];
  *info = (weft_arg_info){p->name,         p->type_name, p->kind,      p->type,
                          p->vector_width, p->size,      p->qualifiers};
  return WEFT_SUCCESS;
}

static weft_status launch(weft_kernel *k, const weft_ndrange *range, const size_t *offset,
                          unsigned nargs, const weft_arg *args, weft_stats *stats,
                          const weft_trace_options *trace);

weft_status weft_kernel_launch(weft_kernel *k, const weft_ndrange *range, unsigned nargs,
                               const weft_arg *args, weft_stats *stats) {
  return launch(k, range, NULL, nargs, args, stats, NULL);
}

weft_status weft_kernel_launch_offset(weft_kernel *k, const weft_ndrange *range,
                                      const size_t offset[3], unsigned nargs, const weft_arg *args,
                                      weft_stats *stats) {
  return launch(k, range, offset, nargs, args, stats, NULL);
}

weft_status weft_kernel_launch_traced(weft_kernel *k, const weft_ndrange *range, unsigned nargs,
                                      const weft_arg *args, weft_stats *stats,
                                      const weft_trace_options *trace) {
  return launch(k, range, NULL, nargs, args, stats, trace);
}

static weft_status launch(weft_kernel *k, const weft_ndrange *range, const size_t *offset,
                          unsigned nargs, const weft_arg *args, weft_stats *stats,
                          const weft_trace_options *trace) {
  if (!LIVE_KERNEL(k)) return WEFT_ERROR_INVALID_VALUE;
  weft_context *ctx = k->program->ctx;
  if (range && range->dims >= 1 && range->dims <= 3 && !k->k->run_unaligned &&
      !rt_x_aligned(range, k->k->lanes)) {
    char *msg = NULL;
    pipeline_target t = target_of(ctx);
    weft_status st = pipeline_build_unaligned(&t, &k->program->built, k->index, &msg);
    if (st)
      return set_error_msg(ctx, st,
                           msg ? msg
                               : strdup("weft: the build of the kernel "
                                        "for these work-groups failed"));
  }
  char err[16384] = ""; /* a stopped launch's report has a few lines per warp */
  weft_status st = runtime_launch_at(ctx->rt, k->k, ctx->policy, range, offset, nargs, args, stats,
                                     trace, err, sizeof err);
  return set_error(ctx, st, "%s", st ? err : "");
}

unsigned weft_kernel_num_blocks(const weft_kernel *k) { return LIVE_KERNEL(k) ? k->k->nblocks : 0; }

weft_status weft_kernel_block_lines(const weft_kernel *k, unsigned pc, unsigned *first_line,
                                    unsigned *last_line) {
  if (!LIVE_KERNEL(k) || !first_line || !last_line || pc >= k->k->nblocks)
    return WEFT_ERROR_INVALID_VALUE;
  *first_line = k->k->first_line ? k->k->first_line[pc] : 0;
  *last_line = k->k->last_line ? k->k->last_line[pc] : 0;
  return WEFT_SUCCESS;
}
