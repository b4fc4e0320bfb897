/* Private interface of the warp lowering (lower*.c). See lower.c for the shape of the code and
 * lower_warp.c for the function around it. Every function takes the lowering's state, L. */
#ifndef WEFT_LOWER_H
#define WEFT_LOWER_H

#include "compiler.h"
#include "kernel.h"

/* Where a kernel value lives while the warp function runs. Every value gets allocas (SROA turns
 * them into registers): one scalar for a uniform value, one <G x T> per lane group otherwise.
 * A value used outside its block ("cross") is also kept in the frame between calls, W lanes of
 * its type. The lanes of a call never change during the call, so a definition simply overwrites
 * the slot; only the frame must keep the other lanes' values, and a call writes its own lanes
 * there (masked stores) for the values live where it stops. */
typedef struct slot {
  LLVMValueRef inst; /* the kernel's instruction */
  shape shape;       /* its divergence (divergence.c): UNIFORM gets u, the others v */
  LLVMTypeRef type;  /* the kernel's type of the value */
  LLVMValueRef u;    /* UNIFORM: alloca of type */
  LLVMValueRef *v;   /* otherwise: one alloca per lane group, of lw_vtype(type) */
  int cross;         /* used outside its block: also kept in the frame between calls */
  int blend;         /* lanes of other splits may still read it: definitions keep theirs */
  int remat;         /* computed again where a warp resumes, never kept in the frame */
  unsigned stamp;    /* the resume block that computed it last (lw_frame_restore) */
  int index;         /* among the cross slots, for liveness */
  size_t frame_off;  /* a cross slot's W lanes in the frame */
  size_t priv_off;   /* an alloca's W private copies in the frame */
} slot;

/* The state of lowering one kernel, L in every lw_ function. Short names follow LLVM-C's habit
 * and the design's: W is the warp width, G the lane-group width, a group is G lanes. */
typedef struct lower {
  /* the kernel and its analysis (pipeline_analyse) */
  weft_arena *arena;    /* memory freed when the kernel is lowered */
  const cfg *cfg;       /* the kernel's blocks by PC, with their IPDOMs and parts */
  const divergence *dv; /* uniform, lane-affine or varying, for every value */
  /* where the code goes */
  LLVMContextRef c;     /* the module's context */
  LLVMModuleRef m;      /* the module: the kernel's, into which its warp function goes */
  LLVMBuilderRef b;     /* the builder, at the instruction being emitted */
  LLVMTargetDataRef td; /* the module's data layout: sizes in the frame and in memory */
  unsigned W, G, ngroups; /* warp width, lane-group width, W / G lane groups */
  int avx512;             /* the host has AVX-512: 16 lanes of 32 bits in a register */
  int x_aligned_only;     /* lower_target: lane-affine accesses need no gather path */
  /* values of the part being emitted, in its warp function (lower_warp.c) */
  LLVMValueRef fn;        /* the part's function: uint32_t run(weft_warp_ctx *ctx) */
  LLVMValueRef ctx;       /* its weft_warp_ctx (in part 0 a phi over the chain's warps) */
  LLVMValueRef work_group; /* ctx->group: the work-group's weft_group */
  LLVMValueRef args;      /* the argument block that setargs filled */
  LLVMValueRef local_mem; /* the work-group's __local memory */
  LLVMValueRef frame;     /* ctx->frame: where the warp's values live between calls */
  LLVMValueRef mask;      /* i64: the running split's lanes, read at the top of each block */
  LLVMValueRef x_aligned; /* i1: get_local_id(0) is lane-affine in every lane group */
  /* allocas (registers after SROA): the running split's lanes, from ctx->mask; its guard, from
   * ctx->guard (a jump to a PC below it may stay inline). They change only where the code takes
   * a policy step itself (lower_step.c). */
  LLVMValueRef mask_var, guard_var;
  LLVMValueRef scatter_sink; /* alloca: where an inactive lane's store goes, without AVX-512 */
  LLVMValueRef regions, ahead; /* i32: the warp's ctx->regions and ctx->ahead, read at start */
  LLVMValueRef counting;       /* i1: ctx->counting, read at start */
  LLVMValueRef call_lanes; /* i64: the lanes the call (or the chain's warp) started with */
  LLVMBasicBlockRef entry; /* the part's entry block: what every warp shares */
  LLVMBasicBlockRef start; /* where each warp of a chain starts */
  LLVMBasicBlockRef *bbs;  /* per PC: the block that runs the kernel's block */
  LLVMBasicBlockRef leave; /* the one return to the scheduler: counters, event */
  LLVMValueRef group_u64[sizeof(weft_group) / 8], global_base[3]; /* read at the part's entry */
  LLVMBasicBlockRef *arrive; /* per target PC: the shared exit for arrivals there */
  LLVMBasicBlockRef *crossing; /* per target PC in another part: the way there */
  LLVMValueRef *part_fns; /* the warp function's parts; part 0 is the entry */
  int part; /* the part being emitted */
  LLVMValueRef event, count; /* allocas: the event returned, blocks and instructions run */
  LLVMValueRef end_from; /* alloca: the PC whose block went to the kernel's end */
  /* the kernel's values (lower_values.c) and the frame (lower_frame.c) */
  ptrmap slots; /* kernel instruction -> slot */
  slot **cross; /* the cross slots, by index */
  int ncross, live_words; /* cross slots; 64-bit words of a live_in set */
  unsigned stamp; /* resume blocks emitted so far */
  uint64_t *live_in; /* per PC: bitset of cross slots live at the block's start */
  int *live_set; /* per PC: the first PC with the same live values, which
                                      names their shared resume point and exit */
  ptrmap uniforms; /* kernel argument or __local global -> value in fn */
  size_t frame_size, static_local_size; /* bytes per warp; the kernel's own __local bytes */
  /* the instruction being emitted */
  unsigned lane_group; /* the lane group being emitted */
  LLVMValueRef lane_group_mask; /* its <G x i1> mask */
  int every_group; /* emit every lane group's code, with no test for an active lane (selects) */
  /* The varying condition of the branch that ends the block being emitted, when the block
   * computes it, and an alloca (i64) of its lanes' bits, gathered in each lane group as it is
   * computed (lower.c, emit_segment): lw_lanes_where reads them. */
  LLVMValueRef branch_cond, branch_bits;
  LLVMValueRef scan_carry; /* alloca: a sub-group scan's total over the lane groups so far */
  char *error; /* the first unsupported construct, with its line */
  /* the `stack` policy's steps in the code (lower_step.c) */
  LLVMValueRef step[2][2]; /* [stack, pc][diverge, arrive]: the policies' steps, declared */
  LLVMValueRef stack_leave, stack_open, pc_leave; /* weft_stack_leave, _open, weft_pc_leave */
  int **siblings, *nsiblings; /* per PC R: targets of the branches whose IPDOM is R */
  unsigned char *reconverges; /* per PC (and the end): the IPDOM of a divergent branch, the only
                                 points a `stack` split arrives at */
  int divergent; /* the kernel has a divergent branch */
  unsigned char *in_loop; /* per PC: between a back edge's target and its source */
  unsigned char *steps;   /* per PC: steps there are taken in the code (lower_step.c): in a
                             loop, or in the region of a divergent branch around one */
  uint64_t *pending; /* per PC: the cross slots live where lanes may wait while it runs */
  LLVMBasicBlockRef *enter; /* per PC: where a split the policy picked starts */
  LLVMBasicBlockRef *arrival; /* per PC (and the end): the step of the arrivals there */
  LLVMBasicBlockRef next_leave, finished; /* back to the scheduler: ask the policy; done */
  LLVMBasicBlockRef elsewhere; /* on in another part at ctx->pc, every value in the frame */
  LLVMBasicBlockRef leave_all; /* an event for the scheduler, every value in the frame */
  LLVMBasicBlockRef save_all;  /* what the three above share: the saving (lower_step.c) */
  unsigned char *region_masked; /* per PC: the WEFT_REGIONS_* its divergent branch runs masked
                                 * under (lower_region.c), 0 for none */
  unsigned char *may_open; /* per PC: mp's code may open a reconvergence entry there
                            * (lower_region.c, kernel.h region_open) */
  LLVMBasicBlockRef *closing; /* per PC: where the part's code resolves that entry */
  /* While a masked side is emitted: what the splits around it would hold in mp's tables
   * (lower_region.c, count_tables). */
  int chain_splits;
  LLVMValueRef chain_entries; /* i32 */
} lower;

#define COUNT_BLOCK_SHIFT 40 /* count: block executions << 40 | instructions */

typedef struct edge {
  int to;
  LLVMValueRef mask; /* i64: the lanes that take it */
} edge;

/* lower.c: the kernel's blocks, their terminators, and the exits to the scheduler */
void lw_emit_blocks(lower *L); /* the blocks of part L->part */
void lw_count_block(lower *L, unsigned ninstr); /* one run of a block of ninstr instructions */
void lw_emit_body(lower *L, LLVMBasicBlockRef bb); /* a block's instructions, but its terminator */
/* The phis of the targets of edges e[0..n) from block `from`, each for the lanes of its edge. */
void lw_write_phis(lower *L, int from, const edge *e, int n);
LLVMValueRef lw_true_lanes(lower *L, LLVMValueRef cond); /* the running lanes where cond is 1 */
/* The running lanes where `x pred y` holds: x a kernel value, y a scalar (as a W-bit i64); for
 * floating-point x, pred is EQ (ordered) or NE (unordered). */
LLVMValueRef lw_lanes_where(lower *L, LLVMIntPredicate pred, LLVMValueRef x, LLVMValueRef y);
/* Code between begin and end (which joins at the block begin returns) runs only when the
 * launch counts (ctx->counting): the blocks, lanes and masked branches of the stats. */
LLVMValueRef lw_counting(lower *L); /* i1: the launch counts */
LLVMBasicBlockRef lw_counting_begin(lower *L);
void lw_counting_end(lower *L, LLVMBasicBlockRef done);
void lw_count_to_ctx(lower *L); /* adds what the running split's blocks counted to ctx's */
/* The next warp of a chain (kernel.h) goes on, when there is one; else to `none`. */
void lw_chain_or(lower *L, LLVMBasicBlockRef none);
LLVMValueRef lw_mask_here(lower *L); /* the running split's lanes, read where the builder is */
/* Leaves with WEFT_EVENT_STOPPED when the launch must stop, the running lanes going from `from`
 * to `to` by a loop's back edge (loop 1) or starting a split there; else the builder goes on. */
void lw_stop_check(lower *L, int from, int to, int loop);
LLVMValueRef lw_tail_call(lower *L, int part,
                          LLVMValueRef ctx); /* what part `part` returns for ctx */

/* lower_values.c: types per lane group, splats and masks, slots */
LLVMTypeRef lw_vtype(lower *L, LLVMTypeRef t); /* per-group type of a kernel type: <G x t> */
unsigned lw_width(LLVMTypeRef t); /* elements per lane: 1, or k of <k x E> */
LLVMTypeRef lw_elem_type(LLVMTypeRef t); /* E of <k x E>, or t */
LLVMValueRef lw_splat(lower *L, LLVMValueRef scalar); /* a uniform value in every lane of a group */
/* Element c of every lane of v, each lane with k elements (a scalar when v is one lane's). */
LLVMValueRef lw_component(lower *L, LLVMValueRef v, unsigned k, unsigned c);
LLVMValueRef lw_expand_mask(lower *L, LLVMValueRef m, unsigned k); /* <G x i1> -> <kG x i1> */
/* Lane group g's G bits of a W-lane mask (i64): as an iG, or as a <G x i1>. */
LLVMValueRef lw_group_bits(lower *L, LLVMValueRef mask64, unsigned g);
LLVMValueRef lw_group_mask(lower *L, LLVMValueRef mask64, unsigned g);
LLVMValueRef lw_iota(lower *L, LLVMTypeRef elem, unsigned first); /* <first, first+1, ...> */
LLVMValueRef lw_const_i64(lower *L, uint64_t v);
LLVMValueRef lw_const_i32(lower *L, uint64_t v);
slot *lw_slot(lower *L, LLVMValueRef v); /* v's slot; NULL for a constant or an argument */
/* Reading and writing kernel values: a uniform value as one scalar, any other as lane group
 * L->lane_group's vector (<G x T>). A uniform value read as a vector is splatted. */
LLVMValueRef lw_scalar_of(lower *L, LLVMValueRef v); /* a uniform operand as a scalar */
LLVMValueRef lw_vector_of(lower *L, LLVMValueRef v); /* an operand for lane group L->lane_group */
void lw_set_scalar(lower *L, LLVMValueRef v, LLVMValueRef val); /* sets uniform value v to val */
void lw_set_vector(lower *L, LLVMValueRef v, LLVMValueRef val); /* v's lanes of L->lane_group */
void lw_make_slots(lower *L); /* a slot per kernel value, and frame space for the cross ones */
void lw_make_allocas(lower *L); /* the slots' allocas in the function being emitted */
LLVMTypeRef lw_frame_type(lower *L, LLVMTypeRef t); /* one lane of t in the frame: i1 as i8 */
LLVMValueRef lw_ctx_field(lower *L, size_t offset); /* pointer into ctx */
LLVMBasicBlockRef lw_at_entry(lower *L); /* builder to the part's entry; returns where it was */
LLVMValueRef lw_field_at(lower *L, LLVMValueRef base, size_t offset); /* pointer to a field */
LLVMValueRef lw_load_at(lower *L, LLVMValueRef base, size_t offset, LLVMTypeRef t); /* a field */
/* ir_intrinsic with the lowering's builder and module. */
LLVMValueRef lw_intrinsic(lower *L, const char *name, LLVMTypeRef *over, unsigned nover,
                          LLVMValueRef *args, unsigned nargs);
/* Records "file:line: weft does not support <what>" for inst, if nothing was recorded yet. */
void lw_unsupported(lower *L, LLVMValueRef inst, const char *what);
LLVMValueRef lw_group_u64(lower *L, size_t offset); /* a weft_group field, read at the entry */

/* lower_frame.c: cross values kept in the frame between calls */
void lw_liveness(lower *L); /* live_in and live_set, from the blocks' uses and definitions */
int lw_live_at(const lower *L, int pc, int index); /* cross slot `index` is live where pc starts */
void lw_frame_restore(lower *L, int pc); /* the values live at pc, back from the frame */
/* Computes a rematerialisable value again in every lane group, from what it is made of. */
void lw_remat(lower *L, LLVMValueRef inst);
/* Saves the running split's lanes of the values live at any of the blocks to[0..n) (PC nblocks,
 * the end, has none); lw_frame_save_of, the lanes `lanes`. */
void lw_frame_save(lower *L, const int *to, int n);
void lw_frame_save_of(lower *L, const int *to, int n, LLVMValueRef lanes);
void lw_frame_save_lanes(lower *L, LLVMValueRef lanes); /* every value, of those lanes */

/* lower_step.c: the `stack` and `pc` policies' steps in the code */
void lw_step_setup(lower *L); /* per kernel: whether it takes them; the siblings */
/* Whether a phi s that an edge of block `site` writes must keep the lanes of other splits
 * (lower_step.c, pending). */
int lw_blends_at(const lower *L, const slot *s, int site);
void lw_step_begin_part(lower *L); /* per part */
/* At an event (ctx holds it): with ctx->policy set, takes the step and goes on at the block
 * the policy picks among to[0..n), or leaves; else goes to `runtime`. */
void lw_step_site(lower *L, const int *to, int n, LLVMBasicBlockRef runtime);
/* At an event (ctx holds it) this code does not step: to `runtime`, after saving every value of
 * the call's lanes when ctx->policy is set (earlier steps left values in registers only). */
void lw_step_runtime(lower *L, LLVMBasicBlockRef runtime);
/* Goes on at ctx->pc (and mask, guard) in another part: every value of the lanes that ran in
 * the call goes to the frame, for the lanes of other splits may wait anywhere. */
LLVMBasicBlockRef lw_step_elsewhere(lower *L);
/* The running split arrives at `to` from block `from`: the event in ctx, then the step (the
 * caller knows ctx->policy is set). In a kernel without a divergent branch, the end's step is
 * the runtime's (`runtime`): there a warp's state starts only where a barrier asked its policy,
 * and the step, a few hundred instructions, would be compiled in every such kernel for them. */
void lw_step_arrival_at(lower *L, int from, int to, LLVMBasicBlockRef runtime);

/* lower_region.c: structured divergent branches run masked, without the policy */
void lw_region_setup(lower *L); /* region_masked */
/* At the divergent branch of block b, its edges e[0..2) in PC order: when ctx->regions allows
 * it, runs the region masked and goes on at its IPDOM; else goes to `runtime`. */
void lw_region_run(lower *L, int b, edge *e, LLVMBasicBlockRef runtime);
/* At the divergent branch of block b in a loop, its edges e[0..2) in PC order: when one goes to
 * its IPDOM and the policy's step would let the other lanes go on alone (a loop's exit), they
 * do, without the step; else the builder stays where it was. */
void lw_region_leave(lower *L, int b, edge *e);
/* The running split arrives at `to`, where it would go back to the scheduler:
 * when the code opened mp's entry at `to` in this call, it closes it and goes on at `to` with
 * the entry's lanes; else the builder stays where it was. */
void lw_region_close(lower *L, int to);

/* lower.c: the running split arrives at `to` from block `from`, at or past its guard: the
 * policy's step in the code, or back to the scheduler. */
void lw_arrive(lower *L, int from, int to);
/* lower.c: ctx's event of one target: the lanes `mask` go from block `from` to `to` (ntargets
 * 1; 0 for a stop where a split starts, kernel.h). */
void lw_store_event(lower *L, int from, int ntargets, int to, LLVMValueRef mask);

/* lower_inst.c: one kernel instruction */
/* A uniform inst may move to the top of its block (after_write: an earlier instruction of the
 * block may have written memory). */
int lw_is_hoistable(LLVMValueRef inst, int after_write);
void lw_inst_uniform(lower *L, LLVMValueRef inst); /* once per warp, as scalars */
void lw_inst_group(lower *L, LLVMValueRef inst); /* for L->lane_group, under its mask */
int lw_writes_memory(LLVMValueRef inst); /* a store, atomic, fence or call: may write memory */

/* lower_builtin.c: calls of OpenCL builtins */
/* A builtin call's result: a scalar when uniform, else for lane group L->lane_group; NULL (after
 * lw_unsupported) when weft does not support it. */
LLVMValueRef lw_builtin(lower *L, LLVMValueRef call, const builtin *bi, int uniform);
int lw_speculation_cost(LLVMValueRef call);
/* A call of get_local_id/get_global_id in one lane (i64, of the current group), as a scalar;
 * NULL for any other call. */
LLVMValueRef lw_lane_id(lower *L, LLVMValueRef call, LLVMValueRef lane);

/* lower_subgroup.c: sub-group builtins, where a sub-group is the warp */
LLVMValueRef lw_sub_group(lower *L, LLVMValueRef call, const builtin *bi, int uniform);
/* Whether inst runs as a segment of its own, all lane groups in order before what follows:
 * printf (one call's lines for the whole warp, then the next call's) and sub-group scans (the
 * carry from the groups before). Sets up a scan's carry. */
int lw_runs_alone(lower *L, LLVMValueRef inst);

#endif
