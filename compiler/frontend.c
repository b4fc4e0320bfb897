/* Front end: OpenCL C to a canonical LLVM module.
 *
 * clang-19 compiles the kernel (-O0 without optnone, line tables kept, the fake address-space map
 * so that __global/__constant/__local stay apart) to bitcode: its cc1, loaded into this process,
 * in a child forked for the compile when it can (cc1.c), else a clang-19 process; either way a
 * crash of clang or a compile past the build's time limit is a build error (child.c). weft then
 * canonicalizes the module with its own pass pipeline instead of clang's -O1: helpers are inlined
 * into kernels and values promoted to SSA, but the source's branches must survive, because the
 * branches are what weft schedules. simplifycfg would fold small if/else diamonds into selects even
 * with no-speculate-blocks, so every function carries `optforfuzzing` (which switches that fold
 * off) while the pipeline runs. clang's baseline target-cpu/target-features are removed so that
 * code generation later targets the host CPU. */
#include "compiler.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CANON_CFG                                                               \
  "simplifycfg<no-speculate-blocks;no-hoist-common-insts;no-sink-common-insts;" \
  "keep-loops;no-switch-to-lookup;bonus-inst-threshold=0>"
/* First each function in SSA on its own, its short-circuit tests threaded (jump-threading: the
 * escape test of a `while (a && b)` loop becomes one branch), for call fusion (fuse_calls.c) to
 * see the helpers' calls; then the helpers inlined and everything canonical. Jump threading
 * after inlining would send a helper's early `return` past the caller's test of the value it
 * returns, straight to wherever that test leads (out of a loop, say): the helper's branches
 * would reconverge there instead of at its end, and run its rest apart. */
static const char pre_inline_pipeline[] =
    "function(sroa,early-cse," CANON_CFG
    ",instcombine<no-verify-fixpoint>,jump-threading," CANON_CFG ")";
static const char canonical_pipeline[] =
    "always-inline,globaldce,function(sroa,early-cse," CANON_CFG ",instcombine<no-verify-fixpoint>,"
    "gvn," CANON_CFG ",loop-mssa(licm),instcombine<no-verify-fixpoint>," CANON_CFG
    ",loop-rotate," CANON_CFG ",adce)";

int frontend_is_kernel(LLVMValueRef fn) {
  return !LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) == 76; /* spir_kernel */
}

LLVMValueRef frontend_next_kernel(LLVMModuleRef m, LLVMValueRef after) {
  LLVMValueRef f = after ? LLVMGetNextFunction(after) : LLVMGetFirstFunction(m);
  while (f && !frontend_is_kernel(f)) f = LLVMGetNextFunction(f);
  return f;
}

const char *frontend_clang_path(void) {
  const char *p = getenv("WEFT_CLANG");
  return p && *p ? p : WEFT_CLANG_PATH;
}

/* What clang-19 is told to write the files it read to (fd 3 as spawn_clang sets it up), as
 * cc1.c tells cc1. */
static const char *const deps_args[] = {"-MD", "-MF", "/dev/fd/3", "-MT", "x"};
#define N_DEPS_ARGS (int)(sizeof deps_args / sizeof *deps_args)

/* The clang-19 command line for `input` and the build options (split in place in opts) in argv
 * (max entries, and N_DEPS_ARGS more with deps): its length, or -1 when there are too many
 * options. It must match cc1.c's driver_args; -fno-crash-diagnostics, so that a crash writes no
 * reproducer to /tmp. */
static int clang_command(const char **argv, int max, char *opts, const char *input, int deps) {
  static const char *const fixed[] = {"-x",
                                      "cl",
                                      "-cl-std=CL1.2",
                                      "-target",
                                      "x86_64-unknown-linux-gnu",
                                      "-Xclang",
                                      "-ffake-address-space-map",
                                      "-O0",
                                      "-Xclang",
                                      "-disable-O0-optnone",
                                      "-gline-tables-only",
                                      "-fno-color-diagnostics",
                                      "-fno-crash-diagnostics",
                                      "-cl-kernel-arg-info",
                                      "-Wno-psabi",
                                      WEFT_SUBGROUP_EXTENSIONS,
                                      "-emit-llvm",
                                      "-c",
                                      "-o",
                                      "-"};
  int argc = 0, nfixed = (int)(sizeof fixed / sizeof *fixed);
  argv[argc++] = frontend_clang_path();
  for (int i = 0; i < nfixed; i++) argv[argc++] = fixed[i];
  for (int i = 0; deps && i < N_DEPS_ARGS; i++) argv[argc++] = deps_args[i];
  int users = file_split_options(opts, argv + argc, max + (deps ? N_DEPS_ARGS : 0) - argc - 2);
  if (users < 0) return -1;
  argc += users;
  argv[argc++] = input;
  argv[argc] = NULL;
  return argc;
}

/* Starts argv[0] with stdin from in_fd (-1: this process's), stdout to out, stderr to err and
 * fd 3 to deps (-1: none). Returns 0 or the error number. */
static int spawn_clang(const char **argv, int in_fd, int out, int err, int deps, pid_t *pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out, 1);
  posix_spawn_file_actions_adddup2(&fa, err, 2);
  if (deps >= 0) posix_spawn_file_actions_adddup2(&fa, deps, 3);
  int rc = posix_spawn(pid, argv[0], &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc;
}

/* A memfd for the files clang reads, above fd 3: spawn_clang's dup2 to 3 comes after those to
 * 0, 1 and 2, which must not take it first. -1 when there is none. */
static int deps_fd(void) {
  int fd = memfd_create("clang-deps", MFD_CLOEXEC);
  if (fd < 0 || fd > 3) return fd;
  int above = fcntl(fd, F_DUPFD_CLOEXEC, 4);
  close(fd);
  return above;
}

/* Runs clang-19 as a process on `input` (the file `path`, or "-" with the source on in_fd),
 * writing the bitcode and the diagnostics to memfds, as `run` says (child.c). Sets *bitcode
 * (NULL when clang failed) and *log; returns WEFT_ERROR_TOOLCHAIN when clang cannot run,
 * WEFT_ERROR_OUT_OF_MEMORY when it ran out of memory, else WEFT_SUCCESS. */
static weft_status run_clang_process(const char *path, const char *input, int in_fd,
                                     const char *options, const frontend_run *run, char **bitcode,
                                     size_t *len, char **log) {
  char *opts = strdup(options ? options : "");
  const char *argv[64 + N_DEPS_ARGS];
  int deps = run && run->deps ? deps_fd() : -1;
  if (!opts || clang_command(argv, 64, opts, input, deps >= 0) < 0) {
    free(opts);
    if (deps >= 0) close(deps);
    *log = strdup("weft: too many build options (or no memory for them)");
    return WEFT_SUCCESS;
  }
  int out = memfd_create("clang-bitcode", MFD_CLOEXEC),
      err = memfd_create("clang-diagnostics", MFD_CLOEXEC);
  pid_t pid;
  double since = rt_now_ms();
  int rc = out < 0 || err < 0 ? errno : spawn_clang(argv, in_fd, out, err, deps, &pid);
  if (rc && asprintf(log, "weft: cannot run %s: %s (install clang-19, or set WEFT_CLANG)", argv[0],
                     strerror(rc)) < 0)
    *log = NULL;
  int code = rc ? 0 : child_finish(pid, since, run, path, out, err, bitcode, len, log);
  if (code == 0 && deps >= 0) *run->deps = file_read_back(deps, &(size_t){0});
  if (out >= 0) close(out);
  if (err >= 0) close(err);
  if (deps >= 0) close(deps);
  free(opts);
  return rc                        ? WEFT_ERROR_TOOLCHAIN
         : code == CHILD_NO_MEMORY ? WEFT_ERROR_OUT_OF_MEMORY
                                   : WEFT_SUCCESS;
}

/* Compiles the file `path`, or `source` named `path` in diagnostics (a #line directive), with cc1
 * in a child of this process when it can (cc1.c), else with a clang-19 process. Sets *bitcode
 * (malloc'd) or NULL with *log set; returns WEFT_ERROR_TOOLCHAIN when clang cannot run,
 * WEFT_ERROR_OUT_OF_MEMORY when it ran out of memory, else WEFT_ERROR_BUILD when there is no
 * bitcode. */
static weft_status run_clang(const char *path, const char *source, const char *options,
                             const frontend_run *run, char **bitcode, size_t *len, char **log) {
  char *text = NULL;
  weft_status st = WEFT_SUCCESS;
  *bitcode = NULL;
  if (source && asprintf(&text, "#line 1 \"%s\"\n%s", path, source) < 0)
    return *log = strdup("weft: out of memory for the kernel source"), WEFT_ERROR_OUT_OF_MEMORY;
  int ran = cc1_compile(path, text, options, run, bitcode, len, log);
  if (ran == CHILD_NO_MEMORY) st = WEFT_ERROR_OUT_OF_MEMORY;
  else if (ran != 0) {
    int in_fd = text ? file_text_fd(text) : -1;
    if (text && in_fd < 0) *log = strdup("weft: cannot hand the kernel source to clang-19");
    else st = run_clang_process(path, text ? "-" : path, in_fd, options, run, bitcode, len, log);
    if (in_fd >= 0) close(in_fd);
  }
  free(text);
  return st ? st : *bitcode ? WEFT_SUCCESS : WEFT_ERROR_BUILD;
}

static void set_fn_attr(LLVMValueRef fn, const char *name, int on) {
  if (on) return ir_fn_attr(fn, name, 0);
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                 LLVMGetEnumAttributeKindForName(name, strlen(name)));
}

static void strip_target_attrs(LLVMValueRef fn) {
  static const char *names[] = {"target-cpu", "target-features", "tune-cpu"};
  for (int i = 0; i < 3; i++)
    LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, names[i], strlen(names[i]));
}

/* Before the pipeline: helpers become always-inline, nothing is optnone, nothing if-converts. */
static void prepare_functions(LLVMModuleRef m, int before) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    strip_target_attrs(f);
    if (LLVMIsDeclaration(f)) continue;
    set_fn_attr(f, "optforfuzzing", before);
    if (!before) continue;
    set_fn_attr(f, "optnone", 0);
    set_fn_attr(f, "noinline", 0);
    if (!frontend_is_kernel(f)) {
      set_fn_attr(f, "alwaysinline", 1);
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
      LLVMValueRef copy = ir_entry_alloca(b, f, t);
      unsigned align = LLVMABIAlignmentOfType(td, t);
      LLVMSetAlignment(copy, align);
      LLVMReplaceAllUsesWith(p, copy);
      LLVMBuildMemCpy(b, copy, align, p, 1,
                      LLVMConstInt(LLVMInt64TypeInContext(c), LLVMABISizeOfType(td, t), 0));
    }
  LLVMDisposeBuilder(b);
}

void frontend_expand(LLVMModuleRef m) {
  private_struct_params(m);
  expand_printf(m);
  builtin_types_restore(m);
  expand_builtins(m);
}

/* ---- divisions while the pipeline runs ----
 * A division by zero, or INT_MIN / -1, gives a defined value in weft (README), but is undefined
 * behaviour in LLVM IR: instcombine folds `x / 0` to poison and takes a divisor for non-zero
 * after its division. So while the pipeline runs, each division whose divisor is not a safe
 * constant is a call of an opaque pure function, `weft.OP.TYPE`, and is a division again after
 * it, for the lowering to guard (lower_inst.c). */
static const struct {
  const char *name;
  LLVMOpcode op;
} divisions[] = {{"udiv", LLVMUDiv}, {"sdiv", LLVMSDiv}, {"urem", LLVMURem}, {"srem", LLVMSRem}};
/* the odd ones are signed */
#define NDIVISIONS (sizeof divisions / sizeof *divisions)

static int division_index(LLVMOpcode op) {
  for (unsigned i = 0; i < NDIVISIONS; i++)
    if (divisions[i].op == op) return (int)i;
  return -1;
}

/* The opaque function for division d on type t, declared once per module. */
static LLVMValueRef division_fn(LLVMModuleRef m, unsigned d, LLVMTypeRef t, LLVMTypeRef *fnt) {
  char name[64];
  unsigned bits = LLVMGetIntTypeWidth(ir_scalar_of(t));
  if (ir_is_vector(t))
    snprintf(name, sizeof name, "weft.%s.v%ui%u", divisions[d].name, LLVMGetVectorSize(t), bits);
  else snprintf(name, sizeof name, "weft.%s.i%u", divisions[d].name, bits);
  *fnt = LLVMFunctionType(t, (LLVMTypeRef[]){t, t}, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (fn) return fn;
  fn = LLVMAddFunction(m, name, *fnt);
  static const char *const pure[] = {"memory", "nounwind", "willreturn", "speculatable"};
  for (int i = 0; i < 4; i++) set_fn_attr(fn, pure[i], 1); /* memory(none) is memory 0 */
  return fn;
}

static void hide_divisions(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        int d = division_index(LLVMGetInstructionOpcode(i));
        if (d < 0 || ir_safe_divisor(LLVMGetOperand(i, 1), d & 1)) continue;
        LLVMTypeRef fnt;
        LLVMValueRef fn = division_fn(m, (unsigned)d, LLVMTypeOf(i), &fnt);
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef args[2] = {LLVMGetOperand(i, 0), LLVMGetOperand(i, 1)};
        LLVMValueRef call = LLVMBuildCall2(b, fnt, fn, args, 2, "");
        LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(i));
        LLVMReplaceAllUsesWith(i, call);
        LLVMInstructionEraseFromParent(i);
      }
  LLVMDisposeBuilder(b);
}

/* Which division f is the opaque function of, or -1. */
static int division_of_fn(LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  for (unsigned d = 0; LLVMIsDeclaration(f) && !strncmp(name, "weft.", 5) && d < NDIVISIONS; d++)
    if (!strncmp(name + 5, divisions[d].name, 4) && name[9] == '.') return (int)d;
  return -1;
}

static void restore_divisions(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    int d = division_of_fn(f);
    if (d < 0) continue;
    for (LLVMUseRef u; (u = LLVMGetFirstUse(f));) {
      LLVMValueRef call = LLVMGetUser(u);
      LLVMPositionBuilderBefore(b, call);
      LLVMValueRef x = LLVMGetOperand(call, 0), y = LLVMGetOperand(call, 1);
      /* Two constants fold here: fine for a safe divisor, but LLVM folds x / 0 to poison, so
       * an unsafe one is frozen, which keeps the division an instruction that the lowering
       * guards like any other */
      if (LLVMIsConstant(x) && LLVMIsConstant(y) && !ir_safe_divisor(y, d & 1))
        y = LLVMBuildFreeze(b, y, "");
      LLVMValueRef q = LLVMBuildBinOp(b, divisions[d].op, x, y, "");
      if (LLVMIsAInstruction(q)) LLVMInstructionSetDebugLoc(q, LLVMInstructionGetDebugLoc(call));
      LLVMReplaceAllUsesWith(call, q);
      LLVMInstructionEraseFromParent(call);
    }
    LLVMDeleteFunction(f);
  }
  LLVMDisposeBuilder(b);
}

weft_status frontend_canonicalize(LLVMModuleRef m, char **log) {
  prepare_functions(m, 1);
  hide_divisions(m);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  ir_diagnostics d;
  ir_diagnostics_begin(&d, LLVMGetModuleContext(m));
  LLVMErrorRef err = LLVMRunPasses(m, pre_inline_pipeline, NULL, opts);
  if (!err) frontend_fuse_calls(m);
  if (!err) err = LLVMRunPasses(m, canonical_pipeline, NULL, opts);
  free(ir_diagnostics_end(&d, LLVMGetModuleContext(m))); /* an error comes back in err too */
  LLVMDisposePassBuilderOptions(opts);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    free(*log);
    if (asprintf(log, "weft: internal pass pipeline failed: %s", msg) < 0) *log = NULL;
    LLVMDisposeErrorMessage(msg);
    return WEFT_ERROR_BUILD;
  }
  restore_divisions(m);
  prepare_functions(m, 0);
  return WEFT_SUCCESS;
}

/* Bitcode, bare or in its wrapper, as LLVM's reader checks it: anything else (text, say, which
 * some clang options make it write) does not go to the reader. */
static int is_bitcode(const char *b, size_t len) {
  static const unsigned char bare[4] = {'B', 'C', 0xc0, 0xde},
                             wrapped[4] = {0xde, 0xc0, 0x17, 0x0b};
  return len >= 4 && (!memcmp(b, bare, 4) || !memcmp(b, wrapped, 4));
}

/* The module in clang's bitcode (freed); *log says why there is none. */
static weft_status read_bitcode(LLVMContextRef ctx, char *bitcode, size_t len,
                                frontend_result *out) {
  char *why = NULL;
  int bad = !is_bitcode(bitcode, len);
  if (!bad) {
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bitcode, len, "kernel.bc");
    ir_diagnostics d;
    ir_diagnostics_begin(&d, ctx);
    bad = LLVMParseBitcodeInContext2(ctx, buf, &out->module) ? 2 : 0;
    why = ir_diagnostics_end(&d, ctx);
    LLVMDisposeMemoryBuffer(buf);
  }
  free(bitcode);
  if (bad) {
    out->module = NULL;
    free(out->log);
    if (asprintf(&out->log, "weft: clang-19 wrote %s%s",
                 bad == 1 ? "no LLVM bitcode (a build option changed its output?)"
                          : "unreadable bitcode: ",
                 why ? why : "") < 0)
      out->log = NULL;
  }
  free(why);
  return bad == 1 ? WEFT_ERROR_BUILD : bad ? WEFT_ERROR_TOOLCHAIN : WEFT_SUCCESS;
}

/* A build option that weft refuses is an error of its own, before clang runs. */
static weft_status check_options(const char *options, frontend_result *out) {
  char opt[128];
  if (!file_refused_option(options, opt, sizeof opt)) return WEFT_SUCCESS;
  if (asprintf(&out->log,
               "build option '%s' is refused: weft compiles to bitcode in memory, and "
               "options that change what clang writes or where, load code or pass options on "
               "are not allowed",
               opt) < 0)
    out->log = NULL;
  return WEFT_ERROR_INVALID_VALUE;
}

weft_status frontend_parse(LLVMContextRef ctx, const char *path, const char *source,
                           const char *options, const frontend_run *run, frontend_result *out) {
  memset(out, 0, sizeof *out);
  weft_status st = check_options(options, out);
  if (st) return st;
  if (!source && access(path, R_OK) != 0) {
    if (asprintf(&out->log, "weft: cannot read '%s': %s", path, strerror(errno)) < 0)
      out->log = NULL;
    return WEFT_ERROR_IO;
  }
  size_t len = 0;
  char *bitcode;
  st = run_clang(path, source, options, run, &bitcode, &len, &out->log);
  return st ? st : read_bitcode(ctx, bitcode, len, out);
}
