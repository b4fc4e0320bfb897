/* Command queues and events.
 *
 * A command runs on the thread that enqueues it, under the context's lock, as soon as it is at
 * the head of its queue and every event of its wait list is complete: commands of a queue run
 * in order (an out-of-order queue is accepted and runs in order too), and a command that waits
 * for a user event, or for a command of another queue that waits for one, stays in its queue,
 * with everything after it, until clSetUserEventStatus completes the event and runs them
 * (ctx_pump). Every command that ends completes its event (or sets its negative status) and
 * wakes the threads that wait in clFinish, clWaitForEvents or a blocking call. A command whose
 * wait list holds an event that failed fails too, with
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "icd.h"

struct event_callback {
  event_callback *next;
  cl_int on; /* CL_SUBMITTED, CL_RUNNING or CL_COMPLETE */
  void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
  void *user;
};

cl_ulong wcl_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (cl_ulong)t.tv_sec * 1000000000u + (cl_ulong)t.tv_nsec;
}

/* ---- events ---- */

static void event_destroy(icd_obj *o) {
  cl_event e = (cl_event)o;
  while (e->callbacks) {
    event_callback *next = e->callbacks->next;
    free(e->callbacks);
    e->callbacks = next;
  }
  if (e->queue) obj_drop(e->queue);
  obj_drop(e->ctx);
  obj_free(&e->o);
}

static cl_event event_new(cl_context ctx, cl_command_queue q, cl_command_type type) {
  cl_event e = obj_alloc(OBJ_EVENT, sizeof *e);
  if (!e) return NULL;
  e->ctx = ctx, e->queue = q, e->type = type;
  obj_hold(ctx);
  if (q) obj_hold(q);
  e->status = q ? CL_QUEUED : CL_SUBMITTED;
  e->profiled = q && (q->props & CL_QUEUE_PROFILING_ENABLE);
  if (e->profiled) e->times[0] = wcl_now_ns();
  obj_register(&e->o, OBJ_EVENT, event_destroy);
  return e;
}

/* The event's new status (lock held): its time, the callbacks it triggers, the waiters. A
 * callback registered for a status fires once the event reaches it or goes past it (an error
 * counts as past every status). */
static void event_set(cl_event e, cl_int status) {
  e->status = status;
  if (e->profiled && status >= CL_COMPLETE && status <= CL_SUBMITTED)
    e->times[1 + CL_SUBMITTED - status] = wcl_now_ns();
  for (event_callback **at = &e->callbacks; *at;) {
    event_callback *cb = *at;
    if (status > cb->on) {
      at = &cb->next;
      continue;
    }
    ctx_defer_callback(e->ctx, e, status < 0 ? status : cb->on, cb->fn, cb->user);
    *at = cb->next;
    free(cb);
  }
  pthread_cond_broadcast(&e->ctx->changed);
}

/* ---- commands ---- */

/* 1 when every event the command waits for is complete, 0 while one is not; -1 when one
 * failed. */
static int command_ready(const command *c) {
  int ready = 1;
  for (cl_uint i = 0; i < c->nwaits; i++) {
    if (c->waits[i]->status < 0) return -1;
    if (c->waits[i]->status != CL_COMPLETE) ready = 0;
  }
  return ready;
}

/* Drops what the command held and frees it (lock held, outside any walk over the queues:
 * dropping an event may destroy its queue). */
static void command_free(command *c) {
  cl_command_queue q = c->queue;
  for (cl_uint i = 0; i < c->nwaits; i++) obj_drop(c->waits[i]);
  for (cl_uint i = 0; i < c->nheld; i++) obj_drop(c->held[i]);
  if (c->free_data) c->free_data(c);
  if (c->event) obj_drop(c->event);
  free(c->waits);
  free(c->held);
  free(c->data);
  free(c);
  obj_drop(q);
}

/* Runs the command at the head of q, which is ready (or failed), and unlinks it. */
static command *command_run(cl_command_queue q, int ready) {
  command *c = q->head;
  q->head = c->next;
  if (!q->head) q->tail = NULL;
  cl_int st = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  if (c->event) event_set(c->event, CL_SUBMITTED);
  if (ready > 0) {
    if (c->event) event_set(c->event, CL_RUNNING);
    st = c->run(c);
  }
  if (c->event) event_set(c->event, st == CL_SUCCESS ? CL_COMPLETE : st);
  else pthread_cond_broadcast(&q->ctx->changed);
  return c;
}

void ctx_pump(cl_context ctx) {
  command *done = NULL;
  for (int progress = 1; progress;) {
    progress = 0;
    for (cl_command_queue q = ctx->queues; q; q = q->next) {
      int ready;
      while (q->head && (ready = command_ready(q->head)) != 0) {
        command *c = command_run(q, ready);
        c->next = done, done = c;
        progress = 1;
      }
    }
  }
  while (done) {
    command *next = done->next;
    command_free(done);
    done = next;
  }
}

cl_int check_wait_list(cl_context ctx, cl_uint n, const cl_event *list) {
  if ((n == 0) != (list == NULL)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; i++) {
    if (!obj_valid(list[i], OBJ_EVENT)) return CL_INVALID_EVENT_WAIT_LIST;
    if (list[i]->ctx != ctx) return CL_INVALID_CONTEXT;
  }
  return CL_SUCCESS;
}

/* Copies the wait list, holding each event; 0, or -1 when out of memory. */
static int take_waits(command *cmd, cl_uint n, const cl_event *waits) {
  if (!n) return 0;
  cmd->waits = malloc(n * sizeof *waits);
  if (!cmd->waits) return -1;
  for (cl_uint i = 0; i < n; i++) obj_hold(cmd->waits[i] = waits[i]);
  cmd->nwaits = n;
  return 0;
}

cl_int queue_submit(cl_command_queue q, command *cmd, cl_command_type type, cl_uint nwaits,
                    const cl_event *waits, cl_event *out_event) {
  obj_hold(q); /* dropped with the command, which stands for q meanwhile */
  cmd->next = NULL, cmd->queue = q;
  if (take_waits(cmd, nwaits, waits) || (out_event && !(cmd->event = event_new(q->ctx, q, type)))) {
    command_free(cmd);
    return CL_OUT_OF_HOST_MEMORY;
  }
  if (out_event) {
    obj_hold(cmd->event); /* the command's, besides the application's */
    *out_event = cmd->event;
  }
  if (q->tail) q->tail->next = cmd;
  else q->head = cmd;
  q->tail = cmd;
  ctx_pump(q->ctx);
  return CL_SUCCESS;
}

/* Waits on the context's condition with the lock held once by this thread. */
static void ctx_wait(cl_context ctx) {
  unsigned depth = ctx->depth;
  ctx->depth = 0; /* the lock's next owner counts from 0 */
  pthread_cond_wait(&ctx->changed, &ctx->lock);
  ctx->depth = depth;
}

cl_int events_wait(cl_context ctx, cl_uint n, const cl_event *events) {
  ctx_pump(ctx);
  for (;;) {
    int all = 1, failed = 0;
    for (cl_uint i = 0; i < n; i++) {
      if (events[i]->status < 0) failed = 1;
      else if (events[i]->status != CL_COMPLETE) all = 0;
    }
    if (all) return failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS;
    ctx_wait(ctx);
  }
}

/* ---- queues ---- */

static void queue_destroy(icd_obj *o) {
  cl_command_queue q = (cl_command_queue)o;
  cl_context ctx = q->ctx;
  ctx_lock(ctx);
  cl_command_queue *at = &ctx->queues;
  while (*at != q) at = &(*at)->next;
  *at = q->next;
  ctx_unlock(ctx);
  obj_drop(ctx);
  obj_free(&q->o);
}

WCL_API cl_command_queue clCreateCommandQueue(cl_context ctx, cl_device_id device,
                                              cl_command_queue_properties props,
                                              cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(ctx, OBJ_CONTEXT)) return *e = CL_INVALID_CONTEXT, NULL;
  if (device != &wcl_device) return *e = CL_INVALID_DEVICE, NULL;
  if (props & ~(cl_command_queue_properties)(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                             CL_QUEUE_PROFILING_ENABLE))
    return *e = CL_INVALID_VALUE, NULL;
  cl_command_queue q = obj_alloc(OBJ_QUEUE, sizeof *q);
  if (!q) return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  q->ctx = ctx, q->props = props;
  obj_hold(ctx);
  obj_register(&q->o, OBJ_QUEUE, queue_destroy);
  ctx_lock(ctx);
  q->next = ctx->queues;
  ctx->queues = q;
  ctx_unlock(ctx);
  *e = CL_SUCCESS;
  return q;
}

WCL_API cl_int clRetainCommandQueue(cl_command_queue q) {
  return obj_retain(q, OBJ_QUEUE) ? CL_INVALID_COMMAND_QUEUE : CL_SUCCESS;
}

WCL_API cl_int clReleaseCommandQueue(cl_command_queue q) {
  /* commands still waiting hold the queue: they run when their events complete */
  return obj_release(q, OBJ_QUEUE) ? CL_INVALID_COMMAND_QUEUE : CL_SUCCESS;
}

WCL_API cl_int clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info name, size_t size,
                                     void *value, size_t *size_ret) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_uint refs = obj_refs(q);
  cl_device_id d = &wcl_device;
  switch (name) {
  case CL_QUEUE_CONTEXT: return info_put(value, size, size_ret, &q->ctx, sizeof q->ctx);
  case CL_QUEUE_DEVICE: return info_put(value, size, size_ret, &d, sizeof d);
  case CL_QUEUE_REFERENCE_COUNT: return info_put(value, size, size_ret, &refs, sizeof refs);
  case CL_QUEUE_PROPERTIES: return info_put(value, size, size_ret, &q->props, sizeof q->props);
  default: return CL_INVALID_VALUE;
  }
}

WCL_API cl_int clSetCommandQueueProperty(cl_command_queue q, cl_command_queue_properties props,
                                         cl_bool enable, cl_command_queue_properties *old) {
  (void)props, (void)enable, (void)old;
  return obj_valid(q, OBJ_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}

WCL_API cl_int clFlush(cl_command_queue q) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  ctx_lock(q->ctx);
  ctx_pump(q->ctx);
  ctx_unlock(q->ctx);
  return CL_SUCCESS;
}

WCL_API cl_int clFinish(cl_command_queue q) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_context ctx = q->ctx;
  ctx_lock(ctx);
  ctx_pump(ctx);
  while (q->head) ctx_wait(ctx);
  ctx_unlock(ctx);
  return CL_SUCCESS;
}

/* ---- event calls ---- */

WCL_API cl_int clWaitForEvents(cl_uint n, const cl_event *events) {
  if (!n || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++) {
    if (!obj_valid(events[i], OBJ_EVENT)) return CL_INVALID_EVENT;
    if (events[i]->ctx != events[0]->ctx) return CL_INVALID_CONTEXT;
  }
  cl_context ctx = events[0]->ctx;
  ctx_lock(ctx);
  cl_int st = events_wait(ctx, n, events);
  ctx_unlock(ctx);
  return st;
}

WCL_API cl_int clGetEventInfo(cl_event e, cl_event_info name, size_t size, void *value,
                              size_t *size_ret) {
  if (!obj_valid(e, OBJ_EVENT)) return CL_INVALID_EVENT;
  cl_uint refs = obj_refs(e);
  ctx_lock(e->ctx);
  cl_int status = e->status;
  ctx_unlock(e->ctx);
  switch (name) {
  case CL_EVENT_COMMAND_QUEUE: return info_put(value, size, size_ret, &e->queue, sizeof e->queue);
  case CL_EVENT_CONTEXT: return info_put(value, size, size_ret, &e->ctx, sizeof e->ctx);
  case CL_EVENT_COMMAND_TYPE: return info_put(value, size, size_ret, &e->type, sizeof e->type);
  case CL_EVENT_COMMAND_EXECUTION_STATUS:
    return info_put(value, size, size_ret, &status, sizeof status);
  case CL_EVENT_REFERENCE_COUNT: return info_put(value, size, size_ret, &refs, sizeof refs);
  default: return CL_INVALID_VALUE;
  }
}

WCL_API cl_int clGetEventProfilingInfo(cl_event e, cl_profiling_info name, size_t size, void *value,
                                       size_t *size_ret) {
  if (!obj_valid(e, OBJ_EVENT)) return CL_INVALID_EVENT;
  if (name < CL_PROFILING_COMMAND_QUEUED || name > CL_PROFILING_COMMAND_END)
    return CL_INVALID_VALUE;
  ctx_lock(e->ctx);
  int ok = e->profiled && e->status == CL_COMPLETE;
  cl_ulong t = e->times[name - CL_PROFILING_COMMAND_QUEUED];
  ctx_unlock(e->ctx);
  if (!ok) return CL_PROFILING_INFO_NOT_AVAILABLE;
  return info_put(value, size, size_ret, &t, sizeof t);
}

WCL_API cl_int clRetainEvent(cl_event e) {
  return obj_retain(e, OBJ_EVENT) ? CL_INVALID_EVENT : CL_SUCCESS;
}

WCL_API cl_int clReleaseEvent(cl_event e) {
  return obj_release(e, OBJ_EVENT) ? CL_INVALID_EVENT : CL_SUCCESS;
}

WCL_API cl_event clCreateUserEvent(cl_context ctx, cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(ctx, OBJ_CONTEXT)) return *e = CL_INVALID_CONTEXT, NULL;
  cl_event ev = event_new(ctx, NULL, CL_COMMAND_USER);
  *e = ev ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  return ev;
}

WCL_API cl_int clSetUserEventStatus(cl_event e, cl_int status) {
  if (!obj_valid(e, OBJ_EVENT) || e->type != CL_COMMAND_USER) return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  cl_int st = CL_SUCCESS;
  ctx_lock(e->ctx);
  if (e->status != CL_SUBMITTED) st = CL_INVALID_OPERATION; /* set once only */
  else {
    event_set(e, status);
    ctx_pump(e->ctx);
  }
  ctx_unlock(e->ctx);
  return st;
}

WCL_API cl_int clSetEventCallback(cl_event e, cl_int type,
                                  void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user) {
  if (!obj_valid(e, OBJ_EVENT)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  event_callback *cb = malloc(sizeof *cb);
  if (!cb) return CL_OUT_OF_HOST_MEMORY;
  *cb = (event_callback){NULL, type, fn, user};
  ctx_lock(e->ctx);
  if (e->status <= type) { /* reached already: called as soon as the lock is free */
    ctx_defer_callback(e->ctx, e, e->status < 0 ? e->status : type, fn, user);
    free(cb);
  } else {
    cb->next = e->callbacks;
    e->callbacks = cb;
  }
  ctx_unlock(e->ctx);
  return CL_SUCCESS;
}
