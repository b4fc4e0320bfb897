/* The compile units' kept threads (compiler/jit_thread.c): jobs run on the thread, one at a
 * time and in order; a job handed over waits for the one before; stop waits for the running
 * job, and the thread can start again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "compiler.h"

typedef struct log {
  pthread_t ran_on[8];
  int order[8], n; /* written by the jobs, one at a time */
} log;

typedef struct job {
  log *l;
  int id, sleep_ms;
} job;

static void record(void *arg) {
  job *j = arg;
  if (j->sleep_ms) nanosleep(&(struct timespec){0, j->sleep_ms * 1000000L}, NULL);
  j->l->ran_on[j->l->n] = pthread_self();
  j->l->order[j->l->n++] = j->id;
}

static void jobs_run_on_the_thread_in_order(void **state) {
  (void)state;
  jit_thread t = {0};
  log l = {0};
  job a = {&l, 1, 30}, b = {&l, 2, 0}, c = {&l, 3, 0};
  assert_true(jit_thread_start(&t));
  assert_true(jit_thread_start(&t)); /* already running: the same thread */
  jit_thread_run(&t, record, &a);
  jit_thread_run(&t, record, &b); /* waits for a, which sleeps first */
  jit_thread_run(&t, record, &c);
  jit_thread_wait(&t);
  assert_int_equal(l.n, 3);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(l.order[i], i + 1);
    assert_false(pthread_equal(l.ran_on[i], pthread_self()));
    assert_true(pthread_equal(l.ran_on[i], l.ran_on[0]));
  }
  jit_thread_stop(&t);
}

static void stop_waits_for_the_job_and_start_again_works(void **state) {
  (void)state;
  jit_thread t = {0};
  log l = {0};
  job a = {&l, 1, 30}, b = {&l, 2, 0};
  assert_true(jit_thread_start(&t));
  jit_thread_run(&t, record, &a);
  jit_thread_stop(&t); /* a still sleeps: stop lets it finish */
  assert_int_equal(l.n, 1);
  assert_int_equal(t.started, 0);
  jit_thread_wait(&t); /* not running: returns at once */
  assert_true(jit_thread_start(&t));
  jit_thread_run(&t, record, &b);
  jit_thread_wait(&t);
  assert_int_equal(l.n, 2);
  assert_int_equal(l.order[1], 2);
  jit_thread_stop(&t);
  jit_thread_stop(&t); /* twice: nothing left to stop */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(jobs_run_on_the_thread_in_order),
      cmocka_unit_test(stop_waits_for_the_job_and_start_again_works),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
