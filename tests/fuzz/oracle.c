/* The oracle: the kernel printed as C (print.c's prelude gives OpenCL's words), compiled by the
 * system C compiler and run one work-item at a time, in a single thread. Each work-item has a
 * stack of its own (ucontext); barrier() switches back to the scheduler below, which runs the
 * next work-item, so the work-items of a group go round by round from one barrier to the next.
 * Nothing of weft's is involved: no warps, no masks, no policy; C's semantics for the same
 * text. Deterministic: the work-items run in order of their local id. */
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "fuzz.h"
#include "scratch_dir.h"

extern char **environ;

struct fz_oracle {
  void *so;
  struct fz_env **env;
  void (*fn)(const uint32_t *, uint32_t *, uint32_t *, uint32_t *, uint32_t *, uint32_t *,
             uint32_t *);
};

static char dir[64];
static unsigned builds;

bool fz_oracle_init(void) { return scratch_dir_make(dir, sizeof dir, "weft_fuzz"); }

void fz_oracle_cleanup(void) { scratch_dir_remove(dir); }

/* cc -shared: its messages go to a file, the first line of which goes into why. */
static bool compile(const char *c, const char *so, char *why, size_t n) {
  char err[128];
  snprintf(err, sizeof err, "%s/cc.err", dir);
  const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
  char *argv[] = {(char *)cc, "-std=gnu11", "-O0",      "-w",      "-shared",
                  "-fPIC",    "-o",         (char *)so, (char *)c, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  int status = -1;
  int e = posix_spawnp(&pid, cc, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
    FILE *f = fopen(err, "r");
    snprintf(why, n, "%s failed: ", cc);
    if (f) {
      size_t len = strlen(why);
      if (!fgets(why + len, (int)(n - len), f)) why[len] = 0;
      fclose(f);
    }
    return false;
  }
  return true;
}

fz_oracle *fz_oracle_build(const fz_kernel *k, char *why, size_t n) {
  char c[128], so[128];
  unsigned id = builds++;
  snprintf(c, sizeof c, "%s/k%u.c", dir, id);
  snprintf(so, sizeof so, "%s/k%u.so", dir, id);
  FILE *f = fopen(c, "w");
  if (!f) return snprintf(why, n, "cannot write %s", c), NULL;
  fz_print(f, k, FZ_C);
  fclose(f);
  fz_oracle *o = calloc(1, sizeof *o);
  if (o && compile(c, so, why, n)) {
    o->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!o->so) snprintf(why, n, "dlopen: %s", dlerror());
  }
  unlink(c);
  unlink(so); /* a unique name each time: dlopen never hands back an older kernel */
  if (o && o->so) {
    o->env = dlsym(o->so, "fz_env");
    *(void **)&o->fn = dlsym(o->so, "fz");
    if (o->env && o->fn) return o;
    snprintf(why, n, "the oracle's shared object lacks fz or fz_env");
  }
  fz_oracle_release(o);
  return NULL;
}

void fz_oracle_release(fz_oracle *o) {
  if (o && o->so) dlclose(o->so);
  free(o);
}

/* ---- running the work-items of a group ---- */

#define STACK_BYTES (128 * 1024)

typedef struct group_run {
  fz_oracle *o;
  const fz_kernel *k;
  fz_result *r;
  uint32_t *la, *lb, *lc;
  ucontext_t scheduler, *items;
  char *stacks;
  bool *done;
  unsigned cur;
} group_run;

static group_run *running; /* the oracle runs one group at a time, on one thread */

static void item_main(void) {
  group_run *g = running;
  g->o->fn(g->k->in, g->r->out, g->r->gc, g->r->lout, g->la, g->lb, g->lc);
  g->done[g->cur] = true; /* then back to the scheduler (uc_link) */
}

static void item_barrier(void) { swapcontext(&running->items[running->cur], &running->scheduler); }

/* Work-item i's context, at the start of the kernel. On its own, since getcontext returns
 * twice: a loop counter live across it may be clobbered (gcc -Wclobbered, optimising). */
static void start_item(group_run *g, unsigned i) {
  getcontext(&g->items[i]);
  g->items[i].uc_stack.ss_sp = g->stacks + (size_t)i * STACK_BYTES;
  g->items[i].uc_stack.ss_size = STACK_BYTES;
  g->items[i].uc_link = &g->scheduler;
  makecontext(&g->items[i], item_main, 0);
  g->done[i] = false;
}

/* Runs every work-item of group grp up to its next barrier, until all have ended; false when
 * some ended while others wait at a barrier. */
static bool run_group(group_run *g, struct fz_env *env, unsigned grp) {
  unsigned ls = g->k->local_size;
  memset(g->la, 0xa5, ls * sizeof *g->la); /* the kernel sets them before it reads them */
  memset(g->lb, 0xa5, ls * sizeof *g->lb);
  memset(g->lc, 0xa5, FZ_NLC * sizeof *g->lc);
  for (unsigned i = 0; i < ls; i++) start_item(g, i);
  for (unsigned ended = 0; ended < ls;) {
    for (unsigned i = 0; i < ls; i++) {
      if (g->done[i]) continue;
      g->cur = env->lid = i;
      env->gid = grp * ls + i;
      env->grp = grp;
      swapcontext(&g->scheduler, &g->items[i]);
      ended += g->done[i];
    }
    if (ended && ended < ls) return false;
  }
  return true;
}

bool fz_oracle_run(fz_oracle *o, const fz_kernel *k, unsigned warp, fz_result *r, char *why,
                   size_t n) {
  unsigned ls = k->local_size;
  group_run g = {.o = o, .k = k, .r = r};
  struct fz_env env = {.local_size = ls, .warp = warp, .barrier = item_barrier};
  g.la = calloc(ls, sizeof *g.la), g.lb = calloc(ls, sizeof *g.lb);
  g.lc = calloc(FZ_NLC, sizeof *g.lc);
  env.slots = calloc(ls, sizeof *env.slots);
  g.items = calloc(ls, sizeof *g.items), g.done = calloc(ls, sizeof *g.done);
  g.stacks = malloc((size_t)ls * STACK_BYTES);
  if (!g.la || !g.lb || !g.lc || !env.slots || !g.items || !g.done || !g.stacks) abort();
  *o->env = &env;
  running = &g;
  bool ok = true;
  for (unsigned grp = 0; grp < k->groups && ok; grp++) ok = run_group(&g, &env, grp);
  if (!ok) snprintf(why, n, "oracle: work-items ended while others wait at a barrier");
  running = NULL;
  *o->env = NULL;
  free(g.la), free(g.lb), free(g.lc), free(env.slots), free(g.items), free(g.done);
  free(g.stacks);
  return ok;
}

/* ---- results ---- */

void fz_result_alloc(fz_result *r, const fz_kernel *k) {
  r->nout = k->groups * k->local_size * FZ_NOUT;
  r->nlout = k->groups * FZ_NLC;
  r->out = calloc(r->nout, sizeof *r->out);
  r->gc = calloc(FZ_NGC, sizeof *r->gc);
  r->lout = calloc(r->nlout, sizeof *r->lout);
  if (!r->out || !r->gc || !r->lout) abort();
}

void fz_result_free(fz_result *r) {
  free(r->out), free(r->gc), free(r->lout);
  *r = (fz_result){0};
}

const char *fz_result_diff(const fz_result *want, const fz_result *got) {
  static char text[160];
  for (unsigned i = 0; i < want->nout; i++)
    if (want->out[i] != got->out[i])
      return snprintf(text, sizeof text, "out[%u] (work-item %u, word %u): want %#x, got %#x", i,
                      i / FZ_NOUT, i % FZ_NOUT, want->out[i], got->out[i]),
             text;
  for (unsigned i = 0; i < FZ_NGC; i++)
    if (want->gc[i] != got->gc[i])
      return snprintf(text, sizeof text, "gc[%u] (global counter): want %#x, got %#x", i,
                      want->gc[i], got->gc[i]),
             text;
  for (unsigned i = 0; i < want->nlout; i++)
    if (want->lout[i] != got->lout[i])
      return snprintf(text, sizeof text,
                      "lout[%u] (__local counter %u of group %u): want %#x, got %#x", i, i % FZ_NLC,
                      i / FZ_NLC, want->lout[i], got->lout[i]),
             text;
  return NULL;
}
