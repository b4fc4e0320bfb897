/* weft_bench's parts: a pool of threads for the plain C baselines (cpool.c), and the workloads
 * (workloads.c), each a kernel, its data, its baseline and the output both must agree on. */
#ifndef WEFT_BENCH_H
#define WEFT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "weft.h"

/* ---- cpool.c: T threads (the caller and T - 1 workers) for the baselines ---- */
typedef struct cpool cpool;
typedef void (*range_fn)(void *ctx, size_t begin, size_t end);

cpool *cpool_create(unsigned threads);
void cpool_release(cpool *p);
/* Calls fn on chunks of `chunk` items of [0, n), handed out to the threads as they ask, as
 * weft's workers take work-groups; returns when all are done. */
void cpool_for(cpool *p, size_t n, size_t chunk, range_fn fn, void *ctx);

/* ---- workloads.c ---- */
enum { MAX_ARGS = 8, MAX_BUFS = 12 };

/* One workload's state. `out` is weft's output and `ref` the baseline's, out_bytes each; they
 * must be equal, 32-bit word by word. */
typedef struct work {
  weft_context *ctx;
  cpool *pool;
  int quick;          /* small sizes, for the test */
  char title[64];     /* the row's name, with the size */
  weft_program *prog;
  weft_kernel *k;
  weft_ndrange range;
  weft_arg args[MAX_ARGS];
  unsigned nargs;
  int counting;       /* launches ask for stats: only the untimed warm-up does (they cost) */
  weft_stats stats;   /* of the warm-up, summed over its launches */
  uint64_t launches;  /* in the last run */
  void *out, *ref;
  size_t out_bytes;
  size_t n;           /* items */
  uint32_t u[4];      /* the workload's own sizes and parameters */
  void *in[6];        /* the workload's own inputs */
  void *buf[MAX_BUFS];
  size_t bytes[MAX_BUFS];
  unsigned nbufs;
} work;

typedef struct workload {
  const char *name;             /* for --only */
  void (*setup)(work *w);       /* builds the kernel, makes the data and sets title */
  void (*run_c)(work *w);       /* the baseline, writing ref */
  void (*run_weft)(work *w);    /* weft, writing out and stats */
  void (*reset)(work *w, void *dst); /* NULL, or puts out or ref back before a run (untimed) */
} workload;

extern const workload workloads[];
extern const unsigned num_workloads;

void work_release(work *w);
/* 32-bit words in which out and ref differ. */
size_t work_mismatches(const work *w);

#endif
