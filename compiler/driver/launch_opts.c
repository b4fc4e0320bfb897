/* The launch options shared by `weft run` and `weft trace` (launch_opts.h).
 *
 * The steps, each a function below: read the options (command line first, then the file's
 * `// weft-run:` line fills in what the command line left unset), turn the option texts into
 * weft_options / weft_ndrange / argspecs, build the program, check the specs against the
 * kernel's signature, allocate and fill the buffers; after the command's launch, write the
 * --out files and the stats (paths_write: a failure never leaves a half-written file in place
 * of the user's, and a link or a device is written through, never replaced). Option texts
 * are kept as strings until after the merge so that "set on the command line" is simply "not
 * NULL".
 *
 * A kernel file may come from anyone, so its weft-run lines are trusted with its launch
 * settings only (file_may_set): nothing in them may name a file to write, and of build
 * options only those that define macros, add include folders inside the file's own folder, or
 * set OpenCL and warning flags; the rest is refused, naming the file and line. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "launch_opts.h"
#include "paths.h"
#include "runtime.h"

const char *const opt_names[NOPTS] = {
    [O_KERNEL] = "-k",
    [O_GLOBAL] = "-g",
    [O_LOCAL] = "-l",
    [O_POLICY] = "--policy",
    [O_WARP] = "--warp",
    [O_LANES] = "--lanes",
    [O_THREADS] = "--threads",
    [O_REPEAT] = "--repeat",
    [O_STATS_JSON] = "--stats-json",
    [O_BUILD_OPTIONS] = "--build-options",
    [O_SPLIT_ORDER] = "--split-order",
    [O_MAX_SPLITS] = "--max-splits",
    [O_TIMEOUT] = "--timeout",
    [O_FORMAT] = "--format",
    [O_OUTPUT] = "-o",
    [O_WARP_ID] = "--warp-id",
    [O_GROUP] = "--group",
    [O_MAX_STEPS] = "--max-steps",
};

/* ---- options ---- */

static int value_opt(const char *word) {
  for (int i = 0; i < NOPTS; i++)
    if (!strcmp(word, opt_names[i])) return i;
  return -1;
}

/* Where the words of parse_words come from: the command line (file NULL) or a kernel file's
 * weft-run lines, words[i] from line[i] of `file`, whose folder is `folder`. */
typedef struct origin {
  const char *file, *folder;
  const unsigned *line;
} origin;

/* Whether a kernel file may give this clang option: macros, include folders inside its own
 * folder, OpenCL options, warnings. -Wa,/-Wl,/-Wp, hand options on to other tools
 * (-Wp,-MD,PATH writes a file), so a -W with a comma is refused. Everything else (-fplugin=,
 * -Xclang, -o, -E, ...) can load code, write files or change what weft gets back. */
static bool trusted_build_option(const char *opt, const char *folder) {
  if ((!strncmp(opt, "-D", 2) || !strncmp(opt, "-U", 2)) && opt[2]) return true;
  if (!strncmp(opt, "-I", 2) && opt[2]) return paths_inside(folder, opt + 2);
  if (!strncmp(opt, "-cl-", 4) || !strcmp(opt, "-w")) return true;
  return !strncmp(opt, "-W", 2) && opt[2] && !strchr(opt, ',');
}

/* Whether --build-options `value`, from a kernel file, holds only trusted options; *bad is
 * the first that is not (pointing into a copy, `copy`, that the caller frees). */
static bool trusted_build_options(const char *value, const char *folder, char **copy,
                                  const char **bad) {
  char *opts[256];
  int n = (*copy = strdup(value)) ? argspec_split(*copy, opts, 256) : -1;
  *bad = n < 0 ? value : NULL;
  for (int i = 0; i < n && !*bad; i++)
    if (!trusted_build_option(opts[i], folder)) *bad = opts[i];
  return !*bad;
}

/* Whether a kernel file may set option `opt` to `val` (words[i], words[i + 1]): -1 if so, else
 * the exit code after saying why, with its file:line and what to do instead. */
static int file_may_set(const launch_cmd *cmd, const origin *from, int i, const char *opt,
                        const char *val) {
  const char *file = strstr(val, "=file:"), *bad; /* TYPE[N]=file:PATH */
  char *copy = NULL, why[512] = "";
  if (!strcmp(opt, "--out") || !strcmp(opt, "--stats-json") || !strcmp(opt, "-o"))
    snprintf(why, sizeof why, "choose what weft writes (%s %.200s)", opt, val);
  else if (!strcmp(opt, "--build-options") &&
           !trusted_build_options(val, from->folder, &copy, &bad))
    snprintf(why, sizeof why,
             "give --build-options %.200s (only -D, -U, -I inside its folder, "
             "-cl-*, -w, -W...)",
             bad);
  else if (!strcmp(opt, "--arg") && file && !paths_inside(from->folder, file + 6))
    snprintf(why, sizeof why, "read a file outside its folder (--arg %.200s)", val);
  free(copy);
  if (!*why) return -1;
  return fail(2,
              "%s: %s:%u: a kernel file may not %s: pass it on the command line or use "
              "--no-defaults",
              cmd->name, from->file, from->line[i], why);
}

/* "FILE:LINE: " for a word from a kernel file, "" for one from the command line. */
static const char *where(char *buf, size_t size, const origin *from, int i) {
  if (!from) return "";
  snprintf(buf, size, "%s:%u: ", from->file, from->line[i]);
  return buf;
}

/* Reads words[0..n) into o. `from` is NULL for the command line, else the kernel file whose
 * weft-run lines the words come from (where a file name, --help and --no-defaults make no
 * sense, and some options are refused: file_may_set). Returns -1 to go on, or an exit code. */
static int parse_words(const launch_cmd *cmd, int n, char **words, run_opts *o,
                       const origin *from) {
  char at[512];
  for (int i = 0, rc; i < n; i++) {
    const char *w = words[i];
    int v = value_opt(w);
    if (!from && (!strcmp(w, "--help") || !strcmp(w, "-h"))) return fputs(cmd->usage, stdout), 0;
    if (v >= 0 || !strcmp(w, "--arg") || !strcmp(w, "--out")) {
      if (i + 1 == n)
        return fail(2, "%s: %s%s needs a value", cmd->name, where(at, sizeof at, from, i), w);
      const char *val = words[++i];
      if (from && (rc = file_may_set(cmd, from, i - 1, w, val)) >= 0) return rc;
      if (v >= 0 && !(cmd->takes & OPT(v)) && !from)
        return fail(2, "%s: %s is not an option of weft %s (see `weft %s --help`)", cmd->name, w,
                    cmd->name, cmd->name);
      if (v >= 0 && !(cmd->takes & OPT(v))) continue; /* another command's, in the file */
      if (v >= 0) o->value[v] = val;
      else if (w[2] == 'a') o->args[o->nargs++] = val;
      else o->outs[o->nouts++] = val;
    } else if (!strcmp(w, "--stats")) {
      o->stats = true;
    } else if (!strcmp(w, "--policy-in-runtime")) {
      o->policy_in_runtime = true;
    } else if (!from && !strcmp(w, "--no-defaults")) {
      o->no_defaults = true;
    } else if (w[0] == '-' && w[1]) {
      return fail(2, "%s: %sunknown option '%s' (see `weft %s --help`)", cmd->name,
                  where(at, sizeof at, from, i), w, cmd->name);
    } else if (from || o->file) {
      return fail(2, "%s: %sunexpected '%s' (one FILE.cl only)", cmd->name,
                  where(at, sizeof at, from, i), w);
    } else {
      o->file = w;
    }
  }
  return -1;
}

/* Fills what the command line (o) left unset from the file's options (f); see the usage. */
static void merge(run_opts *o, const run_opts *f) {
  bool g_from_cmdline = o->value[O_GLOBAL] != NULL;
  for (int i = 0; i < NOPTS; i++)
    if (!o->value[i] && !(i == O_LOCAL && g_from_cmdline)) o->value[i] = f->value[i];
  if (!o->nargs) {
    memcpy(o->args, f->args, sizeof *f->args * (size_t)f->nargs);
    o->nargs = f->nargs;
    o->args_from_file = f->nargs > 0;
  }
  if (!o->nouts) {
    memcpy(o->outs, f->outs, sizeof *f->outs * (size_t)f->nouts);
    o->nouts = f->nouts;
  }
  o->stats |= f->stats;
  o->policy_in_runtime |= f->policy_in_runtime;
}

/* Reads the weft-run lines of the kernel file's `text` into l->f: the words point into
 * l->defaults, and l->word_line gives each one's line, for messages. */
static int read_defaults(launch *l, const char *text) {
  run_opts *f = &l->f;
  unsigned *lines = NULL;
  if (!(l->defaults = argspec_defaults(text, &lines))) return -1;
  int max = (int)(strlen(l->defaults) / 2 + 1), n = 0; /* words are separated by blanks */
  l->words = calloc((size_t)max, sizeof *l->words);
  l->word_line = calloc((size_t)max, sizeof *l->word_line);
  f->args = calloc((size_t)max, sizeof *f->args);
  f->outs = calloc((size_t)max, sizeof *f->outs);
  char *folder = paths_folder(l->o.file);
  int rc = l->words && l->word_line && f->args && f->outs && folder ? -1 : fail(1, "out of memory");
  /* one line of l->defaults per weft-run line */
  char *line = rc < 0 ? l->defaults : NULL;
  for (unsigned k = 0; line; k++) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    int m = argspec_split(line, l->words + n, max - n);
    for (int j = 0; j < m; j++) l->word_line[n + j] = lines[k];
    n += m > 0 ? m : 0;
    line = nl ? nl + 1 : NULL;
  }
  origin from = {l->o.file, folder, l->word_line};
  if (rc < 0) rc = parse_words(l->cmd, n, l->words, f, &from);
  free(lines), free(folder);
  return rc;
}

/* ---- turning option texts into a plan ---- */

int launch_parse_unsigned(const launch *l, int opt, unsigned *out) {
  const launch_cmd *cmd = l->cmd;
  const char *s = l->o.value[opt];
  char *end;
  if (!s) return 0;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  unsigned max = opt == O_THREADS ? WEFT_MAX_THREADS : 1u << 20;
  if (end == s || *end || *s == '-' || errno || v > max)
    return fail(2, "%s: %s '%s' is not a number from 0 to %u", cmd->name, opt_names[opt], s, max);
  *out = (unsigned)v;
  return 0;
}

/* --timeout S: seconds, 0 for none (weft_options.timeout_s checks the range). */
static int parse_timeout(const launch *l, double *out) {
  const char *s = l->o.value[O_TIMEOUT];
  char *end;
  if (!s) return 0;
  *out = strtod(s, &end);
  if (end == s || *end || !(*out >= 0))
    return fail(2, "%s: --timeout '%s' is not a number of seconds", l->cmd->name, s);
  return 0;
}

static int parse_options(launch *l) {
  const launch_cmd *cmd = l->cmd;
  const run_opts *o = &l->o;
  run_plan *p = &l->p;
  weft_options *w = &p->options;
  p->repeat = 1;
  if (launch_parse_unsigned(l, O_WARP, &w->warp) || launch_parse_unsigned(l, O_LANES, &w->lanes) ||
      launch_parse_unsigned(l, O_THREADS, &w->threads) ||
      launch_parse_unsigned(l, O_REPEAT, &p->repeat) ||
      launch_parse_unsigned(l, O_MAX_SPLITS, &w->max_splits))
    return 2;
  w->policy = o->value[O_POLICY];
  w->policy_in_runtime = o->policy_in_runtime;
  w->split_order = o->value[O_SPLIT_ORDER];
  if (parse_timeout(l, &w->timeout_s)) return 2;
  char why[256];
  if (weft_options_check(w, why, sizeof why)) return fail(2, "%s: %s", cmd->name, why);
  if (p->repeat == 0) return fail(2, "%s: --repeat must be at least 1", cmd->name);
  return 0;
}

/* The largest divisor of n up to 256: a work-group that fits any global size. */
static size_t default_local(size_t n) {
  for (size_t d = n < 256 ? n : 256;; d--)
    if (n % d == 0) return d;
}

static int parse_range(const launch_cmd *cmd, const run_opts *o, weft_ndrange *r) {
  char err[256];
  unsigned ldims;
  if (!o->value[O_GLOBAL])
    return fail(2, "%s: no global size: give -g X[,Y[,Z]] (or a // weft-run: line in %s)",
                cmd->name, o->file);
  if (argspec_parse_dims(o->value[O_GLOBAL], r->global, &r->dims, err, sizeof err))
    return fail(2, "%s: -g %s: %s", cmd->name, o->value[O_GLOBAL], err);
  if (!o->value[O_LOCAL]) {
    r->local[0] = default_local(r->global[0]);
    r->local[1] = r->local[2] = 1;
    return 0;
  }
  if (argspec_parse_dims(o->value[O_LOCAL], r->local, &ldims, err, sizeof err))
    return fail(2, "%s: -l %s: %s", cmd->name, o->value[O_LOCAL], err);
  if (ldims != r->dims)
    return fail(2, "%s: -l %s has %u dimension%s but -g %s has %u", cmd->name, o->value[O_LOCAL],
                ldims, ldims == 1 ? "" : "s", o->value[O_GLOBAL], r->dims);
  return 0;
}

static int parse_specs(const launch_cmd *cmd, const run_opts *o, run_plan *p) {
  char err[512];
  const char *from = o->args_from_file ? " (from the weft-run line)" : "";
  p->specs = calloc((size_t)o->nargs + 1, sizeof *p->specs);
  p->out_index = calloc((size_t)o->nouts + 1, sizeof *p->out_index);
  p->out_path = calloc((size_t)o->nouts + 1, sizeof *p->out_path);
  if (!p->specs || !p->out_index || !p->out_path) return fail(1, "out of memory");
  for (int i = 0; i < o->nargs; i++)
    if (argspec_parse(o->args[i], &p->specs[i], err, sizeof err))
      return fail(2, "%s: --arg %d '%s'%s: %s", cmd->name, i, o->args[i], from, err);
  for (int i = 0; i < o->nouts; i++)
    if (argspec_parse_out(o->outs[i], &p->out_index[i], &p->out_path[i], err, sizeof err))
      return fail(2, "%s: --out '%s': %s", cmd->name, o->outs[i], err);
  return 0;
}

static int make_plan(launch *l) {
  int rc = parse_options(l);
  if (!rc) rc = parse_range(l->cmd, &l->o, &l->p.range);
  if (!rc) rc = parse_specs(l->cmd, &l->o, &l->p);
  return rc;
}

/* ---- the kernel and its arguments ---- */

static void print_text(const char *s) {
  if (!s || !*s) return;
  fputs(s, stderr);
  if (s[strlen(s) - 1] != '\n') fputc('\n', stderr);
}

/* "weft: WHAT failed: REASON (STATUS)" on one line when weft_last_error is one line; a
 * multi-line reason (clang's diagnostics) is printed first, as it is. */
int launch_fail_status(const launch *l, weft_status st, const char *what) {
  fflush(stdout); /* the kernel's printf output comes before the report of what went wrong */
  const char *why = weft_last_error(l->s.ctx);
  size_t n = strlen(why);
  while (n && why[n - 1] == '\n') n--;
  size_t weft = strncmp(why, "weft: ", 6) ? 0 : 6; /* the line says weft once */
  if (n && !memchr(why, '\n', n))
    return fail(1, "%s failed: %.*s (%s)", what, (int)(n - weft), why + weft, weft_status_name(st));
  print_text(why);
  return fail(1, "%s failed: %s", what, weft_status_name(st));
}

static int build(launch *l) {
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  run_state *s = &l->s;
  weft_status st = weft_context_create(&p->options, &s->ctx);
  if (st) return fail(1, "cannot create a context: %s", weft_status_name(st)); /* options checked */
  st = weft_program_build_file(s->ctx, o->file, o->value[O_BUILD_OPTIONS], &s->program);
  if (st) {
    char what[1100];
    snprintf(what, sizeof what, "build of %s", o->file);
    return launch_fail_status(l, st, what);
  }
  print_text(weft_program_build_log(s->program));
  return 0;
}

static int kernel_names(const weft_program *program, char *buf, size_t size) {
  int n = 0;
  size_t len = 0;
  buf[0] = 0;
  for (const char *name; (name = weft_program_kernel_name(program, (unsigned)n)); n++)
    if (len < size) len += (size_t)snprintf(buf + len, size - len, "%s%s", n ? ", " : "", name);
  return n;
}

static int find_kernel(launch *l) {
  const launch_cmd *cmd = l->cmd;
  const run_opts *o = &l->o;
  run_state *s = &l->s;
  char names[1024];
  int n = kernel_names(s->program, names, sizeof names);
  const char *name = o->value[O_KERNEL];
  if (!n) return fail(1, "no kernels in %s", o->file);
  if (!name && n > 1)
    return fail(2, "%s: %s has %d kernels (%s): choose one with -k", cmd->name, o->file, n, names);
  if (!name) name = weft_program_kernel_name(s->program, 0);
  weft_status st = weft_kernel_create(s->program, name, &s->kernel);
  if (st == WEFT_ERROR_KERNEL_NOT_FOUND)
    return fail(2, "%s: no kernel '%s' in %s (it has %s)", cmd->name, name, o->file, names);
  if (st) return launch_fail_status(l, st, "weft_kernel_create");
  return 0;
}

/* "uint* out, int n" for messages about the argument count. */
static void param_list(const weft_kernel *k, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < weft_kernel_num_args(k) && len < size; i++) {
    weft_arg_info info;
    if (weft_kernel_arg_info(k, i, &info)) break;
    len += (size_t)snprintf(buf + len, size - len, "%s%u: %s %s", i ? ", " : "", i, info.type_name,
                            info.name);
  }
}

static int check_args(launch *l) {
  const launch_cmd *cmd = l->cmd;
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  run_state *s = &l->s;
  char err[512], params[1024];
  s->nargs = weft_kernel_num_args(s->kernel);
  if ((unsigned)o->nargs != s->nargs) {
    param_list(s->kernel, params, sizeof params);
    return fail(2, "%s: kernel '%s' has %u parameter%s (%s) but %d --arg %s given", cmd->name,
                weft_kernel_name(s->kernel), s->nargs, s->nargs == 1 ? "" : "s",
                s->nargs ? params : "none", o->nargs, o->nargs == 1 ? "was" : "were");
  }
  for (unsigned i = 0; i < s->nargs; i++) {
    weft_arg_info info;
    weft_status st = weft_kernel_arg_info(s->kernel, i, &info);
    if (st) return launch_fail_status(l, st, "weft_kernel_arg_info");
    if (argspec_check(&p->specs[i], i, &info, err, sizeof err))
      return fail(2, "%s: --arg %u '%s': %s", cmd->name, i, o->args[i], err);
  }
  for (int i = 0; i < o->nouts; i++) {
    unsigned k = p->out_index[i];
    if (k >= s->nargs || p->specs[k].kind != ARGSPEC_BUFFER)
      return fail(2, "%s: --out '%s': parameter %u is not a buffer (TYPE[N]=INIT) argument",
                  cmd->name, o->outs[i], k);
  }
  return 0;
}

static int alloc_args(launch *l) {
  const launch_cmd *cmd = l->cmd;
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  run_state *s = &l->s;
  size_t total = 0;
  s->args = calloc(s->nargs + 1, sizeof *s->args);
  s->bufs = calloc(s->nargs + 1, sizeof *s->bufs);
  if (!s->args || !s->bufs) return fail(1, "out of memory");
  for (unsigned i = 0; i < s->nargs; i++) {
    const argspec *a = &p->specs[i];
    if (a->kind == ARGSPEC_BUFFER && (total += argspec_bytes(a)) > ARGSPEC_MAX_BYTES)
      return fail(2, "%s: the buffers of --arg 0 to %u take more than %zu GiB together", cmd->name,
                  i, ARGSPEC_MAX_BYTES >> 30);
  }
  for (unsigned i = 0; i < s->nargs; i++) {
    const argspec *a = &p->specs[i];
    weft_arg_info info;
    weft_kernel_arg_info(s->kernel, i, &info);
    weft_arg *arg = &s->args[i];
    arg->kind = info.kind;
    arg->type = a->type;
    arg->size = argspec_bytes(a);
    if (a->kind == ARGSPEC_STRUCT) {
      arg->value = a->value;
    } else if (a->kind == ARGSPEC_SCALAR) {
      /* A 3-element vector is passed in a 4-element slot: the spare bytes stay zero. */
      arg->size = info.size > arg->size && info.size <= sizeof a->value ? info.size : arg->size;
      arg->value = a->value;
    } else if (a->kind == ARGSPEC_BUFFER) {
      if (!(s->bufs[i] = weft_buffer_alloc(arg->size)))
        return fail(1, "out of memory for the %zu bytes of --arg %u '%s'", arg->size, i,
                    o->args[i]);
      arg->value = s->bufs[i];
    }
  }
  return 0;
}

int launch_fill_args(launch *l) {
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  run_state *s = &l->s;
  char err[512];
  for (unsigned i = 0; i < s->nargs; i++)
    if (s->bufs[i] && argspec_fill(&p->specs[i], s->bufs[i], err, sizeof err))
      return fail(1, "--arg %u '%s': %s", i, o->args[i], err);
  return 0;
}

/* ---- writing results: each through paths_write, which never replaces a link or a device ---- */

int launch_write_outputs(const launch *l) {
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  const run_state *s = &l->s;
  int bad = 0;
  for (int i = 0; i < o->nouts; i++) { /* one that cannot be written does not stop the others */
    unsigned k = p->out_index[i];
    bad |= paths_write(p->out_path[i], s->bufs[k], s->args[k].size) != 0;
  }
  return bad;
}

static void print_dims(FILE *f, const size_t *v, unsigned dims) {
  for (unsigned d = 0; d < dims; d++) fprintf(f, "%s%zu", d ? "x" : "", v[d]);
}

static void print_stats(FILE *f, const run_plan *p, const run_state *s, const weft_stats *st) {
  weft_options w = weft_context_options(s->ctx);
  uint64_t groups = st->groups_run + st->groups_skipped;
  fprintf(f, "kernel              %s (policy %s, W %u, G %u, %u thread%s",
          weft_kernel_name(s->kernel), w.policy, w.warp, w.lanes, w.threads,
          w.threads == 1 ? "" : "s");
  if (!strncmp(w.policy, "mp", 2)) /* the options only mp and mp-orec use */
    fprintf(f, ", split order %s, max splits %u", w.split_order, w.max_splits);
  fprintf(f, ")\n");
  fprintf(f, "NDRange             ");
  print_dims(f, p->range.global, p->range.dims);
  fprintf(f, " in work-groups of ");
  print_dims(f, p->range.local, p->range.dims);
  fprintf(f, " (%llu work-groups, %llu warps)\n", (unsigned long long)st->work_groups,
          (unsigned long long)st->warps);
  fprintf(f, "time                %.3f ms", st->time_ms);
  if (p->repeat > 1) fprintf(f, " (median of %u launches)", p->repeat);
  fputc('\n', f);
  fprintf(f, "SIMD efficiency     %.1f%%\n", 100 * st->simd_efficiency);
  fprintf(f, "block execs         %llu\n", (unsigned long long)st->block_execs);
  fprintf(f, "divergent branches  %llu\n", (unsigned long long)st->divergent_branches);
  fprintf(f, "reconvergences      %llu\n", (unsigned long long)st->reconvergences);
  fprintf(f, "lane groups         %llu run, %llu skipped (%.1f%%)\n",
          (unsigned long long)st->groups_run, (unsigned long long)st->groups_skipped,
          groups ? 100.0 * (double)st->groups_skipped / (double)groups : 0.0);
  fprintf(f, "policy calls        %llu\n", (unsigned long long)st->policy_calls);
  fprintf(f, "round trips         %llu\n", (unsigned long long)st->round_trips);
  fprintf(f, "barriers            %llu\n", (unsigned long long)st->barriers);
  fprintf(f, "early reconvergences %llu\n", (unsigned long long)st->early_reconvergences);
  fprintf(f, "splits per warp     max %llu, average %.3f\n",
          (unsigned long long)st->max_splits_per_warp, st->avg_splits_per_warp);
  fprintf(f, "table entries       split table max %llu, reconvergence table max %llu\n",
          (unsigned long long)st->max_st_entries, (unsigned long long)st->max_rt_entries);
}

int launch_write_stats(const launch *l, const weft_stats *st, FILE *f) {
  const run_opts *o = &l->o;
  const run_plan *p = &l->p;
  const run_state *s = &l->s;
  if (o->stats) print_stats(f, p, s, st);
  if (!o->value[O_STATS_JSON]) return 0;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return fail(1, "out of memory");
  weft_options w = weft_context_options(s->ctx);
  stats_write_json(mem, weft_kernel_name(s->kernel), &w, &p->range, p->repeat, st);
  fclose(mem);
  int rc = paths_write(o->value[O_STATS_JSON], text, len);
  free(text);
  return rc;
}

/* ---- one invocation ---- */

/* Reads the command line and the file's defaults into l->o; -1 to go on, else an exit code. */
static int read_options(launch *l, int argc, char **argv) {
  run_opts *o = &l->o, *f = &l->f;
  o->args = calloc((size_t)argc, sizeof *o->args);
  o->outs = calloc((size_t)argc, sizeof *o->outs);
  if (!o->args || !o->outs) return fail(1, "out of memory");
  int rc = parse_words(l->cmd, argc - 1, argv + 1, o, NULL);
  if (rc < 0 && !o->file) rc = fail(2, "%s: no input file\n%s", l->cmd->name, l->cmd->usage);
  if (rc >= 0) return rc;
  /* Read here even with --no-defaults: a directory, or a source without end (/dev/zero), is
   * refused with a clear message before the build meets it. */
  char *text = paths_read_kernel(o->file);
  if (!text) return 1;
  rc = o->no_defaults ? -1 : read_defaults(l, text);
  free(text);
  if (rc >= 0 || !l->defaults) return rc;
  /* o's arrays have room for argc words; the file's lists may be longer. */
  const char **a = realloc(o->args, sizeof *a * (size_t)(argc + f->nargs));
  if (a) o->args = a;
  const char **b = a ? realloc(o->outs, sizeof *b * (size_t)(argc + f->nouts)) : NULL;
  if (b) o->outs = b;
  if (!a || !b) return fail(1, "out of memory");
  merge(o, f);
  return -1;
}

int launch_read(launch *l, const launch_cmd *cmd, int argc, char **argv) {
  l->cmd = cmd;
  int rc = read_options(l, argc, argv);
  if (rc < 0 && (rc = make_plan(l)) == 0) rc = -1;
  return rc;
}

/* A kernel that runs past the end of a buffer (each ends at a guard page: weft_buffer_alloc)
 * stops with SIGSEGV, and LLVM can crash during the build's code generation, which runs in this
 * process (an internal error, memory running out: std::bad_alloc aborts; clang runs in a child,
 * whose crash is a build error); this says which, with the command and the file, and exits 1,
 * instead of dying with no word. The text is set for the phase, before it starts, and
 * the signal handler only writes it out (write and _exit are async-signal-safe). */
static char fault_text[1200];
static size_t fault_len;

static void set_fault_text(int n) {
  fault_len = n < 0 ? 0 : (size_t)n < sizeof fault_text ? (size_t)n : sizeof fault_text - 1;
}

static void on_fault(int sig) {
  (void)sig;
  /* The kernel's printf output first, so that it is not lost before the report. stdio is not
   * async-signal-safe, but the fault is in kernel code, not in stdio: only another worker in
   * the middle of a printf can hold stdout, and then the output is left rather than waited
   * for. */
  if (ftrylockfile(stdout) == 0) fflush_unlocked(stdout), funlockfile(stdout);
  ssize_t written = write(2, fault_text, fault_len);
  (void)written; /* nothing more to do if stderr is gone */
  _exit(1);
}

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

/* The first `n` of crash_signals go to on_fault, the others to their default. On a stack of its
 * own, so that a stack overflow in clang (deep nesting) is reported too. */
static void catch_crashes(size_t n) {
  static char alt[64 << 10];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, NULL);
  for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++) {
    struct sigaction sa = {.sa_handler = i < n ? on_fault : SIG_DFL, .sa_flags = SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    sigaction(crash_signals[i], &sa, NULL);
  }
}

static void catch_build_crashes(const launch *l) {
  set_fault_text(snprintf(fault_text, sizeof fault_text,
                          "weft: %s: the build of %s stopped: LLVM crashed (an internal error, "
                          "or memory ran out: the line above may say which); nothing was "
                          "written\n",
                          l->cmd->name, l->o.file));
  catch_crashes(sizeof crash_signals / sizeof *crash_signals);
}

static void catch_faults(const launch *l) {
  set_fault_text(snprintf(fault_text, sizeof fault_text,
                          "weft: %s: kernel '%s' stopped with a memory fault: it accessed memory "
                          "outside its buffers (is a buffer, or a __local one, smaller than the "
                          "NDRange uses?); nothing was written\n",
                          l->cmd->name, weft_kernel_name(l->s.kernel)));
  catch_crashes(2); /* SIGSEGV and SIGBUS */
}

/* SIGINT and SIGTERM stop the launch running as its timeout would (weft_context_stop, which
 * is async-signal-safe): it returns with the report of where its warps were, the command
 * writes what it can, and exits 128 + the signal, as a shell reports a process it ended. */
static weft_context *interrupted_ctx;
static volatile sig_atomic_t interrupted_by;

static void on_interrupt(int sig) {
  interrupted_by = sig;
  weft_context_stop(interrupted_ctx);
}

static void catch_interrupts(const launch *l) {
  interrupted_ctx = l->s.ctx;
  struct sigaction sa = {.sa_handler = on_interrupt};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int launch_interrupted(void) { return interrupted_by ? 128 + interrupted_by : 0; }

int launch_prepare(launch *l) {
  catch_build_crashes(l);
  int rc = build(l);
  if (!rc) rc = find_kernel(l);
  if (!rc) rc = check_args(l);
  if (!rc) rc = alloc_args(l);
  if (!rc) catch_faults(l), catch_interrupts(l);
  return rc;
}

void launch_free(launch *l) {
  run_state *s = &l->s;
  for (unsigned i = 0; s->bufs && i < s->nargs; i++) weft_buffer_free(s->bufs[i], s->args[i].size);
  free(s->bufs), free(s->args);
  if (s->kernel) weft_kernel_release(s->kernel);
  if (s->program) weft_program_release(s->program);
  if (s->ctx) weft_context_release(s->ctx);
  free(l->p.specs), free(l->p.out_index), free(l->p.out_path);
  free(l->o.args), free(l->o.outs), free(l->f.args), free(l->f.outs);
  free(l->defaults), free(l->words), free(l->word_line);
}
