/* The threads of compile units 1..n-1: started once and kept as long as their JIT, each running
 * one job at a time. A thread made for each build would start with a cold heap arena and stack:
 * on this project's VMs the first touch of a page costs about 13 µs, and a unit of
 * bench/k50.cl touches some 800 new pages (10 ms of a 50 ms back end). A thread kept has them,
 * once glibc keeps its freed heap (jit.c's warm-up sees to that). */
#include <pthread.h>

#include "compiler.h"

static void *thread_main(void *arg) {
  jit_thread *t = arg;
  pthread_mutex_lock(&t->lock);
  for (;;) {
    while (!t->job && !t->quit) pthread_cond_wait(&t->cond, &t->lock);
    if (!t->job) break; /* quit, with nothing left to run */
    jit_job *job = t->job;
    void *job_arg = t->arg;
    pthread_mutex_unlock(&t->lock);
    job(job_arg);
    pthread_mutex_lock(&t->lock);
    t->job = NULL;
    pthread_cond_broadcast(&t->cond);
  }
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

int jit_thread_start(jit_thread *t) {
  if (t->started) return 1;
  *t = (jit_thread){0};
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->cond, NULL);
  t->started = pthread_create(&t->tid, NULL, thread_main, t) == 0;
  if (!t->started) pthread_cond_destroy(&t->cond), pthread_mutex_destroy(&t->lock);
  return t->started;
}

/* Waits for the job before (a warm-up may still run), then hands this one over. */
void jit_thread_run(jit_thread *t, jit_job *job, void *arg) {
  pthread_mutex_lock(&t->lock);
  while (t->job) pthread_cond_wait(&t->cond, &t->lock);
  t->job = job, t->arg = arg;
  pthread_cond_broadcast(&t->cond);
  pthread_mutex_unlock(&t->lock);
}

void jit_thread_wait(jit_thread *t) {
  if (!t->started) return;
  pthread_mutex_lock(&t->lock);
  while (t->job) pthread_cond_wait(&t->cond, &t->lock);
  pthread_mutex_unlock(&t->lock);
}

void jit_thread_stop(jit_thread *t) {
  if (!t->started) return;
  pthread_mutex_lock(&t->lock);
  t->quit = 1;
  pthread_cond_broadcast(&t->cond);
  pthread_mutex_unlock(&t->lock);
  pthread_join(t->tid, NULL);
  pthread_cond_destroy(&t->cond);
  pthread_mutex_destroy(&t->lock);
  t->started = 0;
}
