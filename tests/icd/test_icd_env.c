/* The environment through the ICD. `test_icd_env good STATS` runs with WEFT_POLICY=mp,
 * WEFT_WARP=8, WEFT_LANES=4, WEFT_THREADS=1 and WEFT_STATS=STATS: the device and kernels report
 * them, and each launch appends its JSON line to STATS (a divergent kernel's with SIMD efficiency
 * below 1, a straight one's at 1). `test_icd_env bad` runs with WEFT_WARP=7 and
 * WEFT_POLICY=nope: one line each on stderr, and the defaults. */
#include <fcntl.h>
#include <unistd.h>

#include "icd_test.h"

static const char source[] =
    "__kernel void straight(__global int *x) { x[get_global_id(0)] += 1; }\n"
    "__kernel void diverge(__global int *x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i % 2) x[i] *= 3; else x[i] -= 1;\n"
    "}\n";

static const char *mode, *stats_path;

static size_t multiple_of(const cl_env *e) {
  cl_program p = build(e, source, NULL);
  cl_kernel k = kernel(p, "straight");
  size_t m;
  CL_OK(clGetKernelWorkGroupInfo(k, e->device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                 sizeof m, &m, NULL));
  clReleaseKernel(k), clReleaseProgram(p);
  return m;
}

static void run(const cl_env *e, const char *name, size_t n) {
  cl_program p = build(e, source, NULL);
  cl_kernel k = kernel(p, name);
  cl_mem m = buffer(e, 0, n * sizeof(int), NULL);
  CL_OK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_OK(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
  CL_OK(clFinish(e->q));
  clReleaseMemObject(m), clReleaseKernel(k), clReleaseProgram(p);
}

/* The number after "key": in a JSON line. */
static double field(const char *line, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *at = strstr(line, pat);
  if (!at) fail_msg("no %s in %s", key, line);
  return strtod(at + strlen(pat), NULL);
}

static void options_and_stats(void **state) {
  (void)state;
  cl_env e;
  env_open(&e, 0);
  cl_uint units;
  CL_OK(clGetDeviceInfo(e.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL));
  assert_int_equal(units, 1);
  assert_int_equal(multiple_of(&e), 8);
  run(&e, "straight", 64);
  run(&e, "diverge", 64);
  env_close(&e);
  FILE *f = fopen(stats_path, "r");
  assert_non_null(f);
  char lines[3][2048];
  int n = 0;
  while (n < 3 && fgets(lines[n], sizeof lines[n], f)) n++;
  fclose(f);
  assert_int_equal(n, 2);
  assert_non_null(strstr(lines[0], "{\"kernel\": \"straight\", \"policy\": \"mp\", \"warp\": 8, "
                                   "\"lanes\": 4, \"threads\": 1"));
  assert_non_null(strstr(lines[0], "\"global\": [64, 1, 1]"));
  assert_true(field(lines[0], "simd_efficiency") == 1.0);
  assert_true(field(lines[0], "warps") == 8);
  assert_non_null(strstr(lines[1], "\"kernel\": \"diverge\""));
  assert_true(field(lines[1], "simd_efficiency") < 1.0);
  assert_true(field(lines[1], "divergent_branches") == 8); /* one per warp */
}

static void bad_values_are_reported(void **state) {
  (void)state;
  char path[] = "/tmp/weft_icd_env_XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  dup2(fd, 2);
  cl_env e;
  env_open(&e, 0);
  dup2(saved, 2);
  close(saved);
  assert_int_equal(multiple_of(&e), 32);
  env_close(&e);
  char text[1024] = "";
  lseek(fd, 0, SEEK_SET);
  ssize_t len = read(fd, text, sizeof text - 1);
  close(fd), unlink(path);
  text[len > 0 ? len : 0] = 0;
  assert_non_null(strstr(text, "weft: WEFT_POLICY=nope: "));
  assert_non_null(strstr(text, "weft: WEFT_WARP=7: warp width W must be 4, 8, 16, 32 or 64"));
  int lines = 0;
  for (const char *c = text; *c; c++) lines += *c == '\n';
  assert_int_equal(lines, 2);
}

int main(int argc, char **argv) {
  mode = argc > 1 ? argv[1] : "";
  stats_path = argc > 2 ? argv[2] : "";
  if (!strcmp(mode, "good")) unlink(stats_path); /* WEFT_STATS appends */
  const struct CMUnitTest good[] = {cmocka_unit_test(options_and_stats)};
  const struct CMUnitTest bad[] = {cmocka_unit_test(bad_values_are_reported)};
  return !strcmp(mode, "good") ? cmocka_run_group_tests(good, NULL, NULL)
                               : cmocka_run_group_tests(bad, NULL, NULL);
}
