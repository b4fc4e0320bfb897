/* What `weft run` and `weft trace` share: the launch options (kernel, NDRange, arguments, policy,
 * W, G, ...) from the command line and the kernel file's `// weft-run:` lines, the plan they
 * turn into, the built kernel with its allocated arguments, and writing results (buffers, stats)
 * to files. Each command describes itself with a launch_cmd: its name for messages, its --help
 * text and which of the value options it takes.
 *
 * Functions that can fail return 0, or an exit code after printing why (1 failure, 2 usage
 * error); the readers return -1 to go on. */
#ifndef WEFT_LAUNCH_OPTS_H
#define WEFT_LAUNCH_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "argspec.h"
#include "weft.h"

/* Options that take a value; kept as text until the command line and the file are merged. */
enum {
  O_KERNEL,
  O_GLOBAL,
  O_LOCAL,
  O_POLICY,
  O_WARP,
  O_LANES,
  O_THREADS,
  O_REPEAT,
  O_STATS_JSON,
  O_BUILD_OPTIONS,
  O_SPLIT_ORDER,
  O_MAX_SPLITS,
  O_TIMEOUT,
       /* weft trace's own */
  O_FORMAT,
  O_OUTPUT,
  O_WARP_ID,
  O_GROUP,
  O_MAX_STEPS,
  NOPTS
};
extern const char *const opt_names[NOPTS];

#define OPT(o) (1ul << (o))
/* The value options of weft run; weft trace takes them but --repeat, and its own. */
#define RUN_OPTS                                                                               \
  (OPT(O_KERNEL) | OPT(O_GLOBAL) | OPT(O_LOCAL) | OPT(O_POLICY) | OPT(O_WARP) | OPT(O_LANES) | \
   OPT(O_THREADS) | OPT(O_REPEAT) | OPT(O_STATS_JSON) | OPT(O_BUILD_OPTIONS) |                 \
   OPT(O_SPLIT_ORDER) | OPT(O_MAX_SPLITS) | OPT(O_TIMEOUT))

typedef struct launch_cmd {
  const char *name;    /* "run": messages say "weft: run: ..." */
  const char *usage;   /* printed by --help */
  unsigned long takes; /* the value options it takes, OPT(O_...) bits; a kernel file's other
                          options are ignored, the command line's are errors */
} launch_cmd;

typedef struct run_opts {
  const char *file;
  const char *value[NOPTS];
  const char **args, **outs; /* room for as many as there are words */
  int nargs, nouts;
  bool stats, no_defaults, policy_in_runtime;
  bool args_from_file;
} run_opts;

/* What the option texts mean, once parsed. */
typedef struct run_plan {
  weft_options options;
  weft_ndrange range;
  unsigned repeat;
  argspec *specs;
  unsigned *out_index;
  const char **out_path;
} run_plan;

/* The built kernel and its arguments. */
typedef struct run_state {
  weft_context *ctx;
  weft_program *program;
  weft_kernel *kernel;
  unsigned nargs;
  weft_arg *args;
  void **bufs; /* per parameter: the BUFFER's memory, else NULL */
} run_state;

/* Everything one command invocation allocates; launch_free releases it all. */
typedef struct launch {
  const launch_cmd *cmd;
  run_opts o, f; /* the command line (merged with the file's), the file's */
  run_plan p;
  run_state s;
  char *defaults, **words;
  unsigned *word_line; /* the kernel file's line of each of words */
} launch;

/* Reads the command line and the file's defaults, then makes the plan: -1 to go on, else the
 * exit code (0 after --help). */
int launch_read(launch *l, const launch_cmd *cmd, int argc, char **argv);
/* Builds the program, finds the kernel, checks and allocates its arguments. */
int launch_prepare(launch *l);
/* 0, or 130 (SIGINT), 143 (SIGTERM): a signal stopped the launch (launch_prepare catches
 * them), and the command exits with this once it has written what it can. */
int launch_interrupted(void);
/* Fills the buffers from their INIT (before each launch). */
int launch_fill_args(launch *l);
void launch_free(launch *l);

/* Option `opt` as a number from 0 to 2^20 (to WEFT_MAX_THREADS for --threads) into *out;
 * unset leaves *out alone. */
int launch_parse_unsigned(const launch *l, int opt, unsigned *out);
/* "weft: WHAT failed: REASON (STATUS)", with weft_last_error as the reason. */
int launch_fail_status(const launch *l, weft_status st, const char *what);
/* The --out buffers: each one that can be written is, even when another cannot; 1 if any
 * failed. Every output goes through paths_write (paths.h). */
int launch_write_outputs(const launch *l);
/* The stats: printed to `f` when --stats is on, written to --stats-json PATH when given. */
int launch_write_stats(const launch *l, const weft_stats *st, FILE *f);

#endif
