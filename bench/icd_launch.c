/* Launch overhead through the OpenCL ICD: clEnqueueNDRangeKernel + clFinish of a kernel of one
 * warp (32 work-items, one work-group), through Debian's loader into libweft_icd.so, as a host
 * program sees it. Prints the median, the 10th and 90th percentiles over batches of launches
 * (each batch's time divided by its launches), and checks the kernel's result.
 *
 *   OCL_ICD_VENDORS=build/icd/vendors ./build/bench/icd_launch [--launches N] [--batches B]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static const char source[] = "__kernel void inc(__global int *x) { x[get_global_id(0)] += 1; }\n";

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int die(const char *what, cl_int err) {
  fprintf(stderr, "icd_launch: %s failed: %d\n", what, err);
  return 1;
}

int main(int argc, char **argv) {
  int launches = 2000, batches = 25;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--launches")) launches = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--batches")) batches = atoi(argv[i + 1]);
  }
  if (launches < 1 || batches < 1 || batches > 1000) return die("the command line", 0);
  cl_platform_id platform;
  cl_device_id device;
  cl_int err = clGetPlatformIDs(1, &platform, NULL);
  if (err) return die("clGetPlatformIDs (is OCL_ICD_VENDORS set?)", err);
  if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL)))
    return die("clGetDeviceIDs", err);
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  const char *src = source;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  if ((err = clBuildProgram(p, 0, NULL, NULL, NULL, NULL))) return die("clBuildProgram", err);
  cl_kernel k = clCreateKernel(p, "inc", &err);
  cl_mem m = clCreateBuffer(ctx, 0, 32 * sizeof(int), NULL, &err);
  clSetKernelArg(k, 0, sizeof m, &m);
  size_t global = 32, local = 32;
  double *per = malloc(batches * sizeof *per);
  for (int b = -1; b < batches; b++) { /* batch -1 warms up */
    double t0 = now_us();
    for (int i = 0; i < launches; i++) {
      if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL)))
        return die("clEnqueueNDRangeKernel", err);
      clFinish(q);
    }
    if (b >= 0) per[b] = (now_us() - t0) / launches;
  }
  int x[32];
  clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
  for (int i = 0; i < 32; i++)
    if (x[i] != (batches + 1) * launches) return die("the result", x[i]);
  qsort(per, batches, sizeof *per, cmp);
  printf("clEnqueueNDRangeKernel + clFinish, 32 work-items: median %.2f us (p10 %.2f, p90 %.2f; "
         "%d batches of %d)\n",
         per[batches / 2], per[batches / 10], per[batches * 9 / 10], batches, launches);
  free(per);
  clReleaseMemObject(m), clReleaseKernel(k), clReleaseProgram(p);
  clReleaseCommandQueue(q), clReleaseContext(ctx);
  return 0;
}
