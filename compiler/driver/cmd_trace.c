/* weft trace: runs a kernel like weft run and records, step by step, what one work-group's
 * warps do under the policy: which lanes run which block, the event (divergence,
 * reconvergence, ...), the lane groups run and skipped, and the policy's state after each step.
 *
 * The launch options, the build and the arguments are launch_opts.c's. The steps come from
 * weft_kernel_launch_traced into a trace_rec (trace_out.c), which is written when the launch
 * is over: as text, JSON lines or SVG, to stdout or to -o PATH (paths_write: a file is
 * written whole or not at all, a link or a device is written through, never replaced). */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "launch_opts.h"
#include "paths.h"
#include "trace_out.h"

static const char usage[] =
    "usage: weft trace FILE.cl [-k KERNEL] [-g X[,Y[,Z]]] [-l X[,Y[,Z]]] [--arg SPEC]...\n"
    "                  [--out I=PATH]... [--policy NAME] [--split-order lowest-pc|rr]\n"
    "                  [--max-splits N] [--warp W] [--lanes G] [--threads N] [--stats]\n"
    "                  [--stats-json PATH] [--build-options OPTS] [--no-defaults]\n"
    "                  [--format text|json|svg] [-o PATH] [--group N] [--warp-id N]\n"
    "                  [--max-steps N] [--timeout S]\n"
    "\n"
    "Runs KERNEL as `weft run` does and records, for each step of the traced warps, the block\n"
    "it ran (PC and source lines), the active mask (thread 0 rightmost, as in the papers), the\n"
    "event (execute, diverge, reconverge, early reconvergence, barrier wait, exit), the lane\n"
    "groups run and skipped (BCC), and the policy's state after the step: the stack entries\n"
    "(PC, RPC, mask) for stack; the warp split table and reconvergence table for mp and\n"
    "mp-orec; every lane's PC for pc. A step is one block, as in the papers' figures; a loop\n"
    "that jumps back without diverging stays inside one step (B3..B1: from B3 back to B1; B2 x5:\n"
    "B2 five times). The policy sees only its events (divergence, reaching the point it\n"
    "published, barriers), so between them its state shows where a split started.\n"
    "Tracing changes neither the results nor the stats of the launch.\n"
    "\n"
    "Launch options: as for `weft run` (see `weft run --help`), with the file's\n"
    "`// weft-run:` lines as defaults; --repeat is not one (a file's --repeat is ignored).\n"
    "--stats prints the launch's stats to stderr. A launch that --timeout or SIGINT/SIGTERM\n"
    "stops writes the steps recorded so far, after the report of where its warps were.\n"
    "\n"
    "  --format F      text (default): a table like the papers' figures, the policy's state\n"
    "                  under each step; json: one JSON object per line, first the kernel's\n"
    "                  blocks, then per step {step, group, warp, pc, end_pc, first_line,\n"
    "                  last_line, mask, event, targets, blocks, groups_run, groups_skipped,\n"
    "                  reconvergences, early_reconvergences, state}; svg: a picture, lanes\n"
    "                  down and steps across, each cell coloured by its block\n"
    "  -o PATH         write the trace to PATH (completely, or not at all) instead of stdout\n"
    "  --group N       trace work-group N (linear index, x fastest); default 0, the first\n"
    "  --warp-id N     trace only warp N of that work-group; default every warp\n"
    "  --max-steps N   record at most N steps (default 10000); the launch still runs to its\n"
    "                  end, and the output says that the trace stopped\n"
    "\n"
    "Only the traced work-group runs differently (its warps return to the runtime after every\n"
    "block); the others run at full speed. Exit status: 0 success; 1 failure (build, launch,\n"
    "file, memory); 2 command-line error.\n";

#define TRACE_OPTS                                                                              \
  (RUN_OPTS & ~OPT(O_REPEAT)) | OPT(O_FORMAT) | OPT(O_OUTPUT) | OPT(O_WARP_ID) | OPT(O_GROUP) | \
      OPT(O_MAX_STEPS)
static const launch_cmd trace_cmd = {"trace", usage, TRACE_OPTS};

enum format { TEXT, JSON, SVG };

typedef struct trace_args {
  enum format format;
  weft_trace_options opts;
  unsigned max_steps;
} trace_args;

static int parse_trace_args(const launch *l, trace_args *t) {
  const char *format = l->o.value[O_FORMAT];
  unsigned group = 0, warp = 0;
  t->max_steps = 10000;
  if (!format || !strcmp(format, "text")) t->format = TEXT;
  else if (!strcmp(format, "json")) t->format = JSON;
  else if (!strcmp(format, "svg")) t->format = SVG;
  else return fail(2, "trace: --format %s: the formats are text, json and svg", format);
  if (launch_parse_unsigned(l, O_GROUP, &group) || launch_parse_unsigned(l, O_WARP_ID, &warp) ||
      launch_parse_unsigned(l, O_MAX_STEPS, &t->max_steps))
    return 2;
  if (!t->max_steps) return fail(2, "trace: --max-steps must be at least 1");
  t->opts.group = group;
  t->opts.warp = l->o.value[O_WARP_ID] ? (int)warp : -1;
  return 0;
}

/* What the text and the picture say about the kernel: its name, policy, W, G and blocks. */
static int describe(const launch *l, const trace_args *t, trace_rec *r) {
  const weft_kernel *k = l->s.kernel;
  weft_options o = weft_context_options(l->s.ctx);
  r->kernel = weft_kernel_name(k), r->policy = o.policy;
  r->width = o.warp, r->lanes = o.lanes;
  r->group = t->opts.group, r->warp = t->opts.warp, r->max = t->max_steps;
  r->nblocks = weft_kernel_num_blocks(k);
  r->first_line = calloc(r->nblocks + 1, sizeof *r->first_line);
  r->last_line = calloc(r->nblocks + 1, sizeof *r->last_line);
  if (!r->first_line || !r->last_line) return fail(1, "out of memory");
  for (unsigned pc = 0; pc < r->nblocks; pc++)
    weft_kernel_block_lines(k, pc, &r->first_line[pc], &r->last_line[pc]);
  return 0;
}

/* *stopped: the launch was stopped (timeout, signal), and its steps so far are worth writing. */
static int run_traced(launch *l, trace_args *t, trace_rec *r, weft_stats *stats, int *stopped) {
  const run_state *s = &l->s;
  t->opts.on_step = trace_rec_step, t->opts.user = r;
  int rc = launch_fill_args(l);
  weft_status st = rc ? WEFT_SUCCESS
                      : weft_kernel_launch_traced(s->kernel, &l->p.range, s->nargs, s->args, stats,
                                                  &t->opts);
  if (st) {
    char what[300];
    snprintf(what, sizeof what, "traced launch of '%s'", weft_kernel_name(s->kernel));
    rc = launch_fail_status(l, st, what);
    *stopped = st == WEFT_ERROR_TIMEOUT || st == WEFT_ERROR_STOPPED;
  }
  if (!rc && r->oom) rc = fail(1, "out of memory for the trace after %zu steps", r->n);
  return rc;
}

/* The trace in its format, to -o PATH or stdout. */
static int write_trace(const launch *l, const trace_args *t, const trace_rec *r) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return fail(1, "out of memory");
  if (t->format == TEXT) trace_write_text(mem, r);
  else if (t->format == JSON) trace_write_json(mem, r);
  else trace_write_svg(mem, r);
  int rc = fclose(mem) ? fail(1, "out of memory") : 0;
  const char *path = l->o.value[O_OUTPUT];
  if (!rc) rc = paths_write(path ? path : "-", text, len);
  free(text);
  if (!rc && r->truncated)
    fprintf(stderr,
            "weft: trace: recorded the first %zu steps (--max-steps %zu); the launch "
            "ran to its end\n",
            r->n, r->max);
  return rc;
}

int cmd_trace(int argc, char **argv) {
  launch l = {0};
  trace_args t = {0};
  trace_rec r = {0};
  weft_stats stats = {0};
  int stopped = 0;
  int rc = launch_read(&l, &trace_cmd, argc, argv);
  if (rc < 0) {
    rc = parse_trace_args(&l, &t);
    if (!rc) rc = launch_prepare(&l);
    if (!rc) rc = describe(&l, &t, &r);
    if (!rc) rc = run_traced(&l, &t, &r, &stats, &stopped);
    if (!rc) { /* the run's results: every one that can be written is */
      rc = launch_write_outputs(&l);
      rc |= write_trace(&l, &t, &r);
      rc |= launch_write_stats(&l, &stats, stderr);
    } else if (stopped) {
      write_trace(&l, &t, &r);
    }
  }
  trace_rec_free(&r);
  launch_free(&l);
  return launch_interrupted() ? launch_interrupted() : rc;
}
