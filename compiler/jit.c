/* Optimisation and code generation for the host CPU, a build's kernel parts spread over
 * compile units on threads of their own (what a unit does, lowering first, is pipeline.c's),
 * and ORC's LLJIT to link the objects. One JIT per context; each program's objects go in under
 * one resource tracker, so that releasing the program frees its code; with WEFT_PERF_MAP=1,
 * each build's functions are named for perf (perf_map.c).
 * Generated code calls nothing of weft's: it needs libm (scalar math of uniform values) from
 * the process and glibc's libmvec (vector math), loaded here by path, because linking with
 * -lmvec does not make the executable depend on it (compiler/toolchain.md, section 3). */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compiler.h"
#include "runtime.h"

typedef struct jit_warm {
  weft_jit *j;
  int index;
} jit_warm;

struct weft_jit {
  LLVMOrcLLJITRef lljit;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm; /* the host's data layout */
  LLVMTargetMachineRef tms[JIT_UNITS_MAX]; /* one per compile unit, made when first needed */
  jit_thread threads[JIT_UNITS_MAX];       /* units 1..: started when first needed */
  jit_warm warm[JIT_UNITS_MAX];            /* the units' warm-up jobs */
  unsigned warm_lanes;                     /* G, for the warm-up */
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

/* An error that LLVM reported to the context's diagnostic handler (why: malloc'd, freed). */
static weft_status diagnosed(char *why, const char *what, char **err) {
  if (asprintf(err, "weft: %s: %s", what, why) < 0) *err = NULL;
  free(why);
  return WEFT_ERROR_JIT;
}

/* WEFT_ISA=avx2: code for a host without AVX-512 even on one with it, to compare the two or
 * to test the AVX2 path anywhere; unset or "native": for the host as it is. Read once. */
static int avx2_only;
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;
static void read_isa(void) {
  const char *isa = getenv("WEFT_ISA");
  if (!isa || !*isa || !strcmp(isa, "native")) return;
  if (!strcmp(isa, "avx2")) avx2_only = 1;
  else fprintf(stderr, "weft: WEFT_ISA=%s: not native or avx2; using native\n", isa);
}

int jit_host_has_avx512(void) {
  pthread_once(&init_once, init_native);
  pthread_once(&isa_once, read_isa);
  char *f = LLVMGetHostCPUFeatures();
  int yes = strstr(f, "+avx512f") != NULL && !avx2_only;
  LLVMDisposeMessage(f);
  return yes;
}

/* The host's features, less AVX-512 under WEFT_ISA=avx2; without AVX-512, "+fast-gather" too:
 * LLVM otherwise expands each masked gather into a branch per lane (it calls only Intel's
 * gathers since Skylake fast), and a warp gathers wherever its lanes' addresses are not
 * consecutive: a bitonic sort step, hash probes, BFS. */
static char *host_features(void) {
  pthread_once(&isa_once, read_isa);
  char *f = LLVMGetHostCPUFeatures(), *more = NULL;
  int avx512 = strstr(f, "+avx512f") != NULL;
  if (!strstr(f, "+avx2") || (avx512 && !avx2_only)) return f;
  if (asprintf(&more, "%s%s,+fast-gather", f, avx512 ? ",-avx512f" : "") < 0) return f;
  LLVMDisposeMessage(f);
  f = LLVMCreateMessage(more);
  free(more);
  return f;
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
  j->features = host_features();
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(j->triple, &j->target, &msg)) {
    if (asprintf(err, "weft: no code generator for %s: %s", j->triple, msg) < 0) *err = NULL;
    LLVMDisposeMessage(msg);
    jit_release(j);
    return WEFT_ERROR_JIT;
  }
  j->tm = LLVMCreateTargetMachine(j->target, j->triple, j->cpu, j->features,
                                  LLVMCodeGenLevelAggressive, LLVMRelocPIC, LLVMCodeModelSmall);
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
  for (int k = 1; k < JIT_UNITS_MAX; k++) jit_thread_stop(&j->threads[k]);
  if (j->lljit) LLVMOrcDisposeLLJIT(j->lljit);
  if (j->tm) LLVMDisposeTargetMachine(j->tm);
  for (int k = 0; k < JIT_UNITS_MAX; k++)
    if (j->tms[k]) LLVMDisposeTargetMachine(j->tms[k]);
  LLVMDisposeMessage(j->triple), LLVMDisposeMessage(j->cpu), LLVMDisposeMessage(j->features);
  free(j);
}

/* The lowered code is already shaped: what it needs is its allocas promoted to registers
 * (SROA), what that left unused dropped before CSE can merge it with a copy (DCE: see
 * vector_again in lower_inst.c), the copies and per-group repeats folded (InstCombine, GVN) and
 * the CFG cleaned.
 * default<O3> gives the same run times on the benchmarks and takes twice as long (36 vs 17 ms
 * on bench/k50.cl). elim-avail-extern drops the global variables that unit 0 defines.
 * always-inline puts the policy's step into the warp functions that take it (policy_code.c). */
static const char unit_pipeline[] = "always-inline,elim-avail-extern,function(sroa,dce,early-cse,"
                                    "instcombine<no-verify-fixpoint>,simplifycfg,gvn,"
                                    "instcombine<no-verify-fixpoint>,simplifycfg,adce),globaldce";

/* Host triple and layout, no debug info (the line numbers were read before lowering), then
 * the verifier. */
static weft_status prepare(weft_jit *j, LLVMModuleRef m, char **err) {
  LLVMSetTarget(m, j->triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(j->tm);
  char *layout = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
  LLVMStripModuleDebugInfo(m);
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    if (asprintf(err, "weft: internal error: generated code does not verify: %.2000s", msg) < 0)
      *err = NULL;
    LLVMDisposeMessage(msg);
    return WEFT_ERROR_JIT;
  }
  LLVMDisposeMessage(msg);
  return WEFT_SUCCESS;
}

/* ---- compile units: a build's kernel parts spread over threads ---- */

/* One thread's share of a build: its own copy of the front end's module (read back from
 * bitcode in a context of its own, since an LLVM context serves one thread; unit 0 works on the
 * caller's module, when there is one), into which it lowers its parts of the kernels
 * (lower_split), then optimised and turned into an object file. The caller's jit_unit_fn says
 * what it does (pipeline.c), with jit_unit_module, jit_unit_optimise and jit_unit_codegen. */
struct jit_unit {
  weft_jit *j;
  int index, nunits;
  jit_unit_fn *compile;        /* NULL: the module is lowered already */
  void *arg;
  LLVMMemoryBufferRef bitcode; /* the front end's module, shared read-only */
  LLVMModuleRef m;
  LLVMContextRef c;            /* owned, with m, when m was read back */
  int nfns;                    /* functions it defines, */
  unsigned size;               /* with this many instructions, once lowered */
  LLVMMemoryBufferRef object;
  weft_status status;
  char *error;
  double since;                /* when the step being timed began */
  double ms[3];                /* lowering (with reading back), optimisation, code generation */
};
typedef jit_unit unit;

static weft_status unit_error(char **err, weft_status st, const char *msg) {
  *err = strdup(msg);
  return st;
}

static weft_status read_back(unit *u, char **err) {
  if (!u->bitcode)
    return unit_error(err, WEFT_ERROR_OUT_OF_MEMORY, "weft: out of memory for a compile unit");
  u->c = LLVMContextCreate();
  LLVMMemoryBufferRef b = LLVMCreateMemoryBufferWithMemoryRange(
      LLVMGetBufferStart(u->bitcode), LLVMGetBufferSize(u->bitcode), "unit", 0);
  ir_diagnostics d;
  ir_diagnostics_begin(&d, u->c);
  int bad = LLVMParseBitcodeInContext2(u->c, b, &u->m);
  free(ir_diagnostics_end(&d, u->c)); /* weft's own bitcode: an error is an internal one */
  LLVMDisposeMemoryBuffer(b);
  return bad ? unit_error(err, WEFT_ERROR_JIT,
                          "weft: internal error: a compile unit does not read back")
             : WEFT_SUCCESS;
}

/* Global variables are defined by the caller's module only, the one unit 0 of a program's first
 * build works on: the copies read back, in that build and in later ones of the same program,
 * refer to its. Local ones stay in every unit that uses them. */
static void globals_defined_elsewhere(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    LLVMLinkage l = LLVMGetLinkage(g);
    if (!LLVMIsDeclaration(g) && l != LLVMInternalLinkage && l != LLVMPrivateLinkage)
      LLVMSetLinkage(g, LLVMAvailableExternallyLinkage);
  }
}

static void measure(unit *u) {
  for (LLVMValueRef f = LLVMGetFirstFunction(u->m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    u->nfns++;
    u->size += cfg_fn_instrs(f);
  }
}

static LLVMTargetMachineRef unit_tm(weft_jit *j, int index) {
  if (!j->tms[index])
    j->tms[index] = LLVMCreateTargetMachine(j->target, j->triple, j->cpu, j->features,
                                            LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                            LLVMCodeModelSmall);
  return j->tms[index];
}

weft_status jit_unit_module(jit_unit *u, LLVMModuleRef *m, int *index, int *nunits, char **err) {
  u->since = rt_now_ms();
  *index = u->index, *nunits = u->nunits;
  weft_status st = !u->m ? read_back(u, err) : WEFT_SUCCESS; /* units > 0 work on a copy */
  *m = u->m;
  return st;
}

/* A masked store of an undefined value leaves memory as undefined as it was, and LLVM keeps
 * it: where a part of a warp function ends, the frame slots of values that the path taken
 * never defined (a loop's values, before the loop) were written so, 22 vectors per warp at
 * ray_trace's first cut. */
static void drop_undefined_stores(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
        size_t n;
        const char *name = callee ? LLVMGetValueName2(callee, &n) : "";
        if (!strncmp(name, "llvm.masked.store.", 18) && LLVMIsUndef(LLVMGetOperand(i, 0)))
          LLVMInstructionEraseFromParent(i);
      }
}

weft_status jit_unit_optimise(jit_unit *u, char **err) {
  if (u->c) globals_defined_elsewhere(u->m);
  measure(u);
  if (u->compile) debug_dump(DEBUG_LOWERED, u->m); /* asked for, a build is one unit (units_for) */
  weft_status st = prepare(u->j, u->m, err);
  if (st || !u->nfns) return st;
  double now = rt_now_ms();
  u->ms[0] = now - u->since, u->since = now;
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  ir_diagnostics d;
  ir_diagnostics_begin(&d, LLVMGetModuleContext(u->m));
  LLVMErrorRef e = LLVMRunPasses(u->m, unit_pipeline, unit_tm(u->j, u->index), o);
  char *why = ir_diagnostics_end(&d, LLVMGetModuleContext(u->m));
  LLVMDisposePassBuilderOptions(o);
  if (e) return free(why), take_error(e, "optimisation failed", err);
  if (why) return diagnosed(why, "optimisation failed", err);
  drop_undefined_stores(u->m);
  now = rt_now_ms();
  u->ms[1] = now - u->since, u->since = now;
  return WEFT_SUCCESS;
}

/* WEFT_DEBUG=asm: the unit's code as assembly (not the warm-up's, which has no `compile`), from
 * a copy of its module, as code generation changes the module it runs on and the object must
 * come from the module as optimised. */
static void print_assembly(jit_unit *u) {
  if (!u->compile || !debug_wants(DEBUG_ASM)) return;
  LLVMModuleRef copy = LLVMCloneModule(u->m);
  LLVMMemoryBufferRef text = NULL;
  char *msg = NULL;
  if (!LLVMTargetMachineEmitToMemoryBuffer(unit_tm(u->j, u->index), copy, LLVMAssemblyFile, &msg,
                                           &text)) {
    fprintf(stderr, "; ---- weft: unit %d, asm ----\n%.*s", u->index, (int)LLVMGetBufferSize(text),
            LLVMGetBufferStart(text));
    LLVMDisposeMemoryBuffer(text);
  }
  LLVMDisposeMessage(msg);
  LLVMDisposeModule(copy);
}

weft_status jit_unit_codegen(jit_unit *u, char **err) {
  if (!u->nfns) return WEFT_SUCCESS;
  char *msg = NULL;
  weft_status st = WEFT_SUCCESS;
  ir_diagnostics d;
  ir_diagnostics_begin(&d, LLVMGetModuleContext(u->m));
  print_assembly(u);
  if (LLVMTargetMachineEmitToMemoryBuffer(unit_tm(u->j, u->index), u->m, LLVMObjectFile, &msg,
                                          &u->object)) {
    if (asprintf(err, "weft: code generation failed: %s", msg) < 0) *err = NULL;
    st = WEFT_ERROR_JIT;
    u->object = NULL;
  }
  char *why = ir_diagnostics_end(&d, LLVMGetModuleContext(u->m));
  if (why && !st) { /* LLVM went on after an error: its object is not the kernel's code */
    LLVMDisposeMemoryBuffer(u->object), u->object = NULL;
    st = diagnosed(why, "code generation failed", err);
  } else free(why);
  LLVMDisposeMessage(msg);
  u->ms[2] = rt_now_ms() - u->since;
  return st;
}

/* A module lowered already (the warm-up's): optimisation and code generation. */
static weft_status compile_lowered(void *arg, jit_unit *u, char **err) {
  (void)arg;
  LLVMModuleRef m;
  int index, nunits;
  weft_status st = jit_unit_module(u, &m, &index, &nunits, err);
  if (!st) st = jit_unit_optimise(u, err);
  if (!st) st = jit_unit_codegen(u, err);
  return st;
}

static void compile_unit(void *arg) {
  unit *u = arg;
  u->status = (u->compile ? u->compile : compile_lowered)(u->arg, u, &u->error);
}

/* A thread pays for itself from about this many instructions of kernel code, as much as a part
 * has at least (parts.c), which lowers to about 1500: bench/k50.cl has 98 (two units),
 * samples/mandelbrot.cl 41 (one). */
#define UNIT_MIN_INSTRS 40

static int units_max(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : cpus < JIT_UNITS_MAX ? (int)cpus : JIT_UNITS_MAX;
}

static int units_for(unsigned size) {
  unsigned n = (unsigned)units_max();
  if (n > size / UNIT_MIN_INSTRS) n = size < 2 * UNIT_MIN_INSTRS ? 1 : size / UNIT_MIN_INSTRS;
  return debug_wants(DEBUG_LOWERED) ? 1 : (int)n; /* one module to show */
}

/* Units 1..n-1 on the JIT's threads (or here, if a thread cannot start), unit 0 here. */
static void run_units(weft_jit *j, unit *u, int n) {
  for (int k = 1; k < n; k++) {
    if (jit_thread_start(&j->threads[k])) jit_thread_run(&j->threads[k], compile_unit, &u[k]);
    else compile_unit(&u[k]);
  }
  compile_unit(&u[0]);
  for (int k = 1; k < n; k++) jit_thread_wait(&j->threads[k]);
}

/* Hands the unit's object to the JIT (the first error wins), its functions to pm, and frees
 * the rest of the unit. */
static void keep_object(jit_objects *keep, LLVMMemoryBufferRef object) {
  size_t size = LLVMGetBufferSize(object);
  char *copy = malloc(size ? size : 1);
  if (!copy) {
    keep->lost = 1;
    return;
  }
  memcpy(copy, LLVMGetBufferStart(object), size);
  keep->bytes[keep->n] = copy, keep->size[keep->n++] = size;
}

void jit_objects_free(jit_objects *o) {
  for (unsigned k = 0; k < o->n; k++) free(o->bytes[k]);
  memset(o, 0, sizeof *o);
}

/* Hands an object to the JIT (which owns it from then on), its functions to pm. */
static weft_status add_object(weft_jit *j, LLVMOrcResourceTrackerRef tracker, perf_map *pm,
                              LLVMMemoryBufferRef object, char **err) {
  perf_map_collect(pm, object);
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(j->lljit, tracker, object);
  return e ? take_error(e, "cannot add code to the JIT", err) : WEFT_SUCCESS;
}

static weft_status finish_unit(weft_jit *j, unit *u, LLVMOrcResourceTrackerRef tracker,
                               perf_map *pm, jit_objects *keep, weft_status st, char **err) {
  if (!st && u->status) st = u->status, *err = u->error, u->error = NULL;
  if (!st && u->nfns) debug_dump(DEBUG_OPTIMIZED, u->m);
  if (debug_wants(DEBUG_TIME) && u->nfns)
    fprintf(stderr,
            "weft:   unit %d: %d functions, %u instructions: lowering %.2f ms, optimisation %.2f "
            "ms, code gen %.2f ms\n",
            u->index, u->nfns, u->size, u->ms[0], u->ms[1], u->ms[2]);
  if (!st && u->object) {
    if (keep) keep_object(keep, u->object);
    st = add_object(j, tracker, pm, u->object, err);
    u->object = NULL;
  }
  if (u->object) LLVMDisposeMemoryBuffer(u->object);
  free(u->error);
  if (u->c && u->m) LLVMDisposeModule(u->m);
  if (u->c) LLVMContextDispose(u->c);
  return st;
}

weft_status jit_compile(weft_jit *j, LLVMModuleRef m, LLVMMemoryBufferRef bitcode, unsigned size,
                        jit_unit_fn *compile, void *arg, LLVMOrcResourceTrackerRef *tracker,
                        jit_objects *keep, char **err) {
  int n = units_for(size);
  unit u[JIT_UNITS_MAX] = {{0}};
  for (int k = 0; k < n; k++)
    u[k] =
        (unit){.j = j, .index = k, .nunits = n, .compile = compile, .arg = arg, .bitcode = bitcode};
  u[0].m = m;
  run_units(j, u, n);
  *tracker = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j->lljit));
  weft_status st = WEFT_SUCCESS;
  perf_map *pm = perf_map_begin();
  for (int k = 0; k < n; k++) st = finish_unit(j, &u[k], *tracker, pm, keep, st, err);
  perf_map_end(pm, st ? NULL : j->lljit); /* looks up every function: links all the objects */
  return st;
}

weft_status jit_add_objects(weft_jit *j, const jit_objects *o, LLVMOrcResourceTrackerRef *tracker,
                            char **err) {
  *tracker = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j->lljit));
  weft_status st = WEFT_SUCCESS;
  perf_map *pm = perf_map_begin();
  for (unsigned k = 0; k < o->n && !st; k++)
    st = add_object(j, *tracker, pm,
                    LLVMCreateMemoryBufferWithMemoryRangeCopy(o->bytes[k], o->size[k], "cached"),
                    err);
  perf_map_end(pm, st ? NULL : j->lljit);
  return st;
}

/* ---- warming up ---- */

/* A loop over lane groups of G floats, shaped like lowered code: masked, packed and gathered
 * loads and stores, arithmetic, a compare and select, a square root, a libmvec call, an atomic. */
static void build_warm_up(LLVMModuleRef m, unsigned G) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(c), i32 = LLVMInt32TypeInContext(c),
              i64 = LLVMInt64TypeInContext(c), ptr = LLVMPointerTypeInContext(c, 0),
              vf = LLVMVectorType(f32, G), vi = LLVMVectorType(i32, G), vp = LLVMVectorType(ptr, G),
              vm = LLVMVectorType(LLVMInt1TypeInContext(c), G);
  LLVMTypeRef params[] = {ptr, ptr, i64, i32};
  LLVMValueRef fn = LLVMAddFunction(m, "warm_up",
                                    LLVMFunctionType(LLVMVoidTypeInContext(c), params, 4, 0));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(c, "min-legal-vector-width", 22, "512", 3));
  char mvec[32];
  snprintf(mvec, sizeof mvec, "_ZGV%cN%uv_expf", G == 16 ? 'e' : G == 8 ? 'd' : 'b', G);
  LLVMTypeRef mvec_t = LLVMFunctionType(vf, &vf, 1, 0);
  LLVMValueRef exp_fn = LLVMAddFunction(m, mvec, mvec_t);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, ""),
                    loop = LLVMAppendBasicBlockInContext(c, fn, ""),
                    done = LLVMAppendBasicBlockInContext(c, fn, "");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef p = LLVMGetParam(fn, 0), q = LLVMGetParam(fn, 1);
  LLVMValueRef mask = LLVMBuildBitCast(
      b, LLVMBuildTrunc(b, LLVMGetParam(fn, 2), LLVMIntTypeInContext(c, G), ""), vm, "");
  LLVMValueRef zero = LLVMConstNull(vf), align = LLVMConstInt(i32, 4, 0);
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef i = LLVMBuildPhi(b, i32, ""), acc = LLVMBuildPhi(b, vf, "");
  LLVMValueRef at = LLVMBuildGEP2(
      b, f32, p, (LLVMValueRef[]){LLVMBuildMul(b, i, LLVMConstInt(i32, G, 0), "")}, 1, "");
  LLVMValueRef x = ir_intrinsic(b, m, "llvm.masked.load", (LLVMTypeRef[]){vf, ptr}, 2,
                                (LLVMValueRef[]){at, align, mask, zero}, 4);
  LLVMValueRef low[64];
  for (unsigned k = 0; k < G; k++) low[k] = LLVMConstInt(i32, 1023, 0);
  LLVMValueRef idx = LLVMBuildAnd(b, LLVMBuildFPToSI(b, x, vi, ""), LLVMConstVector(low, G), "");
  LLVMValueRef from = LLVMBuildGEP2(b, f32, q, &idx, 1, "");
  LLVMValueRef y = ir_intrinsic(b, m, "llvm.masked.gather", (LLVMTypeRef[]){vf, vp}, 2,
                                (LLVMValueRef[]){from, align, mask, zero}, 4);
  LLVMValueRef w = LLVMBuildFAdd(b, LLVMBuildFMul(b, x, y, ""), acc, "");
  LLVMValueRef sel = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, w, zero, ""), w, x, "");
  LLVMValueRef r = ir_intrinsic(b, m, "llvm.sqrt", &vf, 1, &sel, 1);
  LLVMValueRef e = LLVMBuildCall2(b, mvec_t, exp_fn, &r, 1, "");
  ir_intrinsic(b, m, "llvm.masked.store", (LLVMTypeRef[]){vf, ptr}, 2,
               (LLVMValueRef[]){sel, at, align, mask}, 4);
  ir_intrinsic(b, m, "llvm.masked.scatter", (LLVMTypeRef[]){vf, vp}, 2,
               (LLVMValueRef[]){e, from, align, mask}, 4);
  LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, q, LLVMConstInt(i32, 1, 0),
                     LLVMAtomicOrderingSequentiallyConsistent, 0);
  LLVMValueRef next = LLVMBuildAdd(b, i, LLVMConstInt(i32, 1, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, LLVMGetParam(fn, 3), ""), loop, done);
  LLVMAddIncoming(i, (LLVMValueRef[]){LLVMConstInt(i32, 0, 0), next},
                  (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMAddIncoming(acc, (LLVMValueRef[]){zero, e}, (LLVMBasicBlockRef[]){entry, loop}, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

/* glibc gives the top of a thread's heap back to the system once it is larger than the trim
 * threshold (128 KiB at first), so the pages that a build's code generation touched would be gone
 * by the next: but freeing a block that it had mapped on its own raises that threshold to twice
 * the block's size (mallopt(3), M_MMAP_THRESHOLD). A block of 2 * WARM_HEAP_BYTES does it, once
 * per process; then each compile thread touches WARM_HEAP_BYTES of its heap, which the next
 * build finds mapped (bench/k50.cl's units touch 2-3.5 MB). Populating in one call first costs
 * a fraction of a fault per page; the first touch after it still costs a little. */
#define WARM_HEAP_BYTES (4u << 20)

static void keep_heap(void) {
  volatile char *big = malloc(2 * WARM_HEAP_BYTES);
  if (big) big[0] = 0, free((void *)big);
}

static void warm_heap(void) {
  char *block = malloc(WARM_HEAP_BYTES);
  if (!block) return;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE),
            at = ((uintptr_t)block + page - 1) & ~(page - 1),
            end = ((uintptr_t)block + WARM_HEAP_BYTES) & ~(page - 1);
  madvise((void *)at, end - at,
          MADV_POPULATE_WRITE); /* may fail (Linux < 5.14): the touch does it */
  for (; at < end; at += page) *(volatile char *)at = 0;
  free(block);
}

/* Compile unit k's warm-up, on its thread: its target machine, code generation's lazy tables and
 * its first touch of LLVM's code, and its heap. */
static void warm_up_unit(void *arg) {
  jit_warm *w = arg;
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("warm_up", c);
  build_warm_up(m, w->j->warm_lanes);
  unit u = {.j = w->j, .m = m, .index = w->index, .nunits = 1};
  compile_unit(&u);
  free(u.error);
  if (u.object) LLVMDisposeMemoryBuffer(u.object);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  warm_heap();
}

/* Unit 0's warm-up here; the other threads' go on while the caller waits for clang. */
void jit_warm_up(weft_jit *j, unsigned G) {
  keep_heap();
  j->warm_lanes = G;
  for (int k = 0; k < units_max(); k++) j->warm[k] = (jit_warm){j, k};
  warm_up_unit(&j->warm[0]);
  for (int k = 1; k < units_max(); k++)
    if (jit_thread_start(&j->threads[k])) jit_thread_run(&j->threads[k], warm_up_unit, &j->warm[k]);
}

void jit_host(const weft_jit *j, const char **cpu, const char **features) {
  *cpu = j->cpu, *features = j->features;
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
