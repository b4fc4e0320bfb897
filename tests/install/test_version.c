/* weft's version is one thing everywhere: the project's (CMakeLists.txt reads it from weft.h),
 * WEFT_VERSION and WEFT_VERSION_MAJOR/MINOR/PATCH in weft.h, weft_version() of libweft.so, and
 * what `weft --version` prints; `weft --help` says that --version exists.
 *     test_version PATH_OF_WEFT PROJECT_VERSION */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "weft.h"

static const char *weft_exe, *project_version;

/* The whole stdout of `weft ARG` into out; returns its exit status (-1 if it did not exit). */
static int run_weft(const char *arg, char *out, size_t n) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s", weft_exe, arg);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t len = fread(out, 1, n - 1, p);
  out[len] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void header_is_the_project_version(void **state) {
  (void)state;
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", WEFT_VERSION_MAJOR, WEFT_VERSION_MINOR,
           WEFT_VERSION_PATCH);
  assert_string_equal(parts, project_version);
  assert_string_equal(WEFT_VERSION, project_version);
}

static void library_is_the_project_version(void **state) {
  (void)state;
  assert_string_equal(weft_version(), project_version);
}

static void command_prints_it(void **state) {
  (void)state;
  char out[256], want[256];
  assert_int_equal(run_weft("--version", out, sizeof out), 0);
  snprintf(want, sizeof want, "weft %s\n", project_version);
  assert_string_equal(out, want);
}

static void help_mentions_it(void **state) {
  (void)state;
  static char out[1 << 14];
  assert_int_equal(run_weft("--help", out, sizeof out), 0);
  assert_non_null(strstr(out, "weft --version"));
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: test_version WEFT PROJECT_VERSION\n"), 2;
  weft_exe = argv[1], project_version = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(header_is_the_project_version),
      cmocka_unit_test(library_is_the_project_version),
      cmocka_unit_test(command_prints_it),
      cmocka_unit_test(help_mentions_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
