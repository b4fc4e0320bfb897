/* weft — run OpenCL C kernels on x86 CPUs with GPU (SIMT) semantics.
 *
 * A context fixes the worker threads, the warp width W, the lane-group width G and the default
 * reconvergence policy; programs are built from OpenCL C in a context; kernels come from programs
 * and are launched over an NDRange with typed arguments.
 *
 * Threading: a weft_context and everything created from it may be used by one host thread at a
 * time; different contexts are independent and may be used from different threads at once.
 *
 * Handles: a call given NULL where it needs a pointer returns WEFT_ERROR_INVALID_VALUE (calls
 * that return something else return "", NULL or 0; the release calls take NULL as a no-op). A
 * context, program or kernel that was released already is detected and refused the same way,
 * by every call, release included, unless its memory went to a new handle of the same kind
 * meanwhile. A kernel keeps its program alive, and a program its context: releasing one
 * while a kernel (or program) made from it exists only makes the handle unusable, and its
 * memory, threads and code go with the last kernel (or program) released.
 *
 * Building runs clang-19's compiler (cc1), loaded into the process by the first
 * weft_context_create on a thread of its own, in a child process forked for each compile: clang's
 * output never reaches the host's stdout or stderr, and a crash of clang (or a compile that runs
 * longer than weft_options.build_timeout_s) fails the build with a message instead of taking the
 * host down. With WEFT_CLANG set, or where clang cannot be loaded, builds run clang-19 as a child
 * process instead. A child runs none of the host's atexit handlers and flushes none of its
 * stdio buffers. */
#ifndef WEFT_H
#define WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Linking: libweft.so or libweft.a, as `pkg-config --cflags --libs weft` says, or the target
 * weft::weft of CMake's find_package(weft). This header compiles as C11 and as C++. */
#define WEFT_API __attribute__((visibility("default")))

/* The version of this header. CMakeLists.txt takes the project's version from these lines, so
 * that they are its one source; weft_version() is the library's, which differs from
 * WEFT_VERSION only when a program runs with another libweft than it was built against. */
#define WEFT_VERSION_MAJOR 0
#define WEFT_VERSION_MINOR 1
#define WEFT_VERSION_PATCH 0
#define WEFT_VERSION "0.1.0" /* MAJOR.MINOR.PATCH (CMakeLists.txt checks that they agree) */

/* The library's version: the WEFT_VERSION of the weft.h it was built with. */
WEFT_API const char *weft_version(void);

typedef enum weft_status {
  WEFT_SUCCESS = 0,
  WEFT_ERROR_INVALID_VALUE,     /* misuse: a NULL handle, an option out of range */
  WEFT_ERROR_OUT_OF_MEMORY,
  WEFT_ERROR_IO,                /* a file could not be read or written */
  WEFT_ERROR_TOOLCHAIN,         /* clang-19 is missing or could not run */
  WEFT_ERROR_BUILD,             /* the kernel source has errors: see weft_last_error */
  WEFT_ERROR_UNSUPPORTED,       /* the kernel uses a construct weft cannot compile */
  WEFT_ERROR_KERNEL_NOT_FOUND,
  WEFT_ERROR_ARGUMENT,          /* a kernel argument does not match the kernel's signature */
  WEFT_ERROR_NDRANGE,           /* bad global or local sizes */
  WEFT_ERROR_DIVERGENT_BARRIER, /* a barrier reached by part of a warp under `stack` */
  WEFT_ERROR_BARRIER_DEADLOCK,  /* a barrier that some work-items can no longer reach */
  WEFT_ERROR_JIT,               /* code generation failed */
  WEFT_ERROR_TIMEOUT,           /* the launch ran longer than its timeout: stopped, and
                                   weft_last_error says where its warps were */
  WEFT_ERROR_STOPPED,           /* weft_context_stop stopped the launch (the same report) */
} weft_status;

typedef struct weft_context weft_context;
typedef struct weft_program weft_program;
typedef struct weft_kernel weft_kernel;

/* A short constant name for a status, such as "WEFT_ERROR_BUILD". */
WEFT_API const char *weft_status_name(weft_status status);

/* ---- contexts ---- */
#define WEFT_MAX_THREADS 1024 /* the most worker threads a context may have */
typedef struct weft_options {
  unsigned threads;   /* worker threads, at most WEFT_MAX_THREADS; 0: one per online CPU */
  const char *policy; /* reconvergence policy: "stack" (NULL: "stack"), "mp", "mp-orec", "pc" */
  unsigned warp;      /* W, work-items per warp: 4, 8, 16, 32 or 64; 0: 32 */
  unsigned lanes; /* G, lanes per vector: 4, 8 or 16, dividing W; 0: 16 with AVX-512, else 8 */
  /* How mp and mp-orec schedule the splits of a warp (stack and pc ignore both): */
  /* "lowest-pc" (NULL: the ready split with the smallest PC, which the generated code can follow
   * without returning to the runtime) or "rr" (round robin, as the MP paper simulates) */
  const char *split_order;
  unsigned max_splits; /* runnable splits per warp, >= 2 (2 models the dual-path stack); a
                              split that finds them all taken waits for one to end; 0: W */
  /* 0 (the default): under `stack` and `pc`, the generated code takes the policy's decisions
   * itself, inlined, and goes on with the split the policy picks with its values in registers,
   * returning only at a barrier, at its end, at an event outside any loop, or (pc) when the
   * policy picks a split other than a divergence's smallest target; `mp` and `mp-orec` (in the
   * lowest-pc order, without a split bound) run structured branches masked and a loop's later
   * exits in the code when no other split of the warp waits before them, and return to the
   * runtime at every other event. 1: every policy event (a divergent branch,
   * a reconvergence, a barrier) returns from the generated code to the runtime, which hands
   * it to the policy and calls the code again: the reference path, and the one traces take.
   * Results and stats are the same either way, but for round_trips (and the time). */
  int policy_in_runtime;
  /* Seconds a launch may run (0: no limit; else positive, at most WEFT_MAX_TIMEOUT_S); 0 takes
   * the WEFT_TIMEOUT environment variable's, if set. A launch that runs longer is stopped
   * where its warps are (they check at every loop back edge) and returns WEFT_ERROR_TIMEOUT;
   * weft_last_error says, per warp that was running, which lanes were at which block and
   * source line and what the others wait for, and names a SIMT deadlock (lanes that spin
   * while the lanes they wait for are parked at a reconvergence point) as such. */
  double timeout_s;
  /* Seconds clang may take to compile a program's source (0: the WEFT_BUILD_TIMEOUT environment
   * variable's, if set, else WEFT_DEFAULT_BUILD_TIMEOUT_S; else positive, at most
   * WEFT_MAX_TIMEOUT_S). A compile that runs longer is stopped, and the build fails with
   * WEFT_ERROR_BUILD and a message that names the file and the limit. */
  double build_timeout_s;
} weft_options;
#define WEFT_MAX_TIMEOUT_S 1e6
#define WEFT_DEFAULT_BUILD_TIMEOUT_S 120.0

WEFT_API weft_status weft_context_create(const weft_options *options, weft_context **out);
/* Checks options as weft_context_create does: WEFT_ERROR_INVALID_VALUE with why (n bytes, may
 * be NULL) saying which option is wrong and why, else WEFT_SUCCESS. */
WEFT_API weft_status weft_options_check(const weft_options *options, char *why, size_t n);
/* WEFT_SUCCESS, or WEFT_ERROR_INVALID_VALUE for a handle that is not a context alive. */
WEFT_API weft_status weft_context_release(weft_context *ctx);
/* The policy of the following launches ("stack"). */
WEFT_API weft_status weft_context_set_policy(weft_context *ctx, const char *policy);
/* The split order and max splits of the following launches, as in weft_options. */
WEFT_API weft_status weft_context_set_splits(weft_context *ctx, const char *split_order,
                                             unsigned max_splits);
/* Whether the following launches hand every policy event to the runtime
 * (weft_options.policy_in_runtime). */
WEFT_API weft_status weft_context_set_policy_in_runtime(weft_context *ctx, int on);
/* The timeout of the following launches, as weft_options.timeout_s (0: none; WEFT_TIMEOUT is
 * read by weft_context_create only). */
WEFT_API weft_status weft_context_set_timeout(weft_context *ctx, double seconds);
/* Stops the launch running in ctx, if any, as its timeout would: it returns WEFT_ERROR_STOPPED
 * with the same report. Async-signal-safe, so that a SIGINT handler can call it, and callable
 * from any thread while another one launches; for that it does not check that ctx is a live
 * context (which takes a lock): ctx must be one. A launch that starts afterwards runs. */
WEFT_API weft_status weft_context_stop(weft_context *ctx);
/* The options in force, with every 0 and NULL replaced by its value; all 0 and NULL (warp 0,
 * which no context has) for a NULL or released context. */
WEFT_API weft_options weft_context_options(const weft_context *ctx);
/* Why the last call on this context failed: a message naming the argument, kernel and source
 * line where there is one; for a build, clang's diagnostics. "" when nothing failed. */
WEFT_API const char *weft_last_error(const weft_context *ctx);

/* ---- programs ---- */
/* build_options are extra clang options such as "-DN=16" (may be NULL). */
WEFT_API weft_status weft_program_build_file(weft_context *ctx, const char *path,
                                             const char *build_options, weft_program **out);
/* `name` is the file name that diagnostics show. */
WEFT_API weft_status weft_program_build_source(weft_context *ctx, const char *name,
                                               const char *source, const char *build_options,
                                               weft_program **out);
/* clang's warnings for a program that built ("" when there were none). */
WEFT_API const char *weft_program_build_log(const weft_program *program);
/* Its kernels keep it (and its context) alive until they are released. */
WEFT_API weft_status weft_program_release(weft_program *program);

/* ---- kernels and their arguments ---- */
typedef enum weft_type {
  WEFT_I8,
  WEFT_U8,
  WEFT_I16,
  WEFT_U16,
  WEFT_I32,
  WEFT_U32,
  WEFT_I64,
  WEFT_U64,
  WEFT_F32,
  WEFT_F64,
  WEFT_OTHER
} weft_type;

typedef enum weft_arg_kind {
  WEFT_ARG_VALUE, /* passed by value: a scalar or a vector such as float4 */
  WEFT_ARG_GLOBAL, /* a __global buffer */
  WEFT_ARG_CONSTANT, /* a __constant buffer */
  WEFT_ARG_LOCAL, /* a __local buffer: only its size is given, weft allocates it */
} weft_arg_kind;

/* Bytes of one value of the type: 1, 2, 4 or 8; 0 for WEFT_OTHER and anything else. */
WEFT_API size_t weft_type_size(weft_type type);
/* "i8", "u8", ... "f64" (as `weft run --arg` writes types), "other" for WEFT_OTHER, "invalid
 * type" for anything else. */
WEFT_API const char *weft_type_name(weft_type type);
/* The kind as a message says it: "a value", "a __global buffer", "a __constant buffer", "a
 * __local buffer"; "an invalid kind" for anything else. */
WEFT_API const char *weft_arg_kind_name(weft_arg_kind kind);

typedef struct weft_arg_info {
  const char *name; /* the parameter's name in the source */
  const char *type_name; /* as written, e.g. "float*" or "uint" */
  weft_arg_kind kind;
  weft_type type; /* the scalar (or element) type; for buffers the pointee's */
  unsigned vector_width; /* 1 for scalars, 4 for float4 */
  size_t size; /* bytes of a VALUE argument; bytes of one element for buffers */
  unsigned qualifiers; /* WEFT_QUALIFIER_*: the pointee's, for a buffer, as the source says */
} weft_arg_info;
enum weft_qualifier {
  WEFT_QUALIFIER_CONST = 1,
  WEFT_QUALIFIER_RESTRICT = 2,
  WEFT_QUALIFIER_VOLATILE = 4
};

typedef struct weft_arg {
  weft_arg_kind kind;
  weft_type type; /* VALUE: the type of *value, checked against the parameter */
  size_t size; /* VALUE: bytes at value; buffers: bytes of the buffer */
  const void *value; /* VALUE: the value; GLOBAL/CONSTANT: the buffer, never NULL (a kernel may
                        read or write any buffer it is given) and aligned to its elements' size
                        (WEFT_ERROR_ARGUMENT else); LOCAL: NULL */
} weft_arg;

WEFT_API weft_status weft_kernel_create(weft_program *program, const char *name, weft_kernel **out);
WEFT_API weft_status weft_kernel_release(weft_kernel *kernel);
WEFT_API const char *weft_kernel_name(const weft_kernel *kernel);
/* Bytes of __local memory that the kernel declares itself (its __local arrays), which every
 * work-group gets besides its __local arguments; 0 for a handle that is not a live kernel. */
WEFT_API size_t weft_kernel_local_mem_size(const weft_kernel *kernel);
WEFT_API unsigned weft_kernel_num_args(const weft_kernel *kernel);
WEFT_API weft_status weft_kernel_arg_info(const weft_kernel *kernel, unsigned index,
                                          weft_arg_info *info);
/* The names of the kernels in a program, in source order; NULL past the last. */
WEFT_API const char *weft_program_kernel_name(const weft_program *program, unsigned index);

/* ---- launching ---- */
typedef struct weft_ndrange {
  unsigned dims; /* 1, 2 or 3 */
  size_t global[3]; /* work-items per dimension */
  size_t local[3]; /* work-group size per dimension; each must divide global */
} weft_ndrange;

/* What one launch did. The counts are over all warps of the launch. */
typedef struct weft_stats {
  double time_ms; /* wall time of the launch */
  uint64_t work_groups, warps;
  uint64_t block_execs; /* blocks run by a warp or split (one per block, not per group) */
  uint64_t instr_execs; /* Σ instructions of the block, over block executions */
  uint64_t lane_instrs; /* Σ active lanes × instructions of the block */
  double simd_efficiency; /* lane_instrs / (W × instr_execs) */
  uint64_t groups_run; /* lane groups that ran a block */
  uint64_t groups_skipped; /* lane groups skipped because no lane was active (BCC) */
  uint64_t divergent_branches; /* branches whose active lanes went more than one way */
  uint64_t reconvergences; /* times diverged lanes met again at a reconvergence point (the
                                  IPDOM of their branch); early ones are not counted here */
  uint64_t policy_calls; /* calls from generated code into the policy */
  uint64_t barriers; /* barrier completions, per work-group */
  /* Returns to the scheduler that it resumed: calls of the warp function after a warp's first
   * one, where a warp does not go on in the generated code (see policy_in_runtime); with
   * weft_options.policy_in_runtime, one per policy event. */
  uint64_t round_trips;
  uint64_t early_reconvergences; /* mp-orec: a split merged with a waiting split at the same
                                    PC and reconvergence point, before that point */
  /* Splits of a warp at once: runnable, waiting for a table slot or at a barrier. Per warp and
   * work-group its maximum; the largest, and their average over all warps. 1 under stack and pc,
   * which run one split of a warp at a time. */
  uint64_t max_splits_per_warp;
  double avg_splits_per_warp;
  /* mp, mp-orec: the most entries one warp's split table (splits not waiting for a slot) and
   * reconvergence table held at once (the MP paper's Figure 19); 0 when no warp diverged, and
   * under stack and pc. */
  uint64_t max_st_entries, max_rt_entries;
} weft_stats;

/* Runs `kernel` over `range`. `args` has one entry per kernel parameter, in order. `stats` may
 * be NULL. A launch that fails leaves the buffers in an unspecified state but never hangs. */
WEFT_API weft_status weft_kernel_launch(weft_kernel *kernel, const weft_ndrange *range,
                                        unsigned nargs, const weft_arg *args, weft_stats *stats);

/* weft_kernel_launch with a global offset: offset[d] (for d < range->dims; NULL: 0) is
 * get_global_offset(d) and is added to every get_global_id(d), as OpenCL's global work offset. */
WEFT_API weft_status weft_kernel_launch_offset(weft_kernel *kernel, const weft_ndrange *range,
                                               const size_t offset[3], unsigned nargs,
                                               const weft_arg *args, weft_stats *stats);

/* ---- tracing: watch a warp diverge and reconverge, step by step (`weft trace`) ---- */
/* Blocks of the kernel (PCs 0 .. n-1; PC n is the kernel's end) and the source lines of one. */
WEFT_API unsigned weft_kernel_num_blocks(const weft_kernel *kernel);
/* 0 in both when the lines are unknown. */
WEFT_API weft_status weft_kernel_block_lines(const weft_kernel *kernel, unsigned pc,
                                             unsigned *first_line, unsigned *last_line);

/* Memory for kernel buffers between inaccessible regions of at least 64 KiB: a kernel that
 * indexes past the end of such a buffer, or below its start, stops the process with SIGSEGV at
 * once instead of overwriting other memory (between the end and the region lie at most
 * WEFT_BUFFER_ALIGN - 1 bytes of padding; below the start, what remains of its first page).
 * WEFT_BUFFER_ALIGN-byte aligned, zero-filled; NULL when out of memory. Free with the same
 * size. `weft run` puts every buffer argument in one; the runtime puts each worker's __local
 * memory in one of its own. */
#define WEFT_BUFFER_ALIGN 128 /* bytes: a long16, OpenCL C's largest type */
WEFT_API void *weft_buffer_alloc(size_t bytes);
WEFT_API void weft_buffer_free(void *buffer, size_t bytes);

/* A mask as text, as the papers draw it: `width` binary digits, lane 0 rightmost, '1' for an
 * active lane, and a NUL. Returns buf. */
#define WEFT_MASK_CHARS 65
WEFT_API char *weft_mask_string(char buf[WEFT_MASK_CHARS], uint64_t mask, unsigned width);

/* What a step did, as the papers name it. */
typedef enum weft_trace_event {
  WEFT_TRACE_EXECUTE, /* the lanes ran and go on together */
  WEFT_TRACE_DIVERGE, /* the lanes went more than one way */
  WEFT_TRACE_RECONVERGE, /* diverged lanes met again at a reconvergence point */
  WEFT_TRACE_EARLY_RECONVERGENCE, /* ... earlier, where splits met by chance (mp-orec) */
  WEFT_TRACE_BARRIER_WAIT, /* the lanes wait at a barrier */
  WEFT_TRACE_EXIT, /* the lanes reached the kernel's end */
} weft_trace_event;

/* "execute", "diverge", "reconverge", "early reconvergence", "barrier wait", "exit". */
WEFT_API const char *weft_trace_event_name(weft_trace_event event);

/* One step of a traced warp: one run of the warp's code for one split (PC, mask) until it
 * branches, waits at a barrier or ends -- normally one block, as in the papers' figures; a
 * uniform loop that jumps back stays inside one step (pc .. end_pc). The pointers are valid
 * during the callback only. */
typedef struct weft_trace_step {
  uint64_t step; /* 0, 1, 2, ... over the traced warps, in the order run */
  uint64_t group_id[3]; /* the work-group */
  unsigned warp; /* the warp's index in its work-group */
  unsigned width; /* W: bits of the masks */
  uint32_t pc, end_pc; /* the block the step began at, the block that ended it */
  uint32_t first_line, last_line; /* source lines from pc's block to end_pc's; 0: unknown */
  uint64_t mask; /* the step's lanes, bit i = lane i (thread 0 rightmost) */
  weft_trace_event event;
  unsigned ntargets; /* where the lanes go next: PC target_pc[t] for the lanes */
  const uint32_t *target_pc; /* target_mask[t]; PC num_blocks is the kernel's end; after */
  const uint64_t *target_mask; /* a barrier, the PC where the lanes resume */
  uint64_t blocks; /* block executions in the step */
  uint64_t groups_run; /* lane groups (G lanes) that ran the step's blocks */
  uint64_t groups_skipped; /* lane groups skipped because none of their lanes ran (BCC) */
  unsigned reconvergences; /* made by this step at IPDOMs (early ones apart) */
  unsigned early_reconvergences;
  const char *state_text; /* the policy's state after the step, for people: lines */
  const char *state_json; /* the same as one JSON object */
} weft_trace_step;

/* Called once per step. Return 0 to go on, non-zero to record no more steps (the launch goes
 * on to its end untraced). */
typedef int (*weft_trace_fn)(void *user, const weft_trace_step *step);

typedef struct weft_trace_options {
  weft_trace_fn on_step;
  void *user;
  uint64_t group; /* the work-group to trace, by linear index (x fastest); 0: the first */
  int warp; /* the warp of that work-group to trace; -1: all of them */
} weft_trace_options;

/* weft_kernel_launch, calling trace->on_step after every step of the traced warps. Only the
 * traced work-group runs differently (its warps return to the runtime after every block), and
 * never with other results or stats. on_step is called from the worker thread that runs that
 * work-group, one call at a time, steps in order; it must not use this kernel's context. */
WEFT_API weft_status weft_kernel_launch_traced(weft_kernel *kernel, const weft_ndrange *range,
                                               unsigned nargs, const weft_arg *args,
                                               weft_stats *stats, const weft_trace_options *trace);

#ifdef __cplusplus
}
#endif

#endif
