/* clEnqueue*: each call checks its arguments as the specification orders the errors, then
 * makes a command that holds what it uses (buffers, the kernel, a copy of the kernel's
 * arguments as they are at the call) and hands it to its queue (queue.c), which runs it at
 * once or when the events it waits for complete. A blocking call then waits for it.
 *
 * A kernel launch that weft refuses or stops (a memory fault, a timeout) ends its event with
 * CL_OUT_OF_RESOURCES and tells the context's notify function why, in weft's words. With
 * WEFT_STATS=PATH, each launch appends one line of JSON to PATH: the stats `weft run
 * --stats-json` writes (runtime/stats.c), written with one write(2) in append mode, so that
 * processes that share the file do not mix their lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icd.h"
#include "runtime.h"

/* ---- commands ---- */

static command *cmd_new(command_fn run, size_t data_size, cl_uint max_held) {
  command *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->run = run;
  c->data = data_size ? calloc(1, data_size) : NULL;
  c->held = max_held ? calloc(max_held, sizeof *c->held) : NULL;
  if ((data_size && !c->data) || (max_held && !c->held)) {
    free(c->data), free(c->held), free(c);
    return NULL;
  }
  return c;
}

static void cmd_hold(command *c, void *obj) {
  obj_hold(obj);
  c->held[c->nheld++] = obj;
}

/* A command that runs `run` on a copy of data (size bytes), holding buffer m, and m2 unless it
 * is NULL, until it has run; NULL when memory ran out (submit says so). */
static command *mem_command(command_fn run, const void *data, size_t size, cl_mem m, cl_mem m2) {
  command *c = cmd_new(run, size, 2);
  if (!c) return NULL;
  memcpy(c->data, data, size);
  cmd_hold(c, m);
  if (m2) cmd_hold(c, m2);
  return c;
}

/* Checks the queue, the wait list, and each buffer's context against the queue's. */
static cl_int check_common(cl_command_queue q, cl_uint nwaits, const cl_event *waits) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  return check_wait_list(q->ctx, nwaits, waits);
}

static cl_int check_mem(cl_command_queue q, cl_mem m) {
  if (!obj_valid(m, OBJ_MEM)) return CL_INVALID_MEM_OBJECT;
  return m->ctx == q->ctx ? CL_SUCCESS : CL_INVALID_CONTEXT;
}

/* Hands cmd to q (NULL cmd: out of memory) and, when blocking, waits for it. */
static cl_int submit(cl_command_queue q, command *cmd, cl_command_type type, cl_uint nwaits,
                     const cl_event *waits, cl_event *out, int blocking) {
  if (!cmd) return CL_OUT_OF_HOST_MEMORY;
  cl_event own = NULL, *ev = out ? out : blocking ? &own : NULL;
  ctx_lock(q->ctx);
  cl_int err = queue_submit(q, cmd, type, nwaits, waits, ev);
  if (!err && blocking) err = events_wait(q->ctx, 1, ev);
  ctx_unlock(q->ctx);
  if (own) clReleaseEvent(own);
  return err;
}

static int host_may_read(cl_mem m) {
  return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static int host_may_write(cl_mem m) {
  return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static int out_of(const cl_mem m, size_t offset, size_t n) {
  return offset > m->size || n > m->size - offset;
}

/* ---- read, write, copy, fill ---- */

typedef struct copy_data {
  char *dst;
  const char *src;
  size_t n;
} copy_data;

static cl_int run_copy(command *c) {
  copy_data *d = c->data;
  memmove(d->dst, d->src, d->n);
  return CL_SUCCESS;
}

static cl_int enqueue_copy(cl_command_queue q, cl_mem m, cl_mem m2, char *dst, const char *src,
                           size_t n, cl_command_type type, cl_uint nwaits, const cl_event *waits,
                           cl_event *out, int blocking) {
  copy_data d = {dst, src, n};
  return submit(q, mem_command(run_copy, &d, sizeof d, m, m2), type, nwaits, waits, out, blocking);
}

WCL_API cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                   size_t n, void *ptr, cl_uint nwaits, const cl_event *waits,
                                   cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, m);
  if (err) return err;
  if (!ptr || out_of(m, offset, n)) return CL_INVALID_VALUE;
  if (!host_may_read(m)) return CL_INVALID_OPERATION;
  return enqueue_copy(q, m, NULL, ptr, m->data + offset, n, CL_COMMAND_READ_BUFFER, nwaits, waits,
                      out, blocking);
}

WCL_API cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                    size_t n, const void *ptr, cl_uint nwaits,
                                    const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, m);
  if (err) return err;
  if (!ptr || out_of(m, offset, n)) return CL_INVALID_VALUE;
  if (!host_may_write(m)) return CL_INVALID_OPERATION;
  return enqueue_copy(q, m, NULL, m->data + offset, ptr, n, CL_COMMAND_WRITE_BUFFER, nwaits, waits,
                      out, blocking);
}

static int overlap(const char *a, size_t na, const char *b, size_t nb) {
  return a < b + nb && b < a + na;
}

WCL_API cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                   size_t dst_offset, size_t n, cl_uint nwaits,
                                   const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, src);
  if (!err) err = check_mem(q, dst);
  if (err) return err;
  if (out_of(src, src_offset, n) || out_of(dst, dst_offset, n)) return CL_INVALID_VALUE;
  if (overlap(src->data + src_offset, n, dst->data + dst_offset, n)) return CL_MEM_COPY_OVERLAP;
  return enqueue_copy(q, src, dst, dst->data + dst_offset, src->data + src_offset, n,
                      CL_COMMAND_COPY_BUFFER, nwaits, waits, out, 0);
}

typedef struct fill_data {
  char *dst;
  size_t n, pattern_size;
  unsigned char pattern[128];
} fill_data;

static cl_int run_fill(command *c) {
  fill_data *d = c->data;
  for (size_t at = 0; at < d->n; at += d->pattern_size)
    memcpy(d->dst + at, d->pattern, d->pattern_size);
  return CL_SUCCESS;
}

WCL_API cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pattern,
                                   size_t pattern_size, size_t offset, size_t n, cl_uint nwaits,
                                   const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, m);
  if (err) return err;
  int pow2 = pattern_size && !(pattern_size & (pattern_size - 1)) && pattern_size <= 128;
  if (!pattern || !pow2 || offset % pattern_size || n % pattern_size || out_of(m, offset, n))
    return CL_INVALID_VALUE;
  fill_data d = {m->data + offset, n, pattern_size, {0}};
  memcpy(d.pattern, pattern, pattern_size);
  return submit(q, mem_command(run_fill, &d, sizeof d, m, NULL), CL_COMMAND_FILL_BUFFER, nwaits,
                waits, out, 0);
}

/* ---- rectangles ---- */

typedef struct rect_side {
  char *base;
  size_t origin[3], row, slice;
} rect_side;

typedef struct rect_data {
  rect_side dst, src;
  size_t region[3];
} rect_data;

static char *rect_at(const rect_side *s, size_t y, size_t z) {
  return s->base + (s->origin[2] + z) * s->slice + (s->origin[1] + y) * s->row + s->origin[0];
}

static cl_int run_rect(command *c) {
  rect_data *d = c->data;
  for (size_t z = 0; z < d->region[2]; z++)
    for (size_t y = 0; y < d->region[1]; y++)
      memmove(rect_at(&d->dst, y, z), rect_at(&d->src, y, z), d->region[0]);
  return CL_SUCCESS;
}

/* A side's pitches, defaulted and checked; its bytes from base to the region's end in *end. */
static cl_int rect_side_make(rect_side *s, char *base, const size_t *origin, const size_t *region,
                             size_t row, size_t slice, size_t *end) {
  if (row == 0) row = region[0];
  if (slice == 0) slice = region[1] * row;
  if (row < region[0] || slice < region[1] * row || slice % row) return CL_INVALID_VALUE;
  *s = (rect_side){base, {origin[0], origin[1], origin[2]}, row, slice};
  *end = (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row + origin[0] +
         region[0];
  return CL_SUCCESS;
}

static cl_int enqueue_rect(cl_command_queue q, cl_mem m, cl_mem m2, const rect_data *d,
                           cl_command_type type, cl_uint nwaits, const cl_event *waits,
                           cl_event *out, int blocking) {
  return submit(q, mem_command(run_rect, d, sizeof *d, m, m2), type, nwaits, waits, out, blocking);
}

static cl_int host_rect(cl_command_queue q, cl_mem m, int write, cl_bool blocking,
                        const size_t *buf_origin, const size_t *host_origin, const size_t *region,
                        size_t buf_row, size_t buf_slice, size_t host_row, size_t host_slice,
                        void *ptr, cl_uint nwaits, const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, m);
  if (err) return err;
  if (!ptr || !buf_origin || !host_origin || !region || !region[0] || !region[1] || !region[2])
    return CL_INVALID_VALUE;
  if (write ? !host_may_write(m) : !host_may_read(m)) return CL_INVALID_OPERATION;
  rect_data d;
  rect_side buf, host;
  size_t end, host_end;
  err = rect_side_make(&buf, m->data, buf_origin, region, buf_row, buf_slice, &end);
  if (!err) err = rect_side_make(&host, ptr, host_origin, region, host_row, host_slice, &host_end);
  if (err || end > m->size) return CL_INVALID_VALUE;
  d.dst = write ? buf : host, d.src = write ? host : buf;
  memcpy(d.region, region, sizeof d.region);
  return enqueue_rect(q, m, NULL, &d,
                      write ? CL_COMMAND_WRITE_BUFFER_RECT : CL_COMMAND_READ_BUFFER_RECT, nwaits,
                      waits, out, blocking);
}

WCL_API cl_int clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                       const size_t *buf_origin, const size_t *host_origin,
                                       const size_t *region, size_t buf_row, size_t buf_slice,
                                       size_t host_row, size_t host_slice, void *ptr,
                                       cl_uint nwaits, const cl_event *waits, cl_event *out) {
  return host_rect(q, m, 0, blocking, buf_origin, host_origin, region, buf_row, buf_slice, host_row,
                   host_slice, ptr, nwaits, waits, out);
}

WCL_API cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                        const size_t *buf_origin, const size_t *host_origin,
                                        const size_t *region, size_t buf_row, size_t buf_slice,
                                        size_t host_row, size_t host_slice, const void *ptr,
                                        cl_uint nwaits, const cl_event *waits, cl_event *out) {
  return host_rect(q, m, 1, blocking, buf_origin, host_origin, region, buf_row, buf_slice, host_row,
                   host_slice, (void *)ptr, nwaits, waits, out);
}

WCL_API cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                       const size_t *src_origin, const size_t *dst_origin,
                                       const size_t *region, size_t src_row, size_t src_slice,
                                       size_t dst_row, size_t dst_slice, cl_uint nwaits,
                                       const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, src);
  if (!err) err = check_mem(q, dst);
  if (err) return err;
  if (!src_origin || !dst_origin || !region || !region[0] || !region[1] || !region[2])
    return CL_INVALID_VALUE;
  rect_data d;
  size_t send, dend;
  err = rect_side_make(&d.src, src->data, src_origin, region, src_row, src_slice, &send);
  if (!err) err = rect_side_make(&d.dst, dst->data, dst_origin, region, dst_row, dst_slice, &dend);
  if (err || send > src->size || dend > dst->size) return CL_INVALID_VALUE;
  memcpy(d.region, region, sizeof d.region);
  /* the bytes between the rectangles' first and last: a cautious test of overlap */
  size_t sfirst = rect_at(&d.src, 0, 0) - src->data, dfirst = rect_at(&d.dst, 0, 0) - dst->data;
  if (overlap(src->data + sfirst, send - sfirst, dst->data + dfirst, dend - dfirst))
    return CL_MEM_COPY_OVERLAP;
  return enqueue_rect(q, src, dst, &d, CL_COMMAND_COPY_BUFFER_RECT, nwaits, waits, out, 0);
}

/* ---- map and unmap: the buffer's own bytes ---- */

typedef struct map_data {
  cl_mem m;
  int unmap;
} map_data;

static cl_int run_map(command *c) {
  map_data *d = c->data;
  if (d->unmap) d->m->maps--;
  return CL_SUCCESS;
}

WCL_API void *clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                                 size_t offset, size_t n, cl_uint nwaits, const cl_event *waits,
                                 cl_event *out, cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  *e = check_common(q, nwaits, waits);
  if (!*e) *e = check_mem(q, m);
  if (*e) return NULL;
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  int writes = (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
  if ((flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && flags != CL_MAP_WRITE_INVALIDATE_REGION) ||
      out_of(m, offset, n) || n == 0)
    return *e = CL_INVALID_VALUE, NULL;
  if (((flags & CL_MAP_READ) && !host_may_read(m)) || (writes && !host_may_write(m)))
    return *e = CL_INVALID_OPERATION, NULL;
  command *c = mem_command(run_map, &(map_data){m, 0}, sizeof(map_data), m, NULL);
  ctx_lock(q->ctx);
  m->maps++; /* counted at once, so that an unmap enqueued right after finds it */
  ctx_unlock(q->ctx);
  *e = submit(q, c, CL_COMMAND_MAP_BUFFER, nwaits, waits, out, blocking);
  return *e ? NULL : m->data + offset;
}

WCL_API cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *ptr, cl_uint nwaits,
                                       const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (!err) err = check_mem(q, m);
  if (err) return err;
  ctx_lock(q->ctx);
  int mapped = m->maps > 0 && (char *)ptr >= m->data && (char *)ptr < m->data + m->size;
  ctx_unlock(q->ctx);
  if (!mapped) return CL_INVALID_VALUE;
  return submit(q, mem_command(run_map, &(map_data){m, 1}, sizeof(map_data), m, NULL),
                CL_COMMAND_UNMAP_MEM_OBJECT, nwaits, waits, out, 0);
}

WCL_API cl_int clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint n, const cl_mem *mems,
                                          cl_mem_migration_flags flags, cl_uint nwaits,
                                          const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  if (err) return err;
  if (!n || !mems ||
      flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                        CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++)
    if ((err = check_mem(q, mems[i]))) return err;
  /* one memory for host and device: nothing moves */
  return submit(q, cmd_new(run_map, sizeof(map_data), 0), CL_COMMAND_MIGRATE_MEM_OBJECTS, nwaits,
                waits, out, 0);
}

/* ---- markers, barriers ---- */

static cl_int run_nothing(command *c) { return (void)c, CL_SUCCESS; }

/* In an in-order queue, a marker or barrier waits for every command before it by being after
 * them. */
WCL_API cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint nwaits,
                                           const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  return err ? err
             : submit(q, cmd_new(run_nothing, 0, 0), CL_COMMAND_MARKER, nwaits, waits, out, 0);
}

WCL_API cl_int clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint nwaits,
                                            const cl_event *waits, cl_event *out) {
  cl_int err = check_common(q, nwaits, waits);
  return err ? err
             : submit(q, cmd_new(run_nothing, 0, 0), CL_COMMAND_BARRIER, nwaits, waits, out, 0);
}

WCL_API cl_int clEnqueueMarker(cl_command_queue q, cl_event *out) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  return out ? clEnqueueMarkerWithWaitList(q, 0, NULL, out) : CL_INVALID_VALUE;
}

WCL_API cl_int clEnqueueBarrier(cl_command_queue q) {
  return clEnqueueBarrierWithWaitList(q, 0, NULL, NULL);
}

WCL_API cl_int clEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *events) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!n || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++) {
    if (!obj_valid(events[i], OBJ_EVENT)) return CL_INVALID_EVENT;
    if (events[i]->ctx != q->ctx) return CL_INVALID_CONTEXT;
  }
  return submit(q, cmd_new(run_nothing, 0, 0), CL_COMMAND_BARRIER, n, events, NULL, 0);
}

/* ---- kernels ---- */

/* What a launch needs, copied at the call: clSetKernelArg may change the kernel's arguments
 * before the command runs. The values follow the struct. */
typedef struct launch_data {
  cl_kernel k;
  weft_ndrange range;
  size_t offset[3];
  unsigned nargs;
  weft_arg *args;
  cl_mem *copied; /* per argument: its buffer, where the launch runs on an aligned copy */
  char **copy;    /* per argument: that copy of its whole buffer, while the launch runs */
} launch_data;

static const char *stats_file; /* WEFT_STATS, read once */

static void read_stats_env(void) {
  const char *p = getenv("WEFT_STATS");
  stats_file = p && *p ? p : NULL;
}

static const char *stats_path(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_stats_env);
  return stats_file;
}

/* Appends the launch's line to WEFT_STATS's file; the first failure is reported. */
static void stats_append(cl_context ctx, const char *kernel, const weft_ndrange *r,
                         const weft_stats *st) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return;
  weft_options w = weft_context_options(ctx->weft);
  stats_write_json(mem, kernel, &w, r, 1, st);
  fclose(mem);
  int fd = open(stats_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  static _Atomic int reported;
  if ((fd < 0 || write(fd, text, len) != (ssize_t)len) && !reported++)
    fprintf(stderr, "weft: WEFT_STATS=%s: %s\n", stats_file, strerror(errno));
  if (fd >= 0) close(fd);
  free(text);
}

/* ---- CL_MEM_USE_HOST_PTR memory that is not aligned as the kernel's elements need ----
 * OpenCL C lets a kernel's code assume a buffer aligned to its elements (a vector load of an
 * int8 may fault otherwise), so weft refuses a buffer that is not; the host's memory of a
 * USE_HOST_PTR buffer is whatever it allocated (malloc gives 16 bytes). Such a buffer's launch
 * runs on an aligned copy of the whole buffer (its sub-buffers keep their places in it, 128
 * bytes apart), which is written back to the host's memory when the kernel has run: the
 * specification lets an implementation cache USE_HOST_PTR memory so for the kernel's time. */

/* The alignment a buffer of elements of `size` bytes must have: the largest power of two that
 * divides it (a struct's size is a multiple of its alignment), up to a long16's 128. */
static size_t elements_align(size_t size) {
  size_t a = size & (~size + 1);
  return a == 0 || a > 128 ? 128 : a;
}

static int needs_copy(cl_mem m, size_t element) {
  return m && m->host_ptr && (uintptr_t)m->data % elements_align(element);
}

static cl_mem root_of(cl_mem m) { return m->parent ? m->parent : m; }

/* The copies, one per buffer (arguments on one buffer share it); 0, or -1 out of memory. */
static int copies_make(launch_data *d) {
  for (unsigned i = 0; i < d->nargs; i++) {
    cl_mem m = d->copied[i];
    if (!m) continue;
    cl_mem root = root_of(m);
    for (unsigned j = 0; j < i && !d->copy[i]; j++)
      if (d->copied[j] && root_of(d->copied[j]) == root) d->copy[i] = d->copy[j];
    if (!d->copy[i]) {
      if (!(d->copy[i] = weft_buffer_alloc(root->size))) return -1;
      memcpy(d->copy[i], root->data, root->size);
    }
    d->args[i].value = d->copy[i] + m->origin;
  }
  return 0;
}

/* Each copy written back (unless the kernel may only read its buffer) and freed, once. */
static void copies_done(launch_data *d, int ran) {
  for (unsigned i = 0; i < d->nargs; i++) {
    if (!d->copy[i]) continue;
    int first = 1;
    for (unsigned j = 0; j < i; j++) first &= d->copy[j] != d->copy[i];
    if (!first) continue;
    cl_mem root = root_of(d->copied[i]);
    if (ran && !(root->flags & CL_MEM_READ_ONLY)) memcpy(root->data, d->copy[i], root->size);
    weft_buffer_free(d->copy[i], root->size);
  }
}

static cl_int run_launch(command *c) {
  launch_data *d = c->data;
  cl_context ctx = d->k->program->ctx;
  weft_stats st, *want = stats_path() ? &st : NULL;
  if (copies_make(d)) return copies_done(d, 0), CL_OUT_OF_HOST_MEMORY;
  weft_status s = weft_kernel_launch_offset(d->k->weft, &d->range, d->offset, d->nargs, d->args,
                                            want);
  copies_done(d, s == WEFT_SUCCESS);
  if (s != WEFT_SUCCESS) {
    ctx_notify(ctx, weft_last_error(ctx->weft));
    return CL_OUT_OF_RESOURCES;
  }
  if (want) stats_append(ctx, weft_kernel_name(d->k->weft), &d->range, want);
  return CL_SUCCESS;
}

/* The largest divisor of g that is at most limit, preferring multiples of w. */
static size_t divisor_at_most(size_t g, size_t limit, size_t w) {
  for (size_t d = limit - limit % w; d >= w; d -= w)
    if (g % d == 0) return d;
  for (size_t d = limit < g ? limit : g; d > 1; d--)
    if (g % d == 0) return d;
  return 1;
}

/* A work-group size when the host gives none: up to 256 work-items (8 warps of 32: work-groups
 * enough to share among the workers), x first. */
static void pick_local(cl_uint dims, const size_t *global, size_t *local, size_t w) {
  size_t budget = 256;
  for (cl_uint d = 0; d < dims; d++) {
    local[d] = divisor_at_most(global[d], budget, d == 0 ? w : 1);
    budget /= local[d];
    if (!budget) budget = 1;
  }
}

static cl_int check_range(cl_uint dims, const size_t *offset, const size_t *global,
                          const size_t *local) {
  if (dims < 1 || dims > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global) return CL_INVALID_GLOBAL_WORK_SIZE;
  size_t items = 1;
  for (cl_uint d = 0; d < dims; d++) {
    if (!global[d]) return CL_INVALID_GLOBAL_WORK_SIZE;
    if (offset && offset[d] > SIZE_MAX - global[d]) return CL_INVALID_GLOBAL_OFFSET;
    if (!local) continue;
    if (!local[d] || local[d] > WCL_MAX_GROUP_ITEMS) return CL_INVALID_WORK_ITEM_SIZE;
    if (global[d] % local[d]) return CL_INVALID_WORK_GROUP_SIZE;
    items *= local[d];
  }
  return items > WCL_MAX_GROUP_ITEMS ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
}

/* The kernel's arguments: all set, buffers alive; the bytes of their values and __local. */
static cl_int check_args(cl_kernel k, cl_context ctx, size_t *value_bytes) {
  size_t local = weft_kernel_local_mem_size(k->weft); /* its own __local arrays */
  *value_bytes = 0;
  for (cl_uint i = 0; i < k->nargs; i++) {
    const kernel_arg *a = &k->args[i];
    if (!a->set) return CL_INVALID_KERNEL_ARGS;
    if (a->mem && (!obj_valid(a->mem, OBJ_MEM) || a->mem->ctx != ctx))
      return CL_INVALID_KERNEL_ARGS;
    if (a->info.kind == WEFT_ARG_LOCAL) local += a->size;
    if (a->info.kind == WEFT_ARG_VALUE) *value_bytes += a->size;
  }
  return local > WCL_LOCAL_MEM_SIZE ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
}

/* weft wants memory for every buffer argument: a NULL cl_mem gets these bytes, which a
 * kernel may use (it is the host's mistake) without harm. */
static char null_buffer[64];

static void fill_args(command *c, cl_kernel k) {
  launch_data *d = c->data;
  d->args = (weft_arg *)(d + 1);
  d->copied = (cl_mem *)(d->args + k->nargs);
  d->copy = (char **)(d->copied + k->nargs);
  unsigned char *values = (unsigned char *)(d->copy + k->nargs);
  for (cl_uint i = 0; i < k->nargs; i++) {
    const kernel_arg *a = &k->args[i];
    weft_arg *w = &d->args[i];
    w->kind = a->info.kind, w->type = a->info.type, w->size = a->size;
    d->copied[i] = NULL, d->copy[i] = NULL;
    if (a->info.kind == WEFT_ARG_VALUE) {
      memcpy(values, a->value, a->size);
      w->value = values;
      values += a->size;
    } else if (a->info.kind != WEFT_ARG_LOCAL) {
      w->value = a->mem ? a->mem->data : null_buffer;
      w->size = a->mem ? a->mem->size : sizeof null_buffer;
      if (a->mem) cmd_hold(c, a->mem);
      if (needs_copy(a->mem, a->info.size)) d->copied[i] = a->mem;
    }
  }
  d->nargs = k->nargs;
  /* every argument on a copied buffer uses the copy, whatever its elements: the kernel's
   * writes through one are seen through the others, and none is lost to the write-back */
  for (cl_uint i = 0; i < k->nargs; i++)
    for (cl_uint j = 0; j < k->nargs && !d->copied[i] && k->args[i].mem; j++)
      if (d->copied[j] && root_of(d->copied[j]) == root_of(k->args[i].mem))
        d->copied[i] = k->args[i].mem;
}

static cl_int enqueue_kernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                             const size_t *global, const size_t *local, cl_command_type type,
                             cl_uint nwaits, const cl_event *waits, cl_event *out) {
  if (!obj_valid(q, OBJ_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  if (k->program->ctx != q->ctx) return CL_INVALID_CONTEXT;
  size_t value_bytes;
  cl_int err = check_range(dims, offset, global, local);
  if (!err) err = check_args(k, q->ctx, &value_bytes);
  if (!err) err = check_wait_list(q->ctx, nwaits, waits);
  if (err) return err;
  size_t per_arg = sizeof(weft_arg) + sizeof(cl_mem) + sizeof(char *);
  command *c = cmd_new(run_launch, sizeof(launch_data) + k->nargs * per_arg + value_bytes,
                       k->nargs + 1);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  launch_data *d = c->data;
  d->k = k;
  cmd_hold(c, k);
  d->range.dims = dims;
  for (cl_uint i = dims; i < 3; i++) d->range.global[i] = d->range.local[i] = 1;
  for (cl_uint i = 0; i < dims; i++) {
    d->range.global[i] = global[i];
    d->offset[i] = offset ? offset[i] : 0;
    if (local) d->range.local[i] = local[i];
  }
  if (!local) pick_local(dims, global, d->range.local, q->ctx->warp);
  fill_args(c, k);
  return submit(q, c, type, nwaits, waits, out, 0);
}

WCL_API cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                                      const size_t *offset, const size_t *global,
                                      const size_t *local, cl_uint nwaits, const cl_event *waits,
                                      cl_event *out) {
  return enqueue_kernel(q, k, dims, offset, global, local, CL_COMMAND_NDRANGE_KERNEL, nwaits, waits,
                        out);
}

WCL_API cl_int clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nwaits, const cl_event *waits,
                             cl_event *out) {
  static const size_t one[1] = {1};
  return enqueue_kernel(q, k, 1, NULL, one, one, CL_COMMAND_TASK, nwaits, waits, out);
}

WCL_API cl_int clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *fn)(void *), void *args,
                                     size_t size, cl_uint nmems, const cl_mem *mems,
                                     const void **locs, cl_uint nwaits, const cl_event *waits,
                                     cl_event *out) {
  (void)fn, (void)args, (void)size, (void)nmems, (void)mems, (void)locs, (void)nwaits;
  (void)waits, (void)out;
  /* CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL */
  return obj_valid(q, OBJ_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}

/* ---- images: none can exist ---- */

static cl_int no_image(cl_command_queue q) {
  return obj_valid(q, OBJ_QUEUE) ? CL_INVALID_MEM_OBJECT : CL_INVALID_COMMAND_QUEUE;
}

WCL_API cl_int clEnqueueReadImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                  const size_t *origin, const size_t *region, size_t row,
                                  size_t slice, void *ptr, cl_uint nwaits, const cl_event *waits,
                                  cl_event *out) {
  (void)image, (void)blocking, (void)origin, (void)region, (void)row, (void)slice, (void)ptr;
  (void)nwaits, (void)waits, (void)out;
  return no_image(q);
}

WCL_API cl_int clEnqueueWriteImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                   const size_t *origin, const size_t *region, size_t row,
                                   size_t slice, const void *ptr, cl_uint nwaits,
                                   const cl_event *waits, cl_event *out) {
  (void)image, (void)blocking, (void)origin, (void)region, (void)row, (void)slice, (void)ptr;
  (void)nwaits, (void)waits, (void)out;
  return no_image(q);
}

WCL_API cl_int clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst,
                                  const size_t *src_origin, const size_t *dst_origin,
                                  const size_t *region, cl_uint nwaits, const cl_event *waits,
                                  cl_event *out) {
  (void)src, (void)dst, (void)src_origin, (void)dst_origin, (void)region, (void)nwaits;
  (void)waits, (void)out;
  return no_image(q);
}

WCL_API cl_int clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                          const size_t *origin, const size_t *region, size_t offset,
                                          cl_uint nwaits, const cl_event *waits, cl_event *out) {
  (void)src, (void)dst, (void)origin, (void)region, (void)offset, (void)nwaits, (void)waits;
  (void)out;
  return no_image(q);
}

WCL_API cl_int clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst, size_t offset,
                                          const size_t *origin, const size_t *region,
                                          cl_uint nwaits, const cl_event *waits, cl_event *out) {
  (void)src, (void)dst, (void)origin, (void)region, (void)offset, (void)nwaits, (void)waits;
  (void)out;
  return no_image(q);
}

WCL_API void *clEnqueueMapImage(cl_command_queue q, cl_mem image, cl_bool blocking,
                                cl_map_flags flags, const size_t *origin, const size_t *region,
                                size_t *row, size_t *slice, cl_uint nwaits, const cl_event *waits,
                                cl_event *out, cl_int *errcode_ret) {
  (void)image, (void)blocking, (void)flags, (void)origin, (void)region, (void)row, (void)slice;
  (void)nwaits, (void)waits, (void)out;
  if (errcode_ret) *errcode_ret = no_image(q);
  return NULL;
}

WCL_API cl_int clEnqueueFillImage(cl_command_queue q, cl_mem image, const void *color,
                                  const size_t *origin, const size_t *region, cl_uint nwaits,
                                  const cl_event *waits, cl_event *out) {
  (void)image, (void)color, (void)origin, (void)region, (void)nwaits, (void)waits, (void)out;
  return no_image(q);
}
