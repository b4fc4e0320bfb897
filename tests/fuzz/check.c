/* A kernel through weft.h: built once per (W, G) context, launched under every policy with
 * the policy's decisions taken in the generated code and in the runtime, every buffer compared
 * with the oracle's and the stats of the two modes with each other (as the kernel suite does). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "stats_differ.h"
#include "weft.h"

static const char *const policies[] = {"stack", "mp", "mp-orec", "pc"};
#define NPOLICIES (sizeof policies / sizeof *policies)

struct fz_checker {
  unsigned n;
  fz_config configs[8];
  weft_context *ctx[8];
};

const char *fz_failure_name(fz_failure f) {
  static const char *const names[] = {
      "ok",           "wrong result",  "stats differ", "launch failed",
      "build failed", "oracle failed", "crash",        "timeout"};
  return (unsigned)f < sizeof names / sizeof *names ? names[f] : "?";
}

fz_checker *fz_checker_create(const fz_config *configs, unsigned n, unsigned threads, char *why,
                              size_t nwhy) {
  fz_checker *c = calloc(1, sizeof *c);
  if (!c || n > sizeof c->ctx / sizeof *c->ctx) abort();
  for (unsigned i = 0; i < n; i++) {
    weft_options o = {.threads = threads, .warp = configs[i].warp, .lanes = configs[i].lanes};
    c->configs[i] = configs[i];
    weft_status st = weft_context_create(&o, &c->ctx[c->n]);
    if (st) {
      snprintf(why, nwhy, "W %u G %u: %s", o.warp, o.lanes, weft_status_name(st));
      fz_checker_release(c);
      return NULL;
    }
    c->configs[i].lanes = weft_context_options(c->ctx[i]).lanes; /* 0: the CPU's default */
    c->n++;
  }
  return c;
}

void fz_checker_release(fz_checker *c) {
  if (!c) return;
  for (unsigned i = 0; i < c->n; i++) weft_context_release(c->ctx[i]);
  free(c);
}

static weft_status launch(weft_kernel *kernel, const fz_kernel *k, fz_result *r,
                          weft_stats *stats) {
  size_t ls = k->local_size;
  weft_ndrange range = {.dims = 1, .global = {ls * k->groups}, .local = {ls}};
  weft_arg args[7] = {
      {WEFT_ARG_GLOBAL, WEFT_U32, sizeof k->in, k->in},
      {WEFT_ARG_GLOBAL, WEFT_U32, r->nout * sizeof *r->out, r->out},
      {WEFT_ARG_GLOBAL, WEFT_U32, FZ_NGC * sizeof *r->gc, r->gc},
      {WEFT_ARG_GLOBAL, WEFT_U32, r->nlout * sizeof *r->lout, r->lout},
      {WEFT_ARG_LOCAL, WEFT_U32, ls * sizeof(uint32_t), NULL},
      {WEFT_ARG_LOCAL, WEFT_U32, ls * sizeof(uint32_t), NULL},
      {WEFT_ARG_LOCAL, WEFT_U32, FZ_NLC * sizeof(uint32_t), NULL},
  };
  return weft_kernel_launch(kernel, &range, k->local_params ? 7 : 4, args, stats);
}

/* One policy in both modes, against want, and in code once more without stats: a launch that
 * does not count runs small branches as selects (lower_region.c). */
static fz_failure check_policy(weft_context *ctx, weft_kernel *kernel, const fz_kernel *k,
                               const fz_result *want, const char *policy, char *why, size_t n) {
  weft_stats stats[2];
  for (int mode = 0; mode < 3; mode++) {
    fz_result got;
    fz_result_alloc(&got, k);
    weft_context_set_policy(ctx, policy);
    weft_context_set_policy_in_runtime(ctx, mode == 1);
    weft_status st = launch(kernel, k, &got, mode < 2 ? &stats[mode] : NULL);
    const char *diff = st ? NULL : fz_result_diff(want, &got);
    if (st) snprintf(why, n, "%s: %s", weft_status_name(st), weft_last_error(ctx));
    else if (diff) snprintf(why, n, "%s", diff);
    fz_result_free(&got);
    if (st || diff) {
      size_t len = strlen(why);
      snprintf(why + len, n - len, " (%s%s)", policy,
               mode == 1   ? ", policy in runtime"
               : mode == 2 ? ", no stats"
                           : "");
      return st ? FZ_LAUNCH : FZ_WRONG;
    }
  }
  const char *stat = stats_differ(&stats[0], &stats[1]);
  if (stat) snprintf(why, n, "%s: %s differs between the two modes", policy, stat);
  return stat ? FZ_STATS : FZ_OK;
}

static fz_failure check_config(fz_checker *c, unsigned i, const fz_kernel *k, const char *src,
                               fz_oracle *o, char *why, size_t n) {
  fz_result want;
  fz_result_alloc(&want, k);
  fz_failure f = fz_oracle_run(o, k, c->configs[i].warp, &want, why, n) ? FZ_OK : FZ_ORACLE;
  weft_program *prog = NULL;
  weft_kernel *kernel = NULL;
  weft_status st = f ? WEFT_SUCCESS
                     : weft_program_build_source(c->ctx[i], "fz.cl", src, NULL, &prog);
  if (!st && !f) st = weft_kernel_create(prog, "fz", &kernel);
  if (st) {
    snprintf(why, n, "%s: %s", weft_status_name(st), weft_last_error(c->ctx[i]));
    f = FZ_BUILD;
  }
  for (unsigned p = 0; p < NPOLICIES && !f; p++)
    f = check_policy(c->ctx[i], kernel, k, &want, policies[p], why, n);
  weft_kernel_release(kernel);
  weft_program_release(prog);
  fz_result_free(&want);
  return f;
}

fz_failure fz_check(fz_checker *c, const fz_kernel *k, int only, unsigned *config, char *why,
                    size_t n) {
  fz_oracle *o = fz_oracle_build(k, why, n);
  if (!o) return FZ_ORACLE;
  char *src = fz_source(k, FZ_OPENCL);
  fz_failure f = FZ_OK;
  char detail[1024] = "";
  for (unsigned i = 0; i < c->n && !f; i++) {
    if (only >= 0 && i != (unsigned)only) continue;
    *config = i;
    f = check_config(c, i, k, src, o, detail, sizeof detail);
    if (f) snprintf(why, n, "W %u G %u: %s", c->configs[i].warp, c->configs[i].lanes, detail);
  }
  free(src);
  fz_oracle_release(o);
  return f;
}
