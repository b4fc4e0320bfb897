/* The platform "weft" and its one CPU device: what they say about themselves.
 *
 * The answers describe weft as it runs a kernel: compute units are its worker threads, a
 * work-group has at most 1024 work-items, sub-groups are warps of W work-items. The preferred
 * vector widths are 1, since weft puts work-items, not a kernel's own vector elements, in the
 * SIMD lanes (a kernel vectorised by hand gains nothing); the native widths are what one SIMD
 * register of the host (AVX-512 or AVX2) holds. __local memory is ordinary memory per worker
 * (CL_GLOBAL), of which we promise WCL_LOCAL_MEM_SIZE bytes. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "icd.h"

#ifndef WEFT_ICD_VERSION
#define WEFT_ICD_VERSION "0.1"
#endif
#define PLATFORM_VERSION "OpenCL 1.2 weft " WEFT_ICD_VERSION
#define EXTENSIONS                                                                      \
  "cl_khr_icd cl_khr_fp64 cl_khr_global_int32_base_atomics "                            \
  "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics "               \
  "cl_khr_local_int32_extended_atomics cl_khr_byte_addressable_store cl_khr_subgroups " \
  "cl_khr_subgroup_ballot cl_khr_subgroup_non_uniform_vote cl_khr_subgroup_shuffle "    \
  "cl_khr_subgroup_shuffle_relative cl_khr_subgroup_non_uniform_arithmetic "            \
  "cl_khr_subgroup_clustered_reduce"

struct _cl_platform_id wcl_platform = {&wcl_dispatch};
struct _cl_device_id wcl_device = {&wcl_dispatch};

cl_int info_put(void *value, size_t size, size_t *size_ret, const void *src, size_t n) {
  if (value && size < n) return CL_INVALID_VALUE;
  if (value && n) memcpy(value, src, n);
  if (size_ret) *size_ret = n;
  return CL_SUCCESS;
}

cl_int info_str(void *value, size_t size, size_t *size_ret, const char *s) {
  return info_put(value, size, size_ret, s, strlen(s) + 1);
}

/* ---- the platform ---- */

static cl_int platform_ids(cl_uint n, cl_platform_id *platforms, cl_uint *num) {
  if ((!platforms && !num) || (platforms && n == 0)) return CL_INVALID_VALUE;
  if (platforms) platforms[0] = &wcl_platform;
  if (num) *num = 1;
  return CL_SUCCESS;
}

WCL_API cl_int clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *platforms, cl_uint *num) {
  return platform_ids(n, platforms, num);
}

WCL_API cl_int clGetPlatformIDs(cl_uint n, cl_platform_id *platforms, cl_uint *num) {
  return platform_ids(n, platforms, num);
}

WCL_API cl_int clGetPlatformInfo(cl_platform_id p, cl_platform_info name, size_t size, void *value,
                                 size_t *size_ret) {
  if (p != &wcl_platform && p != NULL) return CL_INVALID_PLATFORM;
  switch (name) {
  case CL_PLATFORM_PROFILE: return info_str(value, size, size_ret, "FULL_PROFILE");
  case CL_PLATFORM_VERSION: return info_str(value, size, size_ret, PLATFORM_VERSION);
  case CL_PLATFORM_NAME: return info_str(value, size, size_ret, "weft");
  case CL_PLATFORM_VENDOR: return info_str(value, size, size_ret, "weft");
  case CL_PLATFORM_EXTENSIONS: return info_str(value, size, size_ret, EXTENSIONS);
  case CL_PLATFORM_ICD_SUFFIX_KHR: return info_str(value, size, size_ret, "weft");
  default: return CL_INVALID_VALUE;
  }
}

WCL_API void *clGetExtensionFunctionAddress(const char *name) {
  if (!name) return NULL;
  if (!strcmp(name, "clIcdGetPlatformIDsKHR")) return (void *)clIcdGetPlatformIDsKHR;
  if (!strcmp(name, "clGetKernelSubGroupInfoKHR")) return (void *)clGetKernelSubGroupInfoKHR;
  return NULL;
}

WCL_API void *clGetExtensionFunctionAddressForPlatform(cl_platform_id p, const char *name) {
  return p == &wcl_platform ? clGetExtensionFunctionAddress(name) : NULL;
}

WCL_API cl_int clUnloadCompiler(void) { return CL_SUCCESS; }

WCL_API cl_int clUnloadPlatformCompiler(cl_platform_id p) {
  return p == &wcl_platform ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

/* ---- the device ---- */

WCL_API cl_int clGetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n,
                              cl_device_id *devices, cl_uint *num) {
  if (p != &wcl_platform && p != NULL) return CL_INVALID_PLATFORM;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type & ~known || !type)) return CL_INVALID_DEVICE_TYPE;
  if ((!devices && !num) || (devices && n == 0)) return CL_INVALID_VALUE;
  if (!(type & (CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU))) return CL_DEVICE_NOT_FOUND;
  if (devices) devices[0] = &wcl_device;
  if (num) *num = 1;
  return CL_SUCCESS;
}

WCL_API cl_int clRetainDevice(cl_device_id d) {
  return d == &wcl_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

WCL_API cl_int clReleaseDevice(cl_device_id d) {
  return d == &wcl_device ? CL_SUCCESS : CL_INVALID_DEVICE;
}

WCL_API cl_int clCreateSubDevices(cl_device_id d, const cl_device_partition_property *props,
                                  cl_uint n, cl_device_id *out, cl_uint *num) {
  (void)props, (void)n, (void)out, (void)num;
  /* CL_DEVICE_PARTITION_PROPERTIES lists no partition type */
  return d == &wcl_device ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

static char model[128];

static void read_model(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    snprintf(model, sizeof model, "%s", colon + 2);
    model[strcspn(model, "\n")] = 0;
    break;
  }
  if (f) fclose(f);
}

/* The CPU's model from /proc/cpuinfo, read once ("" when it cannot be read). */
static const char *cpu_model(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_model);
  return model;
}

static cl_ulong memory_bytes(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (cl_ulong)pages * (cl_ulong)page : (cl_ulong)1 << 30;
}

static cl_uint simd_bytes(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? 64 : 32;
}

/* The CPU's clock in MHz: its highest (cpufreq), else what /proc/cpuinfo says now (a VM's
 * nominal clock: it has no cpufreq), else 0 for unknown. */
static cl_uint clock_mhz(void) {
  unsigned long khz = 0;
  double mhz = 0;
  char line[256];
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  if (f && fscanf(f, "%lu", &khz) == 1 && khz >= 1000 && khz < 100000000ul)
    return fclose(f), (cl_uint)(khz / 1000);
  if (f) fclose(f);
  if (!(f = fopen("/proc/cpuinfo", "r"))) return 0;
  while (fgets(line, sizeof line, f) && sscanf(line, "cpu MHz : %lf", &mhz) != 1) continue;
  fclose(f);
  return mhz >= 1 && mhz < 100000 ? (cl_uint)(mhz + 0.5) : 0;
}

weft_options wcl_device_options(void) {
  weft_options o = *wcl_env_options();
  if (!o.threads) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = cpus > 0 ? (unsigned)cpus : 1;
  }
  if (!o.warp) o.warp = 32;
  if (!o.lanes) o.lanes = simd_bytes() == 64 ? 16 : 8;
  return o;
}

/* The answers that are one cl_uint. */
static int uint_info(cl_device_info name, cl_uint *v) {
  weft_options o = wcl_device_options();
  cl_uint simd = simd_bytes();
  switch (name) {
  case CL_DEVICE_VENDOR_ID: *v = 0x77656674; return 1; /* "weft" */
  case CL_DEVICE_MAX_COMPUTE_UNITS: *v = o.threads; return 1;
  case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: *v = 3; return 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE: *v = 1; return 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: *v = 0; return 1; /* no cl_khr_fp16 */
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: *v = simd; return 1;
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: *v = simd / 2; return 1;
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: *v = simd / 4; return 1;
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: *v = simd / 8; return 1;
  case CL_DEVICE_MAX_CLOCK_FREQUENCY: *v = clock_mhz(); return 1;
  case CL_DEVICE_ADDRESS_BITS: *v = 64; return 1;
  case CL_DEVICE_MAX_READ_IMAGE_ARGS:
  case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
  case CL_DEVICE_MAX_SAMPLERS: *v = 0; return 1;
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN: *v = 8 * WEFT_BUFFER_ALIGN; return 1; /* bits */
  case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: *v = 128; return 1;
  case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: *v = 64; return 1;
  case CL_DEVICE_MAX_CONSTANT_ARGS: *v = 64; return 1;
  case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: *v = 0; return 1;
  case CL_DEVICE_REFERENCE_COUNT: *v = 1; return 1;
  default: return 0;
  }
}

static int ulong_info(cl_device_info name, cl_ulong *v) {
  cl_ulong mem = memory_bytes(), alloc = mem / 4 > (128u << 20) ? mem / 4 : mem;
  switch (name) {
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
  case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: *v = alloc; return 1;
  case CL_DEVICE_GLOBAL_MEM_SIZE: *v = mem; return 1;
  case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    *v = (cl_ulong)(l3 > 0 ? l3 : l2 > 0 ? l2 : 0);
    return 1;
  }
  case CL_DEVICE_LOCAL_MEM_SIZE: *v = WCL_LOCAL_MEM_SIZE; return 1;
  case CL_DEVICE_SINGLE_FP_CONFIG:
    *v = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
    return 1;
  case CL_DEVICE_DOUBLE_FP_CONFIG:
    *v = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
         CL_FP_ROUND_TO_INF | CL_FP_FMA;
    return 1;
  case CL_DEVICE_TYPE: *v = CL_DEVICE_TYPE_CPU; return 1;
  case CL_DEVICE_QUEUE_PROPERTIES:
    *v = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
    return 1;
  case CL_DEVICE_EXECUTION_CAPABILITIES: *v = CL_EXEC_KERNEL; return 1;
  case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: *v = 0; return 1;
  default: return 0;
  }
}

static int size_info(cl_device_info name, size_t *v) {
  switch (name) {
  case CL_DEVICE_MAX_WORK_GROUP_SIZE: *v = WCL_MAX_GROUP_ITEMS; return 1;
  case CL_DEVICE_MAX_PARAMETER_SIZE: *v = WCL_MAX_PARAMETER_SIZE; return 1;
  case CL_DEVICE_PROFILING_TIMER_RESOLUTION: *v = 1; return 1;
  case CL_DEVICE_PRINTF_BUFFER_SIZE: *v = 1u << 20; return 1;
  case CL_DEVICE_IMAGE2D_MAX_WIDTH:
  case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
  case CL_DEVICE_IMAGE3D_MAX_WIDTH:
  case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
  case CL_DEVICE_IMAGE3D_MAX_DEPTH:
  case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
  case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: *v = 0; return 1;
  default: return 0;
  }
}

static int bool_info(cl_device_info name, cl_bool *v) {
  switch (name) {
  case CL_DEVICE_IMAGE_SUPPORT:
  case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
  case CL_DEVICE_LINKER_AVAILABLE: *v = CL_FALSE; return 1;
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
  case CL_DEVICE_ENDIAN_LITTLE:
  case CL_DEVICE_AVAILABLE:
  case CL_DEVICE_COMPILER_AVAILABLE:
  case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: *v = CL_TRUE; return 1;
  default: return 0;
  }
}

static int string_info(cl_device_info name, char *buf, size_t n) {
  switch (name) {
  case CL_DEVICE_NAME: snprintf(buf, n, "weft %s", cpu_model()); return 1;
  case CL_DEVICE_VENDOR: snprintf(buf, n, "weft"); return 1;
  case CL_DRIVER_VERSION: snprintf(buf, n, "%s", WEFT_ICD_VERSION); return 1;
  case CL_DEVICE_PROFILE: snprintf(buf, n, "FULL_PROFILE"); return 1;
  case CL_DEVICE_VERSION: snprintf(buf, n, "%s", PLATFORM_VERSION); return 1;
  case CL_DEVICE_OPENCL_C_VERSION: snprintf(buf, n, "OpenCL C 1.2 "); return 1;
  case CL_DEVICE_EXTENSIONS: snprintf(buf, n, "%s", EXTENSIONS); return 1;
  case CL_DEVICE_BUILT_IN_KERNELS: snprintf(buf, n, "%s", ""); return 1;
  default: return 0;
  }
}

WCL_API cl_int clGetDeviceInfo(cl_device_id d, cl_device_info name, size_t size, void *value,
                               size_t *size_ret) {
  if (d != &wcl_device) return CL_INVALID_DEVICE;
  cl_uint u;
  cl_ulong ul;
  size_t z;
  cl_bool b;
  char text[512];
  if (uint_info(name, &u)) return info_put(value, size, size_ret, &u, sizeof u);
  if (ulong_info(name, &ul)) return info_put(value, size, size_ret, &ul, sizeof ul);
  if (size_info(name, &z)) return info_put(value, size, size_ret, &z, sizeof z);
  if (bool_info(name, &b)) return info_put(value, size, size_ret, &b, sizeof b);
  if (string_info(name, text, sizeof text)) return info_str(value, size, size_ret, text);
  switch (name) {
  case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
    size_t sizes[3] = {WCL_MAX_GROUP_ITEMS, WCL_MAX_GROUP_ITEMS, WCL_MAX_GROUP_ITEMS};
    return info_put(value, size, size_ret, sizes, sizeof sizes);
  }
  case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: {
    cl_device_mem_cache_type t = CL_READ_WRITE_CACHE;
    return info_put(value, size, size_ret, &t, sizeof t);
  }
  case CL_DEVICE_LOCAL_MEM_TYPE: {
    cl_device_local_mem_type t = CL_GLOBAL;
    return info_put(value, size, size_ret, &t, sizeof t);
  }
  case CL_DEVICE_PLATFORM: {
    cl_platform_id p = &wcl_platform;
    return info_put(value, size, size_ret, &p, sizeof p);
  }
  case CL_DEVICE_PARENT_DEVICE: {
    cl_device_id none = NULL;
    return info_put(value, size, size_ret, &none, sizeof none);
  }
  case CL_DEVICE_PARTITION_PROPERTIES:
  case CL_DEVICE_PARTITION_TYPE: {
    cl_device_partition_property none = 0;
    return info_put(value, size, size_ret, &none, sizeof none);
  }
  default: return CL_INVALID_VALUE;
  }
}
