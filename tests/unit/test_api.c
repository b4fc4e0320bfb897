/* The host API's promises that are not about kernel results: the build cache, errors with the
 * kernel's file and line, kernel lookup, and options out of range. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>

#include "weft.h"

static const char vadd[] =
    "__kernel void vadd(__global const float *a, __global float *c, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] * 2.0f;\n"
    "}\n";

static int setup(void **state) {
  weft_context *ctx;
  weft_options o = {.threads = 2, .warp = 8, .lanes = 4};
  if (weft_context_create(&o, &ctx)) return -1;
  *state = ctx;
  return 0;
}

static int teardown(void **state) {
  weft_context_release(*state);
  return 0;
}

static void same_source_is_built_once(void **state) {
  weft_context *ctx = *state;
  weft_program *p1, *p2, *p3;
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p1), WEFT_SUCCESS);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p2), WEFT_SUCCESS);
  assert_ptr_equal(p1, p2);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, "-DX=1", &p3), WEFT_SUCCESS);
  assert_ptr_not_equal(p1, p3);
  weft_program_release(p1); /* p2 still holds it */
  weft_kernel *k;
  assert_int_equal(weft_kernel_create(p2, "vadd", &k), WEFT_SUCCESS);
  float a[10], c[10] = {0};
  int n = 10;
  for (int i = 0; i < 10; i++) a[i] = (float)i;
  weft_arg args[3] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_F32, sizeof c, c},
                      {WEFT_ARG_VALUE, WEFT_I32, 4, &n}};
  weft_ndrange r = {1, {16, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 3, args, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 10; i++) assert_true(c[i] == 2.0f * a[i]);
  weft_kernel_release(k);
  weft_program_release(p2);
  weft_program_release(p3);
}

static void build_error_names_file_and_line(void **state) {
  weft_context *ctx = *state;
  weft_program *p = (weft_program *)1;
  const char *bad = "__kernel void k(__global int *a) {\n  a[0] = nope;\n}\n";
  assert_int_equal(weft_program_build_source(ctx, "bad.cl", bad, NULL, &p), WEFT_ERROR_BUILD);
  assert_null(p);
  assert_non_null(strstr(weft_last_error(ctx), "bad.cl:2:10: error"));
}

static void unsupported_construct_names_line(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  const char *src = "__kernel void k(__global int *a) {\n  int i = get_global_id(0);\n"
                    "  a[i] = 1;\n  a[i] += work_group_reduce_add(a[i]);\n}\n";
  assert_int_equal(weft_program_build_source(ctx, "wg.cl", src, "-cl-std=CL2.0", &p),
                   WEFT_ERROR_UNSUPPORTED);
  assert_non_null(strstr(weft_last_error(ctx),
                         "wg.cl:4: weft does not support the builtin 'work_group_reduce_add'"));
  src = "__kernel void k(__global int *a) {\n  int i = get_global_id(0);\n"
        "  a[i] = sub_group_broadcast(a[i], i & 1);\n}\n";
  assert_int_equal(weft_program_build_source(ctx, "bc.cl", src, NULL, &p), WEFT_ERROR_UNSUPPORTED);
  assert_non_null(strstr(weft_last_error(ctx), "bc.cl:3: weft does not support "
                                               "sub_group_broadcast from a lane that differs"));
  src = "__kernel void k(__global float2 *a) {\n  printf(\"%v2f\\n\", a[0]);\n}\n";
  assert_int_equal(weft_program_build_source(ctx, "pv.cl", src, NULL, &p), WEFT_ERROR_UNSUPPORTED);
  assert_non_null(strstr(weft_last_error(ctx), "pv.cl:2: weft does not support printf of a "
                                               "vector without its length modifier"));
  /* images and samplers: refused by name, not taken for a __global buffer */
  static const char *const image_params[] = {"image2d_t im", "read_only image3d_t im",
                                             "sampler_t im"};
  for (size_t i = 0; i < sizeof image_params / sizeof *image_params; i++) {
    char text[256];
    snprintf(text, sizeof text, "\n__kernel void k(__global int *o, %s) {\n  o[0] = 1;\n}\n",
             image_params[i]);
    assert_int_equal(weft_program_build_source(ctx, "im.cl", text, NULL, &p),
                     WEFT_ERROR_UNSUPPORTED);
    assert_non_null(strstr(weft_last_error(ctx), "im.cl:2: kernel k: parameter 'im' of type "));
    assert_non_null(strstr(weft_last_error(ctx), "weft does not support images, samplers or "
                                                 "events as parameters"));
  }
}

/* printf's format must be a literal that matches its arguments, as the C library reads them:
 * else the build fails with the line, before any lane could hand printf an int for a pointer. */
static void printf_format_must_match(void **state) {
  weft_context *ctx = *state;
  static const struct {
    const char *call, *why;
  } bad[] = {
      {"printf(\"%s\\n\", i)", "an argument of another type than its conversion asks"},
      {"printf(\"%ld\\n\", i)", "an argument of another type than its conversion asks"},
      {"printf(\"%d %d\\n\", i)", "more conversions than arguments"},
      {"printf(\"%d\\n\", i, i)", "more arguments than conversions"},
      {"printf(\"%d%n\\n\", i, a)", "printf's %n"},
      {"printf(\"%*d\\n\", i)", "more conversions than arguments"},
      {"printf(\"%q\\n\", i)", "a conversion that is not one of"},
      {"printf(f, i)", "a format that is not a string literal"},
  };
  for (size_t t = 0; t < sizeof bad / sizeof *bad; t++) {
    char src[512], want[160];
    snprintf(src, sizeof src,
             "__kernel void k(__global int *a, __constant char *f) {\n"
             "  int i = get_global_id(0);\n  %s;\n}\n",
             bad[t].call);
    weft_program *p;
    assert_int_equal(weft_program_build_source(ctx, "pf.cl", src, "-w", &p),
                     WEFT_ERROR_UNSUPPORTED);
    snprintf(want, sizeof want, "pf.cl:3: weft does not support %s%s",
             strncmp(bad[t].why, "printf", 6) ? "printf with " : "", bad[t].why);
    if (!strstr(weft_last_error(ctx), want)) fail_msg("%s: %s", bad[t].call, weft_last_error(ctx));
  }
  weft_program *p; /* every kind of conversion, with the arguments it reads */
  const char *good = "__kernel void k(__global int *a) {\n  int i = get_global_id(0);\n"
                     "  printf(\"%*d|%-5.2f|%lu|%hhx|%c|%s|%p|%%\\n\", 3, i, 1.5f, (ulong)i, "
                     "(uchar)i, 'a', \"s\", a);\n}\n";
  assert_int_equal(weft_program_build_source(ctx, "pg.cl", good, NULL, &p), WEFT_SUCCESS);
  weft_program_release(p);
}

static void unknown_kernel_lists_kernels(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  weft_kernel *k = (weft_kernel *)1;
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_create(p, "nosuch", &k), WEFT_ERROR_KERNEL_NOT_FOUND);
  assert_null(k);
  assert_non_null(strstr(weft_last_error(ctx), "nosuch"));
  assert_non_null(strstr(weft_last_error(ctx), "vadd"));
  assert_string_equal(weft_program_kernel_name(p, 0), "vadd");
  assert_null(weft_program_kernel_name(p, 1));
  weft_program_release(p);
}

static void options_out_of_range(void **state) {
  (void)state;
  weft_context *ctx = (weft_context *)1;
  weft_options bad_warp = {.warp = 12};
  assert_int_equal(weft_context_create(&bad_warp, &ctx), WEFT_ERROR_INVALID_VALUE);
  assert_null(ctx);
  weft_options g_over_w = {.warp = 4, .lanes = 8};
  assert_int_equal(weft_context_create(&g_over_w, &ctx), WEFT_ERROR_INVALID_VALUE);
  weft_options policy = {.policy = "nosuch"};
  assert_int_equal(weft_context_create(&policy, &ctx), WEFT_ERROR_INVALID_VALUE);
  weft_options ok = {.warp = 16, .threads = 1};
  assert_int_equal(weft_context_create(&ok, &ctx), WEFT_SUCCESS);
  weft_options r = weft_context_options(ctx);
  assert_int_equal(r.warp, 16);
  assert_true(r.lanes == 8 || r.lanes == 16);
  assert_string_equal(r.policy, "stack");
  assert_int_equal(weft_context_set_policy(ctx, "nosuch"), WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(weft_last_error(ctx), "stack"));
  weft_context_release(ctx);
}

/* weft_options_check refuses what weft_context_create refuses, and says which option and why. */
static void options_check_says_why(void **state) {
  (void)state;
  static const struct {
    weft_options o;
    const char *why;
  } bad[] = {
      {{.warp = 12}, "warp width W must be 4, 8, 16, 32 or 64, not 12"},
      {{.lanes = 5}, "lane-group width G must be 4, 8 or 16, not 5"},
      {{.warp = 4, .lanes = 8}, "G 8 is wider than the warp width W 4"},
      {{.threads = 5000}, "threads must be 1..1024, not 5000"},
      {{.policy = "nosuch"}, "unknown policy 'nosuch' (policies: stack"},
      {{.split_order = "fifo"}, "split order 'fifo' is not rr or lowest-pc"},
      {{.max_splits = 1}, "max splits must be 0 (no bound) or at least 2, not 1"},
  };
  char why[256];
  weft_context *ctx = NULL;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    why[0] = 0;
    assert_int_equal(weft_options_check(&bad[i].o, why, sizeof why), WEFT_ERROR_INVALID_VALUE);
    if (!strstr(why, bad[i].why)) fail_msg("case %zu: '%s' does not say '%s'", i, why, bad[i].why);
    assert_int_equal(weft_context_create(&bad[i].o, &ctx), WEFT_ERROR_INVALID_VALUE);
  }
  assert_int_equal(weft_options_check(&bad[0].o, NULL, 0), WEFT_ERROR_INVALID_VALUE);
  weft_options ok = {.warp = 8, .lanes = 4, .policy = "mp", .max_splits = 2};
  assert_int_equal(weft_options_check(&ok, why, sizeof why), WEFT_SUCCESS);
  assert_int_equal(weft_options_check(NULL, why, sizeof why), WEFT_SUCCESS);
}

/* split_order and max_splits: resolved to "lowest-pc" and W, checked at creation and when set. */
static void split_options(void **state) {
  (void)state;
  weft_context *ctx = NULL;
  weft_options order = {.split_order = "fifo"}, one = {.max_splits = 1};
  assert_int_equal(weft_context_create(&order, &ctx), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_create(&one, &ctx), WEFT_ERROR_INVALID_VALUE);
  weft_options ok = {.warp = 8, .threads = 1, .policy = "mp"};
  assert_int_equal(weft_context_create(&ok, &ctx), WEFT_SUCCESS);
  weft_options r = weft_context_options(ctx);
  assert_string_equal(r.split_order, "lowest-pc");
  assert_int_equal(r.max_splits, 8);
  assert_int_equal(weft_context_set_splits(ctx, "rr", 2), WEFT_SUCCESS);
  r = weft_context_options(ctx);
  assert_string_equal(r.split_order, "rr");
  assert_int_equal(r.max_splits, 2);
  assert_int_equal(weft_context_set_splits(ctx, NULL, 1), WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(weft_last_error(ctx), "at least 2"));
  assert_int_equal(weft_context_set_splits(ctx, "lowest", 0), WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(weft_last_error(ctx), "'lowest'"));
  assert_int_equal(weft_context_options(ctx).max_splits, 2); /* unchanged by the failures */
  assert_int_equal(weft_context_set_splits(ctx, NULL, 100), WEFT_SUCCESS);
  assert_int_equal(weft_context_options(ctx).max_splits, 8); /* above W: W */
  weft_context_release(ctx);
}

/* The first kernel of src, built as file `name`. */
static weft_kernel *first_kernel(weft_context *ctx, const char *name, const char *src,
                                 weft_program **p) {
  weft_kernel *k;
  assert_int_equal(weft_program_build_source(ctx, name, src, NULL, p), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_create(*p, weft_program_kernel_name(*p, 0), &k), WEFT_SUCCESS);
  return k;
}

static weft_status run_one(weft_context *ctx, const char *name, const char *src, unsigned nargs,
                           weft_arg *args, size_t global, size_t local) {
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, name, src, &p);
  weft_ndrange r = {1, {global, 1, 1}, {local, 1, 1}};
  weft_status st = weft_kernel_launch(k, &r, nargs, args, NULL);
  weft_kernel_release(k);
  weft_program_release(p);
  return st;
}

/* The context (still) builds a kernel from a string and runs it. */
static void still_builds(weft_context *ctx) {
  int ones[8] = {0};
  assert_int_equal(run_one(ctx, "one.cl",
                           "__kernel void k(__global int *o) { o[get_global_id(0)] = 1; }", 1,
                           (weft_arg[]){{WEFT_ARG_GLOBAL, WEFT_I32, sizeof ones, ones}}, 8, 8),
                   WEFT_SUCCESS);
  for (int i = 0; i < 8; i++) assert_int_equal(ones[i], 1);
}

/* Builds and runs `k(__global int *o)` of src in ctx over 8 work-items into o, with what
 * stderr got (WEFT_DEBUG=cache says what the disk cache did) in log. */
static void run_logged(weft_context *ctx, const char *src, int *o, char *log, size_t n) {
  char path[] = "/tmp/weft_test_log.XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  assert_true(fd >= 0 && saved >= 0);
  fflush(stderr), dup2(fd, 2);
  setenv("WEFT_DEBUG", "cache", 1);
  weft_status st = run_one(ctx, "k.cl", src, 1, (weft_arg[]){{WEFT_ARG_GLOBAL, WEFT_I32, 32, o}}, 8,
                           8);
  unsetenv("WEFT_DEBUG");
  fflush(stderr), dup2(saved, 2), close(saved);
  ssize_t got = pread(fd, log, n - 1, 0);
  log[got > 0 ? got : 0] = 0;
  close(fd), unlink(path);
  assert_int_equal(st, WEFT_SUCCESS);
}

/* The disk cache on, in a new folder dir (a mkdtemp template), for the builds to come; then off,
 * the folder removed. ctest runs the tests with it off (WEFT_CACHE=0). */
static void disk_cache_on(char *dir) {
  assert_non_null(mkdtemp(dir));
  setenv("WEFT_CACHE", "1", 1), setenv("WEFT_CACHE_DIR", dir, 1);
}

static void disk_cache_off(const char *dir) {
  setenv("WEFT_CACHE", "0", 1), unsetenv("WEFT_CACHE_DIR");
  char cmd[64];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

/* The disk cache (compiler/cache.c) between contexts, as between processes: a build that
 * another context stored comes from its entry, its functions renamed for the build's number in
 * this context, where another program's functions already have the number it was stored
 * with (the JIT would refuse the same name twice, or run the other kernel). */
static void disk_cache_renames_for_each_context(void **state) {
  (void)state;
  char dir[] = "/tmp/weft_test_cache.XXXXXX", log[4096];
  disk_cache_on(dir);
  const char
      *twice = "__kernel void k(__global int *o) { o[get_global_id(0)] = 2 * get_global_id(0); }",
      *plus = "__kernel void k(__global int *o) { o[get_global_id(0)] = get_global_id(0) + 7; }";
  weft_options opts = {.threads = 2, .warp = 8, .lanes = 4};
  weft_context *a, *b;
  int o[8];
  assert_int_equal(weft_context_create(&opts, &a), WEFT_SUCCESS);
  run_logged(a, twice, o, log, sizeof log); /* a's build 0 */
  assert_non_null(strstr(log, "cache: stored"));
  assert_int_equal(weft_context_create(&opts, &b), WEFT_SUCCESS);
  run_logged(b, plus, o, log, sizeof log); /* b's build 0 */
  assert_non_null(strstr(log, "cache: stored"));
  for (int i = 0; i < 8; i++) assert_int_equal(o[i], i + 7);
  run_logged(b, twice, o, log, sizeof log); /* stored as build 0, now b's build 1 */
  assert_non_null(strstr(log, "cache: hit"));
  assert_null(strstr(log, "could not use")), assert_null(strstr(log, "stored")); /* not rebuilt */
  for (int i = 0; i < 8; i++) assert_int_equal(o[i], 2 * i);
  weft_context_release(a), weft_context_release(b);
  disk_cache_off(dir);
}

/* Launches k(__global int *o) of src over 12 x 2 work-items in groups of lx x 2 and checks
 * o[i] = tab[i & 3] + 100 i, where tab is {base, 2 base, 3 base, 4 base}. */
static void check_tab(weft_context *ctx, const char *src, int base, size_t lx) {
  int o[24] = {0};
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "tab.cl", src, &p);
  weft_arg a = {WEFT_ARG_GLOBAL, WEFT_I32, sizeof o, o};
  weft_ndrange r = {2, {12, 2, 1}, {lx, 2, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 1, &a, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 24; i++) assert_int_equal(o[i], base * ((i & 3) + 1) + 100 * i);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* Two programs of a context may each define a program-scope __constant of one name (the JIT's
 * symbols are the context's): a build names its globals after its number. Also from the disk
 * cache, where the entry's build had another number, and for the variant for work-groups that
 * are not x-aligned (G = 4; groups of 3 x 2), built from the entry's bitcode, then (context c)
 * taken from the entry, its functions and the globals it refers to renamed for c's builds. */
static void programs_may_share_global_names(void **state) {
  (void)state;
  char dir[] = "/tmp/weft_test_cache.XXXXXX";
  disk_cache_on(dir);
  const char *ones = "__constant int tab[4] = {1, 2, 3, 4};\n"
                     "__kernel void k(__global int *o) {\n"
                     "  int i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
                     "  o[i] = tab[i & 3] + 100 * i;\n"
                     "}\n",
             *tens = "__constant int tab[4] = {10, 20, 30, 40};\n"
                     "__kernel void k(__global int *o) {\n"
                     "  int i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
                     "  o[i] = tab[i & 3] + 100 * i;\n"
                     "}\n";
  weft_options opts = {.threads = 2, .warp = 8, .lanes = 4};
  weft_context *a, *b;
  assert_int_equal(weft_context_create(&opts, &a), WEFT_SUCCESS);
  check_tab(a, ones, 1, 4); /* a's build 0, stored */
  assert_int_equal(weft_context_create(&opts, &b), WEFT_SUCCESS);
  check_tab(b, tens, 10, 4); /* b's build 0 */
  check_tab(b, ones, 1, 4);  /* from the entry: build 1 */
  check_tab(b, ones, 1, 3);
  check_tab(b, tens, 10, 3);
  weft_context *c;
  assert_int_equal(weft_context_create(&opts, &c), WEFT_SUCCESS);
  check_tab(c, tens, 10, 3);
  check_tab(c, ones, 1, 3);
  weft_context_release(a), weft_context_release(b), weft_context_release(c);
  disk_cache_off(dir);
}

static void write_text(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Builds `file` in dir with `options` and runs its kernel k(out) on 8 work-items. */
static weft_status build_and_run(weft_context *ctx, const char *dir, const char *file,
                                 const char *options, int *out) {
  char path[512];
  weft_program *p;
  weft_kernel *k;
  snprintf(path, sizeof path, "%s/%s", dir, file);
  weft_status st = weft_program_build_file(ctx, path, options, &p);
  if (st) return st;
  assert_int_equal(weft_kernel_create(p, "k", &k), WEFT_SUCCESS);
  weft_arg args[1] = {{WEFT_ARG_GLOBAL, WEFT_I32, 8 * sizeof *out, out}};
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  st = weft_kernel_launch(k, &r, 1, args, NULL);
  weft_kernel_release(k);
  weft_program_release(p);
  return st;
}

/* Both ways of running clang (its cc1 in this process, and a clang-19 process when WEFT_CLANG
 * names one) give the file's name and lines in errors, find headers next to the kernel, honour
 * -D, and build sources given as strings. */
static void both_ways_of_running_clang_agree(void **state) {
  (void)state;
  char dir[] = "/tmp/weft-api-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_text(dir, "bad.cl",
             "// a comment\n__kernel void k(__global int *out) {\n  out[0] = x;\n}\n");
  write_text(dir, "scale.h", "#define SCALE 3\n");
  write_text(dir, "inc.cl",
             "#include \"scale.h\"\n"
             "__kernel void k(__global int *out) { out[get_global_id(0)] = SCALE; }\n");
  write_text(dir, "def.cl", "__kernel void k(__global int *out) { out[get_global_id(0)] = D; }\n");
  for (int process = 0; process < 2; process++) {
    if (process) setenv("WEFT_CLANG", WEFT_CLANG_PATH, 1);
    weft_context *ctx;
    weft_options o = {.threads = 1, .warp = 8, .lanes = 4};
    assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
    int out[8] = {0};
    assert_int_equal(build_and_run(ctx, dir, "bad.cl", NULL, out), WEFT_ERROR_BUILD);
    char want[600];
    snprintf(want, sizeof want, "%s/bad.cl:3:12: error", dir);
    assert_non_null(strstr(weft_last_error(ctx), want));
    assert_int_equal(build_and_run(ctx, dir, "inc.cl", NULL, out), WEFT_SUCCESS);
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], 3);
    assert_int_equal(build_and_run(ctx, dir, "def.cl", "-DD=7", out), WEFT_SUCCESS);
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], 7);
    still_builds(ctx);
    weft_context_release(ctx);
    unsetenv("WEFT_CLANG");
  }
  const char *names[] = {"bad.cl", "scale.h", "inc.cl", "def.cl"};
  char path[600];
  for (int i = 0; i < 4; i++) snprintf(path, sizeof path, "%s/%s", dir, names[i]), unlink(path);
  rmdir(dir);
}

/* clang's warnings reach the build log whole, with its closing count, both ways. */
static void warnings_reach_the_build_log(void **state) {
  (void)state;
  const char *src = "#warning check the log\n"
                    "__kernel void k(__global int *o) { o[get_global_id(0)] = 1; }\n";
  for (int process = 0; process < 2; process++) {
    if (process) setenv("WEFT_CLANG", WEFT_CLANG_PATH, 1);
    weft_context *ctx;
    weft_options o = {.threads = 1, .warp = 8, .lanes = 4};
    assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
    weft_program *p;
    assert_int_equal(weft_program_build_source(ctx, "warn.cl", src, NULL, &p), WEFT_SUCCESS);
    const char *log = weft_program_build_log(p);
    assert_non_null(strstr(log, "warn.cl:1:2: warning: check the log"));
    assert_non_null(strstr(log, "1 warning generated."));
    weft_program_release(p);
    weft_context_release(ctx);
    unsetenv("WEFT_CLANG");
  }
}

/* The variant for work-groups whose x size G does not divide, built at the first launch of
 * such a shape, shares the program's __constant arrays with the first build's code. */
static void unaligned_variant_shares_constants(void **state) {
  weft_context *ctx = *state; /* G = 4 */
  const char *src = "__constant int tab[4] = {10, 20, 30, 40};\n"
                    "__kernel void k(__global int *o) {\n"
                    "  int x = get_global_id(0), y = get_global_id(1);\n"
                    "  o[y * get_global_size(0) + x] = tab[(x + y) & 3] + x;\n"
                    "}\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "tab.cl", src, &p);
  static const size_t locals[2][2] = {{4, 2}, {3, 2}}; /* x-aligned, then not */
  for (int shape = 0; shape < 2; shape++) {
    int out[24] = {0};
    weft_arg a = {WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out};
    weft_ndrange r = {2, {12, 2, 1}, {locals[shape][0], locals[shape][1], 1}};
    assert_int_equal(weft_kernel_launch(k, &r, 1, &a, NULL), WEFT_SUCCESS);
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 12; x++) assert_int_equal(out[y * 12 + x], 10 * ((x + y) % 4 + 1) + x);
  }
  weft_kernel_release(k);
  weft_program_release(p);
}

/* A struct passed by value: its parameter says so (a VALUE of type OTHER and the struct's C
 * size), a wrong size is named, and every work-item gets a copy of its own to write: the lanes
 * that change theirs under a varying branch leave the others' alone. */
typedef struct params {
  float scale;
  int n;
  char tag;
  double bias;
} params;

static void struct_arguments_are_private_copies(void **state) {
  weft_context *ctx = *state;
  const char *src = "typedef struct { float scale; int n; char tag; double bias; } params;\n"
                    "__kernel void k(__global float *out, params p) {\n"
                    "  int i = get_global_id(0);\n"
                    "  if (i & 1) { p.n += i; p.tag = 2; }\n"
                    "  out[i] = p.scale * (float)(i % p.n) + (float)p.bias + p.tag;\n"
                    "}\n";
  weft_program *prog;
  weft_kernel *k = first_kernel(ctx, "st.cl", src, &prog);
  weft_arg_info info;
  assert_int_equal(weft_kernel_arg_info(k, 1, &info), WEFT_SUCCESS);
  assert_int_equal(info.kind, WEFT_ARG_VALUE);
  assert_int_equal(info.type, WEFT_OTHER);
  assert_int_equal(info.size, sizeof(params));
  assert_string_equal(info.type_name, "params");
  params p = {1.5f, 3, 1, 100.0};
  float out[16] = {0};
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof out, out},
                      {WEFT_ARG_VALUE, WEFT_OTHER, sizeof p, &p}};
  weft_ndrange r = {1, {16, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 2, args, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 16; i++) {
    params mine = p;
    if (i & 1) mine.n += i, mine.tag = 2;
    assert_true(out[i] == mine.scale * (float)(i % mine.n) + (float)mine.bias + mine.tag);
  }
  args[1].size = sizeof p - 8;
  assert_int_equal(weft_kernel_launch(k, &r, 2, args, NULL), WEFT_ERROR_ARGUMENT);
  assert_non_null(strstr(weft_last_error(ctx),
                         "argument 1 'p': expected params (24 bytes), got other (16 bytes)"));
  weft_kernel_release(k);
  weft_program_release(prog);
}

/* A buffer parameter's const, restrict and volatile, as the source writes them (clang's
 * kernel_arg_type_qual): the OpenCL platform answers clGetKernelArgInfo with them. */
static void arg_info_has_type_qualifiers(void **state) {
  weft_context *ctx = *state;
  const char *src = "__kernel void k(__global const float *restrict a, __global float *b,\n"
                    "                volatile __global int *c) {\n"
                    "  b[get_global_id(0)] = a[get_global_id(0)] + c[0];\n"
                    "}\n";
  weft_program *prog;
  weft_kernel *k = first_kernel(ctx, "q.cl", src, &prog);
  static const unsigned want[3] = {WEFT_QUALIFIER_CONST | WEFT_QUALIFIER_RESTRICT, 0,
                                   WEFT_QUALIFIER_VOLATILE};
  for (unsigned i = 0; i < 3; i++) {
    weft_arg_info info;
    assert_int_equal(weft_kernel_arg_info(k, i, &info), WEFT_SUCCESS);
    assert_int_equal(info.qualifiers, want[i]);
  }
  weft_kernel_release(k);
  weft_program_release(prog);
}

/* A parameter whose type is a typedef is read as the type it names (clang's base type), a
 * typedef of a vector too; its spelled name stays the one the messages give. */
static void typedef_parameters_are_their_types(void **state) {
  weft_context *ctx = *state;
  const char *src = "typedef unsigned int count_t; typedef float4 vec_t;\n"
                    "__kernel void k(__global count_t *out, count_t a, vec_t v) {\n"
                    "  out[get_global_id(0)] = a + (count_t)v.w;\n"
                    "}\n";
  weft_program *prog;
  weft_kernel *k = first_kernel(ctx, "td.cl", src, &prog);
  weft_arg_info info;
  assert_int_equal(weft_kernel_arg_info(k, 1, &info), WEFT_SUCCESS);
  assert_int_equal(info.type, WEFT_U32);
  assert_string_equal(info.type_name, "count_t");
  assert_int_equal(weft_kernel_arg_info(k, 2, &info), WEFT_SUCCESS);
  assert_int_equal(info.type, WEFT_F32);
  assert_int_equal(info.vector_width, 4);
  uint32_t out[8] = {0}, a = 40;
  float v[4] = {0, 0, 0, 2};
  weft_arg args[3] = {{WEFT_ARG_GLOBAL, WEFT_U32, sizeof out, out},
                      {WEFT_ARG_VALUE, WEFT_U32, sizeof a, &a},
                      {WEFT_ARG_VALUE, WEFT_F32, sizeof v, v}};
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 3, args, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 8; i++) assert_int_equal(out[i], 42);
  weft_kernel_release(k);
  weft_program_release(prog);
}

/* Runs k over n work-items in groups of 8 with stdout going to a file; returns what it printed
 * (malloc'd). */
static char *printed(weft_kernel *k, size_t n, unsigned nargs, weft_arg *args) {
  FILE *f = tmpfile();
  assert_non_null(f);
  fflush(stdout);
  int saved = dup(1);
  assert_true(saved >= 0 && dup2(fileno(f), 1) == 1);
  weft_ndrange r = {1, {n, 1, 1}, {8, 1, 1}};
  weft_status st = weft_kernel_launch(k, &r, nargs, args, NULL);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  assert_int_equal(st, WEFT_SUCCESS);
  off_t size = lseek(fileno(f), 0, SEEK_END);
  assert_true(size >= 0);
  char *text = calloc((size_t)size + 1, 1);
  assert_true(pread(fileno(f), text, (size_t)size, 0) == size);
  fclose(f);
  return text;
}

/* printf runs once per active work-item, with each lane's own values (ints, a float promoted to
 * double, a long, a char, a __constant string) and returns 0. Within a warp one call's lines
 * come in lane order, and all of them before the next call's (B and C share a block, which
 * runs lane group by lane group otherwise); the work-items whose branch was not taken print
 * nothing there. */
static void printf_prints_each_active_lane(void **state) {
  weft_context *ctx = *state; /* W 8, G 4, 2 threads */
  const char *src = "__kernel void k(__global const int *a, __global int *r) {\n"
                    "  int i = get_global_id(0);\n"
                    "  if (a[i] > 0) r[i] = printf(\"A %d:%d %s\\n\", i, a[i], \"pos\");\n"
                    "  printf(\"B %d %.1f %ld %c\\n\", i, (float)i / 2, (long)i << 40, 'a' + i);\n"
                    "  printf(\"C %d\\n\", i);\n"
                    "  printf(\"D\\n\");\n" /* not turned into puts */
                    "}\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "pf.cl", src, &p);
  enum { N = 32 };
  int a[N], r[N];
  for (int i = 0; i < N; i++) a[i] = (i * 7) % 5 - 2, r[i] = 99;
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_I32, sizeof r, r}};
  char *text = printed(k, N, 2, args);
  int lines = 0, last[3][N / 8];          /* per call and warp: the last lane seen */
  char *at[3][N] = {{0}}, *first_c[N / 8] = {0}; /* each work-item's lines; each warp's first C */
  memset(last, -1, sizeof last);
  for (char *line = text, *end; *line; line = end + 1, lines++) {
    assert_non_null(end = strchr(line, '\n'));
    if (!strncmp(line, "D\n", 2)) continue;
    int call = *line - 'A', i = atoi(line + 2);
    assert_true(call >= 0 && call < 3 && i >= 0 && i < N);
    assert_true(i > last[call][i / 8]); /* lane order within the warp */
    last[call][i / 8] = i;
    char want[96];
    if (call == 0) snprintf(want, sizeof want, "A %d:%d pos\n", i, a[i]);
    else if (call == 1)
      snprintf(want, sizeof want, "B %d %.1f %ld %c\n", i, (double)i / 2, (long)i << 40, 'a' + i);
    else snprintf(want, sizeof want, "C %d\n", i);
    assert_memory_equal(line, want, strlen(want));
    at[call][i] = line;
    if (call == 2 && !first_c[i / 8]) first_c[i / 8] = line;
  }
  int want_lines = 3 * N;
  for (int i = 0; i < N; i++) {
    want_lines += a[i] > 0;
    assert_true(at[1][i] && at[1][i] < first_c[i / 8] && at[1][i] < at[2][i]);
    assert_true(a[i] > 0 ? at[0][i] && at[0][i] < at[1][i] : !at[0][i]);
    assert_int_equal(r[i], a[i] > 0 ? 0 : 99);
  }
  assert_int_equal(lines, want_lines);
  free(text);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* OpenCL's vector conversions print each element, joined by commas, whichever way clang passes
 * the vector (float4 as a vector, int2 as an i64, short3 as a double, int8 in memory); a
 * 3-element vector takes 4 elements' room in a buffer. One warp: the lines come in lane order. */
/* A buffer less aligned than its elements is refused before any warp runs: the kernel's code
 * may move an int8 with one aligned 32-byte instruction, which would fault. */
static void misaligned_buffer_is_refused(void **state) {
  weft_context *ctx = *state;
  const char *src = "__kernel void k(__global int8 *v) { v[get_global_id(0)] += 1; }\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "al.cl", src, &p);
  _Alignas(64) int32_t v[8 * 8 + 4] = {0};
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  weft_arg off = {WEFT_ARG_GLOBAL, WEFT_I32, 8 * 8 * sizeof(int32_t), v + 4};
  assert_int_equal(weft_kernel_launch(k, &r, 1, &off, NULL), WEFT_ERROR_ARGUMENT);
  assert_non_null(strstr(weft_last_error(ctx), "argument 0 'v' (int8*): buffer at "));
  assert_non_null(strstr(weft_last_error(ctx), "is not 32-byte aligned, as its elements must be"));
  for (int i = 0; i < 8 * 8 + 4; i++) assert_int_equal(v[i], 0); /* nothing ran */
  weft_arg on = {WEFT_ARG_GLOBAL, WEFT_I32, 8 * 8 * sizeof(int32_t), v};
  assert_int_equal(weft_kernel_launch(k, &r, 1, &on, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 8 * 8; i++) assert_int_equal(v[i], 1);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* A buffer of structs is aligned as the struct is (16 bytes, for its float4), which the
 * parameter's type name alone does not say. */
static void misaligned_struct_buffer_is_refused(void **state) {
  weft_context *ctx = *state;
  const char *src = "typedef struct { float4 p; float w; } item;\n"
                    "__kernel void k(__global item *it) { it[get_global_id(0)].p.x += 1.0f; }\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "st.cl", src, &p);
  _Alignas(64) float v[8 * 8 + 4] = {0}; /* 8 items of 32 bytes */
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  weft_arg off = {WEFT_ARG_GLOBAL, WEFT_U8, 8 * 32, v + 1};
  assert_int_equal(weft_kernel_launch(k, &r, 1, &off, NULL), WEFT_ERROR_ARGUMENT);
  assert_non_null(strstr(weft_last_error(ctx), "is not 16-byte aligned, as its elements must be"));
  for (int i = 0; i < 8 * 8 + 4; i++) assert_true(v[i] == 0.0f); /* nothing ran */
  weft_arg at16 = {WEFT_ARG_GLOBAL, WEFT_U8, 8 * 32, v + 4};
  assert_int_equal(weft_kernel_launch(k, &r, 1, &at16, NULL), WEFT_SUCCESS);
  for (int i = 0; i < 8; i++) assert_true(v[4 + 8 * i] == 1.0f);
  weft_kernel_release(k);
  weft_program_release(p);
}

static void printf_prints_vectors(void **state) {
  weft_context *ctx = *state; /* W 8 */
  const char *src =
      "__kernel void k(__global float4 *f, __global int2 *i2, __global short3 *s3,\n"
      "                __global int8 *i8) {\n"
      "  int i = get_global_id(0);\n"
      "  printf(\"%v4hlf|%5.1v4hlf|%v2hld|%v3hd|%v8hlx %%\\n\", f[i], f[i], i2[i], s3[i], i8[i]);\n"
      "}\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "pv.cl", src, &p);
  weft_arg_info info;
  assert_int_equal(weft_kernel_arg_info(k, 2, &info), WEFT_SUCCESS);
  assert_int_equal(info.size, 8); /* short3 */
  enum { N = 8 };
  _Alignas(32) float f[4 * N]; /* each buffer aligned as its elements (float4, int8) */
  _Alignas(32) int32_t i2[2 * N], i8[8 * N];
  _Alignas(32) int16_t s3[4 * N];
  for (int i = 0; i < 4 * N; i++) f[i] = (float)i * 0.5f - 3.0f, s3[i] = (int16_t)(i - 9);
  for (int i = 0; i < 2 * N; i++) i2[i] = i * 1000 - 7;
  for (int i = 0; i < 8 * N; i++) i8[i] = i * 3;
  weft_arg args[4] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof f, f},
                      {WEFT_ARG_GLOBAL, WEFT_I32, sizeof i2, i2},
                      {WEFT_ARG_GLOBAL, WEFT_I16, sizeof s3, s3},
                      {WEFT_ARG_GLOBAL, WEFT_I32, sizeof i8, i8}};
  char *text = printed(k, N, 4, args), want[4096] = "";
  for (int i = 0; i < N; i++) {
    const float *v = f + 4 * i;
    const int16_t *s = s3 + 4 * i;
    const int32_t *w = i8 + 8 * i;
    snprintf(want + strlen(want), sizeof want - strlen(want),
             "%f,%f,%f,%f|%5.1f,%5.1f,%5.1f,%5.1f|%d,%d|%hd,%hd,%hd|%x,%x,%x,%x,%x,%x,%x,%x %%\n",
             v[0], v[1], v[2], v[3], v[0], v[1], v[2], v[3], i2[2 * i], i2[2 * i + 1], s[0], s[1],
             s[2], w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]);
  }
  assert_string_equal(text, want);
  free(text);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* A branch on a warp vote (sub_group_any) is uniform: every lane of a warp goes the same way,
 * so no warp splits and the policy is never called, though the vote's operand varies. */
static void branch_on_a_vote_does_not_split(void **state) {
  weft_context *ctx = *state; /* W 8 */
  const char *src = "__kernel void k(__global const int *a, __global int *b) {\n"
                    "  int i = get_global_id(0);\n"
                    "  if (sub_group_any(a[i] > 0)) b[i] = 1; else b[i] = 2;\n"
                    "}\n";
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "vote.cl", src, &p);
  int a[32] = {0}, b[32];
  a[3] = 1, a[17] = 5, a[31] = 2; /* warps 0, 2 and 3 have a positive lane, warp 1 none */
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_I32, sizeof b, b}};
  weft_ndrange r = {1, {32, 1, 1}, {16, 1, 1}};
  weft_stats st;
  assert_int_equal(weft_kernel_launch(k, &r, 2, args, &st), WEFT_SUCCESS);
  for (int i = 0; i < 32; i++) assert_int_equal(b[i], i / 8 == 1 ? 2 : 1);
  assert_true(st.divergent_branches == 0 && st.policy_calls == 0);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* Under `stack` a barrier that only part of a warp reaches is reported with its line: the
 * barrier's own, also where it is the last statement of its block and the '}' after it is the
 * block's last line. */
static void divergent_barrier_is_reported(void **state) {
  weft_context *ctx = *state;
  const char *src[2] = {
      "__kernel void k(__global int *a) {\n  int i = get_local_id(0);\n"
      "  if (i < 2) {\n    barrier(CLK_LOCAL_MEM_FENCE);\n    a[i] = 1;\n  }\n}\n",
      "__kernel void k(__global int *a) {\n  int i = get_local_id(0);\n"
      "  if (i < 2) {\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n  a[i] = 1;\n}\n"};
  for (int s = 0; s < 2; s++) {
    int a[8] = {0};
    weft_arg args[1] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof a, a}};
    assert_int_equal(run_one(ctx, s ? "div_end.cl" : "div.cl", src[s], 1, args, 8, 8),
                     WEFT_ERROR_DIVERGENT_BARRIER);
    assert_non_null(strstr(weft_last_error(ctx), s ? "at div_end.cl:4:" : "at div.cl:4:"));
  }
}

/* Work-items that returned can never reach the barrier: an error, not a hang. clang gives the
 * kernel one return block, which is the IPDOM of `i >= 5`, so under `stack` the returning lanes
 * are still waiting there when the others reach the barrier: it is reported as divergent. */
static void barrier_after_return_is_reported(void **state) {
  weft_context *ctx = *state;
  const char *src = "__kernel void k(__global int *a) {\n  int i = get_local_id(0);\n"
                    "  if (i >= 5) return;\n  barrier(CLK_LOCAL_MEM_FENCE);\n  a[i] = 1;\n}\n";
  int a[8] = {0};
  weft_arg args[1] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof a, a}};
  assert_int_equal(run_one(ctx, "ret.cl", src, 1, args, 8, 8), WEFT_ERROR_DIVERGENT_BARRIER);
  assert_non_null(strstr(weft_last_error(ctx), "at ret.cl:4:"));
}

/* With FP_CONTRACT OFF, a*b+c is rounded twice, as plain C with -ffp-contract=off: the inputs
 * are chosen so that a fused multiply-add gives a different float. */
static void fp_contract_off_is_honoured(void **state) {
  weft_context *ctx = *state;
  const char *src = "#pragma OPENCL FP_CONTRACT OFF\n"
                    "__kernel void k(__global const float *a, __global float *r) {\n"
                    "  int i = get_global_id(0);\n  r[i] = a[i] * a[i] - 1.0f;\n}\n";
  float a[8], r[8];
  for (int i = 0; i < 8; i++) a[i] = 1.0f + (float)(i + 1) * 0x1p-23f;
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_F32, sizeof r, r}};
  assert_int_equal(run_one(ctx, "fpc.cl", src, 2, args, 8, 8), WEFT_SUCCESS);
  int fused_differs = 0;
  for (int i = 0; i < 8; i++) {
    volatile float prod = a[i] * a[i]; /* rounded, as the kernel must */
    assert_true(r[i] == prod - 1.0f);
    fused_differs |= __builtin_fmaf(a[i], a[i], -1.0f) != prod - 1.0f;
  }
  assert_true(fused_differs); /* the test would catch a fused multiply-add */
}

/* -cl-denorms-are-zero flushes: a denormal result is 0 and a denormal operand reads as 0. The
 * workers' own mode comes back after the launch: the same kernel built without the option,
 * launched next on the same workers, keeps denormals, and so does this thread. */
static void denorms_are_zero_flushes_then_restores(void **state) {
  weft_context *ctx = *state;
  const char *src = "__kernel void k(__global const float *a, __global float *r) {\n"
                    "  int i = get_global_id(0);\n  r[i] = a[i] * 0.5f + a[i + 8];\n}\n";
  float a[16] = {0}, r[8];
  for (int i = 0; i < 8; i++) a[i] = i < 4 ? 0x1p-126f : 0x1p-130f; /* least normal; a denormal */
  a[15] = 1.0f;
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_F32, sizeof r, r}};
  weft_ndrange nd = {1, {8, 1, 1}, {8, 1, 1}};
  const char *options[] = {"-cl-denorms-are-zero", NULL};
  for (int o = 0; o < 2; o++) {
    weft_program *p;
    weft_kernel *k;
    assert_int_equal(weft_program_build_source(ctx, "dz.cl", src, options[o], &p), WEFT_SUCCESS);
    assert_int_equal(weft_kernel_create(p, "k", &k), WEFT_SUCCESS);
    assert_int_equal(weft_kernel_launch(k, &nd, 2, args, NULL), WEFT_SUCCESS);
    for (int i = 0; i < 8; i++) {
      volatile float half = a[i] * 0.5f; /* this thread: denormals kept */
      assert_true(half != 0.0f);
      assert_true(r[i] == (o == 0 ? 0.0f : half) + a[i + 8]);
    }
    weft_kernel_release(k);
    weft_program_release(p);
  }
}

/* Both sides of a divergent branch wait at a barrier: under `mp` each split waits on its own
 * and the barrier completes when the whole work-group is there (the MP paper's Section 3.3.3);
 * under `stack` it is a divergent barrier. Neighbours exchange values through __local memory,
 * so a barrier that did not hold would show in the results. */
static void barriers_on_both_sides_complete_under_mp(void **state) {
  weft_context *ctx = *state;
  const char *src =
      "__kernel void k(__global int *out) {\n"
      "  __local int t[8];\n  int i = get_local_id(0);\n  t[i] = 10 * i;\n"
      "  if (i & 1) {\n    barrier(CLK_LOCAL_MEM_FENCE);\n    out[i] = t[(i + 1) % 8] + 1;\n"
      "  } else {\n    barrier(CLK_LOCAL_MEM_FENCE);\n    out[i] = t[(i + 7) % 8] + 2;\n  }\n}\n";
  int out[8];
  weft_arg args[1] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out}};
  const char *policies[] = {"mp", "mp-orec"};
  for (int p = 0; p < 2; p++) {
    memset(out, 0, sizeof out);
    assert_int_equal(weft_context_set_policy(ctx, policies[p]), WEFT_SUCCESS);
    assert_int_equal(run_one(ctx, "both.cl", src, 1, args, 8, 8), WEFT_SUCCESS);
    for (int i = 0; i < 8; i++)
      assert_int_equal(out[i], i & 1 ? 10 * ((i + 1) % 8) + 1 : 10 * ((i + 7) % 8) + 2);
  }
  assert_int_equal(weft_context_set_policy(ctx, "stack"), WEFT_SUCCESS);
  assert_int_equal(run_one(ctx, "both.cl", src, 1, args, 8, 8), WEFT_ERROR_DIVERGENT_BARRIER);
}

/* Which lanes take part in a warp function under each policy (README, "What kernels can use"):
 * the lanes that reach `join` by the goto and those that reach it from the else side meet
 * there under mp-orec and pc (an early reconvergence), and their ballot holds both; under stack
 * and mp each path's lanes run it apart. Lanes 0, 2, 4, 6 come by the else side (ballot 0x55),
 * 3 and 7 by the goto (0x88); 1 and 5 never get there. */
static void ballot_holds_the_lanes_that_run_together(void **state) {
  weft_context *ctx = *state; /* W 8 */
  const char *src = "__kernel void k(__global const int *a, __global uint *o) {\n"
                    "  int i = get_global_id(0), x = a[i];\n  uint seen = 0;\n"
                    "  if (x & 1) {\n    seen += 1000;\n    if (x & 2)\n      goto join;\n"
                    "    seen += 2000;\n  } else {\n    seen += 3000;\n  join:\n"
                    "    seen += sub_group_ballot(1).x;\n  }\n  o[i] = seen;\n}\n";
  int a[8];
  unsigned o[8];
  for (int i = 0; i < 8; i++) a[i] = i;
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_U32, sizeof o, o}};
  const char *policies[] = {"stack", "mp", "mp-orec", "pc"};
  for (int p = 0; p < 4; p++) {
    int together = p >= 2;
    assert_int_equal(weft_context_set_policy(ctx, policies[p]), WEFT_SUCCESS);
    assert_int_equal(run_one(ctx, "join.cl", src, 2, args, 8, 8), WEFT_SUCCESS);
    for (int i = 0; i < 8; i++) {
      unsigned want = i % 2 == 0   ? 3000 + (together ? 0xdd : 0x55)
                      : i % 4 == 3 ? 1000 + (together ? 0xdd : 0x88)
                                   : 3000;
      assert_int_equal(o[i], want);
    }
  }
  assert_int_equal(weft_context_set_policy(ctx, "stack"), WEFT_SUCCESS);
}

/* Issue 4: samples/sphere_trace.cl has the MP paper's Figure 10 shape (a loop left by a `break`
 * with work on its way out); mp-orec in the round-robin order merges splits early in that work,
 * so its SIMD efficiency is higher than stack's, with the same results and the same work per
 * lane (lane_instrs). In the default order, lowest PC first, the split that breaks out runs on
 * before the others come round, so nothing merges. The counters are deterministic: the
 * assertions hold on any machine and load. */
static void early_reconvergence_beats_stack_on_figure10_loop(void **state) {
  weft_context *ctx = *state;
  enum { WIDTH = 128, HEIGHT = 96, N = WIDTH * HEIGHT };
  weft_program *p;
  weft_kernel *k;
  assert_int_equal(weft_program_build_file(ctx, WEFT_SAMPLES "/sphere_trace.cl", NULL, &p), 0);
  assert_int_equal(weft_kernel_create(p, "sphere_trace", &k), WEFT_SUCCESS);
  static float out[3][N];
  int width = WIDTH, height = HEIGHT, steps = 128;
  weft_ndrange r = {2, {WIDTH, HEIGHT, 1}, {32, 8, 1}};
  weft_stats st[3];
  const char *policies[] = {"stack", "mp-orec", "mp-orec"}, *orders[] = {NULL, "rr", NULL};
  for (int i = 0; i < 3; i++) {
    weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof out[i], out[i]},
                       {WEFT_ARG_VALUE, WEFT_I32, 4, &width},
                       {WEFT_ARG_VALUE, WEFT_I32, 4, &height},
                       {WEFT_ARG_VALUE, WEFT_I32, 4, &steps}};
    assert_int_equal(weft_context_set_policy(ctx, policies[i]), WEFT_SUCCESS);
    assert_int_equal(weft_context_set_splits(ctx, orders[i], 0), WEFT_SUCCESS);
    assert_int_equal(weft_kernel_launch(k, &r, 4, args, &st[i]), WEFT_SUCCESS);
  }
  for (int i = 1; i < 3; i++) {
    assert_memory_equal(out[0], out[i], sizeof out[0]);
    assert_int_equal(st[0].lane_instrs, st[i].lane_instrs);
  }
  assert_int_equal(st[0].early_reconvergences, 0);
  assert_true(st[1].early_reconvergences > 0);
  assert_true(st[1].simd_efficiency > st[0].simd_efficiency);
  assert_int_equal(st[2].early_reconvergences, 0);
  assert_int_equal(weft_context_set_policy(ctx, "stack"), WEFT_SUCCESS);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* One launch of the only kernel of src over 64 items in groups of 8, under mp (its steps in
 * the runtime when reference is set), with its stats. */
static weft_stats mp_stats_of(weft_context *ctx, const char *src, int reference) {
  static int out[64];
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "stats.cl", src, &p);
  weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof out, out}};
  weft_ndrange r = {1, {64, 1, 1}, {8, 1, 1}};
  weft_stats st;
  assert_int_equal(weft_context_set_policy_in_runtime(ctx, reference), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_launch(k, &r, 1, args, &st), WEFT_SUCCESS);
  weft_kernel_release(k);
  weft_program_release(p);
  return st;
}

/* The split tables' sizes that `mp` records for the branches its code ran masked start again
 * with every warp of every work-group: only work-group 0 diverges here, and the warps of the
 * others, which one worker runs after it on the same warp context, add no splits. */
static void split_table_sizes_are_per_work_group(void **state) {
  (void)state;
  weft_context *ctx;
  weft_options o = {.threads = 1, .warp = 8, .lanes = 4, .policy = "mp"};
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
  static const char *src = "__kernel void some(__global int *o) {\n"
                           "  int i = get_global_id(0), r;\n"
                           "  if (get_group_id(0) == 0 && (i & 1)) r = 100 / (i + 1);\n"
                           "  else r = i * 3;\n"
                           "  o[i] = r;\n"
                           "}\n";
  weft_stats want = mp_stats_of(ctx, src, 1), got = mp_stats_of(ctx, src, 0);
  assert_true(want.divergent_branches > 0 && got.round_trips < want.round_trips);
  assert_true(got.avg_splits_per_warp == want.avg_splits_per_warp);
  assert_int_equal(got.max_splits_per_warp, want.max_splits_per_warp);
  assert_int_equal(got.max_st_entries, want.max_st_entries);
  assert_int_equal(got.max_rt_entries, want.max_rt_entries);
  weft_context_release(ctx);
}

/* weft_buffer_alloc: 64-byte aligned, zero-filled, ending (after at most 63 bytes of padding)
 * at a page that a write faults on, and with one below its first page too; sizes that cannot be
 * mapped give NULL. */
static void buffers_end_at_a_guard_page(void **state) {
  (void)state;
  size_t page = (size_t)sysconf(_SC_PAGESIZE), sizes[] = {0, 1, 100, 4096, 5000};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    size_t n = sizes[i], used = n ? (n + 127) / 128 * 128 : 128;
    unsigned char *b = weft_buffer_alloc(n);
    assert_non_null(b);
    assert_int_equal((uintptr_t)b % 128, 0);
    assert_int_equal((uintptr_t)(b + used) % page, 0);
    for (size_t j = 0; j < n; j++) assert_int_equal(b[j], 0);
    memset(b, 0xab, used);
    size_t below = (uintptr_t)b % page + 1; /* the last byte before its first page */
    for (int side = 0; side < 2; side++) {
      pid_t child = fork();
      if (child == 0) /* cmocka catches SIGSEGV: the default action, so that the child dies */
        signal(SIGSEGV, SIG_DFL), *(side ? b - below : b + used) = 1, _exit(0);
      int status = 0;
      assert_int_equal(waitpid(child, &status, 0), child);
      assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    }
    weft_buffer_free(b, n);
  }
  assert_null(weft_buffer_alloc(SIZE_MAX));
  assert_null(weft_buffer_alloc(SIZE_MAX - 100));
}

/* Build options that would make clang write files, write something other than bitcode, load
 * code or pass options on unchecked are refused by name, whichever way clang runs, before it
 * runs: nothing is written. */
static void build_options_that_write_or_load_are_refused(void **state) {
  weft_context *ctx = *state;
  char path[] = "/tmp/weft-api-out-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd), unlink(path);
  char o_path[64], mf[96];
  snprintf(o_path, sizeof o_path, "-o%s", path);
  snprintf(mf, sizeof mf, "-DX=1 -MD -MF %s", path);
  const char *opts[][2] = {{"-E", "-E"},
                           {o_path, o_path},
                           {"-DX=1 -o /dev/null", "-o"},
                           {mf, "-MD"},
                           {"-fplugin=/tmp/x.so", "-fplugin=/tmp/x.so"},
                           {"-Xclang -load -Xclang /tmp/x.so", "-Xclang"},
                           {"@/tmp/options", "@/tmp/options"}};
  for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
    weft_program *p = (weft_program *)1;
    assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, opts[i][0], &p),
                     WEFT_ERROR_INVALID_VALUE);
    assert_null(p);
    char want[128];
    snprintf(want, sizeof want, "build option '%s' is refused", opts[i][1]);
    assert_non_null(strstr(weft_last_error(ctx), want));
    assert_int_not_equal(access(path, F_OK), 0);
  }
}

/* clang's output that is not bitcode (its --help here) is a build error, where LLVM's reader
 * would have called exit(1). */
static void output_that_is_not_bitcode_is_a_build_error(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, "--help", &p), WEFT_ERROR_BUILD);
  assert_non_null(strstr(weft_last_error(ctx), "clang-19 wrote no LLVM bitcode"));
}

/* ---- clang compiles in a child process: its crash, its stack overflow and a compile past the
 * build's time limit are build errors that name the file, and the host builds on ---- */

static void expect_build_error(weft_context *ctx, const char *name, const char *src,
                               const char *says) {
  weft_program *p = (weft_program *)1;
  assert_int_equal(weft_program_build_source(ctx, name, src, NULL, &p), WEFT_ERROR_BUILD);
  assert_null(p);
  if (!strstr(weft_last_error(ctx), says))
    fail_msg("'%s' does not say '%s'", weft_last_error(ctx), says);
}

static void clang_crash_is_a_build_error(void **state) {
  weft_context *ctx = *state;
  expect_build_error(ctx, "crash.cl",
                     "__kernel void k(__global int *o) {\n#pragma clang __debug crash\n"
                     "  o[0] = 1;\n}\n",
                     "clang crashed (SIGILL) compiling crash.cl");
  still_builds(ctx);
}

/* 10,000 nested ifs overflow the stack of clang's recursive parser (SIGSEGV). */
static void deep_nesting_is_a_build_error(void **state) {
  weft_context *ctx = *state;
  enum { DEPTH = 10000 };
  char *src = malloc(DEPTH * 7 + 128), *at = src;
  assert_non_null(src);
  at += sprintf(at, "__kernel void k(__global int *o) {\n  int x = o[0];\n  ");
  for (int i = 0; i < DEPTH; i++) at += sprintf(at, "if (x) ");
  sprintf(at, "o[0] = 1;\n}\n");
  expect_build_error(ctx, "deep.cl", src,
                     "clang crashed (SIGSEGV) compiling deep.cl: deeply nested code");
  free(src);
  still_builds(ctx);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Macros that expand to 2^32 statements: clang would take hours (and all the memory). */
static const char slow[] = "#define A(x) x x\n"
                           "#define B(x) A(A(A(A(x))))\n"
                           "#define C(x) B(B(B(B(x))))\n"
                           "__kernel void k(__global int *o) { int y = 0; C(C(y++;)) o[0] = y; }\n";

/* build_timeout_s and WEFT_BUILD_TIMEOUT: checked, 120 s by default, and a compile past a limit
 * of 1 s is stopped in time, both ways of running clang. */
static void build_time_limit_stops_clang(void **state) {
  (void)state;
  weft_options o = {.threads = 1, .warp = 8, .lanes = 4, .build_timeout_s = -1};
  weft_context *ctx;
  char why[256];
  assert_int_equal(weft_options_check(&o, why, sizeof why), WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(why, "build_timeout_s must be 0 (the default)"));
  o.build_timeout_s = 0;
  setenv("WEFT_BUILD_TIMEOUT", "soon", 1);
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_ERROR_INVALID_VALUE);
  unsetenv("WEFT_BUILD_TIMEOUT");
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
  assert_true(weft_context_options(ctx).build_timeout_s == WEFT_DEFAULT_BUILD_TIMEOUT_S);
  weft_context_release(ctx);
  setenv("WEFT_BUILD_TIMEOUT", "1", 1);
  for (int process = 0; process < 2; process++) {
    if (process) setenv("WEFT_CLANG", WEFT_CLANG_PATH, 1);
    assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
    double t0 = now_s();
    expect_build_error(ctx, "slow.cl", slow,
                       "clang ran longer than the build time limit of 1 s compiling slow.cl");
    if (now_s() - t0 > 10) fail_msg("stopped after %.1f s", now_s() - t0);
    still_builds(ctx);
    weft_context_release(ctx);
    unsetenv("WEFT_CLANG");
  }
  unsetenv("WEFT_BUILD_TIMEOUT");
}

/* NULL where a pointer is needed is WEFT_ERROR_INVALID_VALUE (or "", NULL, 0 where a call
 * returns no status), never a crash; releasing NULL does nothing. */
static void null_pointers_are_invalid_values(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  weft_kernel *k;
  assert_int_equal(weft_context_options(NULL).warp, 0);
  assert_null(weft_context_options(NULL).policy);
  assert_int_equal(weft_context_set_policy(NULL, "mp"), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_policy(ctx, NULL), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_splits(NULL, "rr", 0), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_policy_in_runtime(NULL, 1), WEFT_ERROR_INVALID_VALUE);
  assert_string_equal(weft_last_error(NULL), "");
  assert_int_equal(weft_program_build_file(NULL, "x.cl", NULL, &p), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_program_build_file(ctx, NULL, NULL, &p), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", NULL, NULL, &p),
                   WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, NULL),
                   WEFT_ERROR_INVALID_VALUE);
  assert_string_equal(weft_program_build_log(NULL), "");
  assert_null(weft_program_kernel_name(NULL, 0));
  assert_int_equal(weft_kernel_create(NULL, "vadd", &k), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_create(p, NULL, &k), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_create(p, "vadd", NULL), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_create(p, "vadd", &k), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_arg_info(k, 0, NULL), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_arg_info(NULL, 0, &(weft_arg_info){0}), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_block_lines(k, 0, NULL, NULL), WEFT_ERROR_INVALID_VALUE);
  assert_null(weft_kernel_name(NULL));
  assert_int_equal(weft_kernel_num_args(NULL), 0);
  assert_int_equal(weft_kernel_num_blocks(NULL), 0);
  assert_int_equal(weft_kernel_launch(NULL, NULL, 0, NULL, NULL), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_launch(k, NULL, 0, NULL, NULL), WEFT_ERROR_NDRANGE);
  assert_null(weft_mask_string(NULL, 1, 4));
  assert_int_equal(weft_kernel_release(NULL), WEFT_SUCCESS);
  assert_int_equal(weft_program_release(NULL), WEFT_SUCCESS);
  assert_int_equal(weft_context_release(NULL), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_release(k), WEFT_SUCCESS);
  assert_int_equal(weft_program_release(p), WEFT_SUCCESS);
}

/* A handle released already, used or released again, is WEFT_ERROR_INVALID_VALUE: no double
 * free, no use after free (ASan checks both). */
static void released_handles_are_refused(void **state) {
  (void)state;
  weft_context *ctx;
  weft_program *p;
  weft_kernel *k;
  weft_options o = {.threads = 1, .warp = 8, .lanes = 4};
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_create(p, "vadd", &k), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_release(k), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_release(k), WEFT_ERROR_INVALID_VALUE);
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 0, NULL, NULL), WEFT_ERROR_INVALID_VALUE);
  assert_null(weft_kernel_name(k));
  assert_int_equal(weft_program_release(p), WEFT_SUCCESS);
  assert_int_equal(weft_program_release(p), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_create(p, "vadd", &k), WEFT_ERROR_INVALID_VALUE);
  assert_null(weft_program_kernel_name(p, 0));
  assert_int_equal(weft_context_release(ctx), WEFT_SUCCESS);
  assert_int_equal(weft_context_release(ctx), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_policy(ctx, "mp"), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_options(ctx).warp, 0);
  assert_int_equal(weft_program_build_source(ctx, "v.cl", vadd, NULL, &p),
                   WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_release((weft_kernel *)ctx), WEFT_ERROR_INVALID_VALUE);
}

/* A kernel keeps its program, and so its context, alive: it still launches after the host
 * released both, which are refused as handles meanwhile and freed with the kernel (LeakSanitizer
 * would see them left). */
static void kernel_keeps_program_and_context_alive(void **state) {
  (void)state;
  weft_context *ctx;
  weft_program *p;
  weft_options o = {.threads = 2, .warp = 8, .lanes = 4};
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
  weft_kernel *k = first_kernel(ctx, "v.cl", vadd, &p);
  assert_int_equal(weft_program_release(p), WEFT_SUCCESS);
  assert_int_equal(weft_context_release(ctx), WEFT_SUCCESS);
  float a[16], c[16] = {0};
  int n = 16;
  for (int i = 0; i < n; i++) a[i] = (float)i;
  weft_arg args[3] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_F32, sizeof c, c},
                      {WEFT_ARG_VALUE, WEFT_I32, 4, &n}};
  weft_ndrange r = {1, {16, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 3, args, NULL), WEFT_SUCCESS);
  for (int i = 0; i < n; i++) assert_true(c[i] == 2.0f * a[i]);
  assert_int_equal(weft_program_release(p), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_policy(ctx, "mp"), WEFT_ERROR_INVALID_VALUE);
  weft_kernel *k2;
  assert_int_equal(weft_kernel_create(p, "vadd", &k2), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_kernel_release(k), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_release(k), WEFT_ERROR_INVALID_VALUE);
}

/* weft_kernel_launch_offset: get_global_offset is the offset and get_global_id counts from it,
 * per dimension, as OpenCL's global work offset; NULL is no offset. */
static void launch_with_a_global_offset(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "offset.cl",
                                "__kernel void k(__global int *o) {\n"
                                "  size_t x = get_global_id(0) - get_global_offset(0), y = "
                                "get_global_id(1) - get_global_offset(1);\n"
                                "  o[2 * (y * 8 + x)] = get_global_id(0);\n"
                                "  o[2 * (y * 8 + x) + 1] = get_global_id(1);\n"
                                "}\n",
                                &p);
  int o[2 * 8 * 4];
  weft_arg arg = {WEFT_ARG_GLOBAL, WEFT_I32, sizeof o, o};
  weft_ndrange r = {2, {8, 4, 1}, {4, 2, 1}};
  const size_t offset[3] = {100, 7, 0};
  assert_int_equal(weft_kernel_launch_offset(k, &r, offset, 1, &arg, NULL), WEFT_SUCCESS);
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 8; x++) {
      assert_int_equal(o[2 * (y * 8 + x)], 100 + x);
      assert_int_equal(o[2 * (y * 8 + x) + 1], 7 + y);
    }
  assert_int_equal(weft_kernel_launch_offset(k, &r, NULL, 1, &arg, NULL), WEFT_SUCCESS);
  assert_int_equal(o[2 * (3 * 8 + 5)], 5);
  assert_int_equal(o[2 * (3 * 8 + 5) + 1], 3);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* A NULL buffer, even of 0 bytes, is an argument error that names the argument: the kernel
 * would write through it. */
static void null_buffer_is_an_argument_error(void **state) {
  weft_context *ctx = *state;
  weft_program *p;
  weft_kernel *k = first_kernel(ctx, "v.cl", vadd, &p);
  float a[8] = {0};
  int n = 8;
  weft_arg args[3] = {{WEFT_ARG_GLOBAL, WEFT_F32, sizeof a, a},
                      {WEFT_ARG_GLOBAL, WEFT_F32, 0, NULL},
                      {WEFT_ARG_VALUE, WEFT_I32, 4, &n}};
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  assert_int_equal(weft_kernel_launch(k, &r, 3, args, NULL), WEFT_ERROR_ARGUMENT);
  assert_non_null(strstr(weft_last_error(ctx), "argument 1 'c': NULL buffer of 0 bytes"));
  weft_kernel_release(k);
  weft_program_release(p);
}

/* A host may exit at any moment after weft_context_create, while clang loads in the background
 * (about 20-80 ms): exit waits for the load, whose libraries' constructors must not meet their
 * destructors. A child forked meanwhile exits at once. Each run is this program again, which
 * creates a context, sleeps, and exits without releasing it, or forks and waits for a child that
 * exits. */
#define CREATE_AND_EXIT "--create-and-exit"
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
/* ThreadSanitizer does not support fork() in a process with threads, and LeakSanitizer counts
 * what a thread that fork() left behind was holding (the loader's copy of clang) as leaked. */
#define FORK_OK 0
#else
#define FORK_OK 1
#endif
static void exit_while_clang_loads(void **state) {
  (void)state;
  char self[4096] = "";
  assert_true(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  for (int ms = 0; ms <= 80; ms += 2) {
    char delay[16];
    snprintf(delay, sizeof delay, "%d", ms);
    pid_t pid = fork();
    if (pid == 0)
      execl(self, self, CREATE_AND_EXIT, delay, ms % 4 && FORK_OK ? "fork" : "exit", (char *)NULL),
          _exit(127);
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      fail_msg("exit after %d ms: status %#x", ms, status);
  }
}

static int create_and_exit(const char *ms, const char *how) {
  weft_context *ctx;
  if (weft_context_create(NULL, &ctx)) return 3;
  usleep((useconds_t)atoi(ms) * 1000);
  if (!strcmp(how, "fork")) {
    pid_t child = fork();
    if (child == 0) exit(0);
    int status = -1;
    alarm(20); /* a child that hangs in exit fails the test instead of hanging it */
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) exit(4);
  }
  exit(0);
}

/* ---- the watchdog: every launch ends, and says why ---- */

static const char spin[] = "__kernel void spin(__global int *lock, __global int *n) {\n"
                           "  while (atomic_cmpxchg(lock, 0, 1) != 0)\n"
                           "    ;\n"
                           "  n[get_global_id(0)] += 1;\n"
                           "  atomic_xchg(lock, 0);\n"
                           "}\n";

static weft_status launch_spin(weft_context *ctx) {
  weft_program *p;
  weft_kernel *k;
  int lock = 0, n[8] = {0};
  assert_int_equal(weft_program_build_source(ctx, "spin.cl", spin, NULL, &p), WEFT_SUCCESS);
  assert_int_equal(weft_kernel_create(p, "spin", &k), WEFT_SUCCESS);
  weft_arg args[2] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof lock, &lock},
                      {WEFT_ARG_GLOBAL, WEFT_I32, sizeof n, n}};
  weft_ndrange r = {1, {8, 1, 1}, {8, 1, 1}};
  weft_status st = weft_kernel_launch(k, &r, 2, args, NULL);
  weft_kernel_release(k);
  weft_program_release(p);
  return st;
}

/* timeout_s, its checks, WEFT_TIMEOUT, and a spin lock inside a warp stopped and reported as
 * the SIMT deadlock it is, with both lines and the policy. */
static void timeout_stops_a_simt_deadlock(void **state) {
  (void)state;
  weft_context *ctx;
  weft_options o = {.threads = 1, .warp = 8, .lanes = 4, .timeout_s = -1};
  char why[256];
  assert_int_equal(weft_options_check(&o, why, sizeof why), WEFT_ERROR_INVALID_VALUE);
  assert_non_null(strstr(why, "timeout_s"));
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_ERROR_INVALID_VALUE);
  setenv("WEFT_TIMEOUT", "soon", 1);
  o.timeout_s = 0;
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_ERROR_INVALID_VALUE);
  setenv("WEFT_TIMEOUT", "0.2", 1);
  assert_int_equal(weft_context_create(&o, &ctx), WEFT_SUCCESS);
  unsetenv("WEFT_TIMEOUT");
  assert_true(weft_context_options(ctx).timeout_s == 0.2);
  assert_int_equal(launch_spin(ctx), WEFT_ERROR_TIMEOUT);
  assert_string_equal(weft_status_name(WEFT_ERROR_TIMEOUT), "WEFT_ERROR_TIMEOUT");
  const char *e = weft_last_error(ctx);
  assert_non_null(strstr(e, "ran longer than its timeout of 0.2 s"));
  assert_non_null(strstr(e, "SIMT deadlock under policy 'stack'"));
  assert_non_null(strstr(e, "spin in the loop at spin.cl:2"));
  assert_non_null(strstr(e, "parked at spin.cl:4"));
  assert_int_equal(weft_context_set_timeout(ctx, -1), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_timeout(NULL, 1), WEFT_ERROR_INVALID_VALUE);
  assert_int_equal(weft_context_set_timeout(ctx, 0.1), WEFT_SUCCESS);
  assert_int_equal(weft_context_set_policy(ctx, "pc"), WEFT_SUCCESS);
  assert_int_equal(launch_spin(ctx), WEFT_ERROR_TIMEOUT);
  assert_non_null(strstr(weft_last_error(ctx), "SIMT deadlock under policy 'pc'"));
  weft_context_release(ctx);
}

static weft_context *stop_ctx;
static atomic_int stop_done;

/* Again and again: a stop before the launch starts does not stop it (weft.h). */
static void *stop_until_done(void *arg) {
  (void)arg;
  while (!atomic_load(&stop_done)) weft_context_stop(stop_ctx), usleep(20 * 1000);
  return NULL;
}

/* weft_context_stop from another thread stops a launch that has no timeout. */
static void stop_from_another_thread(void **state) {
  weft_context *ctx = *state;
  pthread_t t;
  assert_int_equal(weft_context_stop(NULL), WEFT_ERROR_INVALID_VALUE);
  stop_ctx = ctx;
  assert_int_equal(pthread_create(&t, NULL, stop_until_done, NULL), 0);
  assert_int_equal(launch_spin(ctx), WEFT_ERROR_STOPPED);
  atomic_store(&stop_done, 1);
  pthread_join(t, NULL);
  assert_non_null(strstr(weft_last_error(ctx), "asked to stop"));
  assert_string_equal(weft_status_name(WEFT_ERROR_STOPPED), "WEFT_ERROR_STOPPED");
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[1], CREATE_AND_EXIT)) return create_and_exit(argv[2], argv[3]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exit_while_clang_loads),
      cmocka_unit_test(same_source_is_built_once),
      cmocka_unit_test(disk_cache_renames_for_each_context),
      cmocka_unit_test(programs_may_share_global_names),
      cmocka_unit_test(arg_info_has_type_qualifiers),
      cmocka_unit_test(build_error_names_file_and_line),
      cmocka_unit_test(both_ways_of_running_clang_agree),
      cmocka_unit_test(warnings_reach_the_build_log),
      cmocka_unit_test(unaligned_variant_shares_constants),
      cmocka_unit_test(struct_arguments_are_private_copies),
      cmocka_unit_test(typedef_parameters_are_their_types),
      cmocka_unit_test(printf_prints_each_active_lane),
      cmocka_unit_test(printf_prints_vectors),
      cmocka_unit_test(misaligned_buffer_is_refused),
      cmocka_unit_test(misaligned_struct_buffer_is_refused),
      cmocka_unit_test(branch_on_a_vote_does_not_split),
      cmocka_unit_test(unsupported_construct_names_line),
      cmocka_unit_test(ballot_holds_the_lanes_that_run_together),
      cmocka_unit_test(printf_format_must_match),
      cmocka_unit_test(unknown_kernel_lists_kernels),
      cmocka_unit_test(options_out_of_range),
      cmocka_unit_test(options_check_says_why),
      cmocka_unit_test(split_options),
      cmocka_unit_test(divergent_barrier_is_reported),
      cmocka_unit_test(barrier_after_return_is_reported),
      cmocka_unit_test(fp_contract_off_is_honoured),
      cmocka_unit_test(denorms_are_zero_flushes_then_restores),
      cmocka_unit_test(barriers_on_both_sides_complete_under_mp),
      cmocka_unit_test(early_reconvergence_beats_stack_on_figure10_loop),
      cmocka_unit_test(split_table_sizes_are_per_work_group),
      cmocka_unit_test(buffers_end_at_a_guard_page),
      cmocka_unit_test(build_options_that_write_or_load_are_refused),
      cmocka_unit_test(output_that_is_not_bitcode_is_a_build_error),
      cmocka_unit_test(clang_crash_is_a_build_error),
      cmocka_unit_test(deep_nesting_is_a_build_error),
      cmocka_unit_test(build_time_limit_stops_clang),
      cmocka_unit_test(null_pointers_are_invalid_values),
      cmocka_unit_test(released_handles_are_refused),
      cmocka_unit_test(kernel_keeps_program_and_context_alive),
      cmocka_unit_test(null_buffer_is_an_argument_error),
      cmocka_unit_test(launch_with_a_global_offset),
      cmocka_unit_test(timeout_stops_a_simt_deadlock),
      cmocka_unit_test(stop_from_another_thread),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
