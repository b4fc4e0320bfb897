/* The compiler's pipeline: every pass, in order, in two functions (the diagram at the top of
 * compiler.h draws it).
 *
 * pipeline_analyse is what the lowering and `weft cfg` know of a kernel: barriers end blocks,
 * the blocks get PCs, each branch its reconvergence point, each value its divergence, and a
 * large kernel its parts. pipeline_build builds a program: the front end once, on this thread,
 * then the back end in compile units on threads (jit.c), each of which runs compile_unit: for
 * each kernel its description, its analysis and its lowering, then the optimisation and code
 * generation of the unit's module. The variant of a program's kernels for work-groups that are
 * not x-aligned (rt_x_aligned) runs the back end again for one kernel, from the front end's
 * bitcode, when a launch of that kernel first needs it (pipeline_build_unaligned), and goes to
 * the program's disk cache entry, where a later process finds it. */
#include <llvm-c/BitWriter.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

/* ---- analysing a kernel ---- */

cfg *pipeline_analyse(weft_arena *a, LLVMValueRef fn, divergence **dv) {
  barrier_split(fn);              /* a barrier ends its block */
  cfg *g = cfg_build(a, fn);      /* the reachable blocks, numbered by PC */
  postdom_compute(a, g);          /* each branch's reconvergence point, its IPDOM */
  g = cfg_keep_loops_before_ipdoms(a, g); /* numbered again where pc needs it */
  *dv = divergence_compute(a, g); /* uniform, lane-affine and varying values and branches */
  parts_compute(a, g);            /* where a large warp function is cut */
  return g;
}

/* ---- building a program ---- */

weft_status pipeline_front_end(LLVMContextRef ctx, const char *path, const char *source,
                               const char *options, const frontend_run *run, frontend_result *out) {
  weft_status st = frontend_parse(ctx, path, source, options, run, out); /* clang-19 */
  if (st) return st;
  frontend_expand(out->module);                       /* builtins that are plain IR */
  st = frontend_canonicalize(out->module, &out->log); /* inlined, SSA, branches kept */
  if (st) {
    LLVMDisposeModule(out->module);
    out->module = NULL;
  }
  return st;
}

/* What each compile unit of a build lowers (jit_compile). */
typedef struct build {
  const pipeline_target *t;
  program_code *p;
  unsigned id; /* the build's number in its context */
  int x_aligned_only;
  int only; /* the index of the one kernel to lower, or -1: all of them */
  lowered_kernel *out; /* per kernel */
} build;

/* One kernel, in one compile unit: its description, its analysis and the parts of its warp
 * function that `split` gives the unit, and with part 0 its argument setter. */
static weft_status lower_one(const build *b, LLVMValueRef fn, lower_split *split,
                             lowered_kernel *out, char **err) {
  lower_target t = {b->t->warp, b->t->lanes, b->t->avx512, b->x_aligned_only};
  weft_status st = kernel_describe(fn, b->id, &t, out, err); /* parameters, argument block */
  if (st) return st;
  weft_arena *a = arena_create();
  divergence *dv;
  cfg *g = pipeline_analyse(a, fn, &dv);
  kernel_describe_blocks(g, &out->info);
  st = lower_kernel(a, fn, g, dv, &t, split, out, err);
  if (out->has_entry) kernel_build_setargs(fn, &out->info, out->setargs_name);
  arena_release(a);
  return st;
}

/* The unit's parts of every kernel of m (each kernel's description comes from the unit that
 * has its entry), then only the generated functions are left in m. */
static weft_status lower_kernels(const build *b, LLVMModuleRef m, int unit, int nunits,
                                 char **err) {
  lower_split split = {.unit = unit, .nunits = nunits};
  unsigned i = 0;
  if (b->p->bitcode_build != b->p->globals_build) /* from the disk cache's bitcode */
    kernel_name_globals(m, (int)b->p->bitcode_build, b->p->globals_build);
  for (LLVMValueRef f = frontend_next_kernel(m, NULL); f; f = frontend_next_kernel(m, f), i++) {
    if (b->only >= 0 && i != (unsigned)b->only) continue;
    lowered_kernel k;
    weft_status st = lower_one(b, f, &split, &k, err);
    if (!st && k.has_entry && i < b->p->nkernels) b->out[i] = k;
    else kernel_info_free(&k);
    if (st) return st;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    if (!LLVMIsDeclaration(f) && strncmp(LLVMGetValueName2(f, &len), "__weft_", 7))
      LLVMDeleteFunction(f);
  }
  return WEFT_SUCCESS;
}

/* jit_unit_fn: the back end of one compile unit, on its thread. */
static weft_status compile_unit(void *arg, jit_unit *u, char **err) {
  LLVMModuleRef m;
  int unit, nunits;
  weft_status st = jit_unit_module(u, &m, &unit, &nunits, err); /* its copy of the module */
  if (!st) st = lower_kernels(arg, m, unit, nunits, err); /* per kernel: analysis, lowering */
  if (!st) st = policy_code_link(m, err);                  /* the policy's steps, inlined */
  if (!st) st = jit_unit_optimise(u, err);                 /* optimisation */
  if (!st) st = jit_unit_codegen(u, err);                  /* code generation */
  return st;
}

/* The instructions of m's kernels, how much there is to lower; *n: how many kernels. */
static unsigned kernel_instrs(LLVMModuleRef m, unsigned *n) {
  unsigned size = 0, count = 0;
  for (LLVMValueRef f = frontend_next_kernel(m, NULL); f; f = frontend_next_kernel(m, f), count++)
    size += cfg_fn_instrs(f);
  if (n) *n = count;
  return size;
}

/* The instructions of a described kernel's blocks: how much there is to lower of it alone. */
static unsigned kernel_size(const weft_compiled_kernel *k) {
  unsigned size = 0;
  for (unsigned pc = 0; pc < k->nblocks; pc++) size += k->ninstr[pc];
  return size;
}

/* Lowers and compiles p's kernels from the front end's module m (p->front_end holds it as
 * bitcode; m is NULL in a later build, which reads it back) into `out` and new code under
 * *tracker: all of them for x-aligned work-groups only, or kernel `only` for all. */
static weft_status build_variant(const pipeline_target *t, program_code *p, LLVMModuleRef m,
                                 int only, lowered_kernel *out, LLVMOrcResourceTrackerRef *tracker,
                                 jit_objects *keep, char **err) {
  build b = {t, p, (*t->builds)++, only < 0, only, out};
  unsigned size = only < 0 ? p->instrs : kernel_size(&p->kernels[only].info);
  return jit_compile(t->jit, m, p->front_end, size, compile_unit, &b, tracker, keep, err);
}

/* Sets the function pointers of p's kernels (or of kernel `only`) to the code of the variant
 * `built`: the warp function for x-aligned work-groups and the setargs, or (unaligned) the warp
 * function for the others. */
static weft_status link_kernels(weft_jit *jit, program_code *p, const lowered_kernel *built,
                                int unaligned, int only, char **err) {
  for (unsigned i = 0; i < p->nkernels; i++) {
    if (only >= 0 && i != (unsigned)only) continue;
    void *run, *setargs = NULL;
    weft_status st = jit_lookup(jit, built[i].run_name, &run, err);
    if (!st && !unaligned) st = jit_lookup(jit, built[i].setargs_name, &setargs, err);
    if (st) return st;
    weft_compiled_kernel *info = &p->kernels[i].info;
    if (unaligned) info->run_unaligned = (weft_warp_fn)run;
    else info->run = (weft_warp_fn)run, info->setargs = (void (*)(void))setargs;
  }
  return WEFT_SUCCESS;
}

/* The first build in a process warms up code generation while clang works: on the thread that
 * waits for clang, then on the JIT's other compile threads (jit_warm_up). In a new
 * process, bench/k50.cl's largest compile unit took 51 ms to generate without it and 28 ms with
 * it; with each thread's heap warmed too, the back end takes 35 ms instead of 50. */
static void warm_up(void *arg) {
  static atomic_flag done = ATOMIC_FLAG_INIT;
  const pipeline_target *t = arg;
  if (atomic_flag_test_and_set(&done)) return;
  double since = debug_time(NULL, 0);
  jit_warm_up(t->jit, t->lanes);
  debug_time("warm-up", since);
}

/* A build from the disk cache: p as the entry left it, its objects o, whose functions build
 * `was` named, get this build's number and go to the JIT. */
static weft_status build_cached(const pipeline_target *t, program_code *p, unsigned was,
                                jit_objects *o, char **err) {
  unsigned id = (*t->builds)++;
  if (cache_rename(o, 1, &(cache_renaming){was, id})) return WEFT_ERROR_JIT;
  p->globals_build = id, p->bitcode_build = was;
  for (unsigned i = 0; i < p->nkernels; i++)
    if (kernel_name_functions(&p->kernels[i], id)) return WEFT_ERROR_OUT_OF_MEMORY;
  weft_status st = jit_add_objects(t->jit, o, &p->code, err);
  return st ? st : link_kernels(t->jit, p, p->kernels, 0, -1, err);
}

/* The build from the disk cache, if it holds a good one: 0; else -1 and p empty. */
static int from_cache(const pipeline_target *t, const char *key, program_code *p) {
  jit_objects o = {0};
  unsigned was;
  if (cache_load(key, p, &was, &o)) return -1;
  double since = debug_time(NULL, 0);
  char *err = NULL;
  weft_status st = build_cached(t, p, was, &o, &err);
  jit_objects_free(&o);
  if (!st) return debug_time("from cache", since), 0;
  debug_cache("could not use its entry:", err ? err : "out of memory"); /* built anew */
  free(err);
  pipeline_code_free(p);
  return -1;
}

weft_status pipeline_build(const pipeline_target *t, const char *path, const char *source,
                           const char *text, const char *options, program_code *p, char **err) {
  memset(p, 0, sizeof *p);
  char *key = cache_key(t, path, text, options), *deps = NULL;
  if (key && !from_cache(t, key, p)) return p->cache_key = key, WEFT_SUCCESS;
  /* on the clock of files' times: a file that clang read and that changed after this may have
   * changed after clang read it, and is not recorded as read (cache_store) */
  struct timespec began;
  clock_gettime(CLOCK_REALTIME_COARSE, &began);
  LLVMContextRef llvm = LLVMContextCreate();
  frontend_result fr;
  frontend_run run = {warm_up, (void *)t, t->build_timeout_s, key ? &deps : NULL};
  double since = debug_time(NULL, 0);
  weft_status st = pipeline_front_end(llvm, path, source, options, &run, &fr);
  if (st) {
    *err = fr.log ? fr.log : strdup("weft: the front end failed");
    LLVMContextDispose(llvm);
    return free(key), free(deps), st;
  }
  p->log = fr.log ? fr.log : strdup("");
  since = debug_time("front end", since);
  p->instrs = kernel_instrs(fr.module, &p->nkernels);
  p->globals_build = p->bitcode_build = *t->builds; /* the build_variant below */
  kernel_name_globals(fr.module, -1, p->globals_build);
  p->kernels = calloc(p->nkernels ? p->nkernels : 1, sizeof *p->kernels);
  p->front_end = LLVMWriteBitcodeToMemoryBuffer(fr.module);
  /* the back end: compile_unit in each compile unit */
  jit_objects keep = {0};
  unsigned id = *t->builds;
  st = p->kernels && p->front_end
           ? build_variant(t, p, fr.module, -1, p->kernels, &p->code, key ? &keep : NULL, err)
           : WEFT_ERROR_OUT_OF_MEMORY;
  LLVMDisposeModule(fr.module);
  if (!st) st = link_kernels(t->jit, p, p->kernels, 0, -1, err);
  if (!st) debug_time("back end", since);
  if (!st) cache_store(key, p, id, &keep, deps, &began);
  jit_objects_free(&keep);
  free(deps);
  LLVMContextDispose(llvm);
  if (st) pipeline_code_free(p), free(key);
  else p->cache_key = key;
  return st;
}

/* Kernel index's variant for work-groups that are not x-aligned from p's entry in the disk
 * cache: its functions and the global variables it refers to named for this build, its objects
 * to the JIT. The objects go either way: on failure it is built anew. */
static weft_status unaligned_from_cache(const pipeline_target *t, program_code *p, unsigned index,
                                        char **err) {
  cached_variant *v = &p->cached[index];
  unsigned id = (*t->builds)++;
  cache_renaming r[2] = {{v->globals, p->globals_build}, {v->fns, id}};
  lowered_kernel names = {.info.name = p->kernels[index].info.name};
  void *run = NULL;
  weft_status st = cache_rename(&v->o, 2, r) ? WEFT_ERROR_JIT
                   : kernel_name_functions(&names, id)
                       ? WEFT_ERROR_OUT_OF_MEMORY
                       : jit_add_objects(t->jit, &v->o, &p->code_unaligned[index], err);
  if (!st) st = jit_lookup(t->jit, names.run_name, &run, err);
  if (!st) p->kernels[index].info.run_unaligned = (weft_warp_fn)run;
  free(names.run_name), free(names.setargs_name);
  jit_objects_free(&v->o);
  return st;
}

/* Kernel index's variant built from p's bitcode, and kept in p's entry in the disk cache. */
static weft_status unaligned_built(const pipeline_target *t, program_code *p, unsigned index,
                                   char **err) {
  lowered_kernel *out = calloc(p->nkernels, sizeof *out);
  jit_objects keep = {0};
  unsigned id = *t->builds;
  weft_status st = out ? build_variant(t, p, NULL, (int)index, out, &p->code_unaligned[index],
                                       p->cache_key ? &keep : NULL, err)
                       : WEFT_ERROR_OUT_OF_MEMORY;
  if (!st) st = link_kernels(t->jit, p, out, 1, (int)index, err);
  if (!st) cache_store_variant(p, index, id, &keep);
  jit_objects_free(&keep);
  for (unsigned i = 0; out && i < p->nkernels; i++) kernel_info_free(&out[i]);
  free(out);
  return st;
}

weft_status pipeline_build_unaligned(const pipeline_target *t, program_code *p, unsigned index,
                                     char **err) {
  double since = debug_time(NULL, 0);
  if (!p->code_unaligned) p->code_unaligned = calloc(p->nkernels, sizeof *p->code_unaligned);
  if (!p->code_unaligned) return WEFT_ERROR_OUT_OF_MEMORY;
  if (p->cached && p->cached[index].o.n) {
    weft_status st = unaligned_from_cache(t, p, index, err);
    if (!st) return debug_time("variant for work-groups not x-aligned from cache", since), st;
    debug_cache("could not use its variant for work-groups not x-aligned:",
                *err ? *err : "out of memory"); /* built anew */
    free(*err), *err = NULL;
    jit_remove(p->code_unaligned[index]), p->code_unaligned[index] = NULL;
  }
  weft_status st = unaligned_built(t, p, index, err);
  if (st) /* a later launch tries again */
    jit_remove(p->code_unaligned[index]), p->code_unaligned[index] = NULL;
  debug_time("back end for work-groups not x-aligned", since);
  return st;
}

void pipeline_code_free(program_code *p) {
  for (unsigned i = 0; p->code_unaligned && i < p->nkernels; i++)
    jit_remove(p->code_unaligned[i]); /* they refer to the first build's global variables */
  free(p->code_unaligned);
  for (unsigned i = 0; p->cached && i < p->nkernels; i++) jit_objects_free(&p->cached[i].o);
  free(p->cached);
  free(p->cache_key);
  jit_remove(p->code);
  if (p->front_end) LLVMDisposeMemoryBuffer(p->front_end);
  for (unsigned i = 0; p->kernels && i < p->nkernels; i++) kernel_info_free(&p->kernels[i]);
  free(p->kernels);
  free(p->log);
  memset(p, 0, sizeof *p);
}
