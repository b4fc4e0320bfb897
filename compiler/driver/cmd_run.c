/* weft run: builds one kernel of a file, launches it with arguments given on the command line,
 * and writes its output buffers and stats.
 *
 * The options, the build and the arguments are launch_opts.c's (shared with weft trace); here
 * the kernel is launched `--repeat` times (buffers refilled before each launch, so outputs are
 * those of one launch from the given inputs) and the median time reported. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"
#include "launch_opts.h"

static const char usage[] =
    "usage: weft run FILE.cl [-k KERNEL] [-g X[,Y[,Z]]] [-l X[,Y[,Z]]] [--arg SPEC]...\n"
    "                [--out I=PATH]... [--policy NAME] [--split-order lowest-pc|rr]\n"
    "                [--max-splits N] [--warp W] [--lanes G] [--threads N] [--repeat N]\n"
    "                [--stats] [--stats-json PATH] [--build-options OPTS] [--no-defaults]\n"
    "                [--policy-in-runtime] [--timeout S]\n"
    "\n"
    "Builds KERNEL from FILE.cl and runs it over the NDRange, one warp of W work-items at a time,\n"
    "with GPU (SIMT) semantics.\n"
    "\n"
    "  -k KERNEL            the kernel to run; may be left out when FILE.cl has only one\n"
    "  -g X[,Y[,Z]]         global size: work-items per dimension (1 to 3 dimensions)\n"
    "  -l X[,Y[,Z]]         work-group size, as many dimensions as -g, each dividing -g's;\n"
    "                       default: the largest divisor of X up to 256, by 1, by 1\n"
    "  --arg SPEC           one per kernel parameter, in order:\n"
    "                         TYPE:VALUE      a value; TYPE:V1,V2,... for a vector (float4)\n"
    "                         TYPE[N]=INIT    a __global or __constant buffer of N elements\n"
    "                         local:TYPE[N]   a __local buffer of N elements\n"
    "                         {TYPE:V,...}    a struct, its fields in order (scalars, laid\n"
    "                                         out as C lays out a struct of them)\n"
    "                       TYPE: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64, the parameter's own\n"
    "                       INIT: zero | iota (0, 1, 2, ...) | fill:V | rand:SEED (floats in\n"
    "                       [0,1), integers in [0,100), the same for a SEED on every machine)\n"
    "                       | file:PATH (raw little-endian, exactly N elements)\n"
    "  --out I=PATH         after a successful run, write buffer parameter I (0-based position)\n"
    "                       to PATH as raw bytes; a file is replaced whole, a link is written\n"
    "                       through, a device or - (stdout) is written in place\n"
    "  --policy NAME        reconvergence policy: stack (default), mp, mp-orec, pc\n"
    "  --split-order ORDER  mp, mp-orec: which ready split of a warp runs next: lowest-pc\n"
    "                       (the smallest PC, default) or rr (round robin, as the MP paper)\n"
    "  --max-splits N       mp, mp-orec: at most N >= 2 ready splits per warp (2 models the\n"
    "                       dual-path stack); a split past them waits; 0 (default): W\n"
    "  --warp W             work-items per warp: 4, 8, 16, 32 (default) or 64\n"
    "  --lanes G            lanes per vector: 4, 8 or 16, at most W; default 16 with\n"
    "                       AVX-512, else 8\n"
    "  --threads N          worker threads; default (0) one per online CPU\n"
    "  --repeat N           launch N times and report the median time; the buffers are\n"
    "                       refilled from their INIT before each launch\n"
    "  --stats              print the launch's stats (time, SIMD efficiency, branches, ...)\n"
    "  --stats-json PATH    write them as one JSON object\n"
    "  --build-options OPTS extra clang options, such as \"-DN=4\"\n"
    "  --no-defaults        ignore FILE.cl's // weft-run: lines\n"
    "  --policy-in-runtime  every policy event returns to the runtime, which asks the policy\n"
    "                       (the reference path: same results and stats, slower; by default\n"
    "                       the generated code takes stack's and pc's decisions itself,\n"
    "                       and mp's at structured branches, loop exits and early returns)\n"
    "  --timeout S          stop a launch that runs longer than S seconds (0: no limit, the\n"
    "                       default unless WEFT_TIMEOUT is set) and say where each warp that\n"
    "                       was running is stuck: lanes, lines, what they wait for, and a\n"
    "                       SIMT deadlock as such; SIGINT and SIGTERM stop it the same way\n"
    "                       (exit status 130, 143)\n"
    "\n"
    "Defaults from the kernel file: the options on every line of FILE.cl that starts with\n"
    "`// weft-run:` (split at blanks, no quoting; several lines are joined) are used for what\n"
    "the command line leaves out. An option given on the command line replaces the file's;\n"
    "-l comes from the file only if -g does too; the --arg list is taken whole from the\n"
    "command line if it has any, else from the file; --stats is on if either turns it on, and\n"
    "so is --policy-in-runtime. A kernel file is trusted with its launch settings only: it may\n"
    "not give --out, --stats-json or -o, a file:PATH outside its folder, or build options\n"
    "other than -D, -U, -I inside its folder, -cl-*, -w and -W...; such a line is an error\n"
    "that names it (give the option on the command line, or use --no-defaults).\n"
    "\n"
    "Builds are kept in a disk cache (WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft or\n"
    "~/.cache/weft; WEFT_CACHE=0 turns it off; the entries used longest ago go when it\n"
    "passes WEFT_CACHE_SIZE, 512M unless set): the same kernel file with the same options\n"
    "builds once, unless it includes other files. WEFT_ISA=avx2 compiles for a host without\n"
    "AVX-512 (G 8 by default) even on one with it.\n"
    "\n"
    "Without --stats, one line gives the kernel's time. Exit status: 0 success; 1 failure\n"
    "(build, launch, file, memory, timeout); 2 command-line error (unknown option, bad spec,\n"
    "arguments that do not fit the kernel); 130, 143 stopped by SIGINT, SIGTERM.\n";

/* ---- launching ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, unsigned n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Launches p->repeat times; *stats is the last launch's, with the median time. Only a run
 * that reports stats asks weft for them: counting costs time in divergent code. */
static int launch_repeat(launch *l, weft_stats *stats) {
  const run_plan *p = &l->p;
  const run_state *s = &l->s;
  int counting = l->o.stats || l->o.value[O_STATS_JSON];
  double *times = calloc(p->repeat, sizeof *times);
  int rc = times ? 0 : fail(1, "out of memory");
  for (unsigned r = 0; !rc && r < p->repeat && !launch_interrupted(); r++) {
    rc = launch_fill_args(l);
    double t0 = now_ms();
    weft_status st = rc ? WEFT_SUCCESS
                        : weft_kernel_launch(s->kernel, &p->range, s->nargs, s->args,
                                             counting ? stats : NULL);
    if (st) {
      char what[300];
      snprintf(what, sizeof what, "launch of '%s'", weft_kernel_name(s->kernel));
      rc = launch_fail_status(l, st, what);
    }
    if (!rc) times[r] = counting ? stats->time_ms : now_ms() - t0;
  }
  if (!rc) stats->time_ms = median(times, p->repeat);
  free(times);
  return rc;
}

/* ---- the command ---- */

static const launch_cmd run_cmd = {"run", usage, RUN_OPTS};

int cmd_run(int argc, char **argv) {
  launch l = {0};
  weft_stats stats = {0};
  int rc = launch_read(&l, &run_cmd, argc, argv);
  if (rc < 0) {
    rc = launch_prepare(&l);
    if (!rc) rc = launch_repeat(&l, &stats);
    if (!rc) { /* the run's results: every one that can be written is */
      rc = launch_write_outputs(&l);
      if (!l.o.stats)
        printf("%s: %.3f ms%s\n", weft_kernel_name(l.s.kernel), stats.time_ms,
               l.p.repeat > 1 ? " (median)" : "");
      rc |= launch_write_stats(&l, &stats, stdout);
    }
  }
  launch_free(&l);
  return launch_interrupted() ? launch_interrupted() : rc;
}
