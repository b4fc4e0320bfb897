/* A pool of threads for the plain C baselines, kept from one call to the next (as weft keeps
 * its workers), so that a workload of hundreds of steps (bitonic sort, BFS) does not pay for
 * creating threads. cpool_for hands out chunks through an atomic counter; the caller works too.
 * Workers sleep on a condition variable between calls. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bench.h"

struct cpool {
  unsigned threads;
  pthread_t tid[256];
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned generation, busy; /* busy: workers still in the current call */
  int quit;
  /* the current call */
  range_fn fn;
  void *ctx;
  size_t n, chunk;
  atomic_size_t next;
};

static void take_chunks(cpool *p) {
  size_t b;
  while ((b = atomic_fetch_add(&p->next, p->chunk)) < p->n)
    p->fn(p->ctx, b, b + p->chunk < p->n ? b + p->chunk : p->n);
}

static void *worker(void *arg) {
  cpool *p = arg;
  unsigned seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->generation == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
    if (p->quit) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    take_chunks(p);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

cpool *cpool_create(unsigned threads) {
  cpool *p = calloc(1, sizeof *p);
  p->threads = threads;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
  for (unsigned i = 1; i < threads; i++) pthread_create(&p->tid[i], NULL, worker, p);
  return p;
}

void cpool_release(cpool *p) {
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 1; i < p->threads; i++) pthread_join(p->tid[i], NULL);
  pthread_cond_destroy(&p->done), pthread_cond_destroy(&p->go), pthread_mutex_destroy(&p->mu);
  free(p);
}

void cpool_for(cpool *p, size_t n, size_t chunk, range_fn fn, void *ctx) {
  pthread_mutex_lock(&p->mu);
  p->fn = fn, p->ctx = ctx, p->n = n, p->chunk = chunk ? chunk : 1;
  atomic_store(&p->next, 0);
  p->busy = p->threads - 1;
  p->generation++;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  take_chunks(p);
  pthread_mutex_lock(&p->mu);
  while (p->busy) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}
