/* Internal interface of weft's kernel compiler, one section per file (as QBE's all.h).
 *
 * The pipeline (pipeline.c lists every pass in order; api.c calls it, `weft cfg` its analysis):
 *
 *   OpenCL C
 *     |  front end        frontend.c, cc1.c,  clang-19 (its cc1 in a child forked from this
 *     |                   child.c             process, or a clang-19 process)
 *     |  builtin expansion expand_*.c,        vloadN, conversions, printf's vectors ... become IR;
 *     |                   builtin_types.c     builtins' vectors in their own types
 *     |  canonicalisation frontend.c          helpers inlined, SSA, branches kept as branches
 *     v
 *   canonical LLVM module -- as bitcode, for compile units 1.. and the unaligned variant
 *     |  per compile unit (jit.c: threads), per kernel (pipeline_analyse, then the lowering):
 *     |  barrier split    barrier_split.c     a barrier ends its block
 *     |  CFG              cfg.c               reachable blocks numbered by PC, reverse post-order
 *     |  post-dominators  postdom.c           the IPDOM of every block: reconvergence points
 *     |  divergence       divergence.c        uniform / lane-affine / varying values and branches
 *     |  parts            parts.c             where a large warp function is cut
 *     |  kernel ABI       kernel_abi.c        parameters, argument block, setargs, description
 *     |  lowering         lower*.c            per-warp code: entry, dispatch, blocks as vector
 *     |                                       bodies per lane group, masks, frame, exits
 *     |  optimisation     jit.c               SROA, CSE, InstCombine, GVN for the host CPU
 *     |  code generation  jit.c               an object per unit, linked by ORC LLJIT
 *     v
 *   weft_compiled_kernel: run (the warp function), setargs, block table -> runtime/
 *
 * cache.c keeps each program built on disk: its description, bitcode and objects, which a
 * later build of the same program, in any process, takes instead of running the pipeline.
 *
 * Below every pass: ir.c (IR helpers), files.c, debug.c (WEFT_DEBUG), perf_map.c
 * (WEFT_PERF_MAP), arena.c, ptrmap.c, die.c.
 */
#ifndef WEFT_COMPILER_H
#define WEFT_COMPILER_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdio.h>

#include "weft.h"

/* --- arena.c: one arena per compilation, freed in one call --- */
typedef struct weft_arena weft_arena;
weft_arena *arena_create(void);
void *arena_alloc(weft_arena *a, size_t n); /* zeroed; dies on out-of-memory */
void arena_release(weft_arena *a);
#define ARENA_NEW(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

/* --- die.c: internal bugs only, never a user's mistake --- */
_Noreturn void weft_die(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define DIE(...) weft_die(__FILE__, __LINE__, __VA_ARGS__)

/* --- debug.c: WEFT_DEBUG=lowered,optimized,asm,time,cache,blends, one table of categories --- */
typedef enum debug_category {
  DEBUG_LOWERED,
  DEBUG_OPTIMIZED,
  DEBUG_ASM,
  DEBUG_TIME,
  DEBUG_CACHE,
  DEBUG_BLENDS
} debug_category;
int debug_wants(debug_category what);
void debug_dump(debug_category stage, LLVMModuleRef m); /* the module to stderr, if asked */
/* Returns the time now in ms; with a phase, and DEBUG_TIME asked for, prints how long it took
 * since `since`. */
double debug_time(const char *phase, double since);
void debug_cache(const char *what, const char *entry); /* what the disk cache did, if asked */

/* --- files.c: files, memfds and build options, for both ways of running clang --- */
char *file_read_fd(int fd, size_t *len);          /* to its end; malloc'd, NUL-ended; NULL */
char *file_read_back(int fd, size_t *len);        /* the same from the file's start */
char *file_read(const char *path, size_t *len);   /* the same for a file */
int file_text_fd(const char *text);               /* a memfd holding text, at its start; -1 */
/* Splits build options at spaces, in place, into argv (no quoting: OpenCL build options have
 * none). Returns how many, or -1 when there are more than max. */
int file_split_options(char *options, const char **argv, int max);
/* Whether the build options hold one that weft refuses whichever way clang runs: one that
 * changes what clang writes or where (-o, -E, -M...), loads code (-fplugin) or passes options on
 * unchecked (-Xclang). Copies the first such option into opt (n bytes). */
int file_refused_option(const char *options, char *opt, size_t n);

/* --- frontend.c: OpenCL C to a canonical LLVM module --- */
typedef struct frontend_result {
  LLVMModuleRef module; /* NULL on failure */
  char *log;            /* clang's diagnostics or weft's message; malloc'd, may be NULL */
} frontend_result;
/* How clang runs for a build: idle, when not NULL, runs on the building thread while clang
 * works; a compile that runs longer than timeout_s is stopped; with deps, a compile that
 * succeeds sets *deps to the files clang read, as a make rule for target x (malloc'd; it stays
 * NULL when clang wrote none). A NULL frontend_run: no idle, WEFT_DEFAULT_BUILD_TIMEOUT_S and
 * no deps. */
typedef struct frontend_run {
  void (*idle)(void *arg);
  void *arg;
  double timeout_s;
  char **deps;
} frontend_run;
/* Compiles `path` (or `source`, when not NULL, named `path` in diagnostics) with clang-19 into
 * a module. */
weft_status frontend_parse(LLVMContextRef ctx, const char *path, const char *source,
                           const char *options, const frontend_run *run, frontend_result *out);
/* Builtin expansion: struct parameters private, printf's vector conversions, builtins' vectors
 * in their own types, and the builtins that are plain IR expanded (expand_*.c). */
void frontend_expand(LLVMModuleRef m);
/* Canonicalisation: helpers inlined into kernels, values promoted to SSA, CFG simplified without
 * if-conversion, clang's baseline target attributes removed. On failure *log says why. */
weft_status frontend_canonicalize(LLVMModuleRef m, char **log);
/* fuse_calls.c: a helper that both sides of a branch call, called once after them instead. */
void frontend_fuse_calls(LLVMModuleRef m);
int frontend_is_kernel(LLVMValueRef fn);
LLVMValueRef frontend_next_kernel(LLVMModuleRef m, LLVMValueRef after); /* after=NULL: first */
const char *
frontend_clang_path(void); /* the clang-19 weft runs: WEFT_CLANG, or the one built with */
/* The sub-group extensions weft implements beyond cl_khr_subgroups (lower_subgroup.c), as
 * clang options: clang declares their builtins only where it defines these macros itself (SPIR
 * targets, OpenCL C 2.0). Both ways of running clang pass them (frontend.c, cc1.c). */
#define WEFT_SUBGROUP_EXTENSIONS                                             \
  "-Dcl_khr_subgroup_ballot=1", "-Dcl_khr_subgroup_non_uniform_vote=1",      \
      "-Dcl_khr_subgroup_shuffle=1", "-Dcl_khr_subgroup_shuffle_relative=1", \
      "-Dcl_khr_subgroup_non_uniform_arithmetic=1", "-Dcl_khr_subgroup_clustered_reduce=1"

/* --- cc1.c: clang's cc1 loaded into this process, each compile in a child forked from it --- */
void cc1_start(void); /* loads it on a thread of its own, once per process */
/* Compiles the file `path`, or `text` (NULL: the file) with `options`, as `run` says. Returns 0
 * with *bitcode (NULL when clang failed, crashed or was stopped) and *log (its diagnostics, and
 * how it ended if it did not exit), CHILD_NO_MEMORY when clang ran out of memory (*log says
 * so), or -1 when cc1 cannot run from this process or the options need clang's driver. */
int cc1_compile(const char *path, const char *text, const char *options, const frontend_run *run,
                char **bitcode, size_t *len, char **log);

/* --- child.c: a compile's process, waited for until its time limit, its end told --- */
#include <sys/types.h>
/* Runs run's idle, waits for the compile's child `pid` (started at since_ms, rt_now_ms's clock)
 * until run's time limit, and reads back what it wrote to the memfds `out` and `err`: *bitcode
 * (malloc'd; NULL unless it exited with 0 and wrote some) and *log (its diagnostics and, when it
 * crashed or was stopped, a line that says so and names `file`). Returns its exit status,
 * CHILD_NO_MEMORY when it ended because an allocation failed, or -1 when it did not exit. */
enum { CHILD_NO_MEMORY = -2 };
int child_finish(pid_t pid, double since_ms, const frontend_run *run, const char *file, int out,
                 int err, char **bitcode, size_t *len, char **log);

/* --- ir.c: IR helpers that every pass may call (constants, types, intrinsic calls) --- */
/* The integer constant v of type t, in every element when t is a vector (of at most 256). */
LLVMValueRef ir_const_int(LLVMTypeRef t, unsigned long long v);
LLVMValueRef ir_splat(LLVMTypeRef t, LLVMValueRef e); /* constant e in every element of t */
static inline int ir_is_vector(LLVMTypeRef t) { return LLVMGetTypeKind(t) == LLVMVectorTypeKind; }
static inline LLVMTypeRef ir_scalar_of(LLVMTypeRef t) {
  return ir_is_vector(t) ? LLVMGetElementType(t) : t;
}
/* t's shape (a scalar, or a vector of the same length) with elements of type e. */
static inline LLVMTypeRef ir_shaped(LLVMTypeRef t, LLVMTypeRef e) {
  return ir_is_vector(t) ? LLVMVectorType(e, LLVMGetVectorSize(t)) : e;
}
/* t's shape with integer elements of `bits` bits (t's own bits: its encoding). */
static inline LLVMTypeRef ir_int_shaped(LLVMTypeRef t, unsigned bits) {
  return ir_shaped(t, LLVMIntTypeInContext(LLVMGetTypeContext(t), bits));
}
LLVMValueRef ir_const_real(LLVMTypeRef t, double v); /* like ir_const_int */
unsigned ir_scalar_bits(LLVMTypeRef t);              /* of an integer or floating-point element */
/* LLVM's default diagnostic handler prints on the host's stderr and, for an error, calls
 * exit(1). Between ir_diagnostics_begin and _end, c's diagnostics are kept instead; _end puts
 * back the handler there was and returns the first error's text (malloc'd), or NULL. */
typedef struct ir_diagnostics {
  LLVMDiagnosticHandler handler;
  void *arg;
  char *error;
} ir_diagnostics;
void ir_diagnostics_begin(ir_diagnostics *d, LLVMContextRef c);
char *ir_diagnostics_end(ir_diagnostics *d, LLVMContextRef c);
/* Whether a division by b can run as it is: b is a constant with no element 0 (nor -1 when
 * is_signed, for INT_MIN / -1). Any other divisor needs weft's guard (lower_inst.c). */
int ir_safe_divisor(LLVMValueRef b, int is_signed);
/* x zero- (x_unsigned) or sign-extended to integers of twice its width. */
LLVMValueRef ir_widen(LLVMBuilderRef b, LLVMValueRef x, int x_unsigned);
/* A call of the intrinsic `name` (llvm.smax), overloaded on the types over[0..nover): the one
 * way weft calls an intrinsic. */
LLVMValueRef ir_intrinsic(LLVMBuilderRef b, LLVMModuleRef m, const char *name, LLVMTypeRef *over,
                          unsigned nover, LLVMValueRef *args, unsigned nargs);
/* The type parameter i of fn passes by value in memory (clang's byval pointer: a kernel's
 * struct, a builtin's float8), or NULL. */
LLVMTypeRef ir_byval_type(LLVMValueRef fn, unsigned i);
/* The function `name` of m, declared with type ft when m has none. */
LLVMValueRef ir_function(LLVMModuleRef m, const char *name, LLVMTypeRef ft);
/* Function attribute `name` on fn: added with `value` (0 for a flag; memory's value is its
 * effects' bits, 0 for memory(none)), or whether fn has it. */
void ir_fn_attr(LLVMValueRef fn, const char *name, uint64_t value);
int ir_has_fn_attr(LLVMValueRef fn, const char *name);
/* An alloca of t at the top of fn's entry block, where private memory belongs; b is left just
 * after it. */
LLVMValueRef ir_entry_alloca(LLVMBuilderRef b, LLVMValueRef fn, LLVMTypeRef t);
/* Elements first .. first+n-1 of vector v, as a vector of n; those past v's end are poison. */
LLVMValueRef ir_subvector(LLVMBuilderRef b, LLVMValueRef v, unsigned first, unsigned n);
/* v as type t of the same ABI size: a bitcast, but that a 3-vector has the bits of the 4-vector
 * it is stored as (short3 and double are 8 bytes), its fourth element poison. */
LLVMValueRef ir_bitcast_abi(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef t);
/* Argument a, as the x86-64 calling convention passed it (as it is, in memory through a byval
 * pointer, or as a scalar of the same bits), in its real type. */
LLVMValueRef ir_passed_as(LLVMBuilderRef b, LLVMValueRef a, LLVMTypeRef real);

/* --- ptrmap.c: a map from LLVM values to small records, for the passes --- */
typedef struct ptrmap {
  const void **keys;
  void **vals;
  unsigned cap, n;
} ptrmap;
void ptrmap_init(weft_arena *a, ptrmap *m, unsigned expected);
void *ptrmap_get(const ptrmap *m, const void *key);
void ptrmap_put(weft_arena *a, ptrmap *m, const void *key, void *val);

/* --- cfg.c: the control-flow graph in PC order --- */
typedef struct cfg_block {
  LLVMBasicBlockRef bb;
  int pc;
  int nsuccs, npreds;
  int *succs, *preds; /* PCs; succs in the terminator's order */
  int ipdom;          /* PC of the immediate post-dominator; cfg.nblocks is the virtual exit */
  int first_line, last_line; /* 0 when the block has no debug location */
  int barrier_line;          /* the line of the barrier that ends the block; 0: none or unknown */
  int part;                  /* the part of the warp function it is lowered into (parts.c) */
} cfg_block;

typedef struct cfg {
  LLVMValueRef fn;
  int nblocks; /* PC nblocks is the virtual exit */
  cfg_block *blocks; /* indexed by PC */
  ptrmap pc_of;      /* block -> PC + 1, for cfg_pc_of */
  int nparts;        /* 0 until parts_compute */
  int *part_first;   /* part p holds PCs part_first[p] .. part_first[p+1]-1 */
  unsigned *part_instrs; /* kernel instructions in part p */
} cfg;

cfg *cfg_build(weft_arena *a, LLVMValueRef fn);
/* g, after postdom_compute, or the same CFG numbered again (and its IPDOMs computed again) so
 * that a loop's blocks come before the IPDOMs of its branches that lie outside it (cfg.c). */
cfg *cfg_keep_loops_before_ipdoms(weft_arena *a, cfg *g);
int cfg_pc_of(const cfg *g, LLVMBasicBlockRef bb); /* -1 when unreachable */
unsigned cfg_instrs(LLVMBasicBlockRef bb); /* instructions in a block, its terminator too */
unsigned cfg_fn_instrs(LLVMValueRef fn); /* instructions in all of a function's blocks */
int cfg_is_branch(const cfg_block *b); /* conditional branch or switch with 2+ distinct targets */

/* --- postdom.c: immediate post-dominators (Cooper, Harvey, Kennedy on the reversed CFG) --- */
/* Fills blocks[].ipdom. Returns and `unreachable` end at the virtual exit; a region that cannot
 * reach it (an infinite loop) is given an edge to the exit from its block with the largest PC. */
void postdom_compute(weft_arena *a, cfg *g);
int postdom_dominates(const cfg *g, int a, int b); /* does `a` post-dominate `b` (PCs) */

/* --- parts.c: where a large warp function is cut, for code generation on several threads --- */
/* Kernel instructions per part: a kernel of fewer than twice this stays one function, and no
 * part has fewer than half of it. */
#define PART_MIN_INSTRS 40
#define PARTS_MAX 4
void parts_compute(weft_arena *a, cfg *g);

/* --- cfg_print.c: printers for people and tools --- */
void cfg_print_text(FILE *f, const cfg *g, const char *kernel);
void cfg_print_dot(FILE *f, const cfg *g, const char *kernel);
void cfg_print_json(FILE *f, const cfg *g, const char *kernel);

/* --- barrier_split.c: a barrier ends its block --- */
int is_barrier_call(LLVMValueRef inst);
/* Splits every block after each barrier call, so that a barrier is the last instruction before
 * an unconditional branch. Run before cfg_build. */
void barrier_split(LLVMValueRef fn);

/* --- divergence.c: uniform, lane-affine and varying values --- */
typedef enum shape { UNIFORM, AFFINE, VARYING } shape;
typedef struct value_fact {
  shape shape;
  int64_t stride; /* AFFINE: per-lane step, in bytes for pointers, in units otherwise */
} value_fact;
typedef struct divergence {
  ptrmap facts; /* instruction -> value_fact; absent means UNIFORM (constants, args) */
  char *varying_branch; /* per PC: the block's branch or switch condition is varying */
} divergence;
divergence *divergence_compute(weft_arena *a, const cfg *g);
value_fact divergence_of(const divergence *d, LLVMValueRef v);
void divergence_print(FILE *f, const cfg *g, const divergence *d);

/* --- builtins.c: what a call to an OpenCL builtin is --- */
typedef enum builtin_kind {
  BI_NONE,
  BI_GLOBAL_ID,
  BI_LOCAL_ID,
  BI_GROUP_ID,
  BI_LOCAL_SIZE,
  BI_GLOBAL_SIZE,
  BI_NUM_GROUPS,
  BI_GLOBAL_OFFSET,
  BI_WORK_DIM,
  BI_BARRIER,
  BI_FENCE,
  BI_MATH,
  BI_INTEGER,
  BI_ATOMIC,
  BI_PRINTF,
  BI_LIBM, /* weft.libm.NAME.pN: a C library function per lane (expand_builtins.c) */
  BI_SUB_GROUP,
  BI_UNSUPPORTED
} builtin_kind;
typedef struct builtin {
  builtin_kind kind;
  char name[64]; /* the OpenCL name, e.g. "exp", "atomic_add" */
  char arg0; /* Itanium code of the first parameter's scalar type: 'i', 'j', 'f', ... */
} builtin;
builtin builtin_of_call(LLVMValueRef call);
/* A parameter's type as the mangled name gives it: Itanium code of the scalar ('f', 'i', 'j',
 * ...), the vector width (0: a scalar) and whether it is a pointer to that. */
typedef struct cl_type {
  char code;
  unsigned width;
  int pointer;
} cl_type;
/* The parameter types of a builtin's mangled name, at most max; -1 when it cannot be read. */
int builtin_param_types(LLVMValueRef fn, cl_type *out, int max);
int builtin_unsigned(const builtin *b); /* its first parameter is of an unsigned integer type */
/* A sub-group function with a value per lane (scans, clustered reductions, shuffles, elect);
 * the others have one per warp. */
int builtin_sub_group_per_lane(const char *name);

/* --- expand_builtins.c: vloadN/vstoreN, the half loads and stores, conversions, select,
 * any/all, isless and the other comparisons, isnan/isinf/isfinite/signbit, rotate,
 * add_sat/sub_sat, hadd/rhadd, upsample, mad_sat and work-item queries of a dimension chosen
 * at run time become the plain IR they mean (before canonicalising) --- */
void expand_builtins(LLVMModuleRef m);
/* --- expand_async.c: async_work_group_copy, async_work_group_strided_copy and
 * wait_group_events, as a share of the copy per work-item and a barrier; NULL for another
 * name or a form it does not read (expand_builtins calls it) --- */
LLVMValueRef expand_async(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, const char *name);
/* --- expand_ballot.c: cl_khr_subgroup_ballot's functions of a ballot (inverse ballot, bit
 * extract, bit count, scans, find LSB/MSB) and get_sub_group_{eq,ge,gt,le,lt}_mask, as IR over
 * the sub-group queries; NULL for another name (expand_builtins calls it) --- */
LLVMValueRef expand_ballot(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, const char *name);
/* --- expand_printf.c: printf's vector conversions become one per element, and no call of
 * printf becomes puts or putchar in the pipeline (before canonicalising) --- */
void expand_printf(LLVMModuleRef m);
/* The call's format has a vector conversion left, one it could not expand. */
int printf_vector_left(LLVMValueRef call);
/* NULL when call's format is a string literal whose conversions match its arguments; else
 * what is wrong (lowering refuses it with the line). */
const char *printf_mismatch(LLVMValueRef call);
/* --- expand_convert.c: OpenCL's conversions, saturating and in every rounding mode --- */
typedef enum ir_rounding { /* in the order of the suffixes: "", _rte, _rtz, _rtp, _rtn */
                           ROUND_DEFAULT, /* toward zero to an integer, else to nearest even */
                           ROUND_NEAREST,
                           ROUND_TO_ZERO,
                           ROUND_UP,
                           ROUND_DOWN
} ir_rounding;
/* x (of unsigned integers when x_unsigned) converted to type `to` (to_unsigned likewise), as
 * convert_<to>[_sat][_rtX] does; saturate only counts for an integer `to`. */
LLVMValueRef ir_convert(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x, int x_unsigned,
                        LLVMTypeRef to, int to_unsigned, int saturate, ir_rounding mode);
/* Reads a conversion's suffix ("", "_sat", "_rtz", "_sat_rte"); 0 when it is none of these. */
int ir_conversion_modifiers(const char *s, int *saturate, ir_rounding *mode);
/* --- builtin_types.c: builtin calls with their vectors of 8 bytes or less in their own types,
 * not the scalars the x86-64 calling convention makes of them (float2 as a double) --- */
void builtin_types_restore(LLVMModuleRef m);

/* --- kernel_abi.c: a kernel's parameters, argument block, argument setter and description --- */
#include "kernel.h"
/* A lowered kernel: `info` is complete but for the two function pointers, which the JIT fills
 * from the named functions. The arrays and strings in info are malloc'd: kernel_info_free. */
typedef struct lowered_kernel {
  weft_compiled_kernel info;
  char *run_name, *setargs_name;
  int has_entry; /* this unit emitted part 0 and the setargs: the one whose info to keep */
} lowered_kernel;
/* What the code is for: W, G, the CPU, and whether only work-groups where get_local_id(0) is
 * lane-affine in every lane group (rt_x_aligned) run it, which leaves out the gathers that
 * lane-affine accesses need in the others (the variant for those is built when a launch needs
 * it). */
typedef struct lower_target {
  unsigned warp, lanes;
  int avx512, x_aligned_only;
} lower_target;
/* Clears *out and describes kernel fn for the runtime: its name, file, W and G, the names of
 * its functions (after the build's number in its context: the JIT holds all of a context's
 * programs), its parameters and where each is in the argument block. */
weft_status kernel_describe(LLVMValueRef fn, unsigned program, const lower_target *t,
                            lowered_kernel *out, char **err);
/* Its functions' names: __weft_pNNNNNNNN_run_K and _setargs_K, NNNNNNNN the build's number in
 * hex, of one width, so that a cached object's names take another build's number in place
 * (cache.c); 0, or -1 when memory ran out. */
#define KERNEL_SYMBOL_PREFIX "__weft_p%08x_"
#define KERNEL_SYMBOL_DIGITS 8
int kernel_name_functions(lowered_kernel *k, unsigned program);
/* The program-scope global variables that m defines, named for build `to`: their source name
 * (build `from` < 0) or the name build `from` gave them. */
void kernel_name_globals(LLVMModuleRef m, int from, unsigned to);
void kernel_describe_blocks(const cfg *g, weft_compiled_kernel *k); /* PCs, lines, IPDOMs */
/* The parameter is a struct passed by value: the argument block holds its bytes. */
int kernel_param_is_struct(const weft_param *p);
/* Emits `void name(ptr block, params...)`, which stores fn's parameters into the block. */
void kernel_build_setargs(LLVMValueRef fn, const weft_compiled_kernel *k, const char *name);
void kernel_info_free(lowered_kernel *k);

/* --- lower*.c: per-warp code (lower.h); lower_warp.c: the warp function around it --- */
#define JIT_UNITS_MAX 4 /* threads that lower, optimise and generate one build's code */
/* How a build's compile units share its kernels' parts (parts.c): each unit lowers the same
 * kernels in the same order and hands each kernel's parts out, largest first, to the unit with
 * the fewest kernel instructions so far, so all units make the same plan without talking. */
typedef struct lower_split {
  int unit, nunits;
  unsigned load[JIT_UNITS_MAX]; /* kernel instructions handed to each unit so far */
} lower_split;
/* Lowers kernel `fn`, analysed into g and dv (pipeline_analyse) and described in out
 * (kernel_describe), into new functions of its module named out->run_name: the parts `split`
 * gives its unit (all of them when NULL; the others are declared). Sets out->has_entry when
 * part 0 is among them. On an unsupported construct returns WEFT_ERROR_UNSUPPORTED with
 * *err = "file:line: weft does not support ...". */
weft_status lower_kernel(weft_arena *a, LLVMValueRef fn, const cfg *g, const divergence *dv,
                         const lower_target *t, lower_split *split, lowered_kernel *out,
                         char **err);

/* --- policy_code.c: the policies' own code, linked into warp functions --- */
/* Links runtime/policy_stack.c's bitcode into m when its warp functions take its steps
 * (lower_step.c), its functions internal and always inlined. */
weft_status policy_code_link(LLVMModuleRef m, char **err);

/* --- jit.c: optimisation and code generation for the host, ORC LLJIT --- */
#include <llvm-c/Orc.h>
typedef struct weft_jit weft_jit;
int jit_host_has_avx512(void);
weft_status jit_create(weft_jit **out, char **err);
void jit_release(weft_jit *j);
/* One compile unit of a build, on a thread of its own: it lowers its share of the kernels into
 * its module, which jit_unit_optimise and jit_unit_codegen then turn into an object. */
typedef struct jit_unit jit_unit;
typedef weft_status jit_unit_fn(void *arg, jit_unit *u, char **err);
/* The unit's module: the front end's module (unit 0) or a copy of it read back in a context of
 * its own (units 1..nunits-1, on threads). */
weft_status jit_unit_module(jit_unit *u, LLVMModuleRef *m, int *index, int *nunits, char **err);
weft_status jit_unit_optimise(jit_unit *u, char **err); /* once lowered; verifies it first */
weft_status jit_unit_codegen(jit_unit *u, char **err); /* an object file for the JIT */
/* Compiles the front end's module m in compile units, one per CPU up to JIT_UNITS_MAX when
 * `size` (its kernels' instructions) pays for them, each by `compile`, into the JIT under a new
 * tracker, which frees the code again (jit_remove). m stays the caller's; bitcode is m as
 * written before the lowering, which units 1.. read back. With m NULL, unit 0 reads it back
 * too, and the module's global variables are those that an earlier build from the same m
 * defined. */
/* A build's object files, as bytes: what the disk cache keeps of its code (cache.c). */
typedef struct jit_objects {
  unsigned n;
  int lost; /* memory ran out for a copy: the set is not whole */
  char *bytes[JIT_UNITS_MAX];
  size_t size[JIT_UNITS_MAX];
} jit_objects;
void jit_objects_free(jit_objects *o);
/* With `keep`, a copy of each object goes there too. */
weft_status jit_compile(weft_jit *j, LLVMModuleRef m, LLVMMemoryBufferRef bitcode, unsigned size,
                        jit_unit_fn *compile, void *arg, LLVMOrcResourceTrackerRef *tracker,
                        jit_objects *keep, char **err);
/* Objects of an earlier build (from the cache) into the JIT, under a new tracker. */
weft_status jit_add_objects(weft_jit *j, const jit_objects *o, LLVMOrcResourceTrackerRef *tracker,
                            char **err);
weft_status jit_lookup(weft_jit *j, const char *name, void **addr, char **err);
void jit_host(const weft_jit *j, const char **cpu, const char **features); /* what it targets */
/* Generates code for a small loop shaped like lowered code and throws it away, and maps heap
 * for code generation to reuse, here and then (without waiting) on each other compile thread:
 * the first code generation in a process costs much more than the next (page faults, LLVM's
 * lazy tables). */
void jit_warm_up(weft_jit *j, unsigned G);
void jit_remove(LLVMOrcResourceTrackerRef tracker);

/* --- jit_thread.c: a compile unit's thread, kept from build to build --- */
#include <pthread.h>
typedef void jit_job(void *arg);
typedef struct jit_thread {
  pthread_t tid;
  pthread_mutex_t lock;
  pthread_cond_t cond; /* a job handed over, a job done, quit */
  jit_job *job; /* NULL: idle */
  void *arg;
  int quit, started;
} jit_thread;
int jit_thread_start(jit_thread *t); /* 1: running (already, or now); 0: cannot start */
void jit_thread_run(jit_thread *t, jit_job *job, void *arg);
void jit_thread_wait(jit_thread *t); /* until its job is done */
void jit_thread_stop(jit_thread *t); /* after its job; then it may start again */

/* --- perf_map.c: WEFT_PERF_MAP=1, the JIT's functions named for perf --- */
#include <llvm-c/LLJIT.h>
typedef struct perf_map perf_map; /* the functions of one build's objects */
perf_map *perf_map_begin(void); /* NULL unless WEFT_PERF_MAP=1; the calls below take NULL */
void perf_map_collect(perf_map *pm, LLVMMemoryBufferRef object); /* before the JIT takes it */
/* Once every object of the build is in the JIT (lljit; NULL: the build failed), appends a line
 * "START SIZE name" per function to /tmp/perf-<pid>.map, if it can; frees pm. */
void perf_map_end(perf_map *pm, LLVMOrcLLJITRef lljit);

/* --- pipeline.c: every pass in order, for a program and for one kernel --- */
/* A kernel's analysis, as the lowering and `weft cfg` need it: barrier split, CFG,
 * post-dominators, divergence (into *dv) and parts, in a's memory. */
cfg *pipeline_analyse(weft_arena *a, LLVMValueRef fn, divergence **dv);
/* The front end: OpenCL C to the canonical module (frontend.c's three steps, in order). */
weft_status pipeline_front_end(LLVMContextRef ctx, const char *path, const char *source,
                               const char *options, const frontend_run *run, frontend_result *out);
/* A program's compiled form. */
typedef struct program_code {
  char *log; /* the front end's diagnostics */
  unsigned nkernels;
  lowered_kernel *kernels; /* their function pointers set to the code below */
  LLVMOrcResourceTrackerRef code; /* for x-aligned work-groups (rt_x_aligned) */
  /* per kernel, for the others, built when a launch of the kernel needs it; NULL until one does */
  LLVMOrcResourceTrackerRef *code_unaligned;
  /* per kernel, its variant for the others as the disk cache kept it (o.n 0: none), until a
   * launch needs it; NULL when the entry kept none */
  struct cached_variant *cached;
  /* The front end's module as bitcode, from which code_unaligned is built, into its own code. */
  LLVMMemoryBufferRef front_end;
  unsigned instrs; /* of its kernels in the front end's module: how much there is to lower */
  /* The program's global variables (its __constant arrays) are named after the number of the
   * build that defines them, as its functions are, so that two programs of a context may use one
   * name: globals_build in the code, bitcode_build in front_end (another build's, when the
   * program came from the disk cache; the units of a later build rename them). */
  unsigned globals_build, bitcode_build;
  char *cache_key; /* of its entry in the disk cache; NULL: it has none */
} program_code;
/* A kernel's variant for work-groups that are not x-aligned as the disk cache keeps it: its
 * objects, whose functions build `fns` named and whose references to the program's global
 * variables build `globals` named. */
typedef struct cached_variant {
  unsigned fns, globals;
  jit_objects o;
} cached_variant;
/* What a context compiles for. */
typedef struct pipeline_target {
  weft_jit *jit;
  unsigned warp, lanes;
  int avx512;
  unsigned *builds; /* the context's count of builds, which names each one's symbols apart */
  double build_timeout_s; /* how long clang may compile */
} pipeline_target;
/* Builds the file `path` (or `source`, named `path`) with clang options `options` into *p, for
 * x-aligned work-groups, from the disk cache when it holds the build (text: the source, or the
 * file's text as read for the key; NULL: no cache). On failure *p is empty and *err
 * (malloc'd) says why. */
weft_status pipeline_build(const pipeline_target *t, const char *path, const char *source,
                           const char *text, const char *options, program_code *p, char **err);
/* Builds p's kernel `index` again for work-groups that are not x-aligned, into
 * p->code_unaligned[index]: the other kernels of a program do not wait for code they may never
 * need (a program of 78 kernels took 35 s at W 64 for the one launch that needed it). Takes it
 * from p's entry in the disk cache when that held it (p->cached), else adds it there. */
weft_status pipeline_build_unaligned(const pipeline_target *t, program_code *p, unsigned index,
                                     char **err);
void pipeline_code_free(program_code *p);

/* --- cache.c: compiled programs on disk (WEFT_CACHE_DIR; WEFT_CACHE=0 is off) --- */
#include <time.h>
/* What a build depends on besides the files clang reads, malloc'd; NULL when it is not to be
 * cached, or there is no cache to use (WEFT_CACHE=0, no folder): then the build asks clang for
 * no list of files read, and keeps no copy of its objects. */
char *cache_key(const pipeline_target *t, const char *path, const char *text, const char *opts);
/* The entry of key into *p (all but its code and function pointers; p->cached holds the
 * variants it kept) and *o (its objects, whose functions build *build named): 0; -1, with
 * nothing filled, when there is none to trust or a file that its build read has changed. */
int cache_load(const char *key, program_code *p, unsigned *build, jit_objects *o);
/* Writes p, whose objects o build `build` made, as the entry of key, with the files that clang
 * read (deps: its make rule) as they are now; silently skips it when it cannot, or when one of
 * them changed after `began` (CLOCK_REALTIME_COARSE, the clock of files' times). */
void cache_store(const char *key, const program_code *p, unsigned build, const jit_objects *o,
                 const char *deps, const struct timespec *began);
/* Adds to p's entry the variant of kernel `kernel` for work-groups that are not x-aligned: its
 * objects o, whose functions build `fns` named. Skipped when the entry is not the one p came
 * from or was stored as (another build's, written since). */
void cache_store_variant(const program_code *p, unsigned kernel, unsigned fns,
                         const jit_objects *o);
/* Build numbers in objects' function and global names: each `from` becomes its `to`. */
typedef struct cache_renaming {
  unsigned from, to;
} cache_renaming;
/* Renames n numbers at once in o's objects: 0, or -1 when an object is not one it can read. */
int cache_rename(jit_objects *o, unsigned n, const cache_renaming *r);
/* cache_trim.c: the entries of folder dir used longest ago deleted until the folder is under
 * WEFT_CACHE_SIZE, but `kept` (an entry's name in it). */
void cache_trim(const char *dir, const char *kept);

#endif
