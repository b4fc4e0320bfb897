/* Contexts: one weft_context each, with the options the environment gives (WEFT_POLICY,
 * WEFT_WARP, WEFT_LANES, WEFT_THREADS, read once per process), and the lock that guards it.
 *
 * The lock is recursive: destroying an object may release the last hold on another one of the
 * same context (an event its queue), whose destruction locks the context again. A thread that
 * takes the lock holds the context, so that the context itself is never destroyed while locked;
 * the callbacks that events collected meanwhile are called by the outermost unlock, once the
 * lock is free, so that a callback may call OpenCL. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icd.h"

struct pending_callback {
  pending_callback *next;
  cl_event event; /* held until the call; NULL for the context's notify function */
  char *message; /* for the notify function */
  cl_int status;
  void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
  void *user;
};

/* ---- options from the environment ---- */

static weft_options env_opts;

/* An unsigned number from the variable `name`, checked with weft_options_check as the field
 * `field` of the options; a bad one is reported and left 0 (the default). */
static void env_unsigned(const char *name, unsigned *field) {
  const char *s = getenv(name);
  if (!s || !*s) return;
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  char why[256] = "not a number";
  int bad = *end || errno || v > 1u << 20 || s[0] == '-';
  if (!bad) {
    *field = (unsigned)v;
    bad = weft_options_check(&env_opts, why, sizeof why) != WEFT_SUCCESS;
  }
  if (!bad) return;
  fprintf(stderr, "weft: %s=%s: %s; using the default\n", name, s, why);
  *field = 0;
}

static void read_env(void) {
  char why[256];
  const char *policy = getenv("WEFT_POLICY");
  if (policy && *policy) {
    env_opts.policy = policy;
    if (weft_options_check(&env_opts, why, sizeof why) != WEFT_SUCCESS) {
      fprintf(stderr, "weft: WEFT_POLICY=%s: %s; using the default\n", policy, why);
      env_opts.policy = NULL;
    }
  }
  env_unsigned("WEFT_THREADS", &env_opts.threads);
  env_unsigned("WEFT_WARP", &env_opts.warp);
  env_unsigned("WEFT_LANES", &env_opts.lanes);
}

const weft_options *wcl_env_options(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_env);
  return &env_opts;
}

/* ---- the lock ---- */

void ctx_lock(cl_context c) {
  obj_hold(c);
  pthread_mutex_lock(&c->lock);
  c->depth++;
}

void ctx_unlock(cl_context c) {
  pending_callback *calls = NULL;
  if (--c->depth == 0) {
    calls = c->callbacks;
    c->callbacks = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  /* they were collected newest first: call them in the order the events changed */
  pending_callback *ordered = NULL;
  while (calls) {
    pending_callback *next = calls->next;
    calls->next = ordered, ordered = calls, calls = next;
  }
  while (ordered) {
    pending_callback *next = ordered->next;
    if (ordered->event) {
      ordered->fn(ordered->event, ordered->status, ordered->user);
      obj_drop(ordered->event);
    } else c->notify(ordered->message, NULL, 0, c->notify_user);
    free(ordered->message);
    free(ordered);
    ordered = next;
  }
  obj_drop(c);
}

void ctx_defer_callback(cl_context c, cl_event e, cl_int status,
                        void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user) {
  pending_callback *p = malloc(sizeof *p);
  if (!p) return; /* out of memory: the callback is lost, as nothing can report it */
  obj_hold(e);
  *p = (pending_callback){c->callbacks, e, NULL, status, fn, user};
  c->callbacks = p;
}

/* Called like the events' callbacks, once the lock is free: the function may call OpenCL. */
void ctx_notify(cl_context c, const char *message) {
  pending_callback *p = c->notify ? calloc(1, sizeof *p) : NULL;
  if (p && !(p->message = strdup(message))) free(p), p = NULL;
  if (!p) return; /* no function, or out of memory: nothing can report it */
  p->next = c->callbacks;
  c->callbacks = p;
}

/* ---- contexts ---- */

static void context_destroy(icd_obj *o) {
  cl_context c = (cl_context)o;
  weft_context_release(c->weft);
  pthread_cond_destroy(&c->changed);
  pthread_mutex_destroy(&c->lock);
  obj_free(&c->o);
}

/* Reads the properties list: CL_CONTEXT_PLATFORM (ours) is the only one known. */
static cl_int read_props(cl_context c, const cl_context_properties *props) {
  c->nprops = 0;
  if (!props) return CL_SUCCESS;
  int platform = 0;
  for (; props[0]; props += 2) {
    if (props[0] != CL_CONTEXT_PLATFORM || platform) return CL_INVALID_PROPERTY;
    if ((cl_platform_id)props[1] != &wcl_platform) return CL_INVALID_PLATFORM;
    platform = 1;
    c->props[0] = props[0], c->props[1] = props[1];
  }
  c->props[platform ? 2 : 0] = 0;
  c->nprops = platform ? 3 : 1;
  return CL_SUCCESS;
}

static cl_context context_new(const cl_context_properties *props,
                              void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                              void *user, cl_int *err) {
  cl_context c = obj_alloc(OBJ_CONTEXT, sizeof *c);
  if (!c) return *err = CL_OUT_OF_HOST_MEMORY, NULL;
  *err = read_props(c, props);
  if (*err) return obj_free(&c->o), NULL;
  if (weft_context_create(wcl_env_options(), &c->weft) != WEFT_SUCCESS) {
    *err = CL_OUT_OF_RESOURCES;
    return obj_free(&c->o), NULL;
  }
  c->warp = weft_context_options(c->weft).warp;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&c->lock, &a);
  pthread_mutexattr_destroy(&a);
  pthread_cond_init(&c->changed, NULL);
  c->notify = notify, c->notify_user = user;
  obj_register(&c->o, OBJ_CONTEXT, context_destroy);
  return c;
}

WCL_API cl_context clCreateContext(const cl_context_properties *props, cl_uint ndevices,
                                   const cl_device_id *devices,
                                   void(CL_CALLBACK *notify)(const char *, const void *, size_t,
                                                             void *),
                                   void *user, cl_int *errcode_ret) {
  cl_int err = CL_SUCCESS, *e = errcode_ret ? errcode_ret : &err;
  if (!devices || !ndevices || (!notify && user)) return *e = CL_INVALID_VALUE, NULL;
  for (cl_uint i = 0; i < ndevices; i++)
    if (devices[i] != &wcl_device) return *e = CL_INVALID_DEVICE, NULL;
  return context_new(props, notify, user, e);
}

WCL_API cl_context clCreateContextFromType(const cl_context_properties *props, cl_device_type type,
                                           void(CL_CALLBACK *notify)(const char *, const void *,
                                                                     size_t, void *),
                                           void *user, cl_int *errcode_ret) {
  cl_int err = CL_SUCCESS, *e = errcode_ret ? errcode_ret : &err;
  if (!notify && user) return *e = CL_INVALID_VALUE, NULL;
  cl_uint n;
  *e = clGetDeviceIDs(&wcl_platform, type, 1, NULL, &n);
  if (*e) return NULL;
  return context_new(props, notify, user, e);
}

WCL_API cl_int clRetainContext(cl_context c) {
  return obj_retain(c, OBJ_CONTEXT) ? CL_INVALID_CONTEXT : CL_SUCCESS;
}

WCL_API cl_int clReleaseContext(cl_context c) {
  return obj_release(c, OBJ_CONTEXT) ? CL_INVALID_CONTEXT : CL_SUCCESS;
}

WCL_API cl_int clGetContextInfo(cl_context c, cl_context_info name, size_t size, void *value,
                                size_t *size_ret) {
  if (!obj_valid(c, OBJ_CONTEXT)) return CL_INVALID_CONTEXT;
  cl_uint u;
  cl_device_id d = &wcl_device;
  switch (name) {
  case CL_CONTEXT_REFERENCE_COUNT:
    u = obj_refs(c);
    return info_put(value, size, size_ret, &u, sizeof u);
  case CL_CONTEXT_NUM_DEVICES: u = 1; return info_put(value, size, size_ret, &u, sizeof u);
  case CL_CONTEXT_DEVICES: return info_put(value, size, size_ret, &d, sizeof d);
  case CL_CONTEXT_PROPERTIES:
    return info_put(value, size, size_ret, c->props, c->nprops * sizeof *c->props);
  default: return CL_INVALID_VALUE;
  }
}
