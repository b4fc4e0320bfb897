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
#include "runtime.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* Reads fd to its end, or until `whole` (when not NULL) says that what came is complete. */
static char *read_fd(int fd, size_t *len, int (*whole)(const unsigned char *, size_t)) {
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
    if (r <= 0 || (whole && whole((unsigned char *)buf, n + (size_t)r))) {
      *len = n + (r > 0 ? (size_t)r : 0);
      buf[*len] = 0;
      return buf;
    }
  }
  free(buf);
  return NULL;
}

static void drain(int fd) {
  char sink[4096];
  for (ssize_t r; (r = read(fd, sink, sizeof sink)) > 0 || (r < 0 && errno == EINTR);) {}
}

/* clang-19 has written its bitcode some 10 ms before it has exited (static destructors, and
 * unmapping libLLVM), so the build goes on as soon as the bitcode is whole. Raw bitcode is a
 * magic number and top-level blocks; each starts with one word (ENTER_SUBBLOCK in 2 bits, the
 * block id in a vbr8, the abbreviation width in a vbr4, padding) and its length in words, and
 * LLVM's writer puts the string table last. Anything else waits for the end of the stream. */
#define BITCODE_STRTAB_BLOCK 23

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int bitcode_whole(const unsigned char *b, size_t len) {
  if (len < 4 || memcmp(b, "BC\xC0\xDE", 4) != 0) return 0;
  for (size_t at = 4; at + 8 <= len;) {
    uint32_t head = le32(b + at);
    int one_word = (head & 3) == 1 && !(head & 0x200) && !(head & 0x2000) && !(head >> 14);
    if (!one_word) return 0;
    at += 8 + (size_t)le32(b + at + 4) * 4;
    if ((head >> 2 & 0xff) == BITCODE_STRTAB_BLOCK) return at == len;
  }
  return 0;
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

/* A running clang-19: its stdin (when it reads the source from there), stdout (bitcode) and the
 * memfd that collects its diagnostics. */
struct frontend_clang {
  pid_t pid;
  int in, out, err; /* -1 when closed */
  double started; /* ms, rt_now_ms */
};

/* clang-19 takes 75-125 ms to start on this project's 2-core VMs, depending on the day
 * (relocating libLLVM and libclang-cpp, and their page faults); work that the waiting thread
 * starts within the first 40 ms of that is free. */
#define STARTUP_FREE_MS 40

static int in_startup(const frontend_clang *c) { return rt_now_ms() - c->started < STARTUP_FREE_MS; }

static void clang_close(frontend_clang *c) {
  if (c->in >= 0) close(c->in);
  if (c->out >= 0) close(c->out);
  if (c->err >= 0) close(c->err);
  c->in = c->out = c->err = -1;
}

/* Starts clang on `input` with stdin from `in_fd` (-1: none), bitcode to a pipe and diagnostics
 * to a memfd. Returns 0, or -1 with *log set. */
static int clang_spawn(const char *input, int in_fd, const char *options, frontend_clang *c,
                       char **log) {
  char *opts = strdup(options ? options : "");
  char *argv[64] = {(char *)clang_path(), "-x", "cl", "-cl-std=CL1.2",
                    "-target", "x86_64-unknown-linux-gnu", "-Xclang", "-ffake-address-space-map",
                    "-O0", "-Xclang", "-disable-O0-optnone", "-gline-tables-only",
                    "-fno-color-diagnostics", "-cl-kernel-arg-info", "-Wno-psabi", "-emit-llvm",
                    "-c", "-o", "-"};
  int fixed = 0, out[2];
  while (argv[fixed]) fixed++;
  int argc = add_user_options(argv, fixed, 60, opts);
  argv[argc++] = (char *)input;
  argv[argc] = NULL;
  *c = (frontend_clang){0, -1, -1, memfd_create("clang-diagnostics", 0), 0};
  if (c->err < 0 || pipe(out) != 0) {
    free(opts);
    clang_close(c);
    *log = strdup("weft: cannot create pipes for clang-19");
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, c->err, 2);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  c->started = rt_now_ms();
  int rc = posix_spawn(&c->pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  c->out = out[0];
  if (rc != 0 && asprintf(log, "weft: cannot run %s: %s (install clang-19, or set WEFT_CLANG)",
                          argv[0], strerror(rc)) < 0)
    *log = NULL;
  free(opts);
  if (rc != 0) clang_close(c);
  return rc != 0 ? -1 : 0;
}

static void *reap(void *pid) {
  while (waitpid((pid_t)(intptr_t)pid, NULL, 0) < 0 && errno == EINTR) {}
  return NULL;
}

/* A thread of its own waits for a clang that has written all it will write. */
static void reap_later(pid_t pid) {
  pthread_attr_t a;
  pthread_t t;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 64 << 10);
  if (pthread_create(&t, &a, reap, (void *)(intptr_t)pid) != 0) reap((void *)(intptr_t)pid);
  pthread_attr_destroy(&a);
}

static int no_diagnostics(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_size == 0;
}

/* Reads the bitcode (malloc'd; NULL when clang failed) and the diagnostics into *log, and reaps
 * clang. First runs `idle`, if clang is still starting up. Whole bitcode without diagnostics is
 * a success that needs no exit status; diagnostics end with clang's count of them, written
 * after the bitcode, so with any the build waits for clang's exit. */
static char *clang_finish(frontend_clang *c, const frontend_idle *idle, size_t *len, char **log) {
  if (idle && in_startup(c)) idle->fn(idle->arg);
  char *bitcode = read_fd(c->out, len, bitcode_whole);
  if (bitcode && bitcode_whole((unsigned char *)bitcode, *len) && no_diagnostics(c->err)) {
    reap_later(c->pid);
    *log = strdup("");
  } else {
    int status = 0;
    drain(c->out);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {}
    size_t loglen;
    lseek(c->err, 0, SEEK_SET);
    *log = read_fd(c->err, &loglen, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !bitcode || *len == 0) {
      free(bitcode);
      bitcode = NULL;
    }
  }
  clang_close(c);
  return bitcode;
}

/* The source as clang reads it from stdin: a #line directive makes its diagnostics name the
 * caller's file. Returns the length, or -1. */
static int named_source(char **text, const char *path, const char *source) {
  return asprintf(text, "#line 1 \"%s\"\n%s", path, source);
}

frontend_clang *frontend_prestart(void) {
  frontend_clang *c = malloc(sizeof *c);
  int sv[2];
  char *log = NULL;
  if (!c || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return free(c), NULL;
  int bad = clang_spawn("-", sv[1], NULL, c, &log);
  close(sv[1]);
  free(log);
  if (bad) return close(sv[0]), free(c), NULL;
  c->in = sv[0];
  return c;
}

void frontend_discard(frontend_clang *c) {
  if (!c) return;
  kill(c->pid, SIGKILL);
  while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {}
  clang_close(c);
  free(c);
}

/* Hands the source to a prestarted clang. A socket, not a pipe, so that a clang that died makes
 * send() fail (MSG_NOSIGNAL) instead of killing the host with SIGPIPE. */
static char *run_prestarted(frontend_clang *c, const char *path, const char *source,
                            const frontend_idle *idle, size_t *len, char **log) {
  char *text = NULL;
  int n = named_source(&text, path, source);
  for (ssize_t sent = 0, done = 0; n > 0 && done < n; done += sent)
    if ((sent = send(c->in, text + done, (size_t)(n - done), MSG_NOSIGNAL)) <= 0) break;
  free(text);
  close(c->in);
  c->in = -1;
  return clang_finish(c, idle, len, log);
}

/* A prestarted clang runs without build options and reads stdin, where `#include "..."` would
 * not find the files next to the kernel: such builds start their own clang. */
static int can_prestarted(const char *options, const char *text) {
  return (!options || !options[strspn(options, " \t")]) && !strstr(text, "#include");
}

/* A clang of its own, on the file or on the source in a memfd. */
static char *run_own_clang(const char *path, const char *source, const char *options,
                           const frontend_idle *idle, size_t *len, char **log) {
  int in_fd = -1;
  char *text = NULL;
  int n = source ? named_source(&text, path, source) : 0;
  if (n < 0 || (source && (in_fd = memfd_create("kernel-source", 0)) < 0) ||
      (in_fd >= 0 && write(in_fd, text, (size_t)n) != n)) {
    if (in_fd >= 0) close(in_fd);
    free(text);
    *log = strdup("weft: out of memory for the kernel source");
    return NULL;
  }
  free(text);
  if (in_fd >= 0) lseek(in_fd, 0, SEEK_SET);
  frontend_clang c;
  int bad = clang_spawn(in_fd >= 0 ? "-" : path, in_fd, options, &c, log);
  if (in_fd >= 0) close(in_fd);
  return bad ? NULL : clang_finish(&c, idle, len, log);
}

/* Compiles with the prestarted clang *ready when it can (consuming it), else with a clang of its
 * own. Returns the bitcode (malloc'd) or NULL with *log set. */
static char *run_clang(const char *path, const char *source, const char *file_text,
                       const char *options, frontend_clang **ready, const frontend_idle *idle,
                       size_t *len, char **log) {
  const char *src = source ? source : file_text;
  if (ready && *ready && src && can_prestarted(options, src)) {
    frontend_clang *c = *ready;
    *ready = NULL;
    char *bitcode = run_prestarted(c, path, src, idle, len, log);
    free(c);
    if (bitcode || (*log && **log)) return bitcode;
    free(*log); /* it died without a word (killed, say): this build starts its own */
    *log = NULL;
  }
  return run_own_clang(path, source, options, idle, len, log);
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

/* clang reads a kernel's struct parameter where the caller put it, which in weft is the
 * launch's argument block that every work-item shares: each work-item gets its own copy, as
 * OpenCL passes structs by value, and SROA turns the copy back into loads where nothing
 * writes it. */
static void private_struct_params(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  for (LLVMValueRef f = frontend_next_kernel(m, NULL); f; f = frontend_next_kernel(m, f))
    for (unsigned i = 0; i < LLVMCountParams(f); i++) {
      LLVMTypeRef t = ir_byval_type(f, i);
      if (!t) continue;
      LLVMValueRef p = LLVMGetParam(f, i);
      LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
      LLVMValueRef copy = LLVMBuildAlloca(b, t, "");
      unsigned align = LLVMABIAlignmentOfType(td, t);
      LLVMSetAlignment(copy, align);
      LLVMReplaceAllUsesWith(p, copy);
      LLVMBuildMemCpy(b, copy, align, p, 1, LLVMConstInt(LLVMInt64TypeInContext(c), LLVMABISizeOfType(td, t), 0));
    }
  LLVMDisposeBuilder(b);
}

static weft_status canonicalize(LLVMModuleRef m, char **log) {
  private_struct_params(m);
  expand_printf(m);
  builtin_types_restore(m);
  expand_builtins(m);
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

weft_status frontend_compile(LLVMContextRef ctx, const char *path, const char *source,
                             const char *file_text, const char *options, frontend_clang **ready,
                             const frontend_idle *idle, frontend_result *out) {
  memset(out, 0, sizeof *out);
  if (!source && access(path, R_OK) != 0) {
    if (asprintf(&out->log, "weft: cannot read '%s': %s", path, strerror(errno)) < 0)
      out->log = NULL;
    return WEFT_ERROR_IO;
  }
  size_t len = 0;
  char *bitcode = run_clang(path, source, file_text, options, ready, idle, &len, &out->log);
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
  weft_status st = canonicalize(out->module, &out->log);
  if (st) {
    LLVMDisposeModule(out->module);
    out->module = NULL;
  }
  return st;
}
