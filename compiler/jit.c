/* Code generation: O3 for the host CPU, then ORC's LLJIT. One JIT per context; each program's
 * module goes in with its own resource tracker so that releasing the program frees its code.
 * Generated code calls nothing of weft's: it needs libm (scalar math of uniform values) from
 * the process and glibc's libmvec (vector math), loaded here by path, because linking with
 * -lmvec does not make the executable depend on it (notes/toolchain.md). */
#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

struct weft_jit {
  LLVMOrcLLJITRef lljit;
  LLVMTargetMachineRef tm; /* for the optimisation pipeline's cost model */
  char *triple, *cpu, *features;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
}

static weft_status take_error(LLVMErrorRef e, const char *what, char **err) {
  char *msg = LLVMGetErrorMessage(e);
  if (asprintf(err, "weft: %s: %s", what, msg) < 0) *err = NULL;
  LLVMDisposeErrorMessage(msg);
  return WEFT_ERROR_JIT;
}

int jit_host_has_avx512(void) {
  pthread_once(&init_once, init_native);
  char *f = LLVMGetHostCPUFeatures();
  int yes = strstr(f, "+avx512f") != NULL;
  LLVMDisposeMessage(f);
  return yes;
}

static weft_status add_generators(weft_jit *j, char **err) {
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->lljit);
  char prefix = LLVMOrcLLJITGetGlobalPrefix(j->lljit);
  LLVMOrcDefinitionGeneratorRef g;
  LLVMErrorRef e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&g, prefix, NULL, NULL);
  if (e) return take_error(e, "cannot search the process for symbols", err);
  LLVMOrcJITDylibAddGenerator(jd, g);
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(&g, "libmvec.so.1", prefix, NULL, NULL);
  if (e) return take_error(e, "cannot load glibc's libmvec.so.1", err);
  LLVMOrcJITDylibAddGenerator(jd, g);
  return WEFT_SUCCESS;
}

weft_status jit_create(weft_jit **out, char **err) {
  pthread_once(&init_once, init_native);
  weft_jit *j = calloc(1, sizeof *j);
  if (!j) return WEFT_ERROR_OUT_OF_MEMORY;
  j->triple = LLVMGetDefaultTargetTriple();
  j->cpu = LLVMGetHostCPUName();
  j->features = LLVMGetHostCPUFeatures();
  LLVMTargetRef t;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &t, &msg)) {
    if (asprintf(err, "weft: no code generator for %s: %s", j->triple, msg) < 0) *err = NULL;
    LLVMDisposeMessage(msg);
    jit_release(j);
    return WEFT_ERROR_JIT;
  }
  j->tm = LLVMCreateTargetMachine(t, j->triple, j->cpu, j->features, LLVMCodeGenLevelAggressive,
                                  LLVMRelocPIC, LLVMCodeModelSmall);
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (e) return jit_release(j), take_error(e, "cannot detect the host", err);
  LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, jtmb);
  e = LLVMOrcCreateLLJIT(&j->lljit, b);
  if (e) return jit_release(j), take_error(e, "cannot create the JIT", err);
  weft_status st = add_generators(j, err);
  if (st) return jit_release(j), st;
  *out = j;
  return WEFT_SUCCESS;
}

void jit_release(weft_jit *j) {
  if (!j) return;
  if (j->lljit) LLVMOrcDisposeLLJIT(j->lljit);
  if (j->tm) LLVMDisposeTargetMachine(j->tm);
  LLVMDisposeMessage(j->triple), LLVMDisposeMessage(j->cpu), LLVMDisposeMessage(j->features);
  free(j);
}

/* The lowered code is already shaped: what it needs is its allocas promoted to registers
 * (SROA), the copies and per-group repeats folded (InstCombine, GVN) and the CFG cleaned.
 * default<O3> gives the same run times on the benchmarks and takes twice as long (36 vs 17 ms
 * on bench/k50.cl). */
static const char lowered_pipeline[] =
    "function(sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,gvn,"
    "instcombine<no-verify-fixpoint>,simplifycfg,adce)";

/* Host triple and layout, no debug info (the line numbers were read before lowering), then
 * the verifier and the optimisation pipeline. */
weft_status jit_optimize(weft_jit *j, LLVMModuleRef m, char **err) {
  LLVMSetTarget(m, j->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(j->tm);
  char *layout = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
  LLVMStripModuleDebugInfo(m);
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    if (asprintf(err, "weft: internal error: generated code does not verify: %.2000s", msg) < 0) *err = NULL;
    LLVMDisposeMessage(msg);
    return WEFT_ERROR_JIT;
  }
  LLVMDisposeMessage(msg);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, lowered_pipeline, j->tm, o);
  LLVMDisposePassBuilderOptions(o);
  return e ? take_error(e, "optimisation failed", err) : WEFT_SUCCESS;
}

weft_status jit_add(weft_jit *j, LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef m,
                    LLVMOrcResourceTrackerRef *tracker, char **err) {
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->lljit);
  *tracker = LLVMOrcJITDylibCreateResourceTracker(jd);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModuleWithRT(j->lljit, *tracker, tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    return take_error(e, "cannot add code to the JIT", err);
  }
  return WEFT_SUCCESS;
}

weft_status jit_lookup(weft_jit *j, const char *name, void **addr, char **err) {
  LLVMOrcExecutorAddress a = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(j->lljit, &a, name);
  if (e) return take_error(e, "code generation failed", err);
  *addr = (void *)(uintptr_t)a;
  return WEFT_SUCCESS;
}

void jit_remove(LLVMOrcResourceTrackerRef tracker) {
  if (!tracker) return;
  LLVMErrorRef e = LLVMOrcResourceTrackerRemove(tracker);
  if (e) LLVMConsumeError(e);
  LLVMOrcReleaseResourceTracker(tracker);
}
