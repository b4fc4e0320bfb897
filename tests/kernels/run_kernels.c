/* The end-to-end kernel suite: every case of cases.def built and launched through weft.h, under
 * every policy, warp width W, lane-group width G (G <= W) and worker count of the matrix, and
 * every buffer compared with the case's oracle.
 *
 *     run_kernels [--warps 4,8,...]
 *
 * The matrix is the lists below; each environment variable, when set, narrows its list (the
 * intersection, so `WEFT_KERNEL_WARPS=32 ctest -L kernels` runs W 32 only even though ctest
 * runs one W per test):
 *     WEFT_KERNEL_POLICIES  stack,mp,mp-orec,pc and the split variants of mp and mp-orec:
 *                           POLICY:rr (--split-order; lowest-pc is the default), POLICY:max2
 *                           (--max-splits 2), both as in mp-orec:rr:max2
 *     WEFT_KERNEL_WARPS     4,8,16,32,64     (--warps narrows it the same way)
 *     WEFT_KERNEL_LANES     4,8,16 (W 64 runs the host's own G only, 16 with AVX-512, else 8,
 *                           unless this asks for more: each G there is the suite's longest
 *                           build, 43 s of the 85 s that W 64 built alone on an AVX2 VM, and
 *                           W 32 and 16 run the same lane groups with masks of 32 bits)
 *     WEFT_KERNEL_THREADS   1,2 (W 32 and 64 run 2 only unless this asks for 1: one worker
 *                           changes nothing a wide warp would show, and each context costs a
 *                           build of every kernel, the suite's time)
 *     WEFT_KERNEL_FILTER    a substring: only the kernels whose name contains it
 *     WEFT_KERNEL_SEPARATE  1: build each .cl on its own (also when FILTER is set)
 * and WEFT_ISA=avx2 (weft's own variable) runs the suite on the code for a host without AVX-512.
 *
 * One context per (W, G, threads), made once. In each, all the .cl files are built as one
 * program (one clang run instead of 39: about 5x less build time, which is most of the
 * suite's time); if that build fails, every file is built on its own so the failure is
 * pinned to its kernel. The contexts that differ only in their threads share that build: the
 * run turns weft's disk cache on in a folder of its own (the code does not depend on the
 * threads; the second context loads the first one's objects, which tests the cache's loading
 * too). Each kernel is reused for every policy (weft_context_set_policy). A
 * failure prints the kernel and the configuration and goes on with the others, so one run
 * shows the whole pattern of failures. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cases.h"
#include "scratch_dir.h"
#include "stats_differ.h"
#include "weft.h"

#ifndef WEFT_KERNEL_DIR
#define WEFT_KERNEL_DIR "tests/kernels"
#endif

static const char *const all_policies[] = {
    "stack",      "mp",         "mp-orec",         "pc",          "mp:rr",
    "mp-orec:rr", "mp:rr:max2", "mp-orec:rr:max2", "mp-orec:max2"};
static const unsigned all_warps[] = {4, 8, 16, 32, 64};
static const unsigned all_lanes[] = {4, 8, 16};
static const unsigned all_threads[] = {1, 2};
#define COUNT(a) (sizeof(a) / sizeof *(a))
#define MAX_CONFIGS (COUNT(all_warps) * COUNT(all_lanes) * COUNT(all_threads))

/* A context of the matrix and, per case, its kernel (built on first use). */
typedef struct config {
  unsigned warp, lanes, threads;
  weft_context *ctx;
  weft_program *all;       /* every .cl in one program, or NULL */
  bool all_tried;
  weft_program **programs; /* per case, when built on its own */
  weft_kernel **kernels;
} config;

typedef struct suite {
  config configs[MAX_CONFIGS];
  unsigned nconfigs;
  const char *policies[COUNT(all_policies)];
  unsigned npolicies;
} suite;

static const char *warps_arg; /* --warps */
static suite *the_suite;      /* made by setup() for every test of the run */
static char *all_source;      /* every .cl of the suite, for one build per context */

/* ---- the matrix ---- */

/* Whether `word` is in the comma-separated `list` (NULL: every word is). */
static bool listed(const char *list, const char *word) {
  if (!list) return true;
  size_t n = strlen(word);
  for (const char *s = list; *s;) {
    const char *end = strchr(s, ',');
    size_t len = end ? (size_t)(end - s) : strlen(s);
    if (len == n && !memcmp(s, word, n)) return true;
    if (!end) break;
    s = end + 1;
  }
  return false;
}

static bool number_listed(const char *var, const char *arg, unsigned v) {
  char word[16];
  snprintf(word, sizeof word, "%u", v);
  return listed(getenv(var), word) && listed(arg, word);
}

/* ---- building ---- */

static void kernel_path(const kcase *c, char *path, size_t size) {
  snprintf(path, size, "%s/%s.cl", WEFT_KERNEL_DIR, c->name);
}

/* The suite's files joined. #line keeps each file's name and lines in diagnostics; the
 * FP_CONTRACT pragma one file may set goes back to the default before the next. Helper
 * functions and macros of the files therefore need distinct names. NULL if a file is missing. */
static char *join_sources(void) {
  char *text = NULL, path[1024], buf[4096];
  size_t len = 0, n;
  FILE *out = open_memstream(&text, &len);
  for (unsigned k = 0; out && k < nkcases; k++) {
    kernel_path(&kcases[k], path, sizeof path);
    FILE *in = fopen(path, "r");
    if (!in) {
      print_error("cannot read %s\n", path);
      fclose(out);
      return free(text), NULL;
    }
    fprintf(out, "#line 1 \"%s\"\n", path);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fputs("\n#pragma OPENCL FP_CONTRACT DEFAULT\n", out);
    fclose(in);
  }
  if (out) fclose(out);
  return text;
}

/* The program that holds case c in this context: the joined one, else c's own. */
static weft_program *program_of(config *cf, const kcase *c, weft_status *st) {
  unsigned k = (unsigned)(c - kcases);
  const char *separate = getenv("WEFT_KERNEL_SEPARATE");
  bool join = !(separate && *separate == '1') && !getenv("WEFT_KERNEL_FILTER");
  *st = WEFT_SUCCESS;
  if (!cf->all_tried && join && all_source) {
    cf->all_tried = true;
    *st = weft_program_build_source(cf->ctx, "kernels", all_source, NULL, &cf->all);
    if (*st)
      print_error("W %u G %u threads %u: the joined build failed (%s), building each file on "
                  "its own:\n%s\n",
                  cf->warp, cf->lanes, cf->threads, weft_status_name(*st),
                  weft_last_error(cf->ctx));
  }
  if (cf->all) return cf->all;
  if (cf->programs[k]) return cf->programs[k];
  char path[1024];
  kernel_path(c, path, sizeof path);
  *st = weft_program_build_file(cf->ctx, path, NULL, &cf->programs[k]);
  return *st ? NULL : cf->programs[k];
}

/* ---- the matrix of contexts ---- */

/* The host's own G: what a context takes by default (16 with AVX-512, else 8). */
static unsigned host_lanes(void) {
  static unsigned lanes;
  weft_context *ctx;
  weft_options o = {.threads = 1};
  if (!lanes && weft_context_create(&o, &ctx) == WEFT_SUCCESS) {
    lanes = weft_context_options(ctx).lanes;
    weft_context_release(ctx);
  }
  return lanes;
}

/* False when the context cannot be made (a configuration this CPU lacks is only skipped). */
static bool add_config(suite *s, unsigned w, unsigned g, unsigned t) {
  config *c = &s->configs[s->nconfigs];
  weft_options o = {.threads = t, .warp = w, .lanes = g}; /* run_one sets the policy */
  weft_status st = weft_context_create(&o, &c->ctx);
  if (st == WEFT_ERROR_UNSUPPORTED) {
    print_message("W %u G %u threads %u: not supported on this machine, skipped\n", w, g, t);
    return true;
  }
  if (st) {
    print_error("context W %u G %u threads %u: %s\n", w, g, t, weft_status_name(st));
    return false;
  }
  c->warp = w, c->lanes = g, c->threads = t;
  c->programs = calloc(nkcases, sizeof *c->programs);
  c->kernels = calloc(nkcases, sizeof *c->kernels);
  s->nconfigs++;
  return c->programs && c->kernels;
}

static int setup(void **state) {
  (void)state;
  suite *s = the_suite = calloc(1, sizeof *s);
  if (!s) return -1;
  all_source = join_sources();
  for (unsigned p = 0; p < COUNT(all_policies); p++)
    if (listed(getenv("WEFT_KERNEL_POLICIES"), all_policies[p]))
      s->policies[s->npolicies++] = all_policies[p];
  if (!s->npolicies) return 0;
  for (unsigned wi = 0; wi < COUNT(all_warps); wi++)
    for (unsigned gi = 0; gi < COUNT(all_lanes); gi++)
      for (unsigned ti = 0; ti < COUNT(all_threads); ti++) {
        unsigned w = all_warps[wi], g = all_lanes[gi], t = all_threads[ti];
        if (g > w || w % g || (w >= 32 && t == 1 && !getenv("WEFT_KERNEL_THREADS")) ||
            (w == 64 && g != host_lanes() && !getenv("WEFT_KERNEL_LANES")) ||
            !number_listed("WEFT_KERNEL_WARPS", warps_arg, w) ||
            !number_listed("WEFT_KERNEL_LANES", NULL, g) ||
            !number_listed("WEFT_KERNEL_THREADS", NULL, t))
          continue;
        if (!add_config(s, w, g, t)) return -1;
      }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  suite *s = the_suite;
  for (unsigned i = 0; i < s->nconfigs; i++) {
    config *c = &s->configs[i];
    for (unsigned k = 0; k < nkcases; k++) {
      if (c->kernels[k]) weft_kernel_release(c->kernels[k]);
      if (c->programs[k]) weft_program_release(c->programs[k]);
    }
    if (c->all) weft_program_release(c->all);
    free(c->kernels), free(c->programs);
    weft_context_release(c->ctx);
  }
  free(s);
  free(all_source);
  return 0;
}

/* ---- one case ---- */

/* The case's kernel in this context, built on first use; NULL after printing why not. */
static weft_kernel *kernel_of(config *cf, const kcase *c) {
  unsigned k = (unsigned)(c - kcases);
  if (cf->kernels[k]) return cf->kernels[k];
  weft_status st;
  weft_program *program = program_of(cf, c, &st);
  if (program) st = weft_kernel_create(program, c->name, &cf->kernels[k]);
  if (st)
    print_error("%s: W %u G %u threads %u: build: %s: %s\n", c->name, cf->warp, cf->lanes,
                cf->threads, weft_status_name(st), weft_last_error(cf->ctx));
  return st ? NULL : cf->kernels[k];
}

static void make_args(const kcase *c, const kbufs *b, weft_arg *args) {
  for (unsigned k = 0; k < c->nparams; k++) {
    const kparam *p = &c->params[k];
    static const weft_arg_kind kinds[] = {[KP_GLOBAL] = WEFT_ARG_GLOBAL,
                                          [KP_CONSTANT] = WEFT_ARG_CONSTANT,
                                          [KP_VALUE] = WEFT_ARG_VALUE,
                                          [KP_LOCAL] = WEFT_ARG_LOCAL};
    args[k] = (weft_arg){kinds[p->kind], p->type, b->bytes[k], b->p[k]};
    if (p->kind == KP_LOCAL) args[k].size = p->count * ktype_size(p->type);
  }
}

/* Sets the context up for a policy of the matrix: NAME[:lowest-pc][:maxN]. */
static weft_status use_policy(weft_context *ctx, const char *variant) {
  char name[64];
  snprintf(name, sizeof name, "%s", variant);
  char *opts = strchr(name, ':');
  if (opts) *opts++ = 0;
  const char *order = !opts                       ? NULL
                      : strstr(opts, "lowest-pc") ? "lowest-pc"
                      : strstr(opts, "rr")        ? "rr"
                                                  : NULL;
  const char *max = opts ? strstr(opts, "max") : NULL;
  weft_status st = weft_context_set_policy(ctx, name);
  return st ? st : weft_context_set_splits(ctx, order, max ? (unsigned)atoi(max + 3) : 0);
}

/* A case with barriers on both sides of a divergent branch: `stack` must report a divergent
 * barrier; mp, mp-orec and pc run it. */
static bool divergent_barrier_reported(const kcase *c, const char *policy, weft_status st) {
  return c->divergent_barrier && !strcmp(policy, "stack") && st == WEFT_ERROR_DIVERGENT_BARRIER;
}

/* One launch of case c, with the policy stepped from the generated code (in_code) or from the
 * runtime; false with msg saying what went wrong
 * (a divergent barrier that the policy must report counts as right). */
static bool launch_case(config *cf, weft_kernel *kernel, const char *policy, const kcase *c,
                        const kbufs *in, const kbufs *want, int in_code, weft_stats *stats,
                        char *msg, size_t n) {
  kbufs got;
  weft_arg args[KMAX_PARAMS];
  weft_ndrange range = {c->dims,
                        {c->global[0], c->global[1], c->global[2]},
                        {c->local[0], c->local[1], c->local[2]}};
  assert_true(kbufs_copy(c, in, &got));
  make_args(c, &got, args);
  weft_status st = use_policy(cf->ctx, policy);
  if (!st) st = weft_context_set_policy_in_runtime(cf->ctx, !in_code);
  if (!st) st = weft_kernel_launch(kernel, &range, c->nparams, args, stats);
  bool ok = divergent_barrier_reported(c, policy, st);
  if (!ok && st)
    snprintf(msg, n, "launch%s: %s: %s", in_code ? " (policy in code)" : "", weft_status_name(st),
             weft_last_error(cf->ctx));
  if (!ok && !st) ok = kcase_compare(c, &got, want, msg, n);
  if (st && stats) *stats = (weft_stats){0};
  kbufs_free(c, &got);
  return ok;
}

/* Whether the policy runs structured branches masked in the code (kernel.h, ctx->regions):
 * `stack`, `pc`, and `mp` and `mp-orec` under the lowest-pc order (the default) without a split
 * bound. */
static bool runs_regions(const char *policy) {
  return !strstr(policy, ":rr") && !strstr(policy, "max");
}

/* One case in one configuration, with the policy stepped from the runtime (the reference,
 * weft_options.policy_in_runtime) and from the generated code (the default), which must give
 * the same results and stats, and once more in code without stats (the code then counts
 * nothing: ctx->counting); false after printing what went wrong. */
static bool run_one(config *cf, const char *policy, const kcase *c, const kbufs *in,
                    const kbufs *want) {
  weft_kernel *kernel = kernel_of(cf, c);
  if (!kernel) return false;
  weft_stats stats, in_code;
  char msg[1024] = "";
  bool ok = launch_case(cf, kernel, policy, c, in, want, 0, &stats, msg, sizeof msg) &&
            launch_case(cf, kernel, policy, c, in, want, 1, &in_code, msg, sizeof msg) &&
            launch_case(cf, kernel, policy, c, in, want, 1, NULL, msg, sizeof msg);
  const char *differ = ok ? stats_differ(&stats, &in_code) : NULL;
  if (differ) {
    snprintf(msg, sizeof msg, "stat %s differs with the policy in code", differ);
    ok = false;
  } else if (ok && in_code.round_trips > stats.round_trips) {
    snprintf(msg, sizeof msg, "%llu round trips with the policy in code, more than %llu",
             (unsigned long long)in_code.round_trips, (unsigned long long)stats.round_trips);
    ok = false;
  }
  if (ok && c->structured && runs_regions(policy) &&
      (in_code.round_trips || !in_code.divergent_branches)) {
    snprintf(msg, sizeof msg,
             "structured branches, yet %llu round trips with the policy in code (and %llu "
             "divergent branches)",
             (unsigned long long)in_code.round_trips,
             (unsigned long long)in_code.divergent_branches);
    ok = false;
  }
  if (ok && c->uniform && (stats.divergent_branches || stats.policy_calls)) {
    snprintf(msg, sizeof msg,
             "no branch depends on the lane, yet %llu divergent branches and "
             "%llu policy calls",
             (unsigned long long)stats.divergent_branches, (unsigned long long)stats.policy_calls);
    ok = false;
  }
  if (!ok)
    print_error("%s: policy %s W %u G %u threads %u: %s\n", c->name, policy, cf->warp, cf->lanes,
                cf->threads, msg);
  return ok;
}

static void test_case(void **state) {
  const kcase *c = *state;
  const char *filter = getenv("WEFT_KERNEL_FILTER");
  if ((filter && !strstr(c->name, filter)) || !the_suite->nconfigs) skip();
  kbufs in, want;
  assert_true(kbufs_make(c, &in));
  unsigned failed = 0, runs = 0;
  for (unsigned i = 0; i < the_suite->nconfigs; i++) {
    if (i == 0 || c->per_warp) { /* the expected results, again for each W when they depend on it */
      if (i) kbufs_free(c, &want);
      assert_true(kbufs_copy(c, &in, &want));
      kcase_expect(c, &want, the_suite->configs[i].warp);
    }
    for (unsigned p = 0; p < the_suite->npolicies; p++, runs++)
      failed += !run_one(&the_suite->configs[i], the_suite->policies[p], c, &in, &want);
  }
  kbufs_free(c, &in), kbufs_free(c, &want);
  if (failed) fail_msg("%s: %u of %u configurations failed", c->name, failed, runs);
}

/* Under WEFT_ISA=avx2 (ctest's kernels_avx2) on a host without AVX-512, the run would repeat
 * what kernels_w* check there already. */
static bool repeats_native(void) {
  const char *isa = getenv("WEFT_ISA");
  return isa && !strcmp(isa, "avx2") && !__builtin_cpu_supports("avx512f");
}

/* The run's disk cache, in a folder of its own: false if it cannot be made (then the run builds
 * every context anew, as the environment says). */
static bool private_cache(char *dir, size_t size) {
  return scratch_dir_make(dir, size, "run_kernels") && !setenv("WEFT_CACHE_DIR", dir, 1) &&
         !setenv("WEFT_CACHE", "1", 1);
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--warps")) warps_arg = argv[i + 1];
  if (repeats_native()) {
    printf("skipped: WEFT_ISA=avx2 is this host's own code, which kernels_w* check\n");
    return 77;
  }
  struct CMUnitTest *tests = calloc(nkcases, sizeof *tests);
  if (!tests) return 1;
  for (unsigned i = 0; i < nkcases; i++)
    tests[i] = (struct CMUnitTest){kcases[i].name, test_case, NULL, NULL, (void *)&kcases[i]};
  char cache[PATH_MAX];
  bool cached = private_cache(cache, sizeof cache);
  int rc = _cmocka_run_group_tests("kernels", tests, nkcases, setup, teardown);
  if (cached) scratch_dir_remove(cache);
  free(tests);
  return rc;
}
