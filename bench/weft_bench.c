/* weft_bench: weft against plain C in one process, as ratios of medians.
 *
 *   weft_bench [--threads N] [--runs N] [--warp W] [--lanes G] [--policy P] [--only NAME]
 *              [--split-order rr|lowest-pc] [--max-splits N]
 *
 * Baselines are the same per-item algorithms as plain C (bench/baselines.c, clang-19 -O3
 * -march=native -ffp-contract=off), split over the same number of threads. Each workload is run
 * once to warm up, then --runs times each way; the table shows the medians. weft's outputs are
 * compared with the baseline's, so a fast wrong answer shows up as a mismatch. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft.h"

void base_mandelbrot_rows(uint32_t *out, int width, int height, int max_iter, int y0, int y1);
void base_vector_add(const float *a, const float *b, float *c, size_t begin, size_t end);

typedef struct bench_opts {
  unsigned threads, runs, warp, lanes;
  const char *policy, *only;
  const char *split_order; /* mp, mp-orec: NULL for the default */
  unsigned max_splits;
  unsigned settle; /* FIRST_CHILD: ms between weft_context_create and the build */
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

/* ---- baselines on T threads ---- */

typedef struct slice {
  void (*fn)(const struct slice *);
  void *out;
  const void *a, *b;
  size_t begin, end;
  int width, height, iters;
} slice;

static void *slice_main(void *p) {
  const slice *s = p;
  s->fn(s);
  return NULL;
}

static void run_slices(slice *s, unsigned n) {
  pthread_t t[256];
  for (unsigned i = 1; i < n; i++) pthread_create(&t[i], NULL, slice_main, &s[i]);
  slice_main(&s[0]);
  for (unsigned i = 1; i < n; i++) pthread_join(t[i], NULL);
}

static void mandel_slice(const slice *s) {
  base_mandelbrot_rows(s->out, s->width, s->height, s->iters, (int)s->begin, (int)s->end);
}

static void vadd_slice(const slice *s) { base_vector_add(s->a, s->b, s->out, s->begin, s->end); }

/* Splits [0, n) into T slices; rows of mandelbrot interleave so both threads get the same work. */
static double time_baseline(void (*fn)(const slice *), slice proto, size_t n, unsigned threads) {
  slice s[256];
  for (unsigned i = 0; i < threads; i++) {
    s[i] = proto, s[i].fn = fn;
    s[i].begin = n * i / threads, s[i].end = n * (i + 1) / threads;
  }
  double t0 = now_ms();
  run_slices(s, threads);
  return now_ms() - t0;
}

/* ---- weft ---- */

typedef struct weft_job {
  weft_kernel *k;
  weft_ndrange range;
  weft_arg args[8];
  unsigned nargs;
  weft_stats stats;
} weft_job;

static weft_kernel *load(weft_context *ctx, const char *file, const char *name, weft_program **p) {
  if (weft_program_build_file(ctx, file, NULL, p)) {
    fprintf(stderr, "weft_bench: %s: %s\n", file, weft_last_error(ctx));
    exit(1);
  }
  weft_kernel *k;
  if (weft_kernel_create(*p, name, &k)) exit((fprintf(stderr, "weft_bench: no kernel %s\n", name), 1));
  return k;
}

static double time_weft(weft_context *ctx, weft_job *j) {
  double t0 = now_ms();
  if (weft_kernel_launch(j->k, &j->range, j->nargs, j->args, &j->stats)) {
    fprintf(stderr, "weft_bench: launch failed: %s\n", weft_last_error(ctx));
    exit(1);
  }
  return now_ms() - t0;
}

typedef struct result {
  double base, weft;
} result;

/* Runs baseline and weft alternately, runs times each after one warm-up of each. */
static result compare(weft_context *ctx, weft_job *j, void (*fn)(const slice *), slice proto,
                      size_t n, const bench_opts *o) {
  double *b = calloc(o->runs, sizeof *b), *w = calloc(o->runs, sizeof *w);
  time_baseline(fn, proto, n, o->threads), time_weft(ctx, j);
  for (unsigned r = 0; r < o->runs; r++) {
    b[r] = time_baseline(fn, proto, n, o->threads);
    w[r] = time_weft(ctx, j);
  }
  result res = {median(b, o->runs), median(w, o->runs)};
  free(b), free(w);
  return res;
}

static void row(const char *name, result r, const char *extra) {
  printf("%-28s %10.2f %10.2f %8.2fx  %s\n", name, r.base, r.weft, r.base / r.weft, extra);
}

static void bench_mandelbrot(weft_context *ctx, const bench_opts *o) {
  enum { W = 1024, H = 768, ITERS = 256 };
  weft_program *p;
  weft_job j = {.k = load(ctx, WEFT_SAMPLES "/mandelbrot.cl", "mandelbrot", &p),
                .range = {2, {W, H, 1}, {32, 8, 1}}, .nargs = 4};
  uint32_t *out = calloc(W * H, 4), *ref = calloc(W * H, 4);
  int w = W, h = H, it = ITERS;
  j.args[0] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_U32, W * H * 4, out};
  j.args[1] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, &w};
  j.args[2] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, &h};
  j.args[3] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, 4, &it};
  slice proto = {.out = ref, .width = W, .height = H, .iters = ITERS};
  result r = compare(ctx, &j, mandel_slice, proto, H, o);
  size_t bad = 0;
  for (size_t i = 0; i < (size_t)W * H; i++) bad += out[i] != ref[i];
  char extra[128];
  snprintf(extra, sizeof extra, "simd_eff %.3f, policy_calls %llu, mismatches %zu",
           j.stats.simd_efficiency, (unsigned long long)j.stats.policy_calls, bad);
  row("mandelbrot 1024x768x256", r, extra);
  free(out), free(ref);
  weft_kernel_release(j.k), weft_program_release(p);
}

/* Vector add of N floats in work-groups of `local`: 256, and 1000, which is no multiple of G (a
 * work-group of one row keeps its accesses packed all the same). */
static void bench_vector_add(weft_context *ctx, const bench_opts *o, size_t N, size_t local,
                             const char *name) {
  weft_program *p;
  weft_job j = {.k = load(ctx, WEFT_SAMPLES "/vector_add.cl", "vector_add", &p),
                .range = {1, {N, 1, 1}, {local, 1, 1}}, .nargs = 3};
  float *a = aligned_alloc(64, N * 4), *b = aligned_alloc(64, N * 4), *c = aligned_alloc(64, N * 4), *ref = aligned_alloc(64, N * 4);
  memset(c, 0, N * 4), memset(ref, 0, N * 4);
  for (size_t i = 0; i < N; i++) a[i] = (float)(i % 1000), b[i] = (float)(i % 7) * 0.5f;
  j.args[0] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_F32, (size_t)N * 4, a};
  j.args[1] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_F32, (size_t)N * 4, b};
  j.args[2] = (weft_arg){WEFT_ARG_GLOBAL, WEFT_F32, (size_t)N * 4, c};
  slice proto = {.out = ref, .a = a, .b = b};
  result r = compare(ctx, &j, vadd_slice, proto, N, o);
  size_t bad = 0;
  for (size_t i = 0; i < N; i++) bad += c[i] != ref[i];
  char extra[128];
  snprintf(extra, sizeof extra, "policy_calls %llu, mismatches %zu",
           (unsigned long long)j.stats.policy_calls, bad);
  row(name, r, extra);
  free(a), free(b), free(c), free(ref);
  weft_kernel_release(j.k), weft_program_release(p);
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
static double fresh_first_launch(const weft_options *wo, unsigned settle, double *whole) {
  char self[4096] = "", cmd[4400];
  if (readlink("/proc/self/exe", self, sizeof self - 1) < 0) return -1;
  snprintf(cmd, sizeof cmd, "'%s' " FIRST_CHILD " --threads %u --warp %u --lanes %u --settle %u",
           self, wo->threads, wo->warp, wo->lanes, settle);
  double t0 = now_ms(), ms = -1;
  FILE *f = popen(cmd, "r");
  if (!f || fscanf(f, "%lf", &ms) != 1) ms = -1;
  if (f) pclose(f);
  *whole = now_ms() - t0;
  return ms;
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
  for (unsigned r = 0; r < n; r++) failed |= (t[r] = fresh_first_launch(&wo, 0, &whole[r])) < 0;
  print_launch("first launch, 50-line kernel", "clang + lowering + JIT + launch, new process, "
               "from weft_context_create", t, n, failed);
  print_launch("", "the same, from the process's start to its exit", whole, n, failed);
  failed = 0;
  for (unsigned r = 0; r < n; r++) failed |= (t[r] = fresh_first_launch(&wo, 200, &whole[r])) < 0;
  print_launch("", "the same, 200 ms after weft_context_create: clang loaded", t, n, failed);
  for (unsigned r = 0; r < n; r++) t[r] = first_launch(&wo, 0);
  print_launch("", "a new context's build in a process that has built before", t, n, 0);
  weft_program *p;
  k50_data d;
  weft_job j = k50_job(ctx, &p, &d);
  for (unsigned r = 0; r < n * 10; r++) t[r] = time_weft(ctx, &j);
  printf("%-28s %10s %10.3f ms  (one warp: launch overhead + a tiny run)\n", "repeated launch",
         "", median(t, n * 10));
  free(t), free(whole);
  weft_kernel_release(j.k), weft_program_release(p);
}

static int parse(int argc, char **argv, bench_opts *o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) o->threads = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--runs")) o->runs = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--warp")) o->warp = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--lanes")) o->lanes = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--policy")) o->policy = argv[i + 1];
    else if (!strcmp(argv[i], "--only")) o->only = argv[i + 1];
    else if (!strcmp(argv[i], "--split-order")) o->split_order = argv[i + 1];
    else if (!strcmp(argv[i], "--max-splits")) o->max_splits = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--settle")) o->settle = (unsigned)atoi(argv[i + 1]);
    else return 0;
  }
  return (argc % 2) && o->threads >= 1 && o->threads <= 256 && o->runs >= 1;
}

int main(int argc, char **argv) {
  bench_opts o = {2, 7, 0, 0, "stack", NULL, NULL, 0, 0};
  if (argc > 1 && !strcmp(argv[1], FIRST_CHILD) && parse(argc - 1, argv + 1, &o)) {
    weft_options wo = {.threads = o.threads, .warp = o.warp, .lanes = o.lanes};
    printf("%.3f\n", first_launch(&wo, o.settle));
    return 0;
  }
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: weft_bench [--threads N] [--runs N] [--warp W] [--lanes G] [--policy P]\n"
                    "                  [--split-order rr|lowest-pc] [--max-splits N]\n"
                    "                  [--only mandelbrot|vector_add|launch]\n");
    return 2;
  }
  weft_context *ctx;
  weft_options wo = {.threads = o.threads, .policy = o.policy, .warp = o.warp, .lanes = o.lanes,
                     .split_order = o.split_order, .max_splits = o.max_splits};
  if (weft_context_create(&wo, &ctx)) return fprintf(stderr, "weft_bench: bad options\n"), 2;
  weft_options r = weft_context_options(ctx);
  printf("weft_bench: %u threads, W=%u, G=%u, policy %s (split order %s, max splits %u), "
         "median of %u runs\n\n", r.threads, r.warp, r.lanes, r.policy, r.split_order,
         r.max_splits, o.runs);
  printf("%-28s %10s %10s %9s\n", "workload", "plain C ms", "weft ms", "speedup");
  if (!o.only || !strcmp(o.only, "mandelbrot")) bench_mandelbrot(ctx, &o);
  if (!o.only || !strcmp(o.only, "vector_add")) {
    bench_vector_add(ctx, &o, 16 << 20, 256, "vector add 16M floats");
    bench_vector_add(ctx, &o, 16000000, 1000, "vector add, groups of 1000");
  }
  if (!o.only || !strcmp(o.only, "launch")) bench_launch(ctx, &o);
  weft_context_release(ctx);
  return 0;
}
