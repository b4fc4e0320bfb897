/* Values of the warp function: types per lane group, splats and masks, and the slots that hold
 * the kernel's values (lower_frame.c keeps them in the frame between calls).
 *
 * A kernel value of type T becomes <G x T> for one lane group; a kernel vector <k x E> (float4)
 * becomes <kG x E> with lane l's elements at l*k .. l*k+k-1, so element-wise operations stay one
 * instruction and a float4 array in memory is the same layout as the register. */
#include <string.h>

#include "lower.h"

unsigned lw_width(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 1;
}

LLVMTypeRef lw_elem_type(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

LLVMTypeRef lw_vtype(lower *L, LLVMTypeRef t) {
  return LLVMVectorType(lw_elem_type(t), lw_width(t) * L->G);
}

LLVMValueRef lw_const_i64(lower *L, uint64_t v) {
  return LLVMConstInt(LLVMInt64TypeInContext(L->c), v, 0);
}

LLVMValueRef lw_const_i32(lower *L, uint64_t v) {
  return LLVMConstInt(LLVMInt32TypeInContext(L->c), v, 0);
}

/* A shuffle mask whose element i is f(i) for i < n. */
static LLVMValueRef shuffle_mask(lower *L, unsigned n, unsigned k, int repeat) {
  LLVMValueRef *e = ARENA_NEW(L->arena, LLVMValueRef, n);
  for (unsigned i = 0; i < n; i++) e[i] = lw_const_i32(L, repeat ? i % k : i / k);
  return LLVMConstVector(e, n);
}

LLVMValueRef lw_splat(lower *L, LLVMValueRef s) {
  LLVMTypeRef t = LLVMTypeOf(s);
  unsigned k = lw_width(t);
  if (k == 1) {
    LLVMTypeRef vt = LLVMVectorType(t, 1);
    s = LLVMBuildInsertElement(L->b, LLVMGetPoison(vt), s, lw_const_i32(L, 0), "");
  }
  LLVMValueRef poison = LLVMGetPoison(LLVMTypeOf(s));
  return LLVMBuildShuffleVector(L->b, s, poison, shuffle_mask(L, k * L->G, k, 1), "");
}

LLVMValueRef lw_expand_mask(lower *L, LLVMValueRef m, unsigned k) {
  if (k == 1) return m;
  return LLVMBuildShuffleVector(L->b, m, LLVMGetPoison(LLVMTypeOf(m)),
                                shuffle_mask(L, k * L->G, k, 0), "");
}

LLVMValueRef lw_group_bits(lower *L, LLVMValueRef mask64, unsigned g) {
  LLVMValueRef sh = LLVMBuildLShr(L->b, mask64, lw_const_i64(L, (uint64_t)g * L->G), "");
  return LLVMBuildTrunc(L->b, sh, LLVMIntTypeInContext(L->c, L->G), "");
}

/* The module's table of lane masks without AVX-512, G <= 8: entry b is <G x i32> with lane l
 * all ones where bit l of b is set. */
static LLVMValueRef mask_table(lower *L) {
  static const char name[] = "weft.lane_masks";
  LLVMValueRef t = LLVMGetNamedGlobal(L->m, name);
  if (t) return t;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), vt = LLVMVectorType(i32, L->G);
  unsigned n = 1u << L->G;
  LLVMValueRef *rows = ARENA_NEW(L->arena, LLVMValueRef, n), lanes[8];
  for (unsigned b = 0; b < n; b++) {
    for (unsigned l = 0; l < L->G; l++) lanes[l] = LLVMConstInt(i32, b >> l & 1 ? ~0ull : 0, 1);
    rows[b] = LLVMConstVector(lanes, L->G);
  }
  LLVMValueRef init = LLVMConstArray2(vt, rows, n);
  t = LLVMAddGlobal(L->m, LLVMTypeOf(init), name);
  LLVMSetInitializer(t, init);
  LLVMSetGlobalConstant(t, 1);
  LLVMSetLinkage(t, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(t, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(t, 64);
  return t;
}

/* Group g's lanes of the warp's mask, as <G x i1>. With AVX-512 the bits are the mask register.
 * Without, a vector mask made of bits costs a move, a broadcast, an and and a compare, and each
 * block and blended phi needs one per group, many per trip of a divergent loop: the table gives
 * one with a load (bench/README.md, session 21, has what it gained and cost). */
LLVMValueRef lw_group_mask(lower *L, LLVMValueRef mask64, unsigned g) {
  LLVMTypeRef vt = LLVMVectorType(LLVMInt1TypeInContext(L->c), L->G);
  LLVMValueRef bits = lw_group_bits(L, mask64, g);
  if (L->avx512 || L->G > 8 || LLVMIsAConstant(bits)) return LLVMBuildBitCast(L->b, bits, vt, "");
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), rows = LLVMVectorType(i32, L->G),
              table = LLVMArrayType2(rows, 1ull << L->G);
  LLVMValueRef at[2] = {lw_const_i64(L, 0),
                        LLVMBuildZExt(L->b, bits, LLVMInt64TypeInContext(L->c), "")};
  LLVMValueRef row = LLVMBuildLoad2(
      L->b, rows, LLVMBuildInBoundsGEP2(L->b, table, mask_table(L), at, 2, ""), "");
  LLVMSetAlignment(row, 4 * L->G);
  return LLVMBuildICmp(L->b, LLVMIntSLT, row, LLVMConstNull(rows), "");
}

LLVMValueRef lw_iota(lower *L, LLVMTypeRef elem, unsigned first) {
  LLVMValueRef *e = ARENA_NEW(L->arena, LLVMValueRef, L->G);
  for (unsigned i = 0; i < L->G; i++) e[i] = LLVMConstInt(elem, first + i, 0);
  return LLVMConstVector(e, L->G);
}

LLVMValueRef lw_field_at(lower *L, LLVMValueRef base, size_t offset) {
  LLVMValueRef o = lw_const_i64(L, offset);
  return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), base, &o, 1, "");
}

LLVMValueRef lw_load_at(lower *L, LLVMValueRef base, size_t offset, LLVMTypeRef t) {
  return LLVMBuildLoad2(L->b, t, lw_field_at(L, base, offset), "");
}

/* Values fixed for the work-group go to the end of the part's entry block, before its branch
 * to the warps' start: computed once for all the warps of a chain (kernel.h). */
LLVMBasicBlockRef lw_at_entry(lower *L) {
  LLVMBasicBlockRef here = LLVMGetInsertBlock(L->b);
  LLVMValueRef br = LLVMGetBasicBlockTerminator(L->entry);
  if (br) LLVMPositionBuilderBefore(L->b, br);
  return here;
}

LLVMValueRef lw_ctx_field(lower *L, size_t offset) { return lw_field_at(L, L->ctx, offset); }

LLVMValueRef lw_intrinsic(lower *L, const char *name, LLVMTypeRef *over, unsigned nover,
                          LLVMValueRef *args, unsigned nargs) {
  return ir_intrinsic(L->b, L->m, name, over, nover, args, nargs);
}

LLVMValueRef lw_group_u64(lower *L, size_t off) {
  LLVMValueRef *v = &L->group_u64[off / 8];
  if (!*v) {
    LLVMBasicBlockRef here = lw_at_entry(L);
    *v = lw_load_at(L, L->work_group, off, LLVMInt64TypeInContext(L->c));
    LLVMPositionBuilderAtEnd(L->b, here);
  }
  return *v;
}

void lw_unsupported(lower *L, LLVMValueRef inst, const char *what) {
  if (L->error) return;
  unsigned line = LLVMGetDebugLocLine(inst);
  const char *file = LLVMGetDebugLocFilename(inst, &(unsigned){0});
  if (asprintf(&L->error, "%s:%u: weft does not support %s", file ? file : "kernel", line, what) <
      0)
    L->error = NULL;
}

/* ---- slots ---- */

slot *lw_slot(lower *L, LLVMValueRef v) { return ptrmap_get(&L->slots, v); }

/* Where a use reads inst: a phi reads it at the end of the incoming block, on the edge (a loop's
 * header phi, in inst's own block, reads it at the end of the latch). */
static int read_in(LLVMValueRef inst, LLVMValueRef user, LLVMBasicBlockRef bb) {
  if (!LLVMIsAPHINode(user)) return LLVMGetInstructionParent(user) == bb;
  for (unsigned j = 0; j < LLVMCountIncoming(user); j++)
    if (LLVMGetIncomingValue(user, j) == inst && LLVMGetIncomingBlock(user, j) != bb) return 0;
  return 1;
}

static int used_elsewhere(LLVMValueRef inst) {
  LLVMBasicBlockRef home = LLVMGetInstructionParent(inst);
  if (LLVMIsAPHINode(inst)) return 1;
  for (LLVMUseRef u = LLVMGetFirstUse(inst); u; u = LLVMGetNextUse(u))
    if (!read_in(inst, LLVMGetUser(u), home)) return 1;
  return 0;
}

LLVMTypeRef lw_frame_type(lower *L, LLVMTypeRef t) {
  LLVMTypeRef e = lw_elem_type(t);
  if (LLVMGetTypeKind(e) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(e) == 1)
    e = LLVMInt8TypeInContext(L->c);
  return lw_width(t) > 1 ? LLVMVectorType(e, lw_width(t)) : e;
}

static size_t frame_alloc(lower *L, size_t bytes) {
  size_t off = weft_frame_align(L->frame_size); /* the frame starts so aligned too */
  L->frame_size = off + bytes;
  return off;
}

/* A pure function of the lane and the work-group: an id or size builtin, or integer arithmetic
 * or an address on those, constants, kernel arguments and __local arrays. Such a value is
 * computed again where a warp resumes instead of being kept in the frame: ids are live almost
 * everywhere, and saving them was most of what the exits wrote; an address, `&t[lid]` that a
 * loop hoists above a barrier say, is two vectors per lane group without AVX-512. Its operands'
 * slots exist already: a definition's block comes before its uses' in PC order. */
static int rematerializable(lower *L, LLVMValueRef inst) {
  unsigned n = (unsigned)LLVMGetNumOperands(inst);
  if (LLVMIsACallInst(inst)) {
    builtin_kind k = builtin_of_call(inst).kind;
    if (k < BI_GLOBAL_ID || k > BI_WORK_DIM) return 0;
    n = LLVMGetNumArgOperands(inst);
  } else {
    switch (LLVMGetInstructionOpcode(inst)) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMAShr:
    case LLVMLShr:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMICmp:
    case LLVMGetElementPtr: break;
    default: return 0;
    }
  }
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef o = LLVMGetOperand(inst, i);
    slot *s = lw_slot(L, o);
    if (!(s ? s->remat : LLVMIsAConstantInt(o) || LLVMIsAArgument(o) || LLVMIsAGlobalVariable(o)))
      return 0;
  }
  return 1;
}

static void make_slot(lower *L, LLVMValueRef inst) {
  slot *s = ARENA_NEW(L->arena, slot, 1);
  s->inst = inst;
  s->type = LLVMTypeOf(inst);
  s->shape = divergence_of(L->dv, inst).shape;
  s->cross = used_elsewhere(inst);
  s->remat = rematerializable(L, inst);
  if (s->shape != UNIFORM) s->v = ARENA_NEW(L->arena, LLVMValueRef, L->ngroups);
  if (s->cross && !s->remat)
    s->frame_off = frame_alloc(L, L->W * LLVMABISizeOfType(L->td, lw_frame_type(L, s->type)));
  if (s->cross) s->index = L->ncross++;
  if (LLVMIsAAllocaInst(inst))
    s->priv_off = frame_alloc(L, L->W * LLVMABISizeOfType(L->td, LLVMGetAllocatedType(inst)));
  ptrmap_put(L->arena, &L->slots, inst, s);
}

void lw_make_slots(lower *L) {
  for (int pc = 0; pc < L->cfg->nblocks; pc++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(L->cfg->blocks[pc].bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) make_slot(L, i);
  L->cross = ARENA_NEW(L->arena, slot *, L->ncross + 1);
  for (unsigned i = 0; i < L->slots.cap; i++) {
    slot *s = L->slots.vals[i];
    if (L->slots.keys[i] && s->cross) L->cross[s->index] = s;
  }
}

/* In the kernel's order, not the slot map's, which follows the values' addresses: the same
 * kernel then lowers to the same module in every process (the code LLVM makes of it differed
 * in size from one run to the next). */
void lw_make_allocas(lower *L) {
  for (int pc = 0; pc < L->cfg->nblocks; pc++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(L->cfg->blocks[pc].bb); i;
         i = LLVMGetNextInstruction(i)) {
      slot *s = lw_slot(L, i);
      if (!s) continue;
      if (s->shape == UNIFORM) s->u = LLVMBuildAlloca(L->b, s->type, "");
      else
        for (unsigned g = 0; g < L->ngroups; g++)
          s->v[g] = LLVMBuildAlloca(L->b, lw_vtype(L, s->type), "");
    }
}

/* A constant expression rebuilt in the warp function, so that the kernel's __local globals in
 * it become this work-group's local memory. */
static LLVMValueRef rebuild_const(lower *L, LLVMValueRef v) {
  LLVMValueRef mapped = ptrmap_get(&L->uniforms, v);
  if (mapped) return mapped;
  if (!LLVMIsAConstantExpr(v)) return v;
  int n = LLVMGetNumOperands(v), local = 0;
  LLVMValueRef ops[8];
  for (int i = 0; i < n && i < 8; i++) {
    ops[i] = rebuild_const(L, LLVMGetOperand(v, i));
    local |= ops[i] != LLVMGetOperand(v, i);
  }
  if (!local) return v;
  LLVMOpcode op = LLVMGetConstOpcode(v);
  if (op == LLVMGetElementPtr)
    return LLVMBuildGEP2(L->b, LLVMGetGEPSourceElementType(v), ops[0], ops + 1, (unsigned)n - 1,
                         "");
  if ((op >= LLVMTrunc && op <= LLVMBitCast) || op == LLVMAddrSpaceCast)
    return LLVMBuildCast(L->b, op, ops[0], LLVMTypeOf(v), "");
  DIE("constant expression with opcode %d over __local memory", (int)op);
}

/* Element c of every lane of v, where each lane has k elements. */
LLVMValueRef lw_component(lower *L, LLVMValueRef v, unsigned k, unsigned c) {
  unsigned lanes = LLVMGetVectorSize(LLVMTypeOf(v)) / k;
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, lanes);
  for (unsigned l = 0; l < lanes; l++) m[l] = lw_const_i32(L, l * k + c);
  if (lanes == 1) return LLVMBuildExtractElement(L->b, v, m[0], "");
  return LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(m, lanes),
                                "");
}

LLVMValueRef lw_scalar_of(lower *L, LLVMValueRef v) {
  slot *s = lw_slot(L, v);
  if (!s) return rebuild_const(L, v);
  if (s->shape != UNIFORM) DIE("uniform use of a non-uniform value");
  return LLVMBuildLoad2(L->b, s->type, s->u, "");
}

LLVMValueRef lw_vector_of(lower *L, LLVMValueRef v) {
  slot *s = lw_slot(L, v);
  if (!s || s->shape == UNIFORM) return lw_splat(L, lw_scalar_of(L, v));
  return LLVMBuildLoad2(L->b, lw_vtype(L, s->type), s->v[L->lane_group], "");
}

void lw_set_scalar(lower *L, LLVMValueRef v, LLVMValueRef val) {
  LLVMBuildStore(L->b, val, lw_slot(L, v)->u);
}

/* A value that lives across blocks keeps the lanes of other splits where the code takes the
 * policy's steps itself (lower_step.c): those splits may still read it. */
void lw_set_vector(lower *L, LLVMValueRef v, LLVMValueRef val) {
  slot *s = lw_slot(L, v);
  LLVMValueRef *p = &s->v[L->lane_group];
  if (s->blend)
    val = LLVMBuildSelect(L->b, lw_expand_mask(L, L->lane_group_mask, lw_width(s->type)), val,
                          LLVMBuildLoad2(L->b, lw_vtype(L, s->type), *p, ""), "");
  LLVMBuildStore(L->b, val, *p);
}
