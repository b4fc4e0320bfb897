/* Front end: OpenCL C to a canonical LLVM module.
 *
 * clang-19 runs as a child process (-O0 without optnone, line tables kept, the fake address-space
 * map so that __global/__constant/__local stay apart) and writes bitcode to a pipe. weft then
 * canonicalizes the module with its own pass pipeline instead of clang's -O1: helpers are inlined
 * into kernels and values promoted to SSA, but the source's branches must survive, because the
 * branches are what weft schedules. simplifycfg would fold small if/else diamonds into selects even
 * with no-speculate-blocks, so every function carries `optforfuzzing` (which switches that fold
 * off) while the pipeline runs. clang's baseline target-cpu/target-features are removed so that
 * code generation later targets the host CPU. */
#include "compiler.h"

#include <errno.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CANON_CFG "simplifycfg<no-speculate-blocks;no-hoist-common-insts;no-sink-common-insts;" \
                  "keep-loops;no-switch-to-lookup;bonus-inst-threshold=0>"
static const char canonical_pipeline[] =
    "always-inline,globaldce,function(sroa,early-cse," CANON_CFG ",instcombine<no-verify-fixpoint>,"
    "gvn," CANON_CFG ",loop-mssa(licm),instcombine<no-verify-fixpoint>," CANON_CFG ",jump-threading,loop-rotate," CANON_CFG ",adce)";

int frontend_is_kernel(LLVMValueRef fn) {
  return !LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) == 76; /* spir_kernel */
}

LLVMValueRef frontend_next_kernel(LLVMModuleRef m, LLVMValueRef after) {
  LLVMValueRef f = after ? LLVMGetNextFunction(after) : LLVMGetFirstFunction(m);
  while (f && !frontend_is_kernel(f)) f = LLVMGetNextFunction(f);
  return f;
}

static char *read_fd(int fd, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (ssize_t r; buf; n += (size_t)r) {
    if (n + 1 >= cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) break;
      buf = grown;
    }
    r = read(fd, buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR) { r = 0; continue; }
    if (r <= 0) {
      buf[n] = 0;
      *len = n;
      return buf;
    }
  }
  free(buf);
  return NULL;
}

static const char *clang_path(void) {
  const char *p = getenv("WEFT_CLANG");
  return p && *p ? p : WEFT_CLANG_PATH;
}

/* Splits user build options at spaces into argv (no quoting: OpenCL build options have none). */
static int add_user_options(char **argv, int argc, int max, char *options) {
  for (char *tok = strtok(options, " \t"); tok && argc < max; tok = strtok(NULL, " \t"))
    argv[argc++] = tok;
  return argc;
}

/* Runs clang with stdin from `in_fd` (or the file `path`), bitcode to a pipe, diagnostics to a
 * memfd. Returns the bitcode (malloc'd) or NULL with *log set. */
static char *run_clang(const char *path, int in_fd, const char *options, size_t *len, char **log) {
  char *opts = strdup(options ? options : "");
  char *argv[64] = {(char *)clang_path(), "-x", "cl", "-cl-std=CL1.2",
                    "-target", "x86_64-unknown-linux-gnu", "-Xclang", "-ffake-address-space-map",
                    "-O0", "-Xclang", "-disable-O0-optnone", "-gline-tables-only",
                    "-fno-color-diagnostics", "-cl-kernel-arg-info", "-emit-llvm", "-c", "-o", "-"};
  int argc = add_user_options(argv, 18, 60, opts);
  argv[argc++] = in_fd >= 0 ? "-" : (char *)path;
  argv[argc] = NULL;

  int out[2], err_fd = memfd_create("clang-diagnostics", 0);
  char *bitcode = NULL;
  if (err_fd < 0 || pipe(out) != 0) {
    *log = strdup("weft: cannot create pipes for clang-19");
    goto done;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  if (rc != 0) {
    if (asprintf(log, "weft: cannot run %s: %s (install clang-19, or set WEFT_CLANG)", argv[0],
                 strerror(rc)) < 0) *log = NULL;
    close(out[0]);
    goto done;
  }
  bitcode = read_fd(out[0], len);
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  size_t loglen;
  lseek(err_fd, 0, SEEK_SET);
  *log = read_fd(err_fd, &loglen);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !bitcode || *len == 0) {
    free(bitcode);
    bitcode = NULL;
  }
done:
  if (err_fd >= 0) close(err_fd);
  free(opts);
  return bitcode;
}

static void set_fn_attr(LLVMContextRef c, LLVMValueRef fn, const char *name, int on) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  if (on) LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, kind, 0));
  else LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
}

static void strip_target_attrs(LLVMValueRef fn) {
  static const char *names[] = {"target-cpu", "target-features", "tune-cpu"};
  for (int i = 0; i < 3; i++)
    LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, names[i], strlen(names[i]));
}

/* Before the pipeline: helpers become always-inline, nothing is optnone, nothing if-converts. */
static void prepare_functions(LLVMModuleRef m, int before) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    strip_target_attrs(f);
    if (LLVMIsDeclaration(f)) continue;
    set_fn_attr(c, f, "optforfuzzing", before);
    if (!before) continue;
    set_fn_attr(c, f, "optnone", 0);
    set_fn_attr(c, f, "noinline", 0);
    if (!frontend_is_kernel(f)) {
      set_fn_attr(c, f, "alwaysinline", 1);
      LLVMSetLinkage(f, LLVMInternalLinkage);
    }
  }
}

static weft_status canonicalize(LLVMModuleRef m, char **log) {
  prepare_functions(m, 1);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, canonical_pipeline, NULL, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    if (asprintf(log, "weft: internal pass pipeline failed: %s", msg) < 0) *log = NULL;
    LLVMDisposeErrorMessage(msg);
    return WEFT_ERROR_BUILD;
  }
  prepare_functions(m, 0);
  return WEFT_SUCCESS;
}

static weft_status open_input(const char *path, const char *source, int *in_fd, char **log) {
  *in_fd = -1;
  if (!source) {
    if (access(path, R_OK) == 0) return WEFT_SUCCESS;
    if (asprintf(log, "weft: cannot read '%s': %s", path, strerror(errno)) < 0) *log = NULL;
    return WEFT_ERROR_IO;
  }
  /* A #line directive makes clang's diagnostics name the caller's file name. */
  int fd = memfd_create("kernel-source", 0);
  if (fd < 0) return WEFT_ERROR_OUT_OF_MEMORY;
  dprintf(fd, "#line 1 \"%s\"\n%s", path, source);
  lseek(fd, 0, SEEK_SET);
  *in_fd = fd;
  return WEFT_SUCCESS;
}

weft_status frontend_compile(LLVMContextRef ctx, const char *path, const char *source,
                             const char *options, frontend_result *out) {
  memset(out, 0, sizeof *out);
  int in_fd;
  weft_status st = open_input(path, source, &in_fd, &out->log);
  if (st) return st;
  size_t len = 0;
  char *bitcode = run_clang(path, in_fd, options, &len, &out->log);
  if (in_fd >= 0) close(in_fd);
  if (!bitcode)
    return out->log && strncmp(out->log, "weft: cannot run", 16) == 0 ? WEFT_ERROR_TOOLCHAIN
                                                                     : WEFT_ERROR_BUILD;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bitcode, len, "kernel.bc");
  free(bitcode);
  int bad = LLVMParseBitcodeInContext2(ctx, buf, &out->module);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    free(out->log);
    out->log = strdup("weft: clang-19 produced unreadable bitcode");
    return WEFT_ERROR_TOOLCHAIN;
  }
  st = canonicalize(out->module, &out->log);
  if (st) {
    LLVMDisposeModule(out->module);
    out->module = NULL;
  }
  return st;
}
