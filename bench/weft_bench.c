/* weft_bench: weft against plain C in one process, as ratios of medians.
 *
 * Each workload (workloads.c) is a kernel of bench/kernels/ (or the samples' mandelbrot and
 * vector add), run by weft and, as the baseline, by the same per-item algorithm in plain C
 * (baselines.c, clang-19 -O3 -march=native -ffp-contract=off) on the same number of threads.
 * After one warm-up of each, the two run alternately, --runs times each, under each policy
 * asked for; the table shows the medians, their ratio, weft's SIMD efficiency and its calls
 * into the policy, and the 32-bit words in which weft's output differs from the baseline's (a
 * fast wrong answer shows up there, and makes the exit status 1). Then the first-launch and
 * repeated-launch times of bench/k50.cl. usage() lists the options. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

typedef struct bench_opts {
  unsigned threads, runs, warp, lanes;
  const char *policy, *only;
  const char *split_order; /* mp, mp-orec: NULL for the default */
  unsigned max_splits;
  unsigned settle; /* FIRST_CHILD: ms between weft_context_create and the build */
  int policies;    /* every policy instead of `policy` */
  int quick;       /* small sizes */
  int policy_in_runtime; /* weft_options.policy_in_runtime */
  const char *json;
} bench_opts;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- weft ---- */

typedef struct weft_job {
  weft_kernel *k;
  weft_ndrange range;
  weft_arg args[8];
  unsigned nargs;
} weft_job;

static weft_kernel *load(weft_context *ctx, const char *file, const char *name, weft_program **p) {
  if (weft_program_build_file(ctx, file, NULL, p)) {
    fprintf(stderr, "weft_bench: %s: %s\n", file, weft_last_error(ctx));
    exit(1);
  }
  weft_kernel *k;
  if (weft_kernel_create(*p, name, &k))
    exit((fprintf(stderr, "weft_bench: no kernel %s\n", name), 1));
  return k;
}

static double time_weft(weft_context *ctx, weft_job *j) {
  double t0 = now_ms();
  if (weft_kernel_launch(j->k, &j->range, j->nargs, j->args, NULL)) {
    fprintf(stderr, "weft_bench: launch failed: %s\n", weft_last_error(ctx));
    exit(1);
  }
  return now_ms() - t0;
}

/* The 50-line kernel with its arguments, over one warp (pts and out have room for 64 lanes). */
typedef struct k50_data {
  float pts[64 * 4], out[64], light[4];
  int hits, steps;
} k50_data;

static weft_job k50_job(weft_context *ctx, weft_program **p, k50_data *d) {
  weft_job j = {.k = load(ctx, WEFT_SAMPLES "/../bench/k50.cl", "k50", p), .nargs = 6};
  unsigned W = weft_context_options(ctx).warp;
  *d = (k50_data){.light = {1, 2, 3, 0}, .steps = 4};
  for (int i = 0; i < 64 * 4; i++) d->pts[i] = (float)i / 64;
  j.range = (weft_ndrange){1, {W, 1, 1}, {W, 1, 1}};
  j.args[0] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_F32, sizeof d->pts, d->pts};
  j.args[1] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_F32, sizeof d->out, d->out};
  j.args[2] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_I32, sizeof d->hits, &d->hits};
  j.args[3] = (weft_arg){WEFT_ARG_LOCAL, WEFT_F32, W * 4, NULL};
  j.args[4] = (weft_arg){WEFT_ARG_VALUE, WEFT_F32, 16, d->light};
  j.args[5] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, &d->steps};
  return j;
}

/* Build and first launch of k50 in a new context: from the context's creation when `settle` is
 * 0, else after the context has existed for `settle` ms (clang has loaded by then, as in a host
 * that sets up before it builds). */
static double first_launch(const weft_options *wo, unsigned settle) {
  weft_context *ctx;
  weft_program *p;
  k50_data d;
  double t0 = now_ms();
  if (weft_context_create(wo, &ctx)) exit((fprintf(stderr, "weft_bench: bad options\n"), 1));
  if (settle) {
    nanosleep(&(struct timespec){0, settle * 1000000L}, NULL);
    t0 = now_ms();
  }
  weft_job j = k50_job(ctx, &p, &d);
  time_weft(ctx, &j);
  double ms = now_ms() - t0;
  weft_kernel_release(j.k), weft_program_release(p), weft_context_release(ctx);
  return ms;
}

/* The first launch as a host program's first build sees it: in a process of its own (this
 * program again, with FIRST_CHILD), where nothing of LLVM or clang has run yet. Returns what
 * the child measured (from weft_context_create, or after `settle` ms), and in *whole the time
 * from starting the process to its exit. */
#define FIRST_CHILD "--first-launch-child"
static double fresh_first_launch(const weft_options *wo, unsigned settle, const char *cache,
                                 double *whole) {
  char self[4096] = "", env[4200] = "", cmd[8800];
  if (readlink("/proc/self/exe", self, sizeof self - 1) < 0) return -1;
  if (cache) snprintf(env, sizeof env, "WEFT_CACHE=1 WEFT_CACHE_DIR='%s' ", cache);
  snprintf(cmd, sizeof cmd, "%s'%s' " FIRST_CHILD " --threads %u --warp %u --lanes %u --settle %u",
           env, self, wo->threads, wo->warp, wo->lanes, settle);
  double t0 = now_ms(), ms = -1;
  FILE *f = popen(cmd, "r");
  if (!f || fscanf(f, "%lf", &ms) != 1) ms = -1;
  if (f) pclose(f);
  *whole = now_ms() - t0;
  return ms;
}

/* Removes folder dir and the files in it (the cache's entries). */
static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  char path[4400];
  for (struct dirent *e; d && (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name), unlink(path);
  if (d) closedir(d);
  rmdir(dir);
}

static void print_launch(const char *what, const char *how, double *t, unsigned n, int failed) {
  if (failed) printf("%-28s %10s %10s     (%s: it did not run)\n", what, "", "-", how);
  else printf("%-28s %10s %10.2f ms  (%s)\n", what, "", median(t, n), how);
}

/* First launch of a 50-line kernel (clang, lowering, JIT, launch), and what a repeated launch
 * of it adds over the kernel's own run time, measured on a one-warp NDRange. */
static void bench_launch(weft_context *ctx, const bench_opts *o) {
  weft_options wo = weft_context_options(ctx);
  unsigned n = o->runs;
  double *t = calloc(n * 10, sizeof *t), *whole = calloc(n, sizeof *whole);
  int failed = 0;
  for (unsigned r = 0; r < n; r++)
    failed |= (t[r] = fresh_first_launch(&wo, 0, NULL, &whole[r])) < 0;
  print_launch("first launch, 50-line kernel",
               "clang + lowering + JIT + launch, new process, "
               "from weft_context_create",
               t, n, failed);
  print_launch("", "the same, from the process's start to its exit", whole, n, failed);
  failed = 0;
  for (unsigned r = 0; r < n; r++)
    failed |= (t[r] = fresh_first_launch(&wo, 200, NULL, &whole[r])) < 0;
  print_launch("", "the same, 200 ms after weft_context_create: clang loaded", t, n, failed);
  char cache[] = "/tmp/weft_bench_cache.XXXXXX";
  failed = !mkdtemp(cache);
  for (unsigned r = 0; r <= n && !failed; r++) /* the first run fills the cache */
    failed |= (t[r ? r - 1 : 0] = fresh_first_launch(&wo, 0, cache, &whole[0])) < 0;
  print_launch("", "the same, from the disk cache that an earlier process filled", t, n, failed);
  remove_tree(cache);
  for (unsigned r = 0; r < n; r++) t[r] = first_launch(&wo, 0);
  print_launch("", "a new context's build in a process that has built before", t, n, 0);
  weft_program *p;
  k50_data d;
  weft_job j = k50_job(ctx, &p, &d);
  for (unsigned r = 0; r < n * 10; r++) t[r] = time_weft(ctx, &j);
  printf("%-28s %10s %10.3f ms  (one warp: launch overhead + a tiny run)\n", "repeated launch", "",
         median(t, n * 10));
  free(t), free(whole);
  weft_kernel_release(j.k), weft_program_release(p);
}

/* ---- the suite ---- */

/* One row: a workload under one policy. */
typedef struct result {
  char title[64];
  const char *name, *policy; /* the workload's name for --only, the policy */
  double c_ms, weft_ms, simd;
  uint64_t policy_calls, round_trips, launches, warps;
  size_t mismatches;
} result;

static double timed(const workload *wl, void (*run)(work *), work *w, void *dst) {
  if (wl->reset) wl->reset(w, dst);
  double t0 = now_ms();
  run(w);
  return now_ms() - t0;
}

static double time_c(const workload *wl, work *w) { return timed(wl, wl->run_c, w, w->ref); }

static double time_weft_run(const workload *wl, work *w) {
  w->launches = 0;
  return timed(wl, wl->run_weft, w, w->out);
}

/* weft's warm-up, the one run that asks for stats: counting blocks and lanes costs time in
 * divergent code, and a launch that asks for no stats does not count. */
static void weft_warm_up(const workload *wl, work *w) {
  memset(&w->stats, 0, sizeof w->stats), w->counting = 1;
  time_weft_run(wl, w);
  w->counting = 0;
}

/* The baseline and weft alternately, runs times each after a warm-up of each (weft's gives the
 * stats); the outputs of the last runs are compared. */
static result measure(const workload *wl, work *w, const char *policy, const bench_opts *o) {
  double *c = calloc(o->runs, sizeof *c), *v = calloc(o->runs, sizeof *v);
  time_c(wl, w), weft_warm_up(wl, w);
  for (unsigned r = 0; r < o->runs; r++) c[r] = time_c(wl, w), v[r] = time_weft_run(wl, w);
  unsigned W = weft_context_options(w->ctx).warp;
  result res = {"",
                wl->name,
                policy,
                median(c, o->runs),
                median(v, o->runs),
                (double)w->stats.lane_instrs / ((double)W * (double)w->stats.instr_execs),
                w->stats.policy_calls,
                w->stats.round_trips,
                w->launches,
                w->stats.warps,
                work_mismatches(w)};
  snprintf(res.title, sizeof res.title, "%s", w->title);
  free(c), free(v);
  return res;
}

static void print_header(void) {
  printf("%-34s %-8s %10s %9s %8s %8s %12s %11s %10s\n", "workload", "policy", "plain C ms",
         "weft ms", "speedup", "SIMD eff", "policy calls", "round trips", "mismatches");
}

static void print_result(const result *r, int first) {
  printf("%-34s %-8s %10.2f %9.2f %7.2fx %8.3f %12llu %11llu %10zu\n", first ? r->title : "",
         r->policy, r->c_ms, r->weft_ms, r->c_ms / r->weft_ms, r->simd,
         (unsigned long long)r->policy_calls, (unsigned long long)r->round_trips, r->mismatches);
}

static const char *const all_policies[] = {"stack", "mp", "mp-orec", "pc"};

/* Runs one workload under each policy asked for, adding its rows to res. */
static unsigned bench_workload(weft_context *ctx, cpool *p, const workload *wl, const bench_opts *o,
                               result *res) {
  work w = {.ctx = ctx, .pool = p, .quick = o->quick};
  wl->setup(&w);
  unsigned n = 0;
  for (unsigned i = 0; i < (o->policies ? 4u : 1u); i++) {
    const char *policy = o->policies ? all_policies[i] : o->policy;
    if (weft_context_set_policy(ctx, policy))
      exit((fprintf(stderr, "weft_bench: %s\n", weft_last_error(ctx)), 2));
    res[n] = measure(wl, &w, policy, o);
    print_result(&res[n], n == 0);
    fflush(stdout);
    n++;
  }
  work_release(&w);
  return n;
}

/* Whether `name` is one of the comma-separated names of --only (every name without it). */
static int chosen(const char *only, const char *name) {
  if (!only) return 1;
  size_t len = strlen(name);
  for (const char *s = only; (s = strstr(s, name)); s += len)
    if ((s == only || s[-1] == ',') && (s[len] == ',' || !s[len])) return 1;
  return 0;
}

static void write_json(const char *path, const weft_options *wo, const bench_opts *o,
                       const result *res, unsigned n) {
  FILE *f = fopen(path, "w");
  if (!f) exit((fprintf(stderr, "weft_bench: cannot write %s\n", path), 1));
  fprintf(
      f,
      "{\"threads\": %u, \"warp\": %u, \"lanes\": %u, \"runs\": %u, \"quick\": %s,\n"
      " \"split_order\": \"%s\", \"max_splits\": %u, \"policy_in_runtime\": %s,\n \"workloads\": [",
      wo->threads, wo->warp, wo->lanes, o->runs, o->quick ? "true" : "false", wo->split_order,
      wo->max_splits, wo->policy_in_runtime ? "true" : "false");
  for (unsigned i = 0; i < n; i++)
    fprintf(f,
            "%s\n  {\"name\": \"%s\", \"workload\": \"%s\", \"policy\": \"%s\", \"c_ms\": %.4f, "
            "\"weft_ms\": %.4f, \"speedup\": %.4f, \"simd_efficiency\": %.4f, "
            "\"policy_calls\": %llu, \"round_trips\": %llu, \"launches\": %llu, "
            "\"warps\": %llu, "
            "\"mismatches\": %zu}",
            i ? "," : "", res[i].name, res[i].title, res[i].policy, res[i].c_ms, res[i].weft_ms,
            res[i].c_ms / res[i].weft_ms, res[i].simd, (unsigned long long)res[i].policy_calls,
            (unsigned long long)res[i].round_trips, (unsigned long long)res[i].launches,
            (unsigned long long)res[i].warps, res[i].mismatches);
  fprintf(f, "\n ]}\n");
  if (fclose(f)) exit((fprintf(stderr, "weft_bench: cannot write %s\n", path), 1));
}

/* Runs the chosen workloads; returns the mismatches of all of them. */
static size_t bench_suite(weft_context *ctx, const bench_opts *o) {
  result *res = calloc(num_workloads * 4, sizeof *res);
  unsigned n = 0;
  size_t bad = 0;
  cpool *p = cpool_create(o->threads);
  print_header();
  for (unsigned i = 0; i < num_workloads; i++)
    if (chosen(o->only, workloads[i].name)) n += bench_workload(ctx, p, &workloads[i], o, res + n);
  for (unsigned i = 0; i < n; i++) bad += res[i].mismatches;
  weft_options wo = weft_context_options(ctx);
  if (o->json) write_json(o->json, &wo, o, res, n);
  cpool_release(p);
  free(res);
  return bad;
}

/* ---- options ---- */

static void usage(FILE *f) {
  fprintf(
      f, "usage: weft_bench [--threads N] [--runs N] [--warp W] [--lanes G]\n"
         "                  [--policy stack|mp|mp-orec|pc | --policies]\n"
         "                  [--split-order lowest-pc|rr] [--max-splits N]\n"
         "                  [--only NAME[,NAME...]] [--quick] [--json PATH] [--policy-in-runtime]\n"
         "                  [--help]\n"
         "\n"
         "Runs each workload with weft and as plain C (the same per-item algorithm, clang-19 -O3\n"
         "-march=native, on the same threads), alternately, --runs times each after a warm-up,\n"
         "and prints the medians, their ratio (speedup: plain C ms / weft ms), weft's SIMD\n"
         "efficiency, policy calls and round trips (the stats of weft's warm-up: the timed\n"
         "launches ask for none, as counting costs time), and the 32-bit words in which\n"
         "weft's output differs from plain C's; then the first launch of bench/k50.cl in new\n"
         "processes and contexts, and a repeated launch of it. Exit status 1 when an output "
         "differs, 2 for a bad command line.\n"
         "\n"
         "  --threads N     weft's workers and the baselines' threads (default 2)\n"
         "  --runs N        timed runs of each, after one warm-up (default 7)\n"
         "  --warp W, --lanes G   as for weft run (default 32, and 16 with AVX-512, else 8)\n"
         "  --policy P      the policy of every launch (default stack)\n"
         "  --policies      each workload under stack, mp, mp-orec and pc, a row per policy\n"
         "  --split-order, --max-splits   mp and mp-orec's options, as for weft run\n"
         "  --only NAMES    only these, comma-separated:\n"
         "                  launch");
  for (unsigned i = 0, col = 24; i < num_workloads; i++) {
    const char *name = workloads[i].name;
    if (i && !strcmp(name, workloads[i - 1].name)) continue;
    int wrap = col + strlen(name) + 2 > 90;
    fprintf(f, wrap ? ",\n                  %s" : ", %s", name);
    col = wrap ? 18 + strlen(name) : col + strlen(name) + 2;
  }
  fprintf(f,
          "\n"
          "  --quick         small sizes: checks every workload in a few seconds; its times mean\n"
          "                  nothing\n"
          "  --json PATH     also writes the rows to PATH as JSON: the options, and per workload\n"
          "                  and policy the times, speedup, SIMD efficiency, policy calls,\n"
          "                  launches, warps and mismatches\n"
          "  --policy-in-runtime  every policy event returns to the runtime (as weft run\n"
          "                  --policy-in-runtime): the reference path\n");
}

/* Options that take no value; returns 1 if argv[i] was one. */
static int parse_flag(const char *arg, bench_opts *o) {
  if (!strcmp(arg, "--policies")) o->policies = 1;
  else if (!strcmp(arg, "--quick")) o->quick = 1;
  else if (!strcmp(arg, "--policy-in-runtime")) o->policy_in_runtime = 1;
  else return 0;
  return 1;
}

static int parse(int argc, char **argv, bench_opts *o) {
  for (int i = 1; i < argc; i++) {
    if (parse_flag(argv[i], o)) continue;
    if (i + 1 == argc) return 0;
    const char *v = argv[++i];
    if (!strcmp(argv[i - 1], "--threads")) o->threads = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--runs")) o->runs = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--warp")) o->warp = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--lanes")) o->lanes = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--policy")) o->policy = v;
    else if (!strcmp(argv[i - 1], "--only")) o->only = v;
    else if (!strcmp(argv[i - 1], "--split-order")) o->split_order = v;
    else if (!strcmp(argv[i - 1], "--max-splits")) o->max_splits = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--settle")) o->settle = (unsigned)atoi(v);
    else if (!strcmp(argv[i - 1], "--json")) o->json = v;
    else return 0;
  }
  return o->threads >= 1 && o->threads <= 256 && o->runs >= 1;
}

int main(int argc, char **argv) {
  bench_opts o = {.threads = 2, .runs = 7, .policy = "stack"};
  if (argc > 1 && !strcmp(argv[1], FIRST_CHILD) && parse(argc - 1, argv + 1, &o)) {
    weft_options wo = {.threads = o.threads, .warp = o.warp, .lanes = o.lanes};
    printf("%.3f\n", first_launch(&wo, o.settle));
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--help")) return usage(stdout), 0;
  setenv("WEFT_CACHE", "0", 1); /* every build is timed as a build, but where asked otherwise */
  if (!parse(argc, argv, &o)) return usage(stderr), 2;
  weft_context *ctx;
  char why[256] = "bad options";
  weft_options wo = {.threads = o.threads,
                     .policy = o.policy,
                     .warp = o.warp,
                     .lanes = o.lanes,
                     .split_order = o.split_order,
                     .max_splits = o.max_splits,
                     .policy_in_runtime = o.policy_in_runtime};
  if (weft_options_check(&wo, why, sizeof why) || weft_context_create(&wo, &ctx))
    return fprintf(stderr, "weft_bench: %s\n", why), 2;
  weft_options r = weft_context_options(ctx);
  printf("weft_bench: %u threads, W=%u, G=%u, policy %s (split order %s, max splits %u), "
         "median of %u runs%s%s\n\n",
         r.threads, r.warp, r.lanes, o.policies ? "each" : r.policy, r.split_order, r.max_splits,
         o.runs, o.quick ? ", quick sizes" : "",
         o.policy_in_runtime ? ", policy in the runtime" : "");
  size_t bad = bench_suite(ctx, &o);
  if (chosen(o.only, "launch")) {
    printf("\n");
    bench_launch(ctx, &o);
  }
  weft_context_release(ctx);
  if (bad) fprintf(stderr, "weft_bench: %zu mismatches between weft and plain C\n", bad);
  return bad ? 1 : 0;
}
