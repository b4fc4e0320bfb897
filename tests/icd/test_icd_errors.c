/* Misuse through the ICD: each call gets the CL_INVALID_* code (or other error) that the
 * OpenCL 1.2 specification names for it, never a crash: bad arguments, bad sizes, handles
 * released already, user events set twice, a program rebuilt under its kernels, and a kernel
 * that runs past its timeout, whose event fails and whose context's notify function hears
 * why. Only NULL stands for a handle that never was one: the loader reads the dispatch table
 * of any other pointer before weft sees it. */
#include "icd_test.h"

static const char source[] =
    "__kernel void k(__global int *x, int v, __local int *tmp) {\n"
    "  tmp[get_local_id(0)] = v;\n"
    "  x[get_global_id(0)] = tmp[get_local_id(0)];\n"
    "}\n"
    "__kernel void spin(__global volatile int *x) { while (x[0] == 0) x[1]++; }\n";

static cl_env env;
static cl_program prog;

static int setup(void **state) {
  (void)state;
  env_open(&env, 0);
  prog = build(&env, source, NULL);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  CL_OK(clReleaseProgram(prog));
  env_close(&env);
  return 0;
}

static void platform_device_context(void **state) {
  (void)state;
  char buf[8];
  assert_int_equal(clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, sizeof buf, buf, NULL),
                   CL_INVALID_VALUE); /* too small */
  assert_int_equal(clGetPlatformInfo(env.platform, 0x7777, sizeof buf, buf, NULL),
                   CL_INVALID_VALUE);
  cl_device_id d;
  cl_uint n;
  assert_int_equal(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_GPU, 1, &d, &n),
                   CL_DEVICE_NOT_FOUND);
  assert_int_equal(clGetDeviceIDs(env.platform, 1u << 20, 1, &d, &n), CL_INVALID_DEVICE_TYPE);
  assert_int_equal(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 0, &d, NULL), CL_INVALID_VALUE);
  assert_int_equal(clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof buf, buf, NULL), CL_INVALID_DEVICE);
  cl_bool images;
  CL_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL));
  assert_int_equal(images, CL_FALSE);
  cl_int err;
  assert_null(clCreateContext(NULL, 0, NULL, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  cl_device_id bad = NULL; /* not a device: the loader reads any other pointer it is given */
  assert_null(clCreateContext(NULL, 1, &bad, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_DEVICE);
  cl_context_properties props[] = {0x9999, 1, 0};
  assert_null(clCreateContext(props, 1, &env.device, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_PROPERTY);
  assert_null(clCreateContextFromType(NULL, CL_DEVICE_TYPE_GPU, NULL, NULL, &err));
  assert_int_equal(err, CL_DEVICE_NOT_FOUND);
  assert_null(clCreateCommandQueue(env.ctx, env.device, 1u << 10, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  cl_image_format f = {CL_RGBA, CL_FLOAT};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 4};
  assert_null(clCreateImage(env.ctx, 0, &f, &desc, NULL, &err));
  assert_int_equal(err, CL_INVALID_OPERATION);
}

static void buffers(void **state) {
  (void)state;
  cl_int err;
  int host[64];
  assert_null(clCreateBuffer(env.ctx, 0, 0, NULL, &err));
  assert_int_equal(err, CL_INVALID_BUFFER_SIZE);
  assert_null(clCreateBuffer(env.ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_HOST_PTR);
  assert_null(clCreateBuffer(env.ctx, 0, sizeof host, host, &err));
  assert_int_equal(err, CL_INVALID_HOST_PTR);
  assert_null(clCreateBuffer(env.ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  assert_null(clCreateBuffer(env.ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, &err));
  assert_int_equal(err, CL_INVALID_VALUE);

  cl_mem m = buffer(&env, CL_MEM_HOST_WRITE_ONLY, 256, NULL);
  cl_uint align_bits = 0; /* at least a long16's, as OpenCL 1.2 asks of a full profile */
  CL_OK(clGetDeviceInfo(env.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits,
                        NULL));
  assert_int_equal(align_bits, 1024);
  cl_buffer_region r = {64, 16}; /* a sub-buffer starts on that alignment too */
  assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
  assert_int_equal(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
  r = (cl_buffer_region){128, 256};
  assert_null(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  assert_int_equal(clEnqueueReadBuffer(env.q, m, CL_TRUE, 0, 16, host, 0, NULL, NULL),
                   CL_INVALID_OPERATION); /* the host may only write it */
  CL_OK(clEnqueueWriteBuffer(env.q, m, CL_TRUE, 0, 16, host, 0, NULL, NULL));
  assert_int_equal(clEnqueueWriteBuffer(env.q, m, CL_TRUE, 250, 16, host, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBuffer(env.q, m, CL_TRUE, 0, 16, NULL, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueCopyBuffer(env.q, m, m, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
  cl_int pattern = 1;
  assert_int_equal(clEnqueueFillBuffer(env.q, m, &pattern, 3, 0, 12, 0, NULL, NULL),
                   CL_INVALID_VALUE);
  assert_int_equal(clEnqueueUnmapMemObject(env.q, m, host, 0, NULL, NULL), CL_INVALID_VALUE);
  assert_int_equal(clEnqueueWriteBuffer(env.q, m, CL_TRUE, 0, 16, host, 1, NULL, NULL),
                   CL_INVALID_EVENT_WAIT_LIST);
  CL_OK(clReleaseMemObject(m));
  /* released: every call refuses it */
  size_t size;
  assert_int_equal(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clEnqueueWriteBuffer(env.q, m, CL_TRUE, 0, 16, host, 0, NULL, NULL),
                   CL_INVALID_MEM_OBJECT);
  assert_int_equal(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
}

static void programs_and_kernels(void **state) {
  (void)state;
  cl_int err, status = 0;
  const unsigned char bin[] = "not a binary";
  const unsigned char *bins[] = {bin};
  size_t len = sizeof bin;
  assert_null(clCreateProgramWithBinary(env.ctx, 1, &env.device, &len, bins, &status, &err));
  assert_int_equal(err, CL_INVALID_BINARY);
  assert_int_equal(status, CL_INVALID_BINARY);
  assert_null(clCreateProgramWithSource(env.ctx, 0, NULL, NULL, &err));
  assert_int_equal(err, CL_INVALID_VALUE);
  const char *src = source;
  cl_program unbuilt = clCreateProgramWithSource(env.ctx, 1, &src, NULL, &err);
  assert_null(clCreateKernel(unbuilt, "k", &err));
  assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
  assert_int_equal(clBuildProgram(unbuilt, 0, NULL, "-fplugin=evil.so", NULL, NULL),
                   CL_INVALID_BUILD_OPTIONS);
  CL_OK(clReleaseProgram(unbuilt));
  assert_int_equal(clBuildProgram(unbuilt, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
  assert_null(clCreateKernel(prog, "nope", &err));
  assert_int_equal(err, CL_INVALID_KERNEL_NAME);

  cl_kernel k = kernel(prog, "k");
  assert_int_equal(clBuildProgram(prog, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
  cl_mem m = buffer(&env, 0, 1024 * sizeof(int), NULL);
  int v = 7;
  assert_int_equal(clSetKernelArg(k, 3, sizeof v, &v), CL_INVALID_ARG_INDEX);
  assert_int_equal(clSetKernelArg(k, 1, sizeof(short), &v), CL_INVALID_ARG_SIZE);
  assert_int_equal(clSetKernelArg(k, 1, sizeof v, NULL), CL_INVALID_ARG_VALUE);
  assert_int_equal(clSetKernelArg(k, 2, 64, &v), CL_INVALID_ARG_VALUE);
  assert_int_equal(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE);
  /* a released buffer, or any object that is not one (a queue): weft reads these itself */
  cl_mem bogus = (cl_mem)env.q, gone = buffer(&env, 0, 64, NULL);
  CL_OK(clReleaseMemObject(gone));
  assert_int_equal(clSetKernelArg(k, 0, sizeof bogus, &bogus), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clSetKernelArg(k, 0, sizeof gone, &gone), CL_INVALID_MEM_OBJECT);
  assert_int_equal(clSetKernelArg(k, 0, 4, &m), CL_INVALID_ARG_SIZE);

  size_t global = 1024, local = 64;
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                   CL_INVALID_KERNEL_ARGS); /* v and tmp are not set */
  CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_OK(clSetKernelArg(k, 2, 64 * sizeof(int), NULL));
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 0, NULL, &global, &local, 0, NULL, NULL),
                   CL_INVALID_WORK_DIMENSION);
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, NULL, &local, 0, NULL, NULL),
                   CL_INVALID_GLOBAL_WORK_SIZE);
  size_t zero = 0, odd = 1000, huge = 2048, two[2] = {1024, 4}, two_local[2] = {512, 4};
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &zero, NULL, 0, NULL, NULL),
                   CL_INVALID_GLOBAL_WORK_SIZE);
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &odd, &local, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &huge, &huge, 0, NULL, NULL),
                   CL_INVALID_WORK_ITEM_SIZE);
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 2, NULL, two, two_local, 0, NULL, NULL),
                   CL_INVALID_WORK_GROUP_SIZE);
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  int out[4];
  CL_OK(clEnqueueReadBuffer(env.q, m, CL_TRUE, 4000, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < 4; i++) assert_int_equal(out[i], 7);

  /* a kernel whose buffer was released is refused at the launch */
  CL_OK(clReleaseMemObject(m));
  assert_int_equal(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, &local, 0, NULL, NULL),
                   CL_INVALID_KERNEL_ARGS);
  CL_OK(clReleaseKernel(k));
  assert_int_equal(clSetKernelArg(k, 1, sizeof v, &v), CL_INVALID_KERNEL);
  assert_int_equal(clEnqueueTask(env.q, k, 0, NULL, NULL), CL_INVALID_KERNEL);
}

static void events_and_queues(void **state) {
  (void)state;
  cl_int err;
  cl_event user = clCreateUserEvent(env.ctx, &err);
  CL_OK(err);
  assert_int_equal(clSetUserEventStatus(user, CL_RUNNING), CL_INVALID_VALUE);
  CL_OK(clSetUserEventStatus(user, CL_COMPLETE));
  assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
  cl_event marker;
  CL_OK(clEnqueueMarkerWithWaitList(env.q, 1, &user, &marker));
  assert_int_equal(clSetUserEventStatus(marker, CL_COMPLETE), CL_INVALID_EVENT);
  assert_int_equal(clSetEventCallback(marker, 77, NULL, NULL), CL_INVALID_VALUE);
  cl_ulong t;
  assert_int_equal(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL),
                   CL_PROFILING_INFO_NOT_AVAILABLE);
  assert_int_equal(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
  CL_OK(clReleaseEvent(marker));
  CL_OK(clReleaseEvent(user));
  assert_int_equal(clWaitForEvents(1, &user), CL_INVALID_EVENT);
  assert_int_equal(clReleaseEvent(user), CL_INVALID_EVENT);
  /* an event of another context in a wait list */
  cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  cl_event foreign = clCreateUserEvent(other, &err);
  assert_int_equal(clEnqueueMarkerWithWaitList(env.q, 1, &foreign, NULL), CL_INVALID_CONTEXT);
  CL_OK(clReleaseEvent(foreign));
  CL_OK(clReleaseContext(other));
  cl_command_queue q = clCreateCommandQueue(env.ctx, env.device, 0, &err);
  CL_OK(clReleaseCommandQueue(q));
  assert_int_equal(clFinish(q), CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  assert_int_equal(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
}

static char notified[4096];

static void CL_CALLBACK notify(const char *why, const void *info, size_t n, void *user) {
  (void)info, (void)n, (void)user;
  snprintf(notified, sizeof notified, "%s", why);
}

/* A kernel that runs past its timeout (WEFT_TIMEOUT, which a context reads when it is made):
 * weft stops it, its event fails, the notify function says why, and the context goes on. */
static void kernel_past_its_timeout(void **state) {
  (void)state;
  cl_int err;
  setenv("WEFT_TIMEOUT", "0.2", 1);
  cl_context ctx = clCreateContext(NULL, 1, &env.device, notify, NULL, &err);
  unsetenv("WEFT_TIMEOUT");
  CL_OK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, env.device, 0, &err);
  const char *src = source;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CL_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(p, "spin", &err);
  cl_mem m = clCreateBuffer(ctx, 0, 64, NULL, &err);
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 32;
  cl_event e;
  CL_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &e));
  assert_int_equal(clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  cl_int status;
  CL_OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  assert_int_equal(status, CL_OUT_OF_RESOURCES);
  if (!strstr(notified, "timeout")) fail_msg("notified: %s", notified);
  int x = 5, back = 0;
  CL_OK(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof x, &x, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof back, &back, 0, NULL, NULL));
  assert_int_equal(back, 5);
  clReleaseEvent(e), clReleaseMemObject(m), clReleaseKernel(k), clReleaseProgram(p);
  clReleaseCommandQueue(q), clReleaseContext(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(platform_device_context), cmocka_unit_test(buffers),
      cmocka_unit_test(programs_and_kernels),    cmocka_unit_test(events_and_queues),
      cmocka_unit_test(kernel_past_its_timeout),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
