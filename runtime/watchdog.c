/* Every launch ends, and says why it stopped.
 *
 * A launch has one stop flag (weft_group.stop). The watchdog, a thread per launch with a
 * timeout, sets it when the time is up; weft_context_stop sets it from anywhere (a signal
 * handler). The generated code reads it at every loop back edge and wherever it goes on with a
 * split the policy picked, the scheduler wherever it lets a warp go on, so a warp that would
 * loop forever returns WEFT_EVENT_STOPPED instead and its worker takes no more work-groups.
 *
 * The worker whose warp stopped writes a report of it: which lanes were at which block and
 * source line, what the others wait for (the policy's own state), and, when lanes spin in a
 * loop while the lanes they could be waiting for are parked where that loop's lanes
 * reconverge, that this is a SIMT deadlock. The launch puts the workers' reports together. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define MAX_REPORTS 4 /* warps whose report a message shows; the rest are counted */

struct watchdog {
  _Atomic uint32_t *flag;
  pthread_t tid;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* on CLOCK_MONOTONIC: a change of the wall clock moves no deadline */
  struct timespec deadline;
  int ended;
};

static void *watch(void *arg) {
  watchdog *d = arg;
  int r = 0;
  pthread_mutex_lock(&d->lock);
  while (!d->ended && r != ETIMEDOUT) r = pthread_cond_timedwait(&d->cond, &d->lock, &d->deadline);
  uint32_t run = WATCH_RUN; /* a stop asked for already keeps its reason */
  if (!d->ended) atomic_compare_exchange_strong(d->flag, &run, WATCH_TIMEOUT);
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

static int watchdog_init(watchdog *d, double seconds) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr)) return -1;
  int bad = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) || pthread_cond_init(&d->cond, &attr);
  pthread_condattr_destroy(&attr);
  if (bad) return -1;
  pthread_mutex_init(&d->lock, NULL);
  clock_gettime(CLOCK_MONOTONIC, &d->deadline);
  double whole = (double)(time_t)seconds,
         ns = (seconds - whole) * 1e9 + (double)d->deadline.tv_nsec;
  d->deadline.tv_sec += (time_t)whole + (time_t)(ns / 1e9);
  d->deadline.tv_nsec = (long)ns % 1000000000L;
  return 0;
}

watchdog *watchdog_start(_Atomic uint32_t *flag, double seconds) {
  if (!(seconds > 0)) return NULL;
  watchdog *d = calloc(1, sizeof *d);
  if (!d || watchdog_init(d, seconds)) return free(d), NULL;
  d->flag = flag;
  if (pthread_create(&d->tid, NULL, watch, d) == 0) return d;
  pthread_cond_destroy(&d->cond);
  pthread_mutex_destroy(&d->lock);
  free(d);
  return NULL;
}

void watchdog_end(watchdog *d) {
  if (!d) return;
  pthread_mutex_lock(&d->lock);
  d->ended = 1;
  pthread_cond_signal(&d->cond);
  pthread_mutex_unlock(&d->lock);
  pthread_join(d->tid, NULL);
  pthread_cond_destroy(&d->cond);
  pthread_mutex_destroy(&d->lock);
  free(d);
}

weft_status watchdog_status(uint32_t flag) {
  return flag == WATCH_RUN    ? WEFT_SUCCESS
         : flag == WATCH_STOP ? WEFT_ERROR_STOPPED
                              : WEFT_ERROR_TIMEOUT;
}

/* ---- the report of a stopped warp ---- */

/* "k.cl:4" or "k.cl:6-8" (a block's lines), "line 4" without a file, "B3" without lines. */
static void put_lines(FILE *f, const weft_compiled_kernel *k, uint32_t pc) {
  uint32_t a = k->first_line ? k->first_line[pc] : 0, b = k->last_line ? k->last_line[pc] : 0;
  if (!a) return (void)fprintf(f, "B%u", pc);
  fprintf(f, "%s%s%u", k->file ? k->file : "line ", k->file ? ":" : "", a);
  if (b > a) fprintf(f, "-%u", b);
  fprintf(f, " (B%u)", pc);
}

/* What the report needs of the stopped warp. */
typedef struct stuck {
  const weft_compiled_kernel *k;
  uint64_t running, barrier; /* the running split's lanes; lanes waiting at a barrier */
  uint32_t from, to, bpc;    /* the back edge from -> to, or the split's PC (to) */
  int loop;                  /* stopped at a back edge */
  uint32_t pc[WEFT_MAX_WARP]; /* per live lane: where it is (lane_pcs) */
} stuck;

/* Whether lanes that wait at `r` wait where the running lanes' loop (back edge from -> to)
 * reconverges: r lies past the loop and is the IPDOM of one of its blocks. The PC range
 * to..from stands for the loop (the compiled kernel has no CFG): in the layout, a reverse
 * post-order, a loop's blocks follow its header; the range may hold a block beside the loop
 * too, which only widens the test. */
static int loop_reconverges_at(const stuck *s, uint32_t r) {
  if (!s->loop || r <= s->from || r >= s->k->nblocks) return 0;
  for (uint32_t q = s->to; q <= s->from; q++)
    if (s->k->ipdom[q] == r) return 1;
  return 0;
}

static void put_group(FILE *f, const stuck *s, uint32_t pc, uint64_t lanes) {
  char m[WEFT_MASK_CHARS];
  fprintf(f, "  lanes %s ", weft_mask_string(m, lanes, s->k->warp));
  if (pc == s->k->nblocks) return (void)fputs("finished\n", f);
  if (pc == UINT32_MAX) return (void)fputs("are where the policy does not say\n", f);
  if (lanes & s->running) fputs(s->loop ? "were running the loop at " : "were to run ", f);
  else if (lanes & s->barrier) fputs("wait at the barrier ending ", f), pc = s->bpc;
  else fputs("wait at ", f);
  put_lines(f, s->k, pc);
  fputc('\n', f);
}

/* One line per block where lanes are, lowest PC first; the running lanes apart. */
static void put_lanes(FILE *f, const stuck *s, uint64_t live) {
  put_group(f, s, s->to, s->running);
  uint64_t left = live & ~s->running;
  while (left) {
    uint32_t low = UINT32_MAX;
    FOR_LANES(left, i) low = s->pc[i] < low ? s->pc[i] : low;
    uint64_t at = 0;
    FOR_LANES(left, i) at |= (uint64_t)(s->pc[i] == low) << i;
    if (low == UINT32_MAX) at = left;
    put_group(f, s, low, at);
    left &= ~at;
  }
}

/* The SIMT deadlock: the running lanes loop, and lanes of the same warp wait where that loop
 * reconverges, so they cannot run before every lane of the loop leaves it. If the loop waits
 * for them (a lock one of them took, a flag it sets), it never ends. */
static void put_deadlock(FILE *f, const stuck *s, uint64_t live, const char *policy) {
  uint64_t parked = 0;
  uint32_t r = 0;
  FOR_LANES(live & ~s->running & ~s->barrier, i)
  if (loop_reconverges_at(s, s->pc[i])) parked |= 1ull << i, r = s->pc[i];
  if (!parked) return;
  char m[WEFT_MASK_CHARS], n[WEFT_MASK_CHARS];
  fprintf(f, "  SIMT deadlock under policy '%s':\n    lanes %s spin in the loop at ", policy,
          weft_mask_string(m, s->running, s->k->warp));
  put_lines(f, s->k, s->to);
  fprintf(f, "\n    while lanes %s are parked at ", weft_mask_string(n, parked, s->k->warp));
  put_lines(f, s->k, r);
  fputs(",\n    where that loop's lanes reconverge: they cannot run before every lane has left "
        "the\n    loop, so a loop that waits for them (for a lock one of them holds) never "
        "ends.\n    Do what ends the wait inside the loop: take the lock, do the work and "
        "release it\n    in the same iteration.\n",
        f);
}

/* The policy's state, indented under the lanes. */
static void put_state(FILE *f, const weft_policy_ops *ops, const void *st) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (mem) ops->print(mem, st);
  if (!mem || fclose(mem)) return free(text);
  fprintf(f, "  policy state:\n");
  for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    fprintf(f, "    %.*s\n", (int)(nl ? nl - line : (long)strlen(line)), line);
  }
  free(text);
}

static void put_warp(FILE *f, sched_worker *w, const launch_plan *p, unsigned i, int has_policy) {
  const weft_warp_ctx *c = &w->ctx[i];
  const void *st = w->states + i * w->state_stride;
  const uint64_t *id = w->group.group_id;
  uint64_t live = p->live[i + 1 == p->nwarps];
  stuck s = {.k = p->k, .running = c->target_mask[0], .from = c->from_pc, .to = c->target_pc[0]};
  s.loop = c->ntargets == 1;
  for (unsigned l = 0; l < WEFT_MAX_WARP; l++) s.pc[l] = UINT32_MAX;
  if (has_policy) {
    p->policy->lane_pcs(st, s.pc);
    s.barrier = p->policy->barrier_waiting(st, &s.bpc);
  }
  fprintf(f, "warp %u of work-group (%llu,%llu,%llu), policy '%s':\n", i, (unsigned long long)id[0],
          (unsigned long long)id[1], (unsigned long long)id[2], p->policy->name);
  put_lanes(f, &s, live);
  put_deadlock(f, &s, live, p->policy->name);
  if (p->nwarps > 1) /* a worker runs a warp until it returns: the others cannot go on */
    fputs("  the work-group's other warps wait until this one stops\n", f);
  if (has_policy) put_state(f, p->policy, st);
}

weft_status watchdog_report(sched_worker *w, const launch_plan *p, unsigned i, int has_policy) {
  uint32_t flag = atomic_load_explicit(p->stop, memory_order_relaxed);
  weft_status s = flag == WATCH_RUN ? WEFT_ERROR_TIMEOUT : watchdog_status(flag);
  const weft_warp_ctx *c = &w->ctx[i];
  free(w->report);
  w->report = NULL;
  size_t len = 0;
  FILE *f = c->target_pc[0] < p->k->nblocks ? open_memstream(&w->report, &len) : NULL;
  if (f) put_warp(f, w, p, i, has_policy);
  if (f && fclose(f)) free(w->report), w->report = NULL;
  return rt_error(w->err, sizeof w->err, s, "kernel '%s' stopped", p->k->name);
}

/* ---- the launch's message ---- */

void watchdog_message(char *err, size_t errlen, const launch_plan *p, const sched_worker *workers,
                      unsigned n, weft_status s, double timeout_s, double ms) {
  char *text = NULL;
  size_t len = 0, shown = 0, more = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return (void)rt_error(err, errlen, s, "kernel '%s' stopped (out of memory)", p->k->name);
  fprintf(f, "kernel '%s' stopped after %.2f s: ", p->k->name, ms / 1e3);
  if (s == WEFT_ERROR_TIMEOUT) fprintf(f, "it ran longer than its timeout of %g s\n", timeout_s);
  else fputs("it was asked to stop (weft_context_stop: SIGINT or SIGTERM in `weft`)\n", f);
  for (unsigned i = 0; i < n; i++)
    if (workers[i].report && shown++ < MAX_REPORTS) fputs(workers[i].report, f);
    else more += workers[i].report != NULL;
  if (more) fprintf(f, "(and %zu more warps that were running)\n", more);
  if (!shown) fputs("no warp was running when it stopped\n", f);
  if (fclose(f)) free(text), text = NULL;
  rt_error(err, errlen, s, "%s", text ? text : "launch stopped");
  free(text);
}
