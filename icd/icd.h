/* weft's OpenCL ICD: OpenCL 1.2 (no images) on top of weft.h, for the Khronos ICD loader.
 *
 * Every object starts with the cl_khr_icd dispatch table, which is how the loader finds the
 * platform's functions. Each object is in a registry of live objects (object.c), so that a
 * released handle, or one of another kind, is refused with the CL_INVALID_* code of its kind
 * instead of being read (any other pointer crashes in the loader, which reads its dispatch
 * table before calling us). An object has two counts: `refs`, the application's (clRetain*, clRelease*, the
 * *_REFERENCE_COUNT queries; a handle with refs 0 is invalid), and `holds`, the references
 * other objects keep (a queue holds its context, a pending command its event and buffers); it
 * is destroyed when both are 0, and its memory waits for the next object of its kind.
 *
 * A cl_context owns one weft_context, which weft.h lets one host thread use at a time: the
 * context's `lock` (recursive, since destroying an object may release another of the same
 * context) guards it and every queue of the context. Commands run on the thread that enqueues
 * them, in order, as soon as the events they wait for are complete (queue.c: a command that
 * waits for a user event stays in its queue until clSetUserEventStatus runs it). Event
 * callbacks and the context's notify function are collected while the lock is held and called
 * after it is released, so that they may call OpenCL themselves.
 *
 * Files: platform.c (platform and device queries), context.c (contexts, the environment's
 * options), object.c (the registry and counts), queue.c (queues, events, the commands' order),
 * memory.c (buffers), program.c (programs and kernels), enqueue.c (clEnqueue*), dispatch.c
 * (the table). */
#ifndef WEFT_ICD_H
#define WEFT_ICD_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdint.h>

#include "weft.h"

/* The OpenCL entry points the library exports (every other symbol is hidden). */
#define WCL_API __attribute__((visibility("default")))

#define WCL_MAX_GROUP_ITEMS 1024 /* work-items per work-group: weft's limit */
#define WCL_LOCAL_MEM_SIZE (1u << 20) /* __local bytes per work-group that we promise */
#define WCL_MAX_PARAMETER_SIZE 1024

/* ---- object.c: the registry of live objects and their counts ---- */
typedef enum obj_kind {
  OBJ_CONTEXT = 1,
  OBJ_QUEUE,
  OBJ_MEM,
  OBJ_PROGRAM,
  OBJ_KERNEL,
  OBJ_EVENT,
} obj_kind;

typedef struct icd_obj icd_obj;
struct icd_obj {
  const cl_icd_dispatch *dispatch; /* must be first: the loader reads it */
  obj_kind kind;
  cl_uint refs, holds; /* guarded by the registry's lock */
  void (*destroy)(icd_obj *o); /* frees the object once refs and holds are 0 */
  icd_obj *chain; /* the next object in the registry's bucket */
};

extern const cl_icd_dispatch wcl_dispatch;

/* An object's memory, zeroed but for its dispatch pointer: a released object's, when one of the
 * kind is waiting, else new. Objects' memory is never given back to the heap, since the ICD
 * loader reads a handle's dispatch pointer before we can check the handle: a released handle
 * must stay readable, with its dispatch pointer, to be refused. NULL when out of memory. */
void *obj_alloc(obj_kind kind, size_t size);
/* Gives an object's memory back to its kind (see obj_alloc). */
void obj_free(icd_obj *o);
/* Registers o with one application reference. */
void obj_register(icd_obj *o, obj_kind kind, void (*destroy)(icd_obj *));
/* Whether p is a live object of the kind with an application reference. */
int obj_valid(const void *p, obj_kind kind);
/* clRetain* / clRelease*: 0, or -1 for a handle that is not valid. */
int obj_retain(void *p, obj_kind kind);
int obj_release(void *p, obj_kind kind);
/* Internal references, on objects known to be alive. */
void obj_hold(void *p);
void obj_drop(void *p);
cl_uint obj_refs(const void *p);

/* ---- platform.c ---- */
struct _cl_platform_id {
  const cl_icd_dispatch *dispatch;
};
struct _cl_device_id {
  const cl_icd_dispatch *dispatch;
};
extern struct _cl_platform_id wcl_platform;
extern struct _cl_device_id wcl_device;
/* Copies n bytes of src to the caller's (value, size), as every clGet*Info does. */
cl_int info_put(void *value, size_t size, size_t *size_ret, const void *src, size_t n);
cl_int info_str(void *value, size_t size, size_t *size_ret, const char *s);

/* ---- context.c ---- */
typedef struct pending_callback pending_callback;
struct _cl_context {
  icd_obj o;
  pthread_mutex_t lock; /* recursive: see the file comment */
  pthread_cond_t changed; /* an event's status changed */
  weft_context *weft;
  unsigned warp; /* W, the sub-group size */
  void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
  void *notify_user;
  cl_context_properties props[3]; /* {CL_CONTEXT_PLATFORM, platform, 0} or {0} */
  size_t nprops;
  struct _cl_command_queue *queues; /* every queue of the context, linked by next */
  pending_callback *callbacks; /* to call once the lock is released */
  unsigned depth; /* how many times the lock is held by its owner */
};

/* The options every context takes from WEFT_POLICY, WEFT_WARP, WEFT_LANES, WEFT_THREADS (read
 * once per process; a bad value is one line on stderr, and its default is used). */
const weft_options *wcl_env_options(void);
/* The options in force in a context (the device's answers use a context of its own). */
weft_options wcl_device_options(void);
void ctx_lock(cl_context c);
/* Releases the lock; the outermost release calls the callbacks collected meanwhile. */
void ctx_unlock(cl_context c);
/* Queues fn(event, status, user) to be called when c's lock is released. */
void ctx_defer_callback(cl_context c, cl_event e, cl_int status,
                        void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user);
/* Tells the application through the context's notify function (clCreateContext), when the
 * lock is released. */
void ctx_notify(cl_context c, const char *message);

/* ---- memory.c ---- */
typedef struct mapping mapping;
struct _cl_mem {
  icd_obj o;
  cl_context ctx;
  cl_mem_flags flags;
  size_t size;
  char *data; /* the bytes: our own weft_buffer_alloc, the host's (USE_HOST_PTR), the parent's */
  void *host_ptr; /* USE_HOST_PTR: the host's pointer */
  int owned; /* data is weft_buffer_alloc'd here */
  cl_mem parent; /* a sub-buffer's buffer (held) */
  size_t origin;
  cl_uint maps; /* mappings not unmapped yet */
  struct mem_destructor *destructors;
};

/* ---- program.c ---- */
struct _cl_program {
  icd_obj o;
  cl_context ctx;
  char *source;
  char *options; /* of the last build */
  char *log; /* of the last build */
  cl_build_status status;
  weft_program *weft; /* after a successful build */
  cl_uint kernels; /* kernel objects made from it, alive: a rebuild is refused meanwhile */
};

typedef struct kernel_arg {
  int set;
  weft_arg_info info;
  cl_mem mem; /* a buffer argument, NULL for a NULL buffer */
  size_t size; /* a value's bytes, a __local buffer's size */
  unsigned char *value; /* a value's bytes (malloc'd on first set) */
} kernel_arg;

struct _cl_kernel {
  icd_obj o;
  cl_program program; /* held */
  weft_kernel *weft;
  cl_uint nargs;
  kernel_arg *args;
};

/* ---- queue.c: queues, events, commands ---- */
typedef struct command command;
struct _cl_command_queue {
  icd_obj o;
  cl_context ctx;
  cl_command_queue_properties props;
  command *head, *tail; /* commands waiting for their events, in order */
  struct _cl_command_queue *next; /* in ctx->queues */
};

typedef struct event_callback event_callback;
struct _cl_event {
  icd_obj o;
  cl_context ctx; /* held */
  cl_command_queue queue; /* held; NULL for a user event */
  cl_command_type type;
  cl_int status; /* CL_QUEUED ... CL_COMPLETE, or a negative error */
  cl_ulong times[4]; /* CL_PROFILING_COMMAND_QUEUED, SUBMIT, START, END, in ns */
  int profiled;
  event_callback *callbacks;
};

/* What a command does, called with the context's lock held; returns CL_SUCCESS or the
 * negative status its event ends with. */
typedef cl_int (*command_fn)(command *cmd);
struct command {
  command *next;
  cl_command_queue queue; /* held */
  command_fn run;
  void (*free_data)(command *cmd); /* frees what the command owns beyond the holds; may be NULL */
  cl_event event; /* held; NULL when nobody asked for one */
  cl_uint nwaits;
  cl_event *waits; /* held */
  cl_uint nheld;
  icd_obj **held; /* buffers and kernels the command uses */
  void *data; /* the command's own arguments */
};

cl_ulong wcl_now_ns(void);
/* Checks a wait list as every clEnqueue* does (CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_CONTEXT). */
cl_int check_wait_list(cl_context ctx, cl_uint n, const cl_event *list);
/* Enqueues a command (lock held): creates its event when out_event is not NULL, runs it at
 * once when it can, else appends it. The command (and its data) is owned by the queue from
 * here on, also when an error is returned. */
cl_int queue_submit(cl_command_queue q, command *cmd, cl_command_type type, cl_uint nwaits,
                    const cl_event *waits, cl_event *out_event);
/* Waits (lock held) until every event is complete; CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
 * if any ended with an error. */
cl_int events_wait(cl_context ctx, cl_uint n, const cl_event *events);
/* Runs what can run in every queue of the context (lock held). */
void ctx_pump(cl_context ctx);

#endif
