/* Unit tests of the worker pool: every item runs exactly once, on a valid worker, over many jobs
 * with the same threads; the first error stops a job early and is the one reported; pools are
 * created and released without hanging. Run under ThreadSanitizer with -DWEFT_TSAN=ON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "runtime.h"

typedef struct job {
  unsigned nworkers;
  uint64_t fail_at;    /* the item that fails, UINT64_MAX: none */
  atomic_uint *runs;   /* per item */
  atomic_uint bad_worker;
  atomic_ulong total;
} job;

static weft_status task(void *arg, unsigned worker, uint64_t item) {
  job *j = arg;
  if (worker >= j->nworkers) atomic_fetch_add(&j->bad_worker, 1);
  atomic_fetch_add(&j->runs[item], 1);
  atomic_fetch_add(&j->total, 1);
  return item == j->fail_at ? WEFT_ERROR_BARRIER_DEADLOCK : WEFT_SUCCESS;
}

static void every_item_once(void **state) {
  (void)state;
  static const uint64_t sizes[] = {0, 1, 3, 1000, 20000};
  for (unsigned threads = 1; threads <= 4; threads++) {
    weft_pool *p = NULL;
    assert_int_equal(pool_create(threads, &p), WEFT_SUCCESS);
    assert_int_equal(pool_size(p), threads);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      uint64_t n = sizes[s];
      job j = {threads, UINT64_MAX, calloc(n + 1, sizeof(atomic_uint)), 0, 0};
      assert_int_equal(pool_run(p, n, task, &j, NULL), WEFT_SUCCESS);
      for (uint64_t i = 0; i < n; i++) assert_int_equal(atomic_load(&j.runs[i]), 1);
      assert_int_equal(atomic_load(&j.total), n);
      assert_int_equal(atomic_load(&j.bad_worker), 0);
      free(j.runs);
    }
    pool_release(p);
  }
}

static void first_error_stops(void **state) {
  (void)state;
  const uint64_t n = 1000000;
  for (unsigned threads = 1; threads <= 4; threads++) {
    weft_pool *p = NULL;
    assert_int_equal(pool_create(threads, &p), WEFT_SUCCESS);
    for (int rep = 0; rep < 5; rep++) {
      job j = {threads, 10, calloc(n, sizeof(atomic_uint)), 0, 0};
      unsigned failed = 99;
      assert_int_equal(pool_run(p, n, task, &j, &failed), WEFT_ERROR_BARRIER_DEADLOCK);
      assert_true(failed < threads);
      assert_int_equal(atomic_load(&j.runs[10]), 1);
      assert_true(atomic_load(&j.total) < n); /* the others stopped taking items */
      free(j.runs);
      /* the pool takes the next job as usual */
      job ok = {threads, UINT64_MAX, calloc(100, sizeof(atomic_uint)), 0, 0};
      assert_int_equal(pool_run(p, 100, task, &ok, NULL), WEFT_SUCCESS);
      assert_int_equal(atomic_load(&ok.total), 100);
      free(ok.runs);
    }
    pool_release(p);
  }
}

static void create_release(void **state) {
  (void)state;
  for (int i = 0; i < 50; i++) {
    weft_pool *p = NULL;
    assert_int_equal(pool_create(1 + i % 4, &p), WEFT_SUCCESS);
    pool_release(p);
  }
  weft_pool *p = (weft_pool *)1;
  assert_int_equal(pool_create(0, &p), WEFT_ERROR_INVALID_VALUE);
  assert_null(p);
  pool_release(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_item_once),
      cmocka_unit_test(first_error_stops),
      cmocka_unit_test(create_release),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
