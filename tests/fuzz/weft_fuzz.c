/* weft_fuzz: random kernels, weft against an oracle (fuzz.h says how).
 *
 *     weft_fuzz [--start S] [--count N] [--time-limit SEC] [--found DIR] [--configs LIST]
 *               [--threads T] [--timeout SEC] [--rotate] [--no-reduce] [--verbose]
 *     weft_fuzz --seed N [--print | --print-c]
 *
 * Checks the kernels of seeds S .. S+N-1 (default 1 and 200) under each W x G of LIST
 * (default "32x0,8x4,64x0"; G 0 is the CPU's: 16 with AVX-512, else 8), every policy, both
 * modes (--rotate: each seed under one W x G of the list, in turn, three times faster).
 * `--seed N` checks one seed; with --print it prints the kernel as OpenCL C (--print-c:
 * as the oracle's C) and checks nothing. A failing kernel is reduced and written to
 * DIR/seed-N.cl (default ./fuzz-found) with what failed; the exit status is 1 if any failed.
 *
 * weft runs in child processes (weft itself is never started in this one), so that a kernel
 * that crashes or hangs weft is a failure like the others: the child that checks the seeds
 * says through shared memory which seed and configuration it is at, and a new child goes on
 * after the one that died. Each try of the reducer is a child of its own. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

typedef struct options {
  uint64_t start, count;
  double time_limit; /* seconds; 0: none */
  const char *found;
  fz_config configs[8];
  unsigned nconfigs, threads, timeout;
  uint64_t skip[16]; /* seeds of open bugs (tests/fuzz/found/README.md), not checked */
  unsigned nskip;
  bool reduce, verbose, rotate;
} options;

/* What a child tells its parent. */
typedef struct shared {
  uint64_t seed;   /* the seed being checked */
  uint64_t next;   /* the first seed not checked yet */
  unsigned config; /* the configuration being run */
  fz_failure failure;
  char why[1024];
} shared;

static shared *shm;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int usage(void) {
  fputs("usage: weft_fuzz [--start S] [--count N] [--time-limit SEC] [--found DIR]\n"
        "                 [--configs WxG,...] [--threads T] [--timeout SEC] [--rotate]\n"
        "                 [--no-reduce] [--verbose] [--skip SEED]...\n"
        "       weft_fuzz --seed N [--print | --print-c]\n",
        stderr);
  return 2;
}

static bool parse_configs(options *o, const char *list) {
  o->nconfigs = 0;
  for (const char *p = list; *p;) {
    unsigned w, g;
    int used;
    if (o->nconfigs == 8 || sscanf(p, "%ux%u%n", &w, &g, &used) != 2) return false;
    o->configs[o->nconfigs++] = (fz_config){w, g};
    p += used;
    if (*p == ',') p++;
    else if (*p) return false;
  }
  return o->nconfigs > 0;
}

/* ---- children ---- */

/* A child's end as a failure: its exit code is one (FZ_OK for a clean end), a signal is a
 * crash, SIGALRM (the child's --timeout) a timeout; -1 when the child could not start weft. */
static int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGALRM ? FZ_TIMEOUT : FZ_CRASH;
  return WEXITSTATUS(status) <= FZ_TIMEOUT ? WEXITSTATUS(status) : -1;
}

static pid_t start_child(void) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) perror("weft_fuzz: fork"), exit(3);
  return pid;
}

static fz_checker *child_checker(const options *o, const fz_config *configs, unsigned n) {
  char why[256];
  fz_checker *c = fz_checker_create(configs, n, o->threads, why, sizeof why);
  if (!c) fprintf(stderr, "weft_fuzz: %s\n", why), _exit(100);
  return c;
}

/* The child that checks seeds from .. end-1 until one fails or the deadline passes. */
static bool skipped(const options *o, uint64_t seed) {
  for (unsigned i = 0; i < o->nskip; i++)
    if (o->skip[i] == seed) return true;
  return false;
}

static _Noreturn void check_seeds(const options *o, uint64_t from, uint64_t end, double deadline) {
  fz_checker *c = child_checker(o, o->configs, o->nconfigs);
  for (uint64_t s = from; s < end && (!deadline || now() < deadline); s++) {
    fz_kernel k;
    shm->seed = shm->next = s;
    if (skipped(o, s)) {
      shm->next = s + 1;
      continue;
    }
    fz_generate(&k, s);
    alarm(o->timeout);
    int only = o->rotate ? (int)(s % o->nconfigs) : -1;
    fz_failure f = fz_check(c, &k, only, &shm->config, shm->why, sizeof shm->why);
    alarm(0);
    fz_free(&k);
    if (f) _exit(f);
    shm->next = s + 1;
    if (o->verbose) fprintf(stderr, "seed %llu: ok\n", (unsigned long long)s);
  }
  fz_checker_release(c);
  _exit(FZ_OK);
}

/* ---- reduction ---- */

typedef struct target {
  const options *o;
  fz_config config;
  fz_failure failure;
  double deadline; /* past it, every try counts as passing: the reduction ends */
} target;

/* Whether k still fails as the original did, in a child of its own (it may crash). */
static bool still_fails(void *user, const fz_kernel *k) {
  const target *t = user;
  if (t->deadline && now() > t->deadline) return false;
  pid_t pid = start_child();
  if (!pid) {
    fz_checker *c = child_checker(t->o, &t->config, 1);
    unsigned config;
    /* Most tries of a kernel that hangs weft hang too: a shorter limit keeps the reduction
     * to minutes (a kernel runs in well under a second). */
    alarm(t->failure == FZ_TIMEOUT && t->o->timeout > 10 ? 10 : t->o->timeout);
    _exit(fz_check(c, k, -1, &config, shm->why, sizeof shm->why));
  }
  return wait_child(pid) == (int)t->failure;
}

/* G as weft takes a 0 (its choice for this CPU, which the messages of the children say). */
static unsigned lanes_of(fz_config c) {
  return c.lanes ? c.lanes : __builtin_cpu_supports("avx512f") ? 16 : 8;
}

static void write_header(FILE *f, const fz_kernel *k, const target *t, const char *why) {
  fprintf(f, "/* weft_fuzz: %s: %s\n", fz_failure_name(t->failure), why);
  fprintf(f,
          " * Reduced from the kernel of `weft_fuzz --seed %llu`. NDRange: %u work-group(s) of"
          " %u, 1-D.\n",
          (unsigned long long)k->seed, k->groups, k->local_size);
  fprintf(f, " * Arguments: in = seed-%llu.in (u32[%u], below), then out, gc and lout zeroed%s.\n",
          (unsigned long long)k->seed, FZ_NIN,
          k->local_params ? ", then the __local la, lb and lc" : "");
  fputs(" * in =", f);
  for (unsigned i = 0; i < FZ_NIN; i++) fprintf(f, "%s %#x", i % 8 ? "" : "\n *  ", k->in[i]);
  fputs("\n */\n", f);
  unsigned n = k->groups * k->local_size;
  fprintf(f, "// weft-run: -g %u -l %u --warp %u --lanes %u --arg u32[%u]=file:seed-%llu.in\n", n,
          k->local_size, t->config.warp, lanes_of(t->config), FZ_NIN, (unsigned long long)k->seed);
  fprintf(f, "// weft-run: --arg u32[%u]=zero --arg u32[%u]=zero --arg u32[%u]=zero\n", n * FZ_NOUT,
          FZ_NGC, k->groups * FZ_NLC);
  if (k->local_params)
    fprintf(f, "// weft-run: --arg local:u32[%u] --arg local:u32[%u] --arg local:u32[%u]\n",
            k->local_size, k->local_size, FZ_NLC);
}

/* DIR/seed-N.cl: the reduced kernel with what failed; DIR/seed-N.in: its in[] words. */
static void write_found(const options *o, const fz_kernel *k, const target *t, const char *why) {
  char path[512];
  mkdir(o->found, 0777);
  snprintf(path, sizeof path, "%s/seed-%llu.in", o->found, (unsigned long long)k->seed);
  FILE *f = fopen(path, "wb");
  if (f) fwrite(k->in, sizeof k->in, 1, f), fclose(f);
  snprintf(path, sizeof path, "%s/seed-%llu.cl", o->found, (unsigned long long)k->seed);
  f = fopen(path, "w");
  if (!f) return (void)fprintf(stderr, "weft_fuzz: cannot write %s\n", path);
  write_header(f, k, t, why);
  fz_print(f, k, FZ_OPENCL);
  fclose(f);
  printf("  written to %s\n", path);
}

#define REDUCE_SECONDS 300 /* a reduction stops trying after this */

/* A failure of the seed: said, reduced (unless --no-reduce) and written. */
static void report(const options *o, uint64_t seed, fz_failure failure, unsigned config,
                   const char *why) {
  printf("seed %llu: %s: %s\n", (unsigned long long)seed, fz_failure_name(failure), why);
  target t = {o, o->configs[config], failure, 0};
  fz_kernel k;
  fz_generate(&k, seed);
  char last[sizeof shm->why];
  snprintf(last, sizeof last, "%s", why);
  if (o->reduce && failure != FZ_ORACLE) {
    double t0 = now();
    t.deadline = t0 + REDUCE_SECONDS;
    unsigned tries = fz_reduce(&k, still_fails, &t);
    t.deadline = 0;
    bool said = failure != FZ_CRASH && failure != FZ_TIMEOUT; /* else the child said nothing */
    if (still_fails(&t, &k) && said) snprintf(last, sizeof last, "%s", shm->why);
    printf("  reduced in %u tries, %.0f s: %s\n", tries, now() - t0, last);
  }
  write_found(o, &k, &t, last);
  fz_free(&k);
}

/* ---- main ---- */

static int parse(int argc, char **argv, options *o, int64_t *print_seed, int *print) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--print")) *print = 1;
    else if (!strcmp(a, "--print-c")) *print = 2;
    else if (!strcmp(a, "--no-reduce")) o->reduce = false;
    else if (!strcmp(a, "--verbose")) o->verbose = true;
    else if (!strcmp(a, "--rotate")) o->rotate = true;
    else if (!v) return usage();
    else if (!strcmp(a, "--seed")) *print_seed = strtoll(v, NULL, 0), i++;
    else if (!strcmp(a, "--start")) o->start = strtoull(v, NULL, 0), i++;
    else if (!strcmp(a, "--count")) o->count = strtoull(v, NULL, 0), i++;
    else if (!strcmp(a, "--time-limit")) o->time_limit = atof(v), i++;
    else if (!strcmp(a, "--found")) o->found = v, i++;
    else if (!strcmp(a, "--threads")) o->threads = (unsigned)atoi(v), i++;
    else if (!strcmp(a, "--timeout")) o->timeout = (unsigned)atoi(v), i++;
    else if (!strcmp(a, "--configs") && parse_configs(o, v)) i++;
    else if (!strcmp(a, "--skip") && o->nskip < 16) o->skip[o->nskip++] = strtoull(v, NULL, 0), i++;
    else return usage();
  }
  if (*print_seed >= 0) o->start = (uint64_t)*print_seed, o->count = 1;
  return -1;
}

/* Checks the seeds in children, one after another: a child ends at the first failure (or
 * crash), which is reported, and the next child goes on after it. */
static int run(const options *o) {
  double t0 = now(), deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
  uint64_t seed = o->start, end = o->start + o->count, failures = 0;
  while (seed < end && (!deadline || now() < deadline)) {
    shm->next = shm->seed = seed;
    shm->why[0] = 0;
    pid_t pid = start_child();
    if (!pid) check_seeds(o, seed, end, deadline);
    int f = wait_child(pid);
    if (f < 0) return 3;
    if (f == FZ_OK) {
      seed = shm->next;
      break;
    }
    if (f == FZ_CRASH || f == FZ_TIMEOUT)
      snprintf(shm->why, sizeof shm->why, "W %u: weft's process died (%s)",
               o->configs[shm->config].warp, fz_failure_name((fz_failure)f));
    failures++;
    seed = shm->seed + 1;
    char why[sizeof shm->why];
    snprintf(why, sizeof why, "%s", shm->why);
    report(o, shm->seed, (fz_failure)f, shm->config, why);
  }
  printf("weft_fuzz: %llu kernels (seeds %llu to %llu), %llu failed, %.1f s\n",
         (unsigned long long)(seed - o->start), (unsigned long long)o->start,
         (unsigned long long)(seed - 1), (unsigned long long)failures, now() - t0);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  options o = {.start = 1,
               .count = 200,
               .found = "fuzz-found",
               .threads = 1,
               .timeout = 60,
               .reduce = true};
  int64_t print_seed = -1;
  int print = 0;
  parse_configs(&o, "32x0,8x4,64x0");
  int status = parse(argc, argv, &o, &print_seed, &print);
  if (status >= 0) return status;
  if (print) {
    fz_kernel k;
    fz_generate(&k, o.start);
    fz_print(stdout, &k, print == 2 ? FZ_C : FZ_OPENCL);
    fz_free(&k);
    return 0;
  }
  shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shm == MAP_FAILED || !fz_oracle_init()) return perror("weft_fuzz"), 3;
  status = run(&o);
  fz_oracle_cleanup();
  return status;
}
