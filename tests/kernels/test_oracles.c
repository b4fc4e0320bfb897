/* Checks the kernel suite's oracles without weft: each kernel's own source, compiled as C
 * (kernels_as_c.c), runs over the case's NDRange with one pthread per work-item of a
 * work-group (so barrier() is a pthread barrier and __local buffers are shared), and its
 * buffers must equal what the oracle computed from the same inputs. A mismatch means the
 * oracle or the kernel source is wrong, before weft is ever involved. Cases whose source is
 * not C (not_c) are skipped here. */
#include <ffi.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cases.h"
#include "kernels_as_c.h"

/* ---- the work-item functions of cl_as_c.h ---- */

typedef struct witem {
  size_t gid[3], lid[3], grp[3];
} witem;

static _Thread_local witem me;
static const kcase *running;
static pthread_barrier_t group_barrier;

size_t get_global_id(unsigned d) { return d < 3 ? me.gid[d] : 0; }
size_t get_local_id(unsigned d) { return d < 3 ? me.lid[d] : 0; }
size_t get_group_id(unsigned d) { return d < 3 ? me.grp[d] : 0; }
size_t get_global_size(unsigned d) { return d < running->dims ? running->global[d] : 1; }
size_t get_local_size(unsigned d) { return d < running->dims ? running->local[d] : 1; }
size_t get_num_groups(unsigned d) { return get_global_size(d) / get_local_size(d); }
unsigned get_work_dim(void) { return running->dims; }
void barrier(int flags) {
  (void)flags;
  pthread_barrier_wait(&group_barrier);
}

/* ---- running a kernel as C ---- */

static ffi_type *ffi_of(weft_type t) {
  ffi_type *types[] = {&ffi_type_sint8,  &ffi_type_uint8,  &ffi_type_sint16, &ffi_type_uint16,
                       &ffi_type_sint32, &ffi_type_uint32, &ffi_type_sint64, &ffi_type_uint64,
                       &ffi_type_float,  &ffi_type_double};
  return types[t];
}

typedef struct job {
  witem w;
  ffi_cif *cif;
  void (*fn)(void);
  void **values;
} job;

static void *run_item(void *arg) {
  job *j = arg;
  me = j->w;
  ffi_call(j->cif, j->fn, NULL, j->values);
  return NULL;
}

/* Runs work-group `grp` with one thread per work-item; `values` are the ffi argument values. */
static void run_group(const kcase *c, const size_t grp[3], ffi_cif *cif, void (*fn)(void),
                      void **values) {
  size_t l0 = c->local[0], l1 = c->local[1], l2 = c->local[2], n = l0 * l1 * l2;
  job *jobs = calloc(n, sizeof *jobs);
  pthread_t *threads = calloc(n, sizeof *threads);
  pthread_attr_t attr;
  assert_non_null(jobs);
  assert_non_null(threads);
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  pthread_barrier_init(&group_barrier, NULL, (unsigned)n);
  for (size_t t = 0; t < n; t++) {
    size_t lid[3] = {t % l0, t / l0 % l1, t / (l0 * l1)};
    for (int d = 0; d < 3; d++) {
      jobs[t].w.lid[d] = lid[d];
      jobs[t].w.grp[d] = grp[d];
      jobs[t].w.gid[d] = grp[d] * c->local[d] + lid[d];
    }
    jobs[t].cif = cif, jobs[t].fn = fn, jobs[t].values = values;
    assert_int_equal(pthread_create(&threads[t], &attr, run_item, &jobs[t]), 0);
  }
  for (size_t t = 0; t < n; t++) pthread_join(threads[t], NULL);
  pthread_barrier_destroy(&group_barrier);
  pthread_attr_destroy(&attr);
  free(jobs);
  free(threads);
}

/* __local buffers start as garbage, as on a device: a kernel must not rely on zeroes. */
static void fresh_locals(const kcase *c, void **locals) {
  for (unsigned k = 0; k < c->nparams; k++)
    if (c->params[k].kind == KP_LOCAL)
      memset(locals[k], 0xa5, c->params[k].count * ktype_size(c->params[k].type));
}

static void run_as_c(const kcase *c, void (*fn)(void), kbufs *b) {
  ffi_cif cif;
  ffi_type *types[KMAX_PARAMS];
  void *values[KMAX_PARAMS], *ptrs[KMAX_PARAMS] = {0};
  for (unsigned k = 0; k < c->nparams; k++) {
    const kparam *p = &c->params[k];
    types[k] = p->kind == KP_VALUE ? ffi_of(p->type) : &ffi_type_pointer;
    if (p->kind == KP_LOCAL) assert_non_null(ptrs[k] = malloc(p->count * ktype_size(p->type)));
    else if (p->kind != KP_VALUE) ptrs[k] = b->p[k];
    values[k] = p->kind == KP_VALUE ? b->p[k] : &ptrs[k];
  }
  assert_int_equal(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, c->nparams, &ffi_type_void, types), FFI_OK);
  running = c;
  size_t ng[3] = {1, 1, 1}, grp[3];
  for (unsigned d = 0; d < c->dims; d++) ng[d] = c->global[d] / c->local[d];
  for (grp[2] = 0; grp[2] < ng[2]; grp[2]++)
    for (grp[1] = 0; grp[1] < ng[1]; grp[1]++)
      for (grp[0] = 0; grp[0] < ng[0]; grp[0]++) {
        fresh_locals(c, ptrs);
        run_group(c, grp, &cif, fn, values);
      }
  for (unsigned k = 0; k < c->nparams; k++)
    if (c->params[k].kind == KP_LOCAL) free(ptrs[k]);
}

static void (*c_kernel_fn(const char *name))(void) {
  for (unsigned i = 0; i < n_c_kernels; i++)
    if (!strcmp(c_kernels[i].name, name)) return c_kernels[i].fn;
  return NULL;
}

static void test_case(void **state) {
  const kcase *c = *state;
  if (c->not_c) skip();
  void (*fn)(void) = c_kernel_fn(c->name);
  if (!fn) fail_msg("%s is not in kernels_as_c.c", c->name);
  kbufs in, got, want;
  assert_true(kbufs_make(c, &in));
  assert_true(kbufs_copy(c, &in, &got));
  assert_true(kbufs_copy(c, &in, &want));
  kcase_expect(c, &want, 0);
  run_as_c(c, fn, &got);
  char msg[1024];
  bool ok = kcase_compare(c, &got, &want, msg, sizeof msg);
  kbufs_free(c, &in), kbufs_free(c, &got), kbufs_free(c, &want);
  if (!ok) fail_msg("%s: the kernel as C and its oracle differ: %s", c->name, msg);
}

/* Every .cl of the suite has a case, and no two cases share a name. */
static void test_table(void **state) {
  (void)state;
  assert_true(nkcases >= 30);
  for (unsigned i = 0; i < nkcases; i++) {
    for (unsigned j = 0; j < i; j++) assert_string_not_equal(kcases[i].name, kcases[j].name);
    for (unsigned d = 0; d < kcases[i].dims; d++)
      assert_int_equal(kcases[i].global[d] % kcases[i].local[d], 0);
    if (!kcases[i].not_c && !c_kernel_fn(kcases[i].name))
      fail_msg("%s: not_c is false but it is not in kernels_as_c.c", kcases[i].name);
  }
}

int main(void) {
  struct CMUnitTest *tests = calloc(nkcases + 1, sizeof *tests);
  if (!tests) return 1;
  tests[0] = (struct CMUnitTest)cmocka_unit_test(test_table);
  for (unsigned i = 0; i < nkcases; i++)
    tests[i + 1] = (struct CMUnitTest){kcases[i].name, test_case, NULL, NULL, (void *)&kcases[i]};
  int rc = _cmocka_run_group_tests("oracles", tests, nkcases + 1, NULL, NULL);
  free(tests);
  return rc;
}
