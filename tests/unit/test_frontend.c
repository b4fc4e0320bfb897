/* The front end's two ways of running clang-19: its cc1 inside the process (cc1.c), and a
 * clang-19 process (WEFT_CLANG set). The process is the reference: both must give the same
 * canonical module, the same diagnostics, and the in-process one must leave the host's own
 * stderr alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>

#include "compiler.h"

static const char k50_path[] = WEFT_SOURCE_DIR "/bench/k50.cl";
static const char options[] = "-DSCALE=3 -D OFFSET=2 -I /tmp -Wall -cl-fast-relaxed-math "
                              "-cl-mad-enable -cl-std=CL1.2";
static const char scaled[] =
    "__kernel void k(__global float *o) {\n"
    "  o[get_global_id(0)] = sqrt((float)get_global_id(0)) * SCALE + OFFSET;\n"
    "}\n";

/* The canonical module's text (the front end's whole output), with process = 1 through a
 * clang-19 process. */
static char *module_text(int process, const char *path, const char *source, const char *opts) {
  if (process) setenv("WEFT_CLANG", WEFT_CLANG_PATH, 1);
  LLVMContextRef c = LLVMContextCreate();
  frontend_result fr;
  weft_status st = pipeline_front_end(c, path, source, opts, NULL, &fr);
  unsetenv("WEFT_CLANG");
  if (st) fprintf(stderr, "%s\n", fr.log ? fr.log : "(no log)");
  assert_int_equal(st, WEFT_SUCCESS);
  char *ir = LLVMPrintModuleToString(fr.module), *text = strdup(ir);
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(fr.module);
  LLVMContextDispose(c);
  free(fr.log);
  return text;
}

static void assert_same_module(const char *path, const char *source, const char *opts) {
  char *in_process = module_text(0, path, source, opts),
       *process = module_text(1, path, source, opts);
  assert_non_null(strstr(in_process, "define "));
  assert_string_equal(in_process, process);
  free(in_process), free(process);
}

/* This machine's clang-19 (Debian's, as CI installs it) loads into the process. */
static void cc1_runs_in_this_process(void **state) {
  (void)state;
  char *bitcode = NULL, *log = NULL;
  size_t len = 0;
  assert_int_equal(cc1_compile("k.cl", scaled, "-DSCALE=2 -DOFFSET=1", NULL, &bitcode, &len, &log),
                   0);
  assert_non_null(bitcode);
  assert_memory_equal(bitcode, "BC\xC0\xDE", 4);
  assert_string_equal(log, "");
  free(bitcode), free(log);
}

static void both_ways_give_the_same_module(void **state) {
  (void)state;
  assert_same_module(k50_path, NULL, NULL);
  assert_same_module("scaled.cl", scaled, options);
  /* cc1 takes -cl-denorms-are-zero as the flag it becomes (files.c), and the module says so */
  char *flushed = module_text(0, "scaled.cl", scaled, "-DSCALE=2 -DOFFSET=1 -cl-denorms-are-zero");
  assert_non_null(strstr(flushed, "\"denormal-fp-math\"=\"preserve-sign,preserve-sign\""));
  free(flushed);
  assert_same_module("scaled.cl", scaled, "-DSCALE=2 -DOFFSET=1 -cl-denorms-are-zero");
}

/* Options that cc1 does not take as the driver does go to a clang-19 process. */
static void options_the_driver_must_translate_go_to_a_process(void **state) {
  (void)state;
  static const char *const process[] = {"-O2", "-cl-uniform-work-group-size", "-Wl,-x", "-D",
                                        "-mllvm -x"};
  char *bitcode = NULL, *log = NULL;
  size_t len;
  for (size_t i = 0; i < sizeof process / sizeof *process; i++)
    assert_int_equal(cc1_compile("k.cl", scaled, process[i], NULL, &bitcode, &len, &log), -1);
  assert_same_module("scaled.cl", scaled, "-DSCALE=1 -DOFFSET=0 -cl-uniform-work-group-size");
}

/* More build options than a command line here takes are refused by name, not cut short. */
static void too_many_options_are_refused(void **state) {
  (void)state;
  char opts[2048] = "";
  for (int i = 0; i < 70; i++)
    snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "-DX%d ", i);
  LLVMContextRef c = LLVMContextCreate();
  frontend_result fr;
  assert_int_equal(pipeline_front_end(c, "scaled.cl", scaled, opts, NULL, &fr), WEFT_ERROR_BUILD);
  assert_non_null(strstr(fr.log, "too many build options"));
  free(fr.log);
  LLVMContextDispose(c);
}

/* A diagnostic reaches the log with the file's name and line; the host's fd 2 stays its own,
 * and hears nothing. */
static void diagnostics_go_to_the_log_not_the_host(void **state) {
  (void)state;
  int host_err = memfd_create("host-stderr", 0), saved = dup(2);
  struct stat before, after;
  assert_true(host_err >= 0 && saved >= 0 && dup2(host_err, 2) == 2);
  fstat(2, &before);
  char *bitcode = NULL, *log = NULL;
  size_t len;
  int rc = cc1_compile("bad.cl",
                       "#line 1 \"bad.cl\"\n__kernel void k(__global int *o) {\n  o[0] = x;\n}\n",
                       NULL, NULL, &bitcode, &len, &log);
  fstat(2, &after);
  off_t heard = lseek(host_err, 0, SEEK_END);
  dup2(saved, 2), close(saved), close(host_err);
  assert_int_equal(rc, 0);
  assert_null(bitcode);
  assert_non_null(strstr(log, "bad.cl:2:10: error: use of undeclared identifier 'x'"));
  assert_true(before.st_ino == after.st_ino);
  assert_int_equal(heard, 0);
  free(log);
}

typedef struct compile_in_thread {
  int n;
  char *ir;
} compile_in_thread;

static void *compile_scaled(void *arg) {
  compile_in_thread *c = arg;
  char opts[64];
  snprintf(opts, sizeof opts, "-DSCALE=%d -DOFFSET=%d", c->n, c->n);
  LLVMContextRef ctx = LLVMContextCreate();
  frontend_result fr;
  if (pipeline_front_end(ctx, "scaled.cl", scaled, opts, NULL, &fr) == WEFT_SUCCESS) {
    char *ir = LLVMPrintModuleToString(fr.module);
    c->ir = strdup(ir);
    LLVMDisposeMessage(ir);
    LLVMDisposeModule(fr.module);
  }
  free(fr.log);
  LLVMContextDispose(ctx);
  return NULL;
}

/* Builds on several threads at once each get their own kernel (cc1 runs one at a time). */
static void concurrent_builds_stay_apart(void **state) {
  (void)state;
  enum { N = 4 };
  compile_in_thread c[N];
  pthread_t t[N];
  for (int i = 0; i < N; i++) c[i] = (compile_in_thread){i + 5, NULL};
  for (int i = 0; i < N; i++)
    assert_int_equal(pthread_create(&t[i], NULL, compile_scaled, &c[i]), 0);
  for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_non_null(c[i].ir);
    char scale[32];
    snprintf(scale, sizeof scale, "%d.000000e+00", i + 5);
    assert_non_null(strstr(c[i].ir, scale));
    for (int j = 0; j < N; j++) {
      snprintf(scale, sizeof scale, "%d.000000e+00", j + 5);
      if (j != i) assert_null(strstr(c[i].ir, scale));
    }
    free(c[i].ir);
  }
}

/* LLVM's default handler exits the process on an error; between ir_diagnostics_begin and _end
 * the error is kept instead, and the handler there was is back afterwards. */
static void llvm_errors_do_not_exit(void **state) {
  (void)state;
  LLVMContextRef c = LLVMContextCreate();
  static const char bad[] = "BC\xc0\xde not really bitcode";
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bad, sizeof bad, "bad");
  ir_diagnostics d;
  ir_diagnostics_begin(&d, c);
  LLVMModuleRef m = NULL;
  assert_true(LLVMParseBitcodeInContext2(c, buf, &m));
  char *why = ir_diagnostics_end(&d, c);
  assert_non_null(why);
  assert_null(LLVMContextGetDiagnosticHandler(c));
  free(why);
  LLVMDisposeMemoryBuffer(buf);
  LLVMContextDispose(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cc1_runs_in_this_process),
      cmocka_unit_test(both_ways_give_the_same_module),
      cmocka_unit_test(options_the_driver_must_translate_go_to_a_process),
      cmocka_unit_test(too_many_options_are_refused),
      cmocka_unit_test(diagnostics_go_to_the_log_not_the_host),
      cmocka_unit_test(concurrent_builds_stay_apart),
      cmocka_unit_test(llvm_errors_do_not_exit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
