/* Buffers and sub-buffers. A buffer's bytes are the host's own memory (the device is the host):
 * weft_buffer_alloc'd here, between inaccessible regions, so that a kernel that runs past
 * its buffer faults instead of writing the host's heap; or, with CL_MEM_USE_HOST_PTR, the
 * host's memory itself, as the specification wants (the kernel works on it in place, unless it
 * is not aligned as the kernel's elements need: enqueue.c). A
 * sub-buffer is a window on its buffer's bytes. Mapping returns a pointer into the bytes.
 *
 * Images and samplers are not supported: no device of the platform supports images
 * (CL_DEVICE_IMAGE_SUPPORT is false), and their calls answer as the specification says then. */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOST_ACCESS_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

struct mem_destructor {
  struct mem_destructor *next;
  void(CL_CALLBACK *fn)(cl_mem, void *);
  void *user;
};

static int one_at_most(cl_mem_flags f) { return (f & (f - 1)) == 0; }

static cl_int check_flags(cl_mem_flags f) {
  if (f & ~(cl_mem_flags)(ACCESS_FLAGS | HOST_PTR_FLAGS | HOST_ACCESS_FLAGS))
    return CL_INVALID_VALUE;
  if (!one_at_most(f & ACCESS_FLAGS) || !one_at_most(f & HOST_ACCESS_FLAGS))
    return CL_INVALID_VALUE;
  if ((f & CL_MEM_USE_HOST_PTR) && (f & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

static void mem_destroy(icd_obj *o) {
  cl_mem m = (cl_mem)o;
  /* the callbacks run in the reverse order of their registration: the list's order */
  while (m->destructors) {
    struct mem_destructor *d = m->destructors;
    d->fn(m, d->user);
    m->destructors = d->next;
    free(d);
  }
  if (m->owned) weft_buffer_free(m->data, m->size);
  if (m->parent) obj_drop(m->parent);
  obj_drop(m->ctx);
  obj_free(&m->o);
}

static cl_mem mem_new(cl_context ctx, cl_mem_flags flags, size_t size) {
  cl_mem m = obj_alloc(OBJ_MEM, sizeof *m);
  if (!m) return NULL;
  m->ctx = ctx, m->flags = flags, m->size = size;
  obj_hold(ctx);
  return m;
}

WCL_API cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host_ptr,
                              cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(ctx, OBJ_CONTEXT)) return *e = CL_INVALID_CONTEXT, NULL;
  if ((*e = check_flags(flags))) return NULL;
  cl_ulong max;
  clGetDeviceInfo(&wcl_device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max, &max, NULL);
  if (size == 0 || size > max) return *e = CL_INVALID_BUFFER_SIZE, NULL;
  int wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
  if (wants_ptr != (host_ptr != NULL)) return *e = CL_INVALID_HOST_PTR, NULL;
  if (!(flags & ACCESS_FLAGS)) flags |= CL_MEM_READ_WRITE;
  cl_mem m = mem_new(ctx, flags, size);
  if (!m) return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  if (flags & CL_MEM_USE_HOST_PTR) m->data = host_ptr, m->host_ptr = host_ptr;
  else if ((m->data = weft_buffer_alloc(size))) m->owned = 1;
  else {
    obj_drop(ctx);
    obj_free(&m->o);
    return *e = CL_MEM_OBJECT_ALLOCATION_FAILURE, NULL;
  }
  if (flags & CL_MEM_COPY_HOST_PTR) memcpy(m->data, host_ptr, size);
  obj_register(&m->o, OBJ_MEM, mem_destroy);
  *e = CL_SUCCESS;
  return m;
}

/* A sub-buffer's flags: what it gives, else its buffer's; never more access than that. */
static cl_int sub_flags(cl_mem parent, cl_mem_flags f, cl_mem_flags *out) {
  if (f & (HOST_PTR_FLAGS) || check_flags(f)) return CL_INVALID_VALUE;
  cl_mem_flags pa = parent->flags & ACCESS_FLAGS, ph = parent->flags & HOST_ACCESS_FLAGS;
  if ((f & ACCESS_FLAGS) && pa != CL_MEM_READ_WRITE && (f & ACCESS_FLAGS) != pa)
    return CL_INVALID_VALUE;
  if ((f & HOST_ACCESS_FLAGS) && ph && (f & HOST_ACCESS_FLAGS) != ph) return CL_INVALID_VALUE;
  if (!(f & ACCESS_FLAGS)) f |= pa;
  if (!(f & HOST_ACCESS_FLAGS)) f |= ph;
  *out = f | (parent->flags & HOST_PTR_FLAGS);
  return CL_SUCCESS;
}

WCL_API cl_mem clCreateSubBuffer(cl_mem parent, cl_mem_flags flags, cl_buffer_create_type type,
                                 const void *info, cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(parent, OBJ_MEM) || parent->parent) return *e = CL_INVALID_MEM_OBJECT, NULL;
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) return *e = CL_INVALID_VALUE, NULL;
  if ((*e = sub_flags(parent, flags, &flags))) return NULL;
  const cl_buffer_region *r = info;
  if (r->size == 0) return *e = CL_INVALID_BUFFER_SIZE, NULL;
  if (r->origin > parent->size || r->size > parent->size - r->origin)
    return *e = CL_INVALID_VALUE, NULL;
  if (r->origin % WEFT_BUFFER_ALIGN) /* CL_DEVICE_MEM_BASE_ADDR_ALIGN */
    return *e = CL_MISALIGNED_SUB_BUFFER_OFFSET, NULL;
  cl_mem m = mem_new(parent->ctx, flags, r->size);
  if (!m) return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  m->data = parent->data + r->origin, m->origin = r->origin, m->parent = parent;
  if (parent->host_ptr) m->host_ptr = (char *)parent->host_ptr + r->origin;
  obj_hold(parent);
  obj_register(&m->o, OBJ_MEM, mem_destroy);
  *e = CL_SUCCESS;
  return m;
}

WCL_API cl_int clRetainMemObject(cl_mem m) {
  return obj_retain(m, OBJ_MEM) ? CL_INVALID_MEM_OBJECT : CL_SUCCESS;
}

WCL_API cl_int clReleaseMemObject(cl_mem m) {
  return obj_release(m, OBJ_MEM) ? CL_INVALID_MEM_OBJECT : CL_SUCCESS;
}

WCL_API cl_int clSetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *),
                                                void *user) {
  if (!obj_valid(m, OBJ_MEM)) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  struct mem_destructor *d = malloc(sizeof *d);
  if (!d) return CL_OUT_OF_HOST_MEMORY;
  ctx_lock(m->ctx);
  *d = (struct mem_destructor){m->destructors, fn, user};
  m->destructors = d;
  ctx_unlock(m->ctx);
  return CL_SUCCESS;
}

WCL_API cl_int clGetMemObjectInfo(cl_mem m, cl_mem_info name, size_t size, void *value,
                                  size_t *size_ret) {
  if (!obj_valid(m, OBJ_MEM)) return CL_INVALID_MEM_OBJECT;
  cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
  cl_uint u;
  switch (name) {
  case CL_MEM_TYPE: return info_put(value, size, size_ret, &type, sizeof type);
  case CL_MEM_FLAGS: return info_put(value, size, size_ret, &m->flags, sizeof m->flags);
  case CL_MEM_SIZE: return info_put(value, size, size_ret, &m->size, sizeof m->size);
  case CL_MEM_HOST_PTR: return info_put(value, size, size_ret, &m->host_ptr, sizeof m->host_ptr);
  case CL_MEM_MAP_COUNT:
    ctx_lock(m->ctx);
    u = m->maps;
    ctx_unlock(m->ctx);
    return info_put(value, size, size_ret, &u, sizeof u);
  case CL_MEM_REFERENCE_COUNT:
    u = obj_refs(m);
    return info_put(value, size, size_ret, &u, sizeof u);
  case CL_MEM_CONTEXT: return info_put(value, size, size_ret, &m->ctx, sizeof m->ctx);
  case CL_MEM_ASSOCIATED_MEMOBJECT:
    return info_put(value, size, size_ret, &m->parent, sizeof m->parent);
  case CL_MEM_OFFSET: return info_put(value, size, size_ret, &m->origin, sizeof m->origin);
  default: return CL_INVALID_VALUE;
  }
}

/* ---- images and samplers: not supported ---- */

WCL_API cl_mem clCreateImage(cl_context ctx, cl_mem_flags flags, const cl_image_format *format,
                             const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret) {
  (void)flags, (void)format, (void)desc, (void)host_ptr;
  cl_int err = obj_valid(ctx, OBJ_CONTEXT) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

WCL_API cl_mem clCreateImage2D(cl_context ctx, cl_mem_flags flags, const cl_image_format *format,
                               size_t w, size_t h, size_t pitch, void *host_ptr,
                               cl_int *errcode_ret) {
  (void)w, (void)h, (void)pitch;
  return clCreateImage(ctx, flags, format, NULL, host_ptr, errcode_ret);
}

WCL_API cl_mem clCreateImage3D(cl_context ctx, cl_mem_flags flags, const cl_image_format *format,
                               size_t w, size_t h, size_t d, size_t row_pitch, size_t slice_pitch,
                               void *host_ptr, cl_int *errcode_ret) {
  (void)w, (void)h, (void)d, (void)row_pitch, (void)slice_pitch;
  return clCreateImage(ctx, flags, format, NULL, host_ptr, errcode_ret);
}

WCL_API cl_int clGetSupportedImageFormats(cl_context ctx, cl_mem_flags flags,
                                          cl_mem_object_type type, cl_uint n,
                                          cl_image_format *formats, cl_uint *num) {
  (void)flags, (void)type, (void)n, (void)formats;
  if (!obj_valid(ctx, OBJ_CONTEXT)) return CL_INVALID_CONTEXT;
  if (num) *num = 0;
  return CL_SUCCESS;
}

WCL_API cl_int clGetImageInfo(cl_mem image, cl_image_info name, size_t size, void *value,
                              size_t *size_ret) {
  (void)image, (void)name, (void)size, (void)value, (void)size_ret;
  return CL_INVALID_MEM_OBJECT; /* no image object can exist */
}

WCL_API cl_sampler clCreateSampler(cl_context ctx, cl_bool normalized, cl_addressing_mode a,
                                   cl_filter_mode f, cl_int *errcode_ret) {
  (void)normalized, (void)a, (void)f;
  cl_int err = obj_valid(ctx, OBJ_CONTEXT) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

WCL_API cl_int clRetainSampler(cl_sampler s) { return (void)s, CL_INVALID_SAMPLER; }

WCL_API cl_int clReleaseSampler(cl_sampler s) { return (void)s, CL_INVALID_SAMPLER; }

WCL_API cl_int clGetSamplerInfo(cl_sampler s, cl_sampler_info name, size_t size, void *value,
                                size_t *size_ret) {
  (void)s, (void)name, (void)size, (void)value, (void)size_ret;
  return CL_INVALID_SAMPLER;
}
