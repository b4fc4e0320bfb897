/* What the OpenCL host programs of tests/icd share: the platform "weft" found through the ICD
 * loader (ctest points OCL_ICD_VENDORS at the build tree's weft.icd), a context and queue, and
 * a program built from source. Every call's status is checked where it is made. */
#ifndef ICD_TEST_H
#define ICD_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#define CL_OK(call) assert_int_equal((call), CL_SUCCESS)

typedef struct cl_env {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
} cl_env;

/* The platform named "weft" among those the loader lists. */
static inline cl_platform_id weft_platform(void) {
  cl_platform_id ps[16];
  cl_uint n = 0;
  CL_OK(clGetPlatformIDs(16, ps, &n));
  for (cl_uint i = 0; i < n; i++) {
    char name[64] = "";
    CL_OK(clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (!strcmp(name, "weft")) return ps[i];
  }
  fail_msg("no OpenCL platform named weft (is OCL_ICD_VENDORS set?)");
  return NULL;
}

static inline void env_open(cl_env *e, cl_command_queue_properties props) {
  e->platform = weft_platform();
  CL_OK(clGetDeviceIDs(e->platform, CL_DEVICE_TYPE_CPU, 1, &e->device, NULL));
  cl_context_properties cp[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)e->platform, 0};
  cl_int err;
  e->ctx = clCreateContext(cp, 1, &e->device, NULL, NULL, &err);
  CL_OK(err);
  e->q = clCreateCommandQueue(e->ctx, e->device, props, &err);
  CL_OK(err);
}

static inline void env_close(cl_env *e) {
  CL_OK(clReleaseCommandQueue(e->q));
  CL_OK(clReleaseContext(e->ctx));
}

/* The program built from src with options, or a failed test with its build log. */
static inline cl_program build(const cl_env *e, const char *src, const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(e->ctx, 1, &src, NULL, &err);
  CL_OK(err);
  err = clBuildProgram(p, 1, &e->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(p, e->device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fail_msg("clBuildProgram: %d\n%s", err, log);
  }
  return p;
}

static inline cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_OK(err);
  return k;
}

static inline cl_mem buffer(const cl_env *e, cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(e->ctx, flags, size, host, &err);
  CL_OK(err);
  return m;
}

/* A reproducible sequence of numbers for inputs (a 32-bit LCG). */
static inline uint32_t lcg(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

#endif
