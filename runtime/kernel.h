/* The contract between generated warp code and the runtime.
 *
 * For each kernel and (W, G) the compiler emits a function (and one more for work-groups that
 * are not x-aligned, see weft_compiled_kernel.run_unaligned)
 *     uint32_t run(weft_warp_ctx *ctx)
 * that runs the lanes ctx->mask of one warp from block ctx->pc. Blocks jump to each other inside
 * the function while the active lanes agree on the successor and it is below ctx->guard; the
 * function returns to the scheduler (which calls the policy) only when
 *   - the lanes of a block went more than one way (a divergent branch), or
 *   - they all go to a block whose PC is >= ctx->guard (the policy's published point: the stack
 *     top's reconvergence PC, ...); the kernel's end is PC nblocks, always >= guard (in a
 *     first call with ctx->chain set, the next warp goes on from there instead), or
 *   - they reached a barrier, or
 *   - the launch must stop (group->stop, checked at every loop back edge: WEFT_EVENT_STOPPED).
 * Values that live across blocks are kept in ctx->frame between calls, so a warp or one split of
 * it can stop and resume later; the generated code only changes the frame's lanes in ctx->mask.
 *
 * With ctx->policy set (`stack` and `pc`, unless weft_options.policy_in_runtime), the function
 * takes the policy's steps itself: it hands each event to weft_stack_arrive, _diverge or _leave
 * (policy_stack.c), or weft_pc_arrive, _diverge or _leave (policy_pc.c), as ctx->steps says
 * (compiled to bitcode and inlined), and goes on, in the same call
 * and with its values in registers, at the block the policy picks. Its values hold every lane,
 * each definition blended into the running split's lanes, so the lanes of other splits keep
 * theirs. It returns only at a barrier (BARRIER, for the policy as usual), at an event outside
 * any loop (BRANCH, for the policy as usual: steps there would cost more to compile than they
 * save), when the warp has finished (HANDLED; in a first call with a chain, the next warp goes
 * on instead), or when the policy picks a block it cannot reach from there (NEXT: the policy has
 * taken every event; ask it what runs next). The frame then holds every value of every lane
 * that ran in the call.
 *
 * A divergent branch whose region holds no loop, barrier, switch or return (a structured branch)
 * runs its sides masked without calling the policy, where ctx->regions allows it, and adds to
 * ctx's region counters what the policy would have counted (lower_region.c).
 *
 * The compiler builds its accesses to these structs with offsetof() on this header, so the two
 * sides cannot disagree. Only C types of fixed size appear here. */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "weft.h"

#define WEFT_MAX_WARP 64
/* Reconvergence entries the code of one call may make and keep open (weft_warp_ctx): an early
 * return around a loop with a break needs two; past them, the branch goes to the scheduler. */
#define WEFT_REGION_OPENS 4
/* A warp's frame starts on this, and its values and private variables are placed on it: a
 * long16's or a double16's alignment, the most OpenCL C has (a lane's copy of a private
 * variable is at frame + offset + lane × its size). */
#define WEFT_FRAME_ALIGN 128
static inline size_t weft_frame_align(size_t n) {
  return (n + WEFT_FRAME_ALIGN - 1) & ~(size_t)(WEFT_FRAME_ALIGN - 1);
}

enum weft_event {
  WEFT_EVENT_BRANCH = 1,  /* the lanes go to targets: 1 target at/past the guard, 2+ diverged */
  WEFT_EVENT_BARRIER = 2, /* the lanes ctx->mask wait at the barrier ending block from_pc; they
                             resume at target_pc[0] */
  WEFT_EVENT_HANDLED = 3, /* the policy in ctx->policy took the last event: the warp finished */
  WEFT_EVENT_NEXT = 4, /* the policy in ctx->policy took every event; its next split runs */
  WEFT_EVENT_STOPPED = 5, /* *group->stop was set: the lanes target_mask[0] were taking the
                             loop back edge from block from_pc to target_pc[0] (ntargets 1), or
                             starting the split the policy picked at target_pc[0] (ntargets 0).
                             Nothing was saved: the warp never resumes */
};

/* ctx->steps, with ctx->policy set: the policy whose steps the warp function takes. */
enum weft_steps {
  WEFT_STEPS_STACK = 1, /* weft_stack_arrive, weft_stack_diverge (policy_stack.c) */
  WEFT_STEPS_PC = 2,    /* weft_pc_arrive, weft_pc_diverge (policy_pc.c) */
};

/* ctx->regions: which structured branches a policy's calls would run exactly as their masked
 * sequence does (each side's blocks under its lanes, in the order of the sides' PCs, then the
 * IPDOM with all the lanes), so that the code may run them so. A branch has the bits of the
 * policies it is safe for; it runs masked when it shares one with ctx->regions. */
enum weft_regions {
  WEFT_REGIONS_STACK = 1,    /* every structured branch: `stack` runs a side's path once per split
                                that takes it, a block two sides reach twice */
  WEFT_REGIONS_PC_ORDER = 2, /* those whose masked sequence runs its blocks in increasing PC
                                order, when no lane of another split waits before the IPDOM
                                (guard >= IPDOM): `pc` then runs them so */
  WEFT_REGIONS_LOWEST_PC = 4, /* the same branches, when every other split of the warp waits
                                 above the IPDOM (ctx->ahead > IPDOM): `mp` and `mp-orec` with
                                 the lowest-pc split order and no split bound then run them so */
};

/* Shared by the warps of one work-group; read-only for generated code. */
typedef struct weft_group {
  const void *args; /* the launch's argument block (see weft_compiled_kernel.setargs) */
  char *local_mem; /* this work-group's __local memory, 64-byte aligned */
  uint64_t group_id[3];
  uint64_t local_size[3], global_size[3], num_groups[3], global_offset[3];
  uint32_t work_dim;
  uint32_t x_aligned; /* get_local_id(0) is lane-affine in every lane group: local_size[0] % G
                         is 0, or the work-group is one row (local_size[1] = [2] = 1) */
  /* The launch's watchdog flag: not 0 once the launch must stop. Generated code reads it at
   * every loop back edge and wherever it goes on with a split the policy picked, so that no
   * warp loops forever; it then returns WEFT_EVENT_STOPPED. */
  const _Atomic uint32_t *stop;
} weft_group;

/* What a policy counts for one warp slot of a worker, over all the work-groups it runs there.
 * The sums add up across warps and workers; the max_ fields combine with max (stats.c). The
 * generated code adds to the first four where it takes the policy's steps itself. */
typedef struct policy_counters {
  uint64_t divergent_branches; /* branches whose lanes went more than one way */
  uint64_t reconvergences; /* diverged lanes met again at a reconvergence point (IPDOM) */
  uint64_t early_reconvergences; /* mp-orec: a split merged with a waiting one before it */
  uint64_t policy_calls; /* events handed to the policy, except a warp or split simply
                                  reaching the kernel's end: a kernel without divergence has 0 */
  uint64_t split_excess; /* Σ over the warps (one per work-group) of their most splits
                                  at once, minus 1: 0 for a policy with one split at a time */
  uint64_t max_splits; /* most splits one warp had at once (0: never more than 1) */
  uint64_t max_st_entries; /* most entries of a warp split table, of a reconvergence */
  uint64_t max_rt_entries; /* table; 0 for policies without tables */
} policy_counters;

typedef struct weft_warp_ctx {
  /* Set by the scheduler before each call. */
  uint64_t mask; /* active lanes, bit i = lane i (thread 0 is bit 0) */
  uint32_t pc; /* block to run */
  uint32_t guard;
  /* Not NULL only in a warp's first call: when the warp ends there (all its lanes at the
   * kernel's end), the generated code goes on with the warp `chain` points to (the next one of
   * the same work-group, its pc, mask, guard and chain set likewise) and stores no event for
   * the warp that ended. A warp function may also return as usual; the scheduler takes both. */
  struct weft_warp_ctx *chain;
  /* Not NULL: the warp's policy state and counters, for the function to take the policy's
   * steps itself (see above); `steps` says whose, WEFT_STEPS_*. The state starts (`started`)
   * at the warp's first step, not before: most warps never take one, and starting `pc`'s is a
   * pass over the lanes. A step starts it with `kernel` and the call's lanes, ctx->mask. */
  void *policy;
  policy_counters *counters;
  uint32_t regions; /* the structured branches that run masked: WEFT_REGIONS_* */
  uint32_t ahead;   /* WEFT_REGIONS_LOWEST_PC: the lowest PC of another ready split, or
                       UINT32_MAX; 0 when the guard is not the split's RPC (mp-orec) */
  uint32_t steps;
  uint32_t started;
  /* 1 when the launch reports stats or is traced: only then does the code count blocks, lanes
   * and the structured branches it ran masked (below). The counts cost a third of the time of
   * a loop full of divergent branches, so a launch that asks for no stats does not pay them. */
  uint32_t counting;
  const struct weft_compiled_kernel *kernel;
  /* Set by generated code before it returns. */
  uint32_t event; /* enum weft_event */
  uint32_t from_pc;
  uint32_t ntargets; /* BRANCH: distinct targets, each with a non-empty mask, in PC order */
  uint32_t pad2_;
  uint32_t target_pc[WEFT_MAX_WARP];
  uint64_t target_mask[WEFT_MAX_WARP];
  /* Added to by generated code (see weft_stats). */
  uint64_t block_execs, instr_execs, lane_instrs, groups_run;
  /* What the structured branches the code ran masked count for the policy (lower_region.c):
   * here, next to the others, so that the code can keep them all in registers through a branch
   * (ctx->counters may be anywhere, for all the compiler knows). */
  uint64_t region_divergent_branches, region_reconvergences, region_policy_calls;
  /* Under WEFT_REGIONS_LOWEST_PC, set by the code, read and cleared by the scheduler after each
   * call: region_diverged, 1 once a branch ran masked with its lanes going two ways or a loop's
   * exit narrowed the split (the policy's tables would have moved the running split to another
   * slot); when counting, region_splits, the most splits the tables would have held at once
   * counting the running split and those it made but not the others (0: nothing diverged), and
   * region_entries, the most reconvergence entries they would have added. */
  uint32_t region_diverged, region_splits, region_entries;
  /* ... region_open[0..region_opens): the reconvergence entries the code made, innermost last,
   * where a branch whose lanes went to its IPDOM R and on at a block below R made one at R for
   * the running split (`mask`, its lanes then), which went on with the others as the split of
   * that entry, with R as its point (`rpc`: the point it had); `left`: its lanes that arrived at
   * R since. The code closes an entry itself when the others arrive at R in the same call; the
   * scheduler has the policy make those left open, in order. */
  uint32_t region_opens, pad3_;
  struct weft_region_open {
    uint64_t mask, left;
    uint32_t pc, rpc;
  } region_open[WEFT_REGION_OPENS];
  /* ... and region_left: lanes that left a loop for the running split's own point, where they
   * wait among its reconvergence entry's arrivals (the code went on with the others), before
   * the entries above. */
  uint64_t region_left;
  /* Fixed for the warp. */
  const weft_group *group;
  char *frame; /* weft_compiled_kernel.frame_size bytes, WEFT_FRAME_ALIGN-byte aligned */
  /* each lane's local id per dimension, cache-line aligned: a lane group's ids are a vector
   * load that does not straddle two lines */
  _Alignas(64) uint32_t lid[3][WEFT_MAX_WARP];
} weft_warp_ctx;

typedef uint32_t (*weft_warp_fn)(weft_warp_ctx *ctx);

/* One kernel parameter. VALUE parameters live in the argument block at `offset`; a LOCAL
 * parameter's slot holds a uint64 byte offset into the work-group's local memory. */
typedef struct weft_param {
  const char *name, *type_name;
  weft_arg_kind kind;
  weft_type type;
  unsigned vector_width;
  size_t size; /* VALUE: bytes of the value; buffers: bytes of one element */
  size_t offset; /* slot in the argument block */
  unsigned qualifiers; /* WEFT_QUALIFIER_* (weft.h) */
  size_t align; /* buffers: what the code may assume of the buffer's address, its elements'
                   alignment (a struct's from the module; 1 when not known) */
} weft_param;

/* A compiled kernel as the runtime sees it. Owned by the compiler's kernel object. */
typedef struct weft_compiled_kernel {
  const char *name;
  const char *file; /* the source file that defines the kernel, NULL when unknown */
  unsigned warp, lanes; /* W and G it was compiled for */
  unsigned nblocks; /* PCs 0..nblocks-1; nblocks is the kernel's end */
  const uint32_t *ipdom; /* per PC: immediate post-dominator (nblocks: the end) */
  const uint32_t *first_line, *last_line; /* per PC, 0 when unknown */
  const uint32_t *ninstr; /* per PC: instructions of the block, for SIMD efficiency */
  const uint32_t *barrier_line; /* per PC: the line of the barrier ending the block, 0 if none */
  size_t frame_size; /* bytes per warp */
  size_t static_local_size; /* bytes of the kernel's own __local arrays */
  size_t args_size; /* bytes of the argument block */
  int flush_denormals; /* built with -cl-denorms-are-zero: run with MXCSR's FTZ and DAZ set */
  unsigned nparams;
  const weft_param *params;
  /* The warp function, for work-groups where get_local_id(0) is lane-affine in every lane group
   * (weft_group.x_aligned, rt_x_aligned); run_unaligned, for the others, handles both, and may
   * be NULL until a launch needs it (the compiler builds it then). */
  weft_warp_fn run, run_unaligned;
  /* void setargs(void *block, P0, P1, ...): stores its arguments into the argument block. It has
   * the kernel's parameter list with pointers as pointers, scalars as their C types, vectors
   * (float4, ...) by pointer and LOCAL parameters as a uint64 offset; call it with libffi. */
  void (*setargs)(void);
} weft_compiled_kernel;

#endif
