/* OpenCL host programs that run kernels through the ICD loader and weft, each result compared
 * with the same computation in plain C here: a vector add (with every host-pointer flag, a
 * global offset and no local size), a reduction in __local memory with barriers, BFS with one
 * launch per level and a flag read back, scalar, vector and struct arguments, and buffers moved
 * by copy, fill, rectangles, maps and sub-buffers. */
#include "icd_test.h"

static const char source[] =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void reduce(__global const int *in, __global int *out, __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) scratch[l] += scratch[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  __local int total[1]; /* the kernel's own __local: 4 bytes more */\n"
    "  if (l == 0) total[0] = scratch[0], out[get_group_id(0)] = total[0];\n"
    "}\n"
    "__kernel void bfs_level(__global const int *row, __global const int *col,\n"
    "                        __global int *dist, int level, __global int *changed) {\n"
    "  int v = get_global_id(0);\n"
    "  if (dist[v] != level) return;\n"
    "  for (int e = row[v]; e < row[v + 1]; e++) {\n"
    "    int u = col[e];\n"
    "    if (dist[u] < 0) {\n"
    "      dist[u] = level + 1;\n"
    "      *changed = 1;\n"
    "    }\n"
    "  }\n"
    "}\n"
    "typedef struct { char tag; int count; double scale; } params;\n"
    "__kernel void values(params p, float4 v, long big, __global double *out) {\n"
    "  out[0] = p.tag; out[1] = p.count; out[2] = p.scale;\n"
    "  out[3] = v.x; out[4] = v.y; out[5] = v.z; out[6] = v.w; out[7] = big;\n"
    "  out[8] = get_global_size(0); out[9] = get_work_dim();\n"
    "}\n"
    "__kernel void ids(__global int *out) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - "
    "get_global_offset(1);\n"
    "  size_t i = y * get_global_size(0) + x;\n"
    "  out[3 * i] = get_global_id(0); out[3 * i + 1] = get_global_id(1);\n"
    "  out[3 * i + 2] = get_local_size(0) * 1000 + get_local_size(1);\n"
    "}\n"
    "__kernel void shift8(__global const int8 *in, __global int8 *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 3 + (int8)(i);\n"
    "}\n"
    "__kernel void twice8(__global int8 *v, __global uchar *bytes) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i) v[i] *= 2;\n"
    "  else for (int b = 0; b < 32; b++) bytes[b] = 5;\n"
    "}\n";

static cl_env env;
static cl_program prog;

static int setup(void **state) {
  (void)state;
  env_open(&env, 0);
  prog = build(&env, source, "-cl-std=CL1.2");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  CL_OK(clReleaseProgram(prog));
  env_close(&env);
  return 0;
}

static void fill_floats(float *x, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) x[i] = (float)(lcg(&seed) % 1000) / 8.0f;
}

/* c = a + b over [offset, n): through the given flags, with or without a local size. */
static void run_vadd(cl_mem_flags flags, size_t n, size_t offset, const size_t *local) {
  float *a = malloc(n * 4), *b = malloc(n * 4), *c = calloc(n, 4);
  fill_floats(a, n, 1), fill_floats(b, n, 2);
  cl_mem_flags in = CL_MEM_READ_ONLY | flags;
  int with_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  cl_mem ma = buffer(&env, in, n * 4, with_ptr ? a : NULL);
  cl_mem mb = buffer(&env, in, n * 4, with_ptr ? b : NULL);
  cl_mem mc = buffer(&env, CL_MEM_WRITE_ONLY | (flags & CL_MEM_USE_HOST_PTR), n * 4,
                     flags & CL_MEM_USE_HOST_PTR ? c : NULL);
  if (!with_ptr) {
    CL_OK(clEnqueueWriteBuffer(env.q, ma, CL_FALSE, 0, n * 4, a, 0, NULL, NULL));
    CL_OK(clEnqueueWriteBuffer(env.q, mb, CL_FALSE, 0, n * 4, b, 0, NULL, NULL));
  }
  cl_kernel k = kernel(prog, "vadd");
  CL_OK(clSetKernelArg(k, 0, sizeof ma, &ma));
  CL_OK(clSetKernelArg(k, 1, sizeof mb, &mb));
  CL_OK(clSetKernelArg(k, 2, sizeof mc, &mc));
  size_t global = n - offset;
  CL_OK(
      clEnqueueNDRangeKernel(env.q, k, 1, offset ? &offset : NULL, &global, local, 0, NULL, NULL));
  if (!(flags & CL_MEM_USE_HOST_PTR))
    CL_OK(clEnqueueReadBuffer(env.q, mc, CL_TRUE, 0, n * 4, c, 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  for (size_t i = 0; i < n; i++) {
    float want = i < offset ? 0.0f : a[i] + b[i];
    if (c[i] != want) fail_msg("c[%zu] = %g, want %g", i, c[i], want);
  }
  clReleaseKernel(k);
  clReleaseMemObject(ma), clReleaseMemObject(mb), clReleaseMemObject(mc);
  free(a), free(b), free(c);
}

static void vector_add(void **state) {
  (void)state;
  size_t local = 64;
  run_vadd(0, 4096, 0, &local);
  run_vadd(CL_MEM_COPY_HOST_PTR, 1000, 0, NULL); /* weft picks a size that divides 1000 */
  run_vadd(CL_MEM_USE_HOST_PTR, 1024, 0, NULL);
  run_vadd(CL_MEM_ALLOC_HOST_PTR, 777, 0, NULL);
  run_vadd(CL_MEM_COPY_HOST_PTR, 1024, 96, NULL); /* items 96..1023 only */
}

/* CL_MEM_USE_HOST_PTR memory that is not aligned as the kernel's int8 elements (32 bytes), as
 * malloc may give it: the kernel runs (on an aligned copy) and its results are in the host's
 * memory after clFinish; two sub-buffers of one such buffer share the copy, and so does an
 * argument of bytes on it. */
static void misaligned_host_memory(void **state) {
  (void)state;
  enum { N = 64, INTS = 8 * N };
  int32_t *mem = aligned_alloc(128, 3 * INTS * 4 + 128);
  int32_t *in = mem + 4, *out = in + INTS; /* 16 bytes past a 128-byte boundary */
  for (int i = 0; i < INTS; i++) in[i] = i * 7 - 100, out[i] = -1;
  cl_mem min = buffer(&env, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, INTS * 4, in);
  cl_mem mout = buffer(&env, CL_MEM_USE_HOST_PTR, INTS * 4, out);
  cl_kernel k = kernel(prog, "shift8");
  CL_OK(clSetKernelArg(k, 0, sizeof min, &min));
  CL_OK(clSetKernelArg(k, 1, sizeof mout, &mout));
  size_t global = N;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  for (int i = 0; i < INTS; i++)
    if (out[i] != in[i] * 3 + i / 8)
      fail_msg("out[%d] = %d, want %d", i, out[i], in[i] * 3 + i / 8);
  cl_int err;
  cl_mem both = buffer(&env, CL_MEM_USE_HOST_PTR, 2 * INTS * 4, in);
  cl_buffer_region half[2] = {{0, INTS * 4}, {INTS * 4, INTS * 4}};
  cl_mem lo = clCreateSubBuffer(both, 0, CL_BUFFER_CREATE_TYPE_REGION, &half[0], &err);
  CL_OK(err);
  cl_mem hi = clCreateSubBuffer(both, 0, CL_BUFFER_CREATE_TYPE_REGION, &half[1], &err);
  CL_OK(err);
  CL_OK(clSetKernelArg(k, 0, sizeof hi, &hi)); /* out = in, from the other half */
  CL_OK(clSetKernelArg(k, 1, sizeof lo, &lo));
  int32_t want[INTS];
  for (int i = 0; i < INTS; i++) want[i] = out[i] * 3 + i / 8;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  assert_memory_equal(in, want, sizeof want);
  clReleaseMemObject(lo), clReleaseMemObject(hi), clReleaseMemObject(both);
  clReleaseKernel(k);
  /* one buffer as int8s and as bytes: the bytes' writes are not lost to the int8s' copy */
  k = kernel(prog, "twice8");
  CL_OK(clSetKernelArg(k, 0, sizeof mout, &mout));
  CL_OK(clSetKernelArg(k, 1, sizeof mout, &mout));
  for (int i = 0; i < INTS; i++) want[i] = i < 8 ? 0x05050505 : 2 * out[i];
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_OK(clFinish(env.q));
  assert_memory_equal(out, want, sizeof want);
  clReleaseKernel(k);
  clReleaseMemObject(min), clReleaseMemObject(mout);
  free(mem);
}

static void reduction_in_local_memory(void **state) {
  (void)state;
  enum { GROUP = 128, GROUPS = 64, N = GROUP * GROUPS };
  int *in = malloc(N * sizeof *in), out[GROUPS];
  uint32_t seed = 7;
  for (int i = 0; i < N; i++) in[i] = (int)(lcg(&seed) % 2001) - 1000;
  cl_mem min = buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(int) * N, in);
  cl_mem mout = buffer(&env, CL_MEM_WRITE_ONLY, sizeof out, NULL);
  cl_kernel k = kernel(prog, "reduce");
  CL_OK(clSetKernelArg(k, 0, sizeof min, &min));
  CL_OK(clSetKernelArg(k, 1, sizeof mout, &mout));
  CL_OK(clSetKernelArg(k, 2, GROUP * sizeof(int), NULL));
  size_t global = N, local = GROUP;
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, mout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int g = 0; g < GROUPS; g++) {
    int want = 0;
    for (int i = 0; i < GROUP; i++) want += in[g * GROUP + i];
    assert_int_equal(out[g], want);
  }
  cl_ulong local_mem;
  CL_OK(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_mem,
                                 &local_mem, NULL));
  assert_int_equal(local_mem, GROUP * sizeof(int) + sizeof(int)); /* scratch, then total */
  clReleaseKernel(k);
  clReleaseMemObject(min), clReleaseMemObject(mout);
  free(in);
}

/* A random graph in CSR form: n nodes, each with up to 4 edges. */
static int make_graph(int n, int *row, int *col) {
  uint32_t seed = 3;
  int e = 0;
  for (int v = 0; v < n; v++) {
    row[v] = e;
    int deg = (int)(lcg(&seed) % 5);
    for (int j = 0; j < deg; j++) col[e++] = (int)(lcg(&seed) % (uint32_t)n);
  }
  row[n] = e;
  return e;
}

static void bfs_reference(int n, const int *row, const int *col, int *dist) {
  int *queue = malloc(n * sizeof *queue), head = 0, tail = 0;
  for (int v = 0; v < n; v++) dist[v] = -1;
  dist[0] = 0, queue[tail++] = 0;
  while (head < tail) {
    int v = queue[head++];
    for (int e = row[v]; e < row[v + 1]; e++)
      if (dist[col[e]] < 0) dist[col[e]] = dist[v] + 1, queue[tail++] = col[e];
  }
  free(queue);
}

static void bfs_one_launch_per_level(void **state) {
  (void)state;
  enum { N = 2048 };
  int *row = malloc((N + 1) * sizeof *row), *col = malloc(4 * N * sizeof *col);
  int *dist = malloc(N * sizeof *dist), *want = malloc(N * sizeof *want);
  int edges = make_graph(N, row, col);
  bfs_reference(N, row, col, want);
  for (int v = 0; v < N; v++) dist[v] = v ? -1 : 0;
  cl_mem mrow = buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (N + 1) * sizeof *row, row);
  cl_mem mcol = buffer(&env, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, edges * sizeof *col, col);
  cl_mem mdist = buffer(&env, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * sizeof *dist, dist);
  cl_mem mchanged = buffer(&env, CL_MEM_READ_WRITE, sizeof(int), NULL);
  cl_kernel k = kernel(prog, "bfs_level");
  CL_OK(clSetKernelArg(k, 0, sizeof mrow, &mrow));
  CL_OK(clSetKernelArg(k, 1, sizeof mcol, &mcol));
  CL_OK(clSetKernelArg(k, 2, sizeof mdist, &mdist));
  CL_OK(clSetKernelArg(k, 4, sizeof mchanged, &mchanged));
  int levels = 0;
  for (int changed = 1; changed; levels++) {
    changed = 0;
    CL_OK(clEnqueueWriteBuffer(env.q, mchanged, CL_FALSE, 0, sizeof changed, &changed, 0, NULL,
                               NULL));
    CL_OK(clSetKernelArg(k, 3, sizeof levels, &levels));
    size_t global = N;
    CL_OK(clEnqueueNDRangeKernel(env.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL_OK(
        clEnqueueReadBuffer(env.q, mchanged, CL_TRUE, 0, sizeof changed, &changed, 0, NULL, NULL));
  }
  CL_OK(clEnqueueReadBuffer(env.q, mdist, CL_TRUE, 0, N * sizeof *dist, dist, 0, NULL, NULL));
  int deepest = 0;
  for (int v = 0; v < N; v++) {
    if (dist[v] != want[v]) fail_msg("dist[%d] = %d, want %d", v, dist[v], want[v]);
    if (want[v] > deepest) deepest = want[v];
  }
  assert_int_equal(levels, deepest + 1); /* launches for levels 0 .. deepest: the last finds none */
  assert_true(deepest > 3);
  clReleaseKernel(k);
  clReleaseMemObject(mrow), clReleaseMemObject(mcol), clReleaseMemObject(mdist);
  clReleaseMemObject(mchanged);
  free(row), free(col), free(dist), free(want);
}

static void scalar_vector_struct_args(void **state) {
  (void)state;
  struct {
    cl_char tag;
    cl_int count;
    cl_double scale;
  } p = {-5, 123456, 0.375};
  cl_float4 v = {{1.5f, -2.0f, 3.25f, 1e6f}};
  cl_long big = 1ll << 40;
  double out[10];
  cl_mem mout = buffer(&env, CL_MEM_WRITE_ONLY, sizeof out, NULL);
  cl_kernel k = kernel(prog, "values");
  CL_OK(clSetKernelArg(k, 0, sizeof p, &p));
  CL_OK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_OK(clSetKernelArg(k, 2, sizeof big, &big));
  CL_OK(clSetKernelArg(k, 3, sizeof mout, &mout));
  CL_OK(clEnqueueTask(env.q, k, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, mout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  const double want[10] = {-5, 123456, 0.375, 1.5, -2.0, 3.25, 1e6, 1099511627776.0, 1, 1};
  for (int i = 0; i < 10; i++) assert_true(out[i] == want[i]);
  clReleaseKernel(k);
  clReleaseMemObject(mout);
}

/* A 2-D NDRange with an offset and no local size: every item's ids, and one work-group size. */
static void two_dimensions_with_offset(void **state) {
  (void)state;
  enum { W = 48, H = 20 };
  int *out = calloc(3 * W * H, sizeof *out);
  cl_mem m = buffer(&env, CL_MEM_WRITE_ONLY, 3 * W * H * sizeof *out, NULL);
  cl_kernel k = kernel(prog, "ids");
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t offset[2] = {5, 7}, global[2] = {W, H};
  CL_OK(clEnqueueNDRangeKernel(env.q, k, 2, offset, global, NULL, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, m, CL_TRUE, 0, 3 * W * H * sizeof *out, out, 0, NULL, NULL));
  int lx = out[2] / 1000, ly = out[2] % 1000;
  assert_true(lx > 0 && W % lx == 0 && ly > 0 && H % ly == 0 && lx * ly <= 1024);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int *o = &out[3 * (y * W + x)];
      assert_int_equal(o[0], x + 5);
      assert_int_equal(o[1], y + 7);
      assert_int_equal(o[2], out[2]);
    }
  clReleaseKernel(k);
  clReleaseMemObject(m);
  free(out);
}

static void copy_fill_rect_map_sub_buffers(void **state) {
  (void)state;
  enum { N = 1024 };
  int host[N], back[N];
  for (int i = 0; i < N; i++) host[i] = i * 3;
  cl_mem a = buffer(&env, CL_MEM_COPY_HOST_PTR, sizeof host, host);
  cl_mem b = buffer(&env, 0, sizeof host, NULL);
  cl_int pattern = 0x5a5a1234;
  CL_OK(clEnqueueFillBuffer(env.q, b, &pattern, sizeof pattern, 0, sizeof host, 0, NULL, NULL));
  CL_OK(clEnqueueCopyBuffer(env.q, a, b, 16 * 4, 100 * 4, 50 * 4, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, b, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    assert_int_equal(back[i], i >= 100 && i < 150 ? (i - 100 + 16) * 3 : pattern);

  /* a 4 x 3 rectangle of ints from row 2, column 5 of a 32-int-wide buffer, into a 6-wide one */
  int rect[6 * 3] = {0};
  size_t borigin[3] = {5 * 4, 2, 0}, horigin[3] = {4, 0, 0}, region[3] = {4 * 4, 3, 1};
  CL_OK(clEnqueueReadBufferRect(env.q, a, CL_TRUE, borigin, horigin, region, 32 * 4, 0, 6 * 4, 0,
                                rect, 0, NULL, NULL));
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 6; x++)
      assert_int_equal(rect[y * 6 + x], x >= 1 && x < 5 ? ((2 + y) * 32 + 5 + x - 1) * 3 : 0);

  /* the same rectangle written back one row lower, then copied from there to row 10 */
  size_t lower[3] = {5 * 4, 3, 0}, row10[3] = {5 * 4, 10, 0};
  CL_OK(clEnqueueWriteBufferRect(env.q, a, CL_FALSE, lower, horigin, region, 32 * 4, 0, 6 * 4, 0,
                                 rect, 0, NULL, NULL));
  CL_OK(clEnqueueCopyBufferRect(env.q, a, a, lower, row10, region, 32 * 4, 0, 32 * 4, 0, 0, NULL,
                                NULL));
  CL_OK(clEnqueueReadBuffer(env.q, a, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  for (int y = 0; y < 32; y++)
    for (int x = 0; x < 32; x++) {
      int want = (y * 32 + x) * 3, in = x >= 5 && x < 9;
      if (in && ((y >= 3 && y < 6) || (y >= 10 && y < 13)))
        want = ((2 + (y >= 10 ? y - 10 : y - 3)) * 32 + x) * 3; /* rows 2..4 of the original */
      assert_int_equal(back[y * 32 + x], want);
    }
  CL_OK(clEnqueueWriteBuffer(env.q, a, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));

  cl_int err;
  int *mapped = clEnqueueMapBuffer(env.q, b, CL_TRUE, CL_MAP_WRITE, 8 * 4, 8 * 4, 0, NULL, NULL,
                                   &err);
  CL_OK(err);
  for (int i = 0; i < 8; i++) mapped[i] = -i;
  cl_uint maps;
  CL_OK(clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof maps, &maps, NULL));
  assert_int_equal(maps, 1);
  CL_OK(clEnqueueUnmapMemObject(env.q, b, mapped, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, b, CL_TRUE, 8 * 4, 8 * 4, back, 0, NULL, NULL));
  for (int i = 0; i < 8; i++) assert_int_equal(back[i], -i);

  /* the second half of a as a sub-buffer: reads and writes land in a */
  cl_buffer_region half = {N / 2 * 4, N / 2 * 4};
  cl_mem sub = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
  CL_OK(err);
  int one = 1;
  CL_OK(clEnqueueFillBuffer(env.q, sub, &one, sizeof one, 0, 4 * 4, 0, NULL, NULL));
  CL_OK(clEnqueueReadBuffer(env.q, a, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  for (int i = 0; i < N; i++) assert_int_equal(back[i], i >= N / 2 && i < N / 2 + 4 ? 1 : i * 3);
  size_t offset;
  cl_mem parent;
  CL_OK(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  CL_OK(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL));
  assert_int_equal(offset, N / 2 * 4);
  assert_ptr_equal(parent, a);
  clReleaseMemObject(sub), clReleaseMemObject(a), clReleaseMemObject(b);
}

static void program_and_kernel_info(void **state) {
  (void)state;
  char names[256];
  size_t nkernels;
  CL_OK(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  CL_OK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nkernels, &nkernels, NULL));
  assert_string_equal(names, "vadd;reduce;bfs_level;values;ids;shift8;twice8");
  assert_int_equal(nkernels, 7);
  cl_kernel ks[7];
  cl_uint n;
  CL_OK(clCreateKernelsInProgram(prog, 7, ks, &n));
  assert_int_equal(n, 7);
  char name[64];
  CL_OK(clGetKernelInfo(ks[2], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
  assert_string_equal(name, "bfs_level");
  cl_uint nargs;
  CL_OK(clGetKernelInfo(ks[2], CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL));
  assert_int_equal(nargs, 5);
  /* reduce(__global const int *in, __global int *out, __local int *scratch) */
  cl_kernel_arg_address_qualifier aq;
  CL_OK(clGetKernelArgInfo(ks[1], 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL));
  assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_LOCAL);
  CL_OK(clGetKernelArgInfo(ks[1], 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL));
  assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_GLOBAL);
  CL_OK(clGetKernelArgInfo(ks[2], 3, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL));
  assert_int_equal(aq, CL_KERNEL_ARG_ADDRESS_PRIVATE);
  CL_OK(clGetKernelArgInfo(ks[1], 1, CL_KERNEL_ARG_NAME, sizeof name, name, NULL));
  assert_string_equal(name, "out");
  CL_OK(clGetKernelArgInfo(ks[1], 1, CL_KERNEL_ARG_TYPE_NAME, sizeof name, name, NULL));
  assert_string_equal(name, "int*");
  cl_kernel_arg_type_qualifier tq;
  CL_OK(clGetKernelArgInfo(ks[1], 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL));
  assert_int_equal(tq, CL_KERNEL_ARG_TYPE_CONST); /* __global const int *in */
  CL_OK(clGetKernelArgInfo(ks[1], 1, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL));
  assert_int_equal(tq, CL_KERNEL_ARG_TYPE_NONE);
  size_t wg, multiple;
  CL_OK(
      clGetKernelWorkGroupInfo(ks[0], env.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
  CL_OK(clGetKernelWorkGroupInfo(ks[0], env.device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                 sizeof multiple, &multiple, NULL));
  assert_int_equal(wg, 1024);
  const char *w = getenv("WEFT_WARP");
  assert_int_equal(multiple, w ? strtoul(w, NULL, 10) : 32);
  cl_program_binary_type type;
  CL_OK(clGetProgramBuildInfo(prog, env.device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  assert_int_equal(type, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  char options[64];
  CL_OK(clGetProgramBuildInfo(prog, env.device, CL_PROGRAM_BUILD_OPTIONS, sizeof options, options,
                              NULL));
  assert_string_equal(options, "-cl-std=CL1.2");
  /* cl_khr_subgroups: sub-groups are warps of W work-items */
  typedef cl_int (*subgroup_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t, const void *, size_t,
                                     void *, size_t *);
  subgroup_info_fn info = (subgroup_info_fn)clGetExtensionFunctionAddressForPlatform(
      env.platform, "clGetKernelSubGroupInfoKHR");
  assert_non_null(info);
  size_t group[2] = {16, 6}, size, count; /* 96 work-items */
  CL_OK(info(ks[0], env.device, 0x2033 /* MAX_SUB_GROUP_SIZE_FOR_NDRANGE */, sizeof group, group,
             sizeof size, &size, NULL));
  CL_OK(info(ks[0], env.device, 0x2034 /* SUB_GROUP_COUNT_FOR_NDRANGE */, sizeof group, group,
             sizeof count, &count, NULL));
  assert_int_equal(size, multiple < 96 ? multiple : 96);
  assert_int_equal(count, (96 + multiple - 1) / multiple);
  for (int i = 0; i < 7; i++) CL_OK(clReleaseKernel(ks[i]));
}

static void build_log_names_the_line(void **state) {
  (void)state;
  const char *bad = "__kernel void k(__global int *p) {\n  p[0] = undefined_name;\n}\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.ctx, 1, &bad, NULL, &err);
  CL_OK(err);
  assert_int_equal(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
  cl_build_status status;
  CL_OK(
      clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  assert_int_equal(status, CL_BUILD_ERROR);
  char log[4096];
  CL_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
  assert_non_null(strstr(log, ":2:"));
  assert_non_null(strstr(log, "undefined_name"));
  assert_int_equal(clCreateKernel(p, "k", &err), NULL);
  assert_int_equal(err, CL_INVALID_PROGRAM_EXECUTABLE);
  /* -D reaches clang */
  assert_int_equal(clBuildProgram(p, 0, NULL, "-Dundefined_name=42", NULL, NULL), CL_SUCCESS);
  CL_OK(clReleaseProgram(p));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vector_add),
      cmocka_unit_test(misaligned_host_memory),
      cmocka_unit_test(reduction_in_local_memory),
      cmocka_unit_test(bfs_one_launch_per_level),
      cmocka_unit_test(scalar_vector_struct_args),
      cmocka_unit_test(two_dimensions_with_offset),
      cmocka_unit_test(copy_fill_rect_map_sub_buffers),
      cmocka_unit_test(program_and_kernel_info),
      cmocka_unit_test(build_log_names_the_line),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
