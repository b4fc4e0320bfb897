/* Private interface of the warp lowering (lower*.c). See lower.c for the shape of the code. */
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
  shape shape;
  LLVMTypeRef type;  /* the kernel's type of the value */
  LLVMValueRef u;    /* UNIFORM: alloca of type */
  LLVMValueRef *v;   /* otherwise: one alloca per lane group */
  int cross;
  int remat;         /* computed again where a warp resumes, never kept in the frame */
  unsigned stamp;    /* the resume block that computed it last (lw_frame_restore) */
  int index; /* among the cross slots, for liveness */
  size_t frame_off;
  size_t priv_off; /* an alloca's W private copies in the frame */
} slot;

typedef struct lower {
  weft_arena *a;
  const cfg *g;
  const divergence *dv;
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTargetDataRef td;
  unsigned W, G, ngroups;
  int avx512;
  int x_aligned_only; /* lower_target: lane-affine accesses need no gather path */
  LLVMValueRef fn, ctx, group, args, local_mem, frame, mask, x_aligned, guard_v;
  LLVMValueRef active_lanes, active_groups; /* i64, fixed for a call since the mask is */
  LLVMBasicBlockRef entry, start, *bbs, leave; /* start: where each warp of a chain starts */
  LLVMValueRef group_u64[sizeof(weft_group) / 8], global_base[3]; /* read at the part's entry */
  LLVMBasicBlockRef *arrive; /* per target PC: the shared exit for arrivals there */
  LLVMBasicBlockRef *crossing; /* per target PC in another part: the way there */
  LLVMValueRef *part_fns;    /* the warp function's parts; part 0 is the entry */
  int part;                  /* the part being emitted */
  LLVMValueRef event, count; /* allocas: the event returned, blocks and instructions run */
  LLVMValueRef counted[4];   /* allocas: the counters of the chain's warps that ended (kernel.h) */
  LLVMValueRef end_from;     /* alloca: the PC whose block went to the kernel's end */
  ptrmap slots;                    /* kernel instruction -> slot */
  slot **cross;                    /* the cross slots, by index */
  int ncross, live_words;
  unsigned stamp;                  /* resume blocks emitted so far */
  uint64_t *live_in;               /* per PC: bitset of cross slots live at the block's start */
  int *live_set;                   /* per PC: the first PC with the same live values, which
                                      names their shared resume point and exit */
  ptrmap uniforms;                 /* kernel argument or __local global -> value in fn */
  size_t frame_size, static_local_size;
  unsigned grp;       /* lane group being emitted */
  LLVMValueRef gmask; /* its <G x i1> mask */
  LLVMValueRef scan_carry; /* alloca: a sub-group scan's total over the lane groups so far */
  char *error;        /* the first unsupported construct, with its line */
} lower;

#define COUNT_BLOCK_SHIFT 40 /* count: block executions << 40 | instructions */

/* lower.c */
void lw_emit_blocks(lower *L); /* the blocks of part L->part */
void lw_count_warp(lower *L);   /* adds the warp's counters to L->counted */
void lw_flush_counts(lower *L); /* adds the call's counters, and L->counted, to ctx */
LLVMValueRef lw_tail_call(lower *L, int part, LLVMValueRef ctx); /* what part `part` returns for ctx */

/* lower_values.c */
LLVMTypeRef lw_vtype(lower *L, LLVMTypeRef t);      /* per-group type of a kernel type */
unsigned lw_width(LLVMTypeRef t);
LLVMTypeRef lw_elem_type(LLVMTypeRef t);                /* E of <k x E>, or t */                    /* elements per lane: 1, or k of <k x E> */
LLVMValueRef lw_splat(lower *L, LLVMValueRef scalar);
/* Element c of every lane of v, each lane with k elements (a scalar when v is one lane's). */
LLVMValueRef lw_component(lower *L, LLVMValueRef v, unsigned k, unsigned c);
LLVMValueRef lw_expand_mask(lower *L, LLVMValueRef m, unsigned k); /* <G x i1> -> <kG x i1> */
LLVMValueRef lw_group_bits(lower *L, LLVMValueRef mask64, unsigned g); /* iG */
LLVMValueRef lw_group_mask(lower *L, LLVMValueRef mask64, unsigned g); /* <G x i1> */
LLVMValueRef lw_iota(lower *L, LLVMTypeRef elem, unsigned first);
LLVMValueRef lw_const_i64(lower *L, uint64_t v);
LLVMValueRef lw_const_i32(lower *L, uint64_t v);
slot *lw_slot(lower *L, LLVMValueRef v);
LLVMValueRef lw_uval(lower *L, LLVMValueRef v);      /* a uniform operand as a scalar */
LLVMValueRef lw_vval(lower *L, LLVMValueRef v);      /* an operand for lane group L->grp */
void lw_def_u(lower *L, LLVMValueRef v, LLVMValueRef val);
void lw_def_v(lower *L, LLVMValueRef v, LLVMValueRef val);
void lw_make_slots(lower *L);
void lw_make_allocas(lower *L); /* the slots' allocas in the function being emitted */
LLVMTypeRef lw_frame_type(lower *L, LLVMTypeRef t); /* one lane of t in the frame: i1 as i8 */
LLVMValueRef lw_ctx_field(lower *L, size_t offset); /* pointer into ctx */
LLVMBasicBlockRef lw_at_entry(lower *L); /* builder to the part's entry; returns where it was */
LLVMValueRef lw_load_at(lower *L, LLVMValueRef base, size_t offset, LLVMTypeRef t);
LLVMValueRef lw_intrinsic(lower *L, const char *name, LLVMTypeRef *over, unsigned nover,
                          LLVMValueRef *args, unsigned nargs);
void lw_unsupported(lower *L, LLVMValueRef inst, const char *what);
LLVMValueRef lw_group_u64(lower *L, size_t offset); /* a weft_group field, read at the entry */

/* lower_frame.c */
void lw_liveness(lower *L);
void lw_frame_restore(lower *L, int pc);
/* Saves the values live at any of the blocks to[0..n) (PC nblocks, the end, has none). */
void lw_frame_save(lower *L, const int *to, int n);

/* lower_inst.c */
int lw_is_hoistable(LLVMValueRef inst, int after_write);
void lw_inst_uniform(lower *L, LLVMValueRef inst);
void lw_inst_group(lower *L, LLVMValueRef inst);
int lw_writes_memory(LLVMValueRef inst);

/* lower_builtin.c */
LLVMValueRef lw_builtin(lower *L, LLVMValueRef call, const builtin *bi, int uniform);
/* A call of get_local_id/get_global_id in one lane (i64, of the current group), as a scalar;
 * NULL for any other call. */
LLVMValueRef lw_lane_id(lower *L, LLVMValueRef call, LLVMValueRef lane);

/* lower_subgroup.c */
LLVMValueRef lw_sub_group(lower *L, LLVMValueRef call, const builtin *bi, int uniform);
/* Whether inst runs as a segment of its own, all lane groups in order before what follows:
 * printf (one call's lines for the whole warp, then the next call's) and sub-group scans (the
 * carry from the groups before). Sets up a scan's carry. */
int lw_alone(lower *L, LLVMValueRef inst);

#endif
