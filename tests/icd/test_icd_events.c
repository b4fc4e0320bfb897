/* Events through the ICD: profiling times against the test's own CLOCK_MONOTONIC, user events
 * holding commands back (checked in the host memory of a CL_MEM_USE_HOST_PTR buffer, which the
 * kernel writes in place), a failed user event failing what waits for it, callbacks in the
 * order of the statuses, markers, clFinish woken from another thread, and eight host threads
 * sharing one context (each launch checked against plain C). */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "icd_test.h"

static const char source[] = "__kernel void scale(__global int *x, int by) {\n"
                             "  size_t i = get_global_id(0);\n"
                             "  x[i] = x[i] * by + (int)i;\n"
                             "}\n";

static cl_env env;
static cl_program prog;

static int setup(void **state) {
  (void)state;
  env_open(&env, CL_QUEUE_PROFILING_ENABLE);
  prog = build(&env, source, NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  CL_OK(clReleaseProgram(prog));
  env_close(&env);
  return 0;
}

static cl_ulong now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (cl_ulong)t.tv_sec * 1000000000u + (cl_ulong)t.tv_nsec;
}

static cl_kernel scale_kernel(cl_mem m, int by) {
  cl_kernel k = kernel(prog, "scale");
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_OK(clSetKernelArg(k, 1, sizeof by, &by));
  return k;
}

static cl_int status_of(cl_event e) {
  cl_int s;
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

static void profiling_times(void **state) {
  (void)state;
  enum { N = 1 << 16 };
  cl_mem m = buffer(&env, 0, N * sizeof(int), NULL);
  cl_kernel k = scale_kernel(m, 3);
  cl_event e;
  size_t global = N;
  cl_ulong before = now_ns();
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 0, NULL, &e));
  CL_OK(clWaitForEvents(1, &e));
  cl_ulong after = now_ns(), t[4];
  for (int i = 0; i < 4; i++)
    CL_OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED + i, sizeof t[i], &t[i], NULL));
  assert_true(before <= t[0] && t[0] <= t[1] && t[1] <= t[2] && t[2] < t[3] && t[3] <= after);
  cl_command_type type;
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_COMMAND_NDRANGE_KERNEL);
  CL_OK(clReleaseEvent(e));

  /* a queue without profiling has no times */
  cl_int err;
  cl_command_queue plain = clCreateCommandQueue(env.ctx, env.device, 0, &err);
  CL_OK(err);
  CL_OK(clEnqueueNDRangeKernel(plain, k, 1, NULL, &global, NULL, 0, NULL, &e));
  CL_OK(clFinish(plain));
  assert_int_equal(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t[0], t, NULL),
                   CL_PROFILING_INFO_NOT_AVAILABLE);
  CL_OK(clReleaseEvent(e));
  CL_OK(clReleaseCommandQueue(plain));
  CL_OK(clReleaseKernel(k));
  CL_OK(clReleaseMemObject(m));
}

/* ---- user events ---- */

typedef struct trail {
  pthread_mutex_t lock;
  int n;
  struct {
    cl_event e;
    cl_int status;
  } at[16];
} trail;

static void CL_CALLBACK record(cl_event e, cl_int status, void *user) {
  trail *t = user;
  pthread_mutex_lock(&t->lock);
  if (t->n < 16) t->at[t->n].e = e, t->at[t->n].status = status, t->n++;
  pthread_mutex_unlock(&t->lock);
}

static void user_event_holds_commands_back(void **state) {
  (void)state;
  enum { N = 256 };
  int host[N], want[N];
  for (int i = 0; i < N; i++) host[i] = i, want[i] = (i * 2 + i) * 5 + i;
  cl_int err;
  cl_mem m = buffer(&env, CL_MEM_USE_HOST_PTR, sizeof host, host);
  cl_kernel k2 = scale_kernel(m, 2), k5 = scale_kernel(m, 5);
  cl_event user = clCreateUserEvent(env.ctx, &err), first, second, marker;
  CL_OK(err);
  size_t global = N;
  CL_OK(clEnqueueNDRangeKernel(env.q, k2, 1, NULL, &global, NULL, 1, &user, &first));
  CL_OK(clEnqueueNDRangeKernel(env.q, k5, 1, NULL, &global, NULL, 0, NULL, &second));
  CL_OK(clEnqueueMarkerWithWaitList(env.q, 0, NULL, &marker));
  trail t = {PTHREAD_MUTEX_INITIALIZER, 0, {{0}}};
  CL_OK(clSetEventCallback(second, CL_COMPLETE, record, &t));
  CL_OK(clSetEventCallback(first, CL_COMPLETE, record, &t));
  CL_OK(clSetEventCallback(first, CL_SUBMITTED, record, &t));
  CL_OK(clFlush(env.q));
  usleep(20000);
  /* nothing ran: the first command waits for the user event, the second for the first */
  for (int i = 0; i < N; i++) assert_int_equal(host[i], i);
  assert_int_equal(status_of(first), CL_QUEUED);
  assert_int_equal(status_of(second), CL_QUEUED);
  assert_int_equal(status_of(marker), CL_QUEUED);
  assert_int_equal(t.n, 0);
  CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
  CL_OK(clWaitForEvents(1, &marker));
  for (int i = 0; i < N; i++) assert_int_equal(host[i], want[i]);
  /* callbacks in the order the statuses changed */
  assert_int_equal(t.n, 3);
  assert_ptr_equal(t.at[0].e, first), assert_int_equal(t.at[0].status, CL_SUBMITTED);
  assert_ptr_equal(t.at[1].e, first), assert_int_equal(t.at[1].status, CL_COMPLETE);
  assert_ptr_equal(t.at[2].e, second), assert_int_equal(t.at[2].status, CL_COMPLETE);
  /* the second ran after the first ended */
  cl_ulong end1, start2;
  CL_OK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_END, sizeof end1, &end1, NULL));
  CL_OK(clGetEventProfilingInfo(second, CL_PROFILING_COMMAND_START, sizeof start2, &start2, NULL));
  assert_true(end1 <= start2);
  /* a callback on an event that is complete already is called at once */
  CL_OK(clSetEventCallback(second, CL_RUNNING, record, &t));
  assert_int_equal(t.n, 4);
  assert_int_equal(t.at[3].status, CL_RUNNING);
  cl_event all[] = {user, first, second, marker};
  for (int i = 0; i < 4; i++) CL_OK(clReleaseEvent(all[i]));
  clReleaseKernel(k2), clReleaseKernel(k5), clReleaseMemObject(m);
}

static void failed_user_event_fails_the_waiters(void **state) {
  (void)state;
  int host[64] = {0};
  cl_int err;
  cl_mem m = buffer(&env, CL_MEM_USE_HOST_PTR, sizeof host, host);
  cl_kernel k = scale_kernel(m, 2);
  cl_event user = clCreateUserEvent(env.ctx, &err), e;
  size_t global = 64;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 1, &user, &e));
  CL_OK(clSetUserEventStatus(user, -42));
  assert_int_equal(clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  assert_true(status_of(e) < 0);
  assert_int_equal(status_of(user), -42);
  for (int i = 0; i < 64; i++) assert_int_equal(host[i], 0); /* the kernel never ran */
  /* a blocking read that waits for the failed event says so */
  int back[64];
  assert_int_equal(clEnqueueReadBuffer(env.q, m, CL_TRUE, 0, sizeof back, back, 1, &user, NULL),
                   CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CL_OK(clFinish(env.q));
  clReleaseEvent(user), clReleaseEvent(e), clReleaseKernel(k), clReleaseMemObject(m);
}

static void *complete_later(void *user) {
  usleep(30000);
  clSetUserEventStatus(user, CL_COMPLETE);
  return NULL;
}

/* clFinish waits until another thread completes the user event its queue waits for. */
static void finish_waits_for_another_thread(void **state) {
  (void)state;
  cl_int err;
  int x[32] = {0};
  cl_mem m = buffer(&env, CL_MEM_USE_HOST_PTR, sizeof x, x);
  cl_kernel k = scale_kernel(m, 1);
  cl_event user = clCreateUserEvent(env.ctx, &err);
  size_t global = 32;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 1, &user, NULL));
  pthread_t t;
  cl_ulong start = now_ns();
  pthread_create(&t, NULL, complete_later, user);
  CL_OK(clFinish(env.q));
  assert_true(now_ns() - start >= 25000000u);
  for (int i = 0; i < 32; i++) assert_int_equal(x[i], i);
  pthread_join(t, NULL);
  clReleaseEvent(user), clReleaseKernel(k), clReleaseMemObject(m);
}

/* ---- eight host threads, one context ---- */

typedef struct worker {
  int id;
  int ok;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  enum { N = 1000, ROUNDS = 10 };
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(env.ctx, env.device, 0, &err);
  /* each thread builds its own program too: builds, launches and copies all interleave */
  char src[256];
  snprintf(src, sizeof src,
           "__kernel void add%d(__global int *x, int v) { x[get_global_id(0)] += v + %d; }\n",
           w->id, w->id);
  const char *s = src;
  cl_program p = clCreateProgramWithSource(env.ctx, 1, &s, NULL, &err);
  w->ok = err == CL_SUCCESS && clBuildProgram(p, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS;
  char name[16];
  snprintf(name, sizeof name, "add%d", w->id);
  cl_kernel k = clCreateKernel(p, name, &err);
  int x[N];
  for (int i = 0; i < N; i++) x[i] = i * w->id;
  cl_mem m = clCreateBuffer(env.ctx, CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
  clSetKernelArg(k, 0, sizeof m, &m);
  for (int r = 0; r < ROUNDS; r++) {
    int v = r;
    clSetKernelArg(k, 1, sizeof v, &v);
    size_t global = N;
    w->ok &= clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) == CL_SUCCESS;
  }
  w->ok &= clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL) == CL_SUCCESS;
  for (int i = 0; i < N; i++) /* Σ r + id over the rounds */
    w->ok &= x[i] == i * w->id + ROUNDS * (ROUNDS - 1) / 2 + ROUNDS * w->id;
  clReleaseMemObject(m), clReleaseKernel(k), clReleaseProgram(p), clReleaseCommandQueue(q);
  return NULL;
}

static void eight_threads_share_a_context(void **state) {
  (void)state;
  pthread_t t[8];
  worker w[8];
  for (int i = 0; i < 8; i++) {
    w[i] = (worker){i + 1, 0};
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 8; i++) assert_true(w[i].ok);
}

static void reference_counts(void **state) {
  (void)state;
  cl_mem m = buffer(&env, 0, 64, NULL);
  cl_uint refs;
  CL_OK(clRetainMemObject(m));
  CL_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 2);
  CL_OK(clReleaseMemObject(m));
  CL_OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 1);
  CL_OK(clReleaseMemObject(m));
  assert_int_equal(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
  cl_int err;
  cl_event e = clCreateUserEvent(env.ctx, &err);
  CL_OK(clRetainEvent(e));
  CL_OK(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  assert_int_equal(refs, 2);
  CL_OK(clReleaseEvent(e));
  CL_OK(clReleaseEvent(e));
  assert_int_equal(clRetainEvent(e), CL_INVALID_EVENT);
  /* a context stays alive for its queue after the host's release */
  cl_context ctx = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, env.device, 0, &err);
  CL_OK(clReleaseContext(ctx));
  assert_int_equal(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs, &refs, NULL),
                   CL_INVALID_CONTEXT);
  CL_OK(clFinish(q));
  CL_OK(clReleaseCommandQueue(q));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(profiling_times),
      cmocka_unit_test(user_event_holds_commands_back),
      cmocka_unit_test(failed_user_event_fails_the_waiters),
      cmocka_unit_test(finish_waits_for_another_thread),
      cmocka_unit_test(eight_threads_share_a_context),
      cmocka_unit_test(reference_counts),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
