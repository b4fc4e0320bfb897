/* Programs and kernels: OpenCL C source built by weft_program_build_source, with the build's
 * log (clang's diagnostics) kept per program; kernels with their arguments as clSetKernelArg
 * leaves them, checked against weft_kernel_arg_info at once, so that a wrong size is
 * CL_INVALID_ARG_SIZE there and not a failed launch later.
 *
 * Program binaries are refused (clCreateProgramWithBinary: CL_INVALID_BINARY; a built program
 * has no binary to give), and separate compilation and linking are not supported. */
#include <stdlib.h>
#include <string.h>

#include "icd.h"

/* ---- programs ---- */

static void program_destroy(icd_obj *o) {
  cl_program p = (cl_program)o;
  ctx_lock(p->ctx);
  weft_program_release(p->weft);
  ctx_unlock(p->ctx);
  obj_drop(p->ctx);
  free(p->source);
  free(p->options);
  free(p->log);
  obj_free(&p->o);
}

/* The sources joined into one string; NULL when out of memory. */
static char *join_sources(cl_uint n, const char **strings, const size_t *lengths) {
  size_t total = 1;
  for (cl_uint i = 0; i < n; i++) total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  char *s = malloc(total), *at = s;
  for (cl_uint i = 0; s && i < n; i++) {
    size_t len = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    memcpy(at, strings[i], len);
    at += len;
  }
  if (s) *at = 0;
  return s;
}

WCL_API cl_program clCreateProgramWithSource(cl_context ctx, cl_uint n, const char **strings,
                                             const size_t *lengths, cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(ctx, OBJ_CONTEXT)) return *e = CL_INVALID_CONTEXT, NULL;
  if (!n || !strings) return *e = CL_INVALID_VALUE, NULL;
  for (cl_uint i = 0; i < n; i++)
    if (!strings[i]) return *e = CL_INVALID_VALUE, NULL;
  cl_program p = obj_alloc(OBJ_PROGRAM, sizeof *p);
  if (p) p->source = join_sources(n, strings, lengths);
  if (!p || !p->source) {
    if (p) obj_free(&p->o);
    return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  }
  p->ctx = ctx, p->status = CL_BUILD_NONE;
  obj_hold(ctx);
  obj_register(&p->o, OBJ_PROGRAM, program_destroy);
  *e = CL_SUCCESS;
  return p;
}

static cl_int check_devices(cl_uint n, const cl_device_id *devices) {
  if ((n == 0) != (devices == NULL)) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++)
    if (devices[i] != &wcl_device) return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

WCL_API cl_program clCreateProgramWithBinary(cl_context ctx, cl_uint n, const cl_device_id *devices,
                                             const size_t *lengths, const unsigned char **binaries,
                                             cl_int *status, cl_int *errcode_ret) {
  cl_int err = !obj_valid(ctx, OBJ_CONTEXT) ? CL_INVALID_CONTEXT
               : !n || !devices             ? CL_INVALID_VALUE
                                            : check_devices(n, devices);
  if (!err && (!lengths || !binaries)) err = CL_INVALID_VALUE;
  for (cl_uint i = 0; !err && i < n; i++)
    if (!lengths[i] || !binaries[i]) err = CL_INVALID_VALUE;
  if (!err) { /* weft has no program binaries: every one is refused */
    err = CL_INVALID_BINARY;
    for (cl_uint i = 0; status && i < n; i++) status[i] = CL_INVALID_BINARY;
  }
  if (errcode_ret) *errcode_ret = err;
  return NULL;
}

WCL_API cl_program clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint n,
                                                     const cl_device_id *devices, const char *names,
                                                     cl_int *errcode_ret) {
  cl_int err = !obj_valid(ctx, OBJ_CONTEXT) ? CL_INVALID_CONTEXT
               : !n || !devices || !names   ? CL_INVALID_VALUE
                                            : check_devices(n, devices);
  if (errcode_ret) *errcode_ret = err ? err : CL_INVALID_VALUE; /* there are none */
  return NULL;
}

WCL_API cl_int clRetainProgram(cl_program p) {
  return obj_retain(p, OBJ_PROGRAM) ? CL_INVALID_PROGRAM : CL_SUCCESS;
}

WCL_API cl_int clReleaseProgram(cl_program p) {
  return obj_release(p, OBJ_PROGRAM) ? CL_INVALID_PROGRAM : CL_SUCCESS;
}

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

/* Builds p (lock held): its status, log and weft program; the OpenCL status. */
static cl_int build(cl_program p, const char *options) {
  weft_context *w = p->ctx->weft;
  weft_program_release(p->weft);
  p->weft = NULL;
  free(p->options), free(p->log);
  p->options = dup_or_empty(options);
  weft_status st = weft_program_build_source(w, "program.cl", p->source, options, &p->weft);
  p->log = dup_or_empty(st ? weft_last_error(w) : weft_program_build_log(p->weft));
  p->status = st ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
  if (!p->options || !p->log) return CL_OUT_OF_HOST_MEMORY;
  switch (st) {
  case WEFT_SUCCESS: return CL_SUCCESS;
  case WEFT_ERROR_INVALID_VALUE: return CL_INVALID_BUILD_OPTIONS;
  case WEFT_ERROR_OUT_OF_MEMORY: return CL_OUT_OF_HOST_MEMORY;
  default: return CL_BUILD_PROGRAM_FAILURE;
  }
}

WCL_API cl_int clBuildProgram(cl_program p, cl_uint n, const cl_device_id *devices,
                              const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                              void *user) {
  if (!obj_valid(p, OBJ_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int err = check_devices(n, devices);
  if (err) return err;
  if (!notify && user) return CL_INVALID_VALUE;
  ctx_lock(p->ctx);
  err = p->kernels ? CL_INVALID_OPERATION : build(p, options);
  ctx_unlock(p->ctx);
  if (notify && err != CL_INVALID_OPERATION) notify(p, user); /* the build is over */
  return err;
}

WCL_API cl_int clCompileProgram(cl_program p, cl_uint n, const cl_device_id *devices,
                                const char *options, cl_uint nheaders, const cl_program *headers,
                                const char **names, void(CL_CALLBACK *notify)(cl_program, void *),
                                void *user) {
  (void)n, (void)devices, (void)options, (void)nheaders, (void)headers, (void)names;
  (void)notify, (void)user;
  return obj_valid(p, OBJ_PROGRAM) ? CL_INVALID_OPERATION : CL_INVALID_PROGRAM;
}

WCL_API cl_program clLinkProgram(cl_context ctx, cl_uint n, const cl_device_id *devices,
                                 const char *options, cl_uint nprograms, const cl_program *programs,
                                 void(CL_CALLBACK *notify)(cl_program, void *), void *user,
                                 cl_int *errcode_ret) {
  (void)n, (void)devices, (void)options, (void)nprograms, (void)programs, (void)notify;
  (void)user;
  /* CL_DEVICE_LINKER_AVAILABLE is false */
  if (errcode_ret)
    *errcode_ret = obj_valid(ctx, OBJ_CONTEXT) ? CL_LINKER_NOT_AVAILABLE : CL_INVALID_CONTEXT;
  return NULL;
}

/* The kernel names joined by ';' (CL_PROGRAM_KERNEL_NAMES); their number in *count. */
static char *kernel_names(const weft_program *w, size_t *count) {
  size_t len = 1, n = 0;
  for (const char *k; (k = weft_program_kernel_name(w, (unsigned)n)); n++) len += strlen(k) + 1;
  char *s = malloc(len);
  if (!s) return NULL;
  s[0] = 0;
  for (unsigned i = 0; i < n; i++) {
    if (i) strcat(s, ";");
    strcat(s, weft_program_kernel_name(w, i));
  }
  *count = n;
  return s;
}

static cl_int built_info(cl_program p, cl_program_info name, size_t size, void *value,
                         size_t *size_ret) {
  if (p->status != CL_BUILD_SUCCESS) return CL_INVALID_PROGRAM_EXECUTABLE;
  size_t n = 0;
  char *names = kernel_names(p->weft, &n);
  if (!names) return CL_OUT_OF_HOST_MEMORY;
  cl_int err = name == CL_PROGRAM_NUM_KERNELS ? info_put(value, size, size_ret, &n, sizeof n)
                                              : info_str(value, size, size_ret, names);
  free(names);
  return err;
}

WCL_API cl_int clGetProgramInfo(cl_program p, cl_program_info name, size_t size, void *value,
                                size_t *size_ret) {
  if (!obj_valid(p, OBJ_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_uint u;
  cl_device_id d = &wcl_device;
  size_t zero = 0;
  cl_int err;
  ctx_lock(p->ctx);
  switch (name) {
  case CL_PROGRAM_REFERENCE_COUNT:
    u = obj_refs(p);
    err = info_put(value, size, size_ret, &u, sizeof u);
    break;
  case CL_PROGRAM_CONTEXT: err = info_put(value, size, size_ret, &p->ctx, sizeof p->ctx); break;
  case CL_PROGRAM_NUM_DEVICES:
    u = 1;
    err = info_put(value, size, size_ret, &u, sizeof u);
    break;
  case CL_PROGRAM_DEVICES: err = info_put(value, size, size_ret, &d, sizeof d); break;
  case CL_PROGRAM_SOURCE: err = info_str(value, size, size_ret, p->source); break;
  case CL_PROGRAM_BINARY_SIZES: err = info_put(value, size, size_ret, &zero, sizeof zero); break;
  case CL_PROGRAM_BINARIES: /* one pointer per device, to nothing: the size is 0 */
    err = info_put(NULL, 0, size_ret, NULL, sizeof(unsigned char *));
    if (!err && value && size < sizeof(unsigned char *)) err = CL_INVALID_VALUE;
    break;
  case CL_PROGRAM_NUM_KERNELS:
  case CL_PROGRAM_KERNEL_NAMES: err = built_info(p, name, size, value, size_ret); break;
  default: err = CL_INVALID_VALUE;
  }
  ctx_unlock(p->ctx);
  return err;
}

WCL_API cl_int clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info name,
                                     size_t size, void *value, size_t *size_ret) {
  if (!obj_valid(p, OBJ_PROGRAM)) return CL_INVALID_PROGRAM;
  if (d != &wcl_device) return CL_INVALID_DEVICE;
  cl_program_binary_type type = p->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                                              : CL_PROGRAM_BINARY_TYPE_NONE;
  cl_int err;
  ctx_lock(p->ctx);
  switch (name) {
  case CL_PROGRAM_BUILD_STATUS:
    err = info_put(value, size, size_ret, &p->status, sizeof p->status);
    break;
  case CL_PROGRAM_BUILD_OPTIONS:
    err = info_str(value, size, size_ret, p->options ? p->options : "");
    break;
  case CL_PROGRAM_BUILD_LOG: err = info_str(value, size, size_ret, p->log ? p->log : ""); break;
  case CL_PROGRAM_BINARY_TYPE: err = info_put(value, size, size_ret, &type, sizeof type); break;
  default: err = CL_INVALID_VALUE;
  }
  ctx_unlock(p->ctx);
  return err;
}

/* ---- kernels ---- */

static void kernel_destroy(icd_obj *o) {
  cl_kernel k = (cl_kernel)o;
  cl_program p = k->program;
  ctx_lock(p->ctx);
  weft_kernel_release(k->weft);
  p->kernels--;
  ctx_unlock(p->ctx);
  for (cl_uint i = 0; i < k->nargs; i++) free(k->args[i].value);
  free(k->args);
  obj_free(&k->o);
  obj_drop(p);
}

/* A kernel object for the kernel `name` of p (lock held). */
static cl_kernel kernel_new(cl_program p, const char *name, cl_int *e) {
  cl_kernel k = obj_alloc(OBJ_KERNEL, sizeof *k);
  if (!k) return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  weft_status st = weft_kernel_create(p->weft, name, &k->weft);
  if (st) {
    obj_free(&k->o);
    *e = st == WEFT_ERROR_KERNEL_NOT_FOUND ? CL_INVALID_KERNEL_NAME : CL_OUT_OF_RESOURCES;
    return NULL;
  }
  k->nargs = weft_kernel_num_args(k->weft);
  k->args = calloc(k->nargs ? k->nargs : 1, sizeof *k->args);
  if (!k->args) {
    weft_kernel_release(k->weft);
    obj_free(&k->o);
    return *e = CL_OUT_OF_HOST_MEMORY, NULL;
  }
  for (cl_uint i = 0; i < k->nargs; i++) weft_kernel_arg_info(k->weft, i, &k->args[i].info);
  k->program = p;
  p->kernels++;
  obj_hold(p);
  obj_register(&k->o, OBJ_KERNEL, kernel_destroy);
  *e = CL_SUCCESS;
  return k;
}

WCL_API cl_kernel clCreateKernel(cl_program p, const char *name, cl_int *errcode_ret) {
  cl_int err, *e = errcode_ret ? errcode_ret : &err;
  if (!obj_valid(p, OBJ_PROGRAM)) return *e = CL_INVALID_PROGRAM, NULL;
  if (!name) return *e = CL_INVALID_VALUE, NULL;
  ctx_lock(p->ctx);
  cl_kernel k = NULL;
  if (p->status != CL_BUILD_SUCCESS) *e = CL_INVALID_PROGRAM_EXECUTABLE;
  else k = kernel_new(p, name, e);
  ctx_unlock(p->ctx);
  return k;
}

WCL_API cl_int clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *num) {
  if (!obj_valid(p, OBJ_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int err = CL_SUCCESS;
  ctx_lock(p->ctx);
  cl_uint count = 0;
  while (p->status == CL_BUILD_SUCCESS && weft_program_kernel_name(p->weft, count)) count++;
  if (p->status != CL_BUILD_SUCCESS) err = CL_INVALID_PROGRAM_EXECUTABLE;
  else if (kernels && n < count) err = CL_INVALID_VALUE;
  for (cl_uint i = 0; !err && kernels && i < count; i++) {
    kernels[i] = kernel_new(p, weft_program_kernel_name(p->weft, i), &err);
    while (err && i > 0) clReleaseKernel(kernels[--i]); /* all or none */
  }
  ctx_unlock(p->ctx);
  if (!err && num) *num = count;
  return err;
}

WCL_API cl_int clRetainKernel(cl_kernel k) {
  return obj_retain(k, OBJ_KERNEL) ? CL_INVALID_KERNEL : CL_SUCCESS;
}

WCL_API cl_int clReleaseKernel(cl_kernel k) {
  return obj_release(k, OBJ_KERNEL) ? CL_INVALID_KERNEL : CL_SUCCESS;
}

static cl_int set_buffer(kernel_arg *a, size_t size, const void *value) {
  if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  cl_mem m = value ? *(const cl_mem *)value : NULL;
  if (m && !obj_valid(m, OBJ_MEM)) return CL_INVALID_MEM_OBJECT;
  a->mem = m;
  return CL_SUCCESS;
}

static cl_int set_value(kernel_arg *a, size_t size, const void *value) {
  if (!value) return CL_INVALID_ARG_VALUE;
  if (size != a->info.size) return CL_INVALID_ARG_SIZE;
  if (!a->value && !(a->value = malloc(size))) return CL_OUT_OF_HOST_MEMORY;
  memcpy(a->value, value, size);
  return CL_SUCCESS;
}

/* Not thread-safe on one kernel, as OpenCL allows: its arguments are the host thread's. */
WCL_API cl_int clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value) {
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  if (index >= k->nargs) return CL_INVALID_ARG_INDEX;
  kernel_arg *a = &k->args[index];
  cl_int err;
  switch (a->info.kind) {
  case WEFT_ARG_GLOBAL:
  case WEFT_ARG_CONSTANT: err = set_buffer(a, size, value); break;
  case WEFT_ARG_LOCAL:
    err = value ? CL_INVALID_ARG_VALUE : size == 0 ? CL_INVALID_ARG_SIZE : CL_SUCCESS;
    break;
  default: err = set_value(a, size, value);
  }
  if (err) return err;
  a->size = size;
  a->set = 1;
  return CL_SUCCESS;
}

WCL_API cl_int clGetKernelInfo(cl_kernel k, cl_kernel_info name, size_t size, void *value,
                               size_t *size_ret) {
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  cl_uint u;
  switch (name) {
  case CL_KERNEL_FUNCTION_NAME: return info_str(value, size, size_ret, weft_kernel_name(k->weft));
  case CL_KERNEL_NUM_ARGS: return info_put(value, size, size_ret, &k->nargs, sizeof k->nargs);
  case CL_KERNEL_REFERENCE_COUNT:
    u = obj_refs(k);
    return info_put(value, size, size_ret, &u, sizeof u);
  case CL_KERNEL_CONTEXT:
    return info_put(value, size, size_ret, &k->program->ctx, sizeof k->program->ctx);
  case CL_KERNEL_PROGRAM: return info_put(value, size, size_ret, &k->program, sizeof k->program);
  case CL_KERNEL_ATTRIBUTES: return info_str(value, size, size_ret, "");
  default: return CL_INVALID_VALUE;
  }
}

/* Bytes of the __local arguments set so far (the kernel's own __local arrays are not known
 * here: weft.h does not say their size). */
static cl_ulong local_args_size(cl_kernel k) {
  cl_ulong n = 0;
  for (cl_uint i = 0; i < k->nargs; i++)
    if (k->args[i].info.kind == WEFT_ARG_LOCAL && k->args[i].set) n += k->args[i].size;
  return n;
}

WCL_API cl_int clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info name,
                                        size_t size, void *value, size_t *size_ret) {
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  if (d && d != &wcl_device) return CL_INVALID_DEVICE;
  size_t z, dims[3] = {0, 0, 0};
  cl_ulong ul;
  switch (name) {
  case CL_KERNEL_WORK_GROUP_SIZE: z = WCL_MAX_GROUP_ITEMS; break;
  case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: return info_put(value, size, size_ret, dims, sizeof dims);
  case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: z = k->program->ctx->warp; break;
  case CL_KERNEL_LOCAL_MEM_SIZE:
    ul = local_args_size(k) + weft_kernel_local_mem_size(k->weft);
    return info_put(value, size, size_ret, &ul, sizeof ul);
  case CL_KERNEL_PRIVATE_MEM_SIZE: ul = 0; return info_put(value, size, size_ret, &ul, sizeof ul);
  default: return CL_INVALID_VALUE;
  }
  return info_put(value, size, size_ret, &z, sizeof z);
}

WCL_API cl_int clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info name, size_t size,
                                  void *value, size_t *size_ret) {
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  if (index >= k->nargs) return CL_INVALID_ARG_INDEX;
  const weft_arg_info *a = &k->args[index].info;
  static const cl_kernel_arg_address_qualifier address[] = {
      [WEFT_ARG_VALUE] = CL_KERNEL_ARG_ADDRESS_PRIVATE,
      [WEFT_ARG_GLOBAL] = CL_KERNEL_ARG_ADDRESS_GLOBAL,
      [WEFT_ARG_CONSTANT] = CL_KERNEL_ARG_ADDRESS_CONSTANT,
      [WEFT_ARG_LOCAL] = CL_KERNEL_ARG_ADDRESS_LOCAL,
  };
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE; /* no images */
  cl_kernel_arg_type_qualifier q = CL_KERNEL_ARG_TYPE_NONE;
  if (a->qualifiers & WEFT_QUALIFIER_CONST || a->kind == WEFT_ARG_CONSTANT) /* const by its space */
    q |= CL_KERNEL_ARG_TYPE_CONST;
  if (a->qualifiers & WEFT_QUALIFIER_RESTRICT) q |= CL_KERNEL_ARG_TYPE_RESTRICT;
  if (a->qualifiers & WEFT_QUALIFIER_VOLATILE) q |= CL_KERNEL_ARG_TYPE_VOLATILE;
  switch (name) {
  case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
    return info_put(value, size, size_ret, &address[a->kind], sizeof address[a->kind]);
  case CL_KERNEL_ARG_ACCESS_QUALIFIER:
    return info_put(value, size, size_ret, &access, sizeof access);
  case CL_KERNEL_ARG_TYPE_NAME:
    return info_str(value, size, size_ret, a->type_name ? a->type_name : "");
  case CL_KERNEL_ARG_TYPE_QUALIFIER: return info_put(value, size, size_ret, &q, sizeof q);
  case CL_KERNEL_ARG_NAME: return info_str(value, size, size_ret, a->name ? a->name : "");
  default: return CL_INVALID_VALUE;
  }
}

WCL_API cl_int clGetKernelSubGroupInfoKHR(cl_kernel k, cl_device_id d,
                                          cl_kernel_sub_group_info name, size_t in_size,
                                          const void *in, size_t size, void *value,
                                          size_t *size_ret) {
  if (!obj_valid(k, OBJ_KERNEL)) return CL_INVALID_KERNEL;
  if (d && d != &wcl_device) return CL_INVALID_DEVICE;
  if (!in || !in_size || in_size % sizeof(size_t) || in_size > 3 * sizeof(size_t))
    return CL_INVALID_VALUE;
  size_t items = 1, w = k->program->ctx->warp, z;
  for (size_t i = 0; i < in_size / sizeof(size_t); i++) items *= ((const size_t *)in)[i];
  switch (name) {
  case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR: z = items < w ? items : w; break;
  case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE_KHR: z = (items + w - 1) / w; break;
  default: return CL_INVALID_VALUE;
  }
  return info_put(value, size, size_ret, &z, sizeof z);
}
