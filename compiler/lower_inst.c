/* Instructions of the warp function. A uniform instruction is cloned once per warp with scalar
 * operands; any other instruction is rebuilt as vector code for one lane group. Memory accesses
 * take the group's mask: a lane-affine address whose stride is the element size becomes a
 * packed masked load/store (when the launch makes get_local_id(0) lane-affine), anything else a
 * masked gather/scatter. */
#include "lower.h"

int lw_writes_memory(LLVMValueRef inst) {
  return LLVMIsAStoreInst(inst) || LLVMIsACallInst(inst) || LLVMIsAAtomicRMWInst(inst) ||
         LLVMIsAAtomicCmpXchgInst(inst) || LLVMIsAFenceInst(inst);
}

/* A uniform instruction may move to the top of its block unless it reads memory that an earlier
 * instruction of the block may have written. Calls are builtins whose uniform forms are pure. */
int lw_is_hoistable(LLVMValueRef inst, int after_write) {
  return !(LLVMIsALoadInst(inst) && after_write);
}

static LLVMValueRef uniform_division(lower *L, LLVMValueRef inst);

void lw_inst_uniform(lower *L, LLVMValueRef inst) {
  if (LLVMIsACallInst(inst)) {
    builtin bi = builtin_of_call(inst);
    LLVMValueRef r = lw_builtin(L, inst, &bi, 1);
    if (r) lw_set_scalar(L, inst, r);
    return;
  }
  LLVMValueRef c = uniform_division(L, inst);
  if (!c) {
    c = LLVMInstructionClone(inst);
    for (int i = 0; i < LLVMGetNumOperands(inst); i++)
      LLVMSetOperand(c, (unsigned)i, lw_scalar_of(L, LLVMGetOperand(inst, i)));
    LLVMInsertIntoBuilder(L->b, c);
  }
  lw_set_scalar(L, inst, c);
}

static LLVMValueRef group_gep(lower *L, LLVMValueRef gep) {
  LLVMValueRef idx[16];
  int n = LLVMGetNumOperands(gep) - 1;
  if (n > 16) return lw_unsupported(L, gep, "a getelementptr with more than 16 indices"), NULL;
  LLVMValueRef base = LLVMGetOperand(gep, 0);
  base = lw_slot(L, base) && lw_slot(L, base)->shape != UNIFORM ? lw_vector_of(L, base)
                                                                : lw_scalar_of(L, base);
  for (int i = 0; i < n; i++) {
    LLVMValueRef o = LLVMGetOperand(gep, i + 1);
    slot *s = lw_slot(L, o);
    idx[i] = s && s->shape != UNIFORM ? lw_vector_of(L, o) : lw_scalar_of(L, o);
  }
  LLVMValueRef r = LLVMBuildGEP2(L->b, LLVMGetGEPSourceElementType(gep), base, idx, (unsigned)n,
                                 "");
  return LLVMGetTypeKind(LLVMTypeOf(r)) == LLVMVectorTypeKind ? r : lw_splat(L, r);
}

/* <G x ptr> to <kG x ptr>: lane l's k element addresses. */
static LLVMValueRef element_ptrs(lower *L, LLVMValueRef p, unsigned k, size_t esz) {
  if (k == 1) return p;
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, k * L->G),
               *o = ARENA_NEW(L->arena, LLVMValueRef, k * L->G);
  for (unsigned i = 0; i < k * L->G; i++)
    m[i] = lw_const_i32(L, i / k), o[i] = lw_const_i64(L, (i % k) * esz);
  LLVMValueRef wide = LLVMBuildShuffleVector(L->b, p, LLVMGetPoison(LLVMTypeOf(p)),
                                             LLVMConstVector(m, k * L->G), "");
  LLVMValueRef off = LLVMConstVector(o, k * L->G);
  return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), wide, &off, 1, "");
}

/* Lanes' elements follow each other in memory: a 3-vector's stride is its 3 elements, not the
 * 4 it takes in a variable (vstore3 to p + 4 * i is a scatter). */
static int is_packed(lower *L, LLVMValueRef addr, LLVMTypeRef t) {
  value_fact f = divergence_of(L->dv, addr);
  return f.shape == AFFINE && f.stride == (int64_t)LLVMStoreSizeOfType(L->td, t);
}

/* How an access runs: as a gather/scatter (GATHER_AFFINE: a lane-affine one, when the launch
 * does not make the addresses contiguous, local size X not a multiple of G; GATHER_ONE: a load
 * of the one active lane's element, see gather_switch), packed under the group's mask, or packed
 * with every lane of the group active (a plain vector load or store: masked AVX-512 memory
 * operations cost twice as much on some CPUs). */
enum access_mode { GATHER, GATHER_AFFINE, GATHER_ONE, PACKED_MASKED, PACKED_FULL };
typedef LLVMValueRef (*access_fn)(lower *L, LLVMValueRef inst, enum access_mode mode);

/* Access f under modes[0..n-1] (n <= 3), each on a path of its own: path i where conds[i] holds
 * and no earlier one did, the last path otherwise; the paths join with f's value (a load's) in a
 * phi. The blocks go in the order that LLVM lays out best here: the tests, then the paths. */
static LLVMValueRef access_paths(lower *L, LLVMValueRef inst, access_fn f,
                                 const LLVMValueRef *conds, const enum access_mode *modes, int n) {
  static const char *const names[] = {"gather", "gather", "one", "partial", "full"}; /* by mode */
  LLVMBasicBlockRef other = n > 2 ? LLVMAppendBasicBlockInContext(L->c, L->fn, "other") : NULL,
                    path[3], join;
  for (int i = 0; i < n; i++) path[i] = LLVMAppendBasicBlockInContext(L->c, L->fn, names[modes[i]]);
  join = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMBuildCondBr(L->b, conds[0], path[0], other ? other : path[1]);
  if (other) {
    LLVMPositionBuilderAtEnd(L->b, other);
    LLVMBuildCondBr(L->b, conds[1], path[1], path[2]);
  }
  LLVMValueRef vals[3];
  for (int i = 0; i < n; i++) {
    LLVMPositionBuilderAtEnd(L->b, path[i]);
    vals[i] = f(L, inst, modes[i]);
    path[i] = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, join);
  }
  LLVMPositionBuilderAtEnd(L->b, join);
  if (!vals[0]) return NULL;
  LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(vals[0]), "");
  LLVMAddIncoming(phi, vals, path, (unsigned)n);
  return phi;
}

/* Whether a lane-affine access may be PACKED_FULL: the work-group is x-aligned and every lane
 * of the group is active. */
static LLVMValueRef full_and_aligned(lower *L) {
  LLVMValueRef bits = lw_group_bits(L, L->mask, L->lane_group);
  LLVMValueRef all = LLVMBuildICmp(L->b, LLVMIntEQ, bits, LLVMConstAllOnes(LLVMTypeOf(bits)), "");
  return LLVMBuildAnd(L->b, L->x_aligned, all, "");
}

/* The common case, packed with every lane, costs one test: the accesses of a group share it.
 * Code for x-aligned work-groups only has no gather path. */
static LLVMValueRef affine_switch(lower *L, LLVMValueRef inst, access_fn f) {
  LLVMValueRef conds[2] = {full_and_aligned(L), L->x_aligned};
  static const enum access_mode modes[3] = {PACKED_FULL, PACKED_MASKED, GATHER_AFFINE};
  return access_paths(L, inst, f, conds, modes, L->x_aligned_only ? 2 : 3);
}

static int scalar_again(LLVMValueRef v) {
  switch (LLVMIsAInstruction(v) ? LLVMGetInstructionOpcode(v) : LLVMRet) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMGetElementPtr:
  case LLVMAddrSpaceCast:
  case LLVMBitCast: return 1;
  default: return 0;
  }
}

/* Can v be computed again anywhere in the warp function? Constants, arguments and
 * rematerialised values (ids and integer arithmetic on them) can, and so can arithmetic and
 * addresses made of those alone. Any other value's slot holds it only where it is live. */
static int recomputable(lower *L, LLVMValueRef v, int depth) {
  slot *s = lw_slot(L, v);
  if (!s || s->remat) return 1;
  if (depth >= 8 || !scalar_again(v)) return 0;
  for (int i = 0; i < LLVMGetNumOperands(v); i++)
    if (!recomputable(L, LLVMGetOperand(v, i), depth + 1)) return 0;
  return 1;
}

/* A recomputable v in one lane (i64) of the group, as a scalar; done[] holds what this address
 * has computed already. */
static LLVMValueRef lane_again(lower *L, LLVMValueRef v, LLVMValueRef lane, ptrmap *done) {
  if (!lw_slot(L, v)) return lw_scalar_of(L, v);
  LLVMValueRef r = ptrmap_get(done, v);
  if (r) return r;
  if (LLVMIsACallInst(v)) {
    builtin bi = builtin_of_call(v);
    r = lw_lane_id(L, v, lane);
    if (!r) r = lw_builtin(L, v, &bi, 1); /* a work-group query: the same in every lane */
    if (!r) return LLVMGetUndef(LLVMTypeOf(v)); /* unsupported, and reported as such */
  } else {
    r = LLVMInstructionClone(v);
    for (int i = 0; i < LLVMGetNumOperands(v); i++)
      LLVMSetOperand(r, (unsigned)i, lane_again(L, LLVMGetOperand(v, i), lane, done));
    LLVMInsertIntoBuilder(L->b, r);
  }
  ptrmap_put(L->arena, done, v, r);
  return r;
}

/* The value of `v` in one lane (i64) of the group, as a scalar: computed again for that lane
 * when it can be (a few scalar instructions, where the group's vector of addresses would be
 * built just to take one element), else that lane's element of v. */
static LLVMValueRef lane_value(lower *L, LLVMValueRef v, LLVMValueRef lane) {
  ptrmap done = {0};
  if (recomputable(L, v, 0)) return lane_again(L, v, lane, &done);
  return lw_slot(L, v)->shape == UNIFORM
             ? lw_scalar_of(L, v)
             : LLVMBuildExtractElement(L->b, lw_vector_of(L, v), lane, "");
}

/* The group's first active lane, as an i64 (the group has one: BCC skips empty groups). */
static LLVMValueRef first_active_lane(lower *L) {
  LLVMValueRef bits = lw_group_bits(L, L->mask, L->lane_group);
  LLVMValueRef first = lw_intrinsic(
      L, "llvm.cttz", (LLVMTypeRef[]){LLVMTypeOf(bits)}, 1,
      (LLVMValueRef[]){bits, LLVMConstInt(LLVMInt1TypeInContext(L->c), 1, 0)}, 2);
  return LLVMBuildZExt(L->b, first, LLVMInt64TypeInContext(L->c), "");
}

/* The address lane 0 of the group would use, for a packed access at `addr` of elements of type
 * t. With every lane active it is lane 0's own; otherwise it comes from the first active lane:
 * an inactive lane's value may be stale (a frame slot it never stored, say). */
static LLVMValueRef lane0_address(lower *L, LLVMValueRef addr, LLVMTypeRef t,
                                  enum access_mode mode) {
  if (mode == PACKED_FULL) return lane_value(L, addr, lw_const_i64(L, 0));
  LLVMValueRef lane = first_active_lane(L);
  LLVMValueRef back = LLVMBuildMul(
      L->b, lane, lw_const_i64(L, (uint64_t)-(int64_t)LLVMStoreSizeOfType(L->td, t)), "");
  return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), lane_value(L, addr, lane), &back, 1, "");
}

/* A lane-affine address's vector is read only on the gather path. It is computed again there
 * when it can be, so that its first computation, on the common packed path, has no use left
 * once its slot is in registers, and goes (the JIT's pipeline runs dce before CSE): LLVM would
 * not sink a value that the gather paths of several accesses share. */
static void vector_again(lower *L, LLVMValueRef v) {
  slot *s = lw_slot(L, v);
  if (!s || s->shape == UNIFORM) return;
  for (int i = 0; i < LLVMGetNumOperands(v); i++) vector_again(L, LLVMGetOperand(v, i));
  lw_inst_group(L, v);
}

static LLVMValueRef gather_address(lower *L, LLVMValueRef addr, enum access_mode mode) {
  if (mode == GATHER_AFFINE && recomputable(L, addr, 0)) vector_again(L, addr);
  return lw_vector_of(L, addr);
}

static LLVMValueRef access_mask(lower *L, unsigned k, enum access_mode mode) {
  LLVMValueRef m = lw_expand_mask(L, L->lane_group_mask, k);
  return mode == PACKED_FULL ? LLVMConstAllOnes(LLVMTypeOf(m)) : m;
}

/* x86 gathers 32- and 64-bit elements only: LLVM loads 8- and 16-bit ones lane by lane, a
 * branch per lane (most of a byte-comparing loop's time). They come instead from a gather of
 * the aligned 32-bit words that hold them, shifted out: an aligned word never crosses a page,
 * so it reads nothing that could fault where the element itself does not. A 16-bit element
 * must be aligned (OpenCL's types are) to lie in one word. */
static int narrow_gather_fits(LLVMTypeRef et, unsigned align) {
  if (LLVMGetTypeKind(et) != LLVMIntegerTypeKind) return 0;
  unsigned bits = LLVMGetIntTypeWidth(et);
  return bits == 8 || (bits == 16 && align >= 2);
}

static LLVMValueRef narrow_gather(lower *L, LLVMValueRef ps, LLVMValueRef m, LLVMTypeRef vt) {
  unsigned n = LLVMGetVectorSize(vt);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(L->c),
              addrs = LLVMVectorType(LLVMInt64TypeInContext(L->c), n),
              words = LLVMVectorType(LLVMInt32TypeInContext(L->c), n);
  LLVMValueRef low = LLVMBuildAnd(L->b, LLVMBuildPtrToInt(L->b, ps, addrs, ""),
                                  ir_const_int(addrs, 3), "");
  LLVMValueRef back = LLVMBuildNeg(L->b, low, "");
  LLVMValueRef at = LLVMBuildGEP2(L->b, i8, ps, &back, 1, "");
  LLVMValueRef w = lw_intrinsic(L, "llvm.masked.gather", (LLVMTypeRef[]){words, LLVMTypeOf(at)}, 2,
                                (LLVMValueRef[]){at, lw_const_i32(L, 4), m, LLVMGetPoison(words)},
                                4);
  LLVMValueRef shift = LLVMBuildTrunc(L->b, LLVMBuildShl(L->b, low, ir_const_int(addrs, 3), ""),
                                      words, "");
  return LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, w, shift, ""), vt, "");
}

/* A gather's addresses as one uniform base and 32-bit indices: x86 gathers 16 of those in one
 * instruction, where 64-bit addresses take two and the arithmetic to make them (most of a hash
 * probe's or a graph walk's time). An address base + ext(i32 x) × size qualifies, ext a sext or
 * a zext (an `and` with a constant below 2^32 is one). Only for a varying address: a
 * lane-affine one's gather path reads its address as gather_address does, so that the packed
 * path keeps no vector. */
typedef struct base_index {
  LLVMValueRef base, x; /* a scalar pointer; <G x i32> */
  int zext;
  size_t size; /* of an element */
} base_index;

/* Can the access in block `at` read v's operands? Only if v is in that block, where they are
 * live: elsewhere a slot may hold another value by then (a value that can be computed again,
 * the work-item ids, say, keeps its slot only where it is live). */
static int operands_here(LLVMValueRef v, LLVMBasicBlockRef at) {
  return !LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) == at;
}

/* addr's element type and index when it is p[i] (a GEP p, i) or a[i] of an array, a __local
 * one above all (a GEP a, 0, i); NULL otherwise. */
static LLVMTypeRef indexed_element(LLVMValueRef addr, LLVMValueRef *index) {
  if (!LLVMIsAGetElementPtrInst(addr)) return NULL;
  LLVMTypeRef t = LLVMGetGEPSourceElementType(addr);
  unsigned n = LLVMGetNumOperands(addr);
  *index = LLVMGetOperand(addr, n - 1);
  if (n == 2) return t;
  LLVMValueRef first = LLVMGetOperand(addr, 1);
  int array_element = n == 3 && LLVMGetTypeKind(t) == LLVMArrayTypeKind &&
                      LLVMIsAConstantInt(first) && LLVMConstIntGetZExtValue(first) == 0;
  return array_element ? LLVMGetElementType(t) : NULL;
}

static int base_index_of(lower *L, LLVMValueRef access, LLVMValueRef addr, base_index *bi) {
  LLVMValueRef o;
  LLVMTypeRef element = indexed_element(addr, &o);
  if (!element) return 0;
  LLVMValueRef base = LLVMGetOperand(addr, 0);
  LLVMBasicBlockRef at = LLVMGetInstructionParent(access);
  size_t size = LLVMABISizeOfType(L->td, element);
  /* elsewhere, an address of ids that a loop hoisted (&t[(l + 1) & 255] above the loop's
   * barriers, say) has its index computed again here */
  int here = operands_here(addr, at) && operands_here(o, at);
  if (divergence_of(L->dv, base).shape != UNIFORM || size > 8 || (size & (size - 1)) ||
      (!here && !recomputable(L, addr, 0)))
    return 0;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), i64 = LLVMInt64TypeInContext(L->c);
  LLVMOpcode op = LLVMIsAInstruction(o) ? LLVMGetInstructionOpcode(o) : LLVMRet;
  LLVMValueRef from = op == LLVMRet ? NULL : LLVMGetOperand(o, 0);
  int ext = (op == LLVMZExt || op == LLVMSExt) && LLVMTypeOf(from) == i32;
  /* an `and` with a constant below 2^32, (l + 1) & 255 say, is a zext of its low half */
  uint64_t bits = op == LLVMAnd && LLVMTypeOf(o) == i64 && LLVMIsAConstantInt(LLVMGetOperand(o, 1))
                      ? LLVMConstIntGetZExtValue(LLVMGetOperand(o, 1))
                      : UINT64_MAX;
  int low32 = bits <= 0xffffffffu;
  if (!ext && !low32 && LLVMTypeOf(o) != i32) return 0;
  LLVMValueRef index = ext || bits == 0xffffffffu ? from : o;
  if (!here) vector_again(L, index);
  LLVMValueRef x = lw_vector_of(L, index);
  if (!ext && low32) x = LLVMBuildTrunc(L->b, x, lw_vtype(L, i32), "");
  *bi = (base_index){lw_scalar_of(L, base), x, op == LLVMZExt || low32, size};
  return 1;
}

/* bi's addresses as (base + bias) + sext(x') × size, what x86's gathers take: for a sext,
 * x' = x; for a zext, x' = x ^ 2^31 and the bias 2^31 × size make the same address. */
static LLVMValueRef base_index_ptrs(lower *L, const base_index *bi) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(L->c), et = LLVMIntTypeInContext(L->c, 8 * bi->size);
  LLVMValueRef base = bi->base, x = bi->x;
  if (bi->zext) {
    LLVMValueRef bias = lw_const_i64(L, (1ull << 31) * bi->size);
    base = LLVMBuildGEP2(L->b, i8, base, &bias, 1, "");
    x = LLVMBuildXor(L->b, x, lw_splat(L, lw_const_i32(L, 1u << 31)), "");
  }
  return LLVMBuildGEP2(L->b, et, base, &x, 1, "");
}

/* narrow_gather's words from bi's addresses: the element at size × x past the base is in word wi
 * of base & ~3, at byte low, where size × x + (base & 3) = 4 × wi + low; computed so that
 * nothing overflows 32 bits. */
static LLVMValueRef narrow_gather_at(lower *L, const base_index *bi, LLVMValueRef m,
                                     LLVMTypeRef vt) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(L->c), i32 = LLVMInt32TypeInContext(L->c),
              i64 = LLVMInt64TypeInContext(L->c);
  unsigned e = bi->size == 2; /* log2 of the size: 1 or 2 bytes */
  LLVMValueRef b3 = LLVMBuildAnd(L->b, LLVMBuildPtrToInt(L->b, bi->base, i64, ""),
                                 lw_const_i64(L, 3), "");
  LLVMValueRef back = LLVMBuildNeg(L->b, b3, "");
  LLVMValueRef word0 = LLVMBuildGEP2(L->b, i8, bi->base, &back, 1, "");
  LLVMValueRef in_word = lw_splat(L, lw_const_i32(L, 3u >> e)), x = bi->x;
  LLVMValueRef hi = bi->zext ? LLVMBuildLShr(L->b, x, lw_splat(L, lw_const_i32(L, 2 - e)), "")
                             : LLVMBuildAShr(L->b, x, lw_splat(L, lw_const_i32(L, 2 - e)), "");
  LLVMValueRef r = LLVMBuildAdd(
      L->b,
      LLVMBuildShl(L->b, LLVMBuildAnd(L->b, x, in_word, ""), lw_splat(L, lw_const_i32(L, e)), ""),
      lw_splat(L, LLVMBuildTrunc(L->b, b3, i32, "")), "");
  LLVMValueRef wi = LLVMBuildAdd(L->b, hi,
                                 LLVMBuildLShr(L->b, r, lw_splat(L, lw_const_i32(L, 2)), ""), "");
  LLVMValueRef at = LLVMBuildGEP2(L->b, i32, word0, &wi, 1, "");
  LLVMTypeRef words = LLVMTypeOf(x);
  LLVMValueRef w = lw_intrinsic(L, "llvm.masked.gather", (LLVMTypeRef[]){words, LLVMTypeOf(at)}, 2,
                                (LLVMValueRef[]){at, lw_const_i32(L, 4), m, LLVMGetPoison(words)},
                                4);
  LLVMValueRef shift = LLVMBuildShl(L->b,
                                    LLVMBuildAnd(L->b, r, lw_splat(L, lw_const_i32(L, 3)), ""),
                                    lw_splat(L, lw_const_i32(L, 3)), "");
  return LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, w, shift, ""), vt, "");
}

/* The pointers ps where m is set, the part's scatter sink elsewhere (without AVX-512). */
static LLVMValueRef or_sink(lower *L, LLVMValueRef ps, LLVMValueRef m) {
  LLVMTypeRef pt = LLVMGetElementType(LLVMTypeOf(ps)), i32 = LLVMInt32TypeInContext(L->c);
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(ps));
  LLVMValueRef sink = LLVMBuildAddrSpaceCast(L->b, L->scatter_sink, pt, "");
  LLVMValueRef one = LLVMBuildInsertElement(L->b, LLVMGetPoison(LLVMVectorType(pt, 1)), sink,
                                            lw_const_i32(L, 0), "");
  LLVMValueRef sinks = LLVMBuildShuffleVector(L->b, one, LLVMGetPoison(LLVMTypeOf(one)),
                                              LLVMConstNull(LLVMVectorType(i32, n)), "");
  return LLVMBuildSelect(L->b, m, ps, sinks, "");
}

/* Without AVX-512, x86's masked loads and stores move 32- and 64-bit elements only: LLVM moves
 * 8- and 16-bit ones element by element, each behind a branch (a char4 store: 32 per lane
 * group, and most of the code generation of a kernel over chars or shorts). Packed, they move
 * here lane by lane instead, each lane's k elements as one integer, without a branch: an
 * inactive lane's go to, or come from, the scatter sink. */
static int narrow_packed(lower *L, LLVMTypeRef t, enum access_mode mode) {
  unsigned long long bits = LLVMSizeOfTypeInBits(L->td, lw_elem_type(t));
  return mode == PACKED_MASKED && L->scatter_sink && (bits == 8 || bits == 16); /* not i1 */
}

/* Lane group L->lane_group's lanes' addresses of a packed access whose lane 0 is at p0. */
static LLVMValueRef packed_lanes(lower *L, LLVMValueRef p0, LLVMTypeRef t) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  LLVMValueRef o = LLVMBuildMul(L->b, lw_iota(L, i64, 0),
                                lw_splat(L, lw_const_i64(L, LLVMStoreSizeOfType(L->td, t))), "");
  return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), p0, &o, 1, "");
}

/* The lanes' elements of type t as one integer per lane: <G x iN>. */
static LLVMTypeRef lane_chunks(lower *L, LLVMTypeRef t) {
  unsigned bits = (unsigned)LLVMStoreSizeOfType(L->td, t) * 8;
  return LLVMVectorType(LLVMIntTypeInContext(L->c, bits), L->G);
}

static LLVMValueRef load_by_lane(lower *L, LLVMValueRef p0, LLVMTypeRef t, LLVMValueRef align) {
  LLVMTypeRef ct = lane_chunks(L, t), et = LLVMGetElementType(ct);
  LLVMValueRef ps = or_sink(L, packed_lanes(L, p0, t), L->lane_group_mask), v = LLVMGetPoison(ct);
  for (unsigned i = 0; i < L->G; i++) {
    LLVMValueRef at = lw_const_i32(L, i);
    LLVMValueRef x = LLVMBuildLoad2(L->b, et, LLVMBuildExtractElement(L->b, ps, at, ""), "");
    LLVMSetAlignment(x, (unsigned)LLVMConstIntGetZExtValue(align));
    v = LLVMBuildInsertElement(L->b, v, x, at, "");
  }
  return LLVMBuildBitCast(L->b, v, lw_vtype(L, t), "");
}

/* The element of the group's one active lane, in every lane. */
static LLVMValueRef load_one(lower *L, LLVMValueRef ld) {
  LLVMValueRef at = lane_value(L, LLVMGetOperand(ld, 0), first_active_lane(L));
  LLVMValueRef v = LLVMBuildLoad2(L->b, LLVMTypeOf(ld), at, "");
  LLVMSetAlignment(v, LLVMGetAlignment(ld) ? LLVMGetAlignment(ld) : 1);
  return lw_splat(L, v);
}

static LLVMValueRef load_access(lower *L, LLVMValueRef ld, enum access_mode mode) {
  LLVMTypeRef t = LLVMTypeOf(ld), vt = lw_vtype(L, t);
  unsigned k = lw_width(t);
  if (mode == GATHER_ONE) return load_one(L, ld);
  LLVMValueRef m = access_mask(L, k, mode);
  LLVMValueRef align = lw_const_i32(L, LLVMGetAlignment(ld) ? LLVMGetAlignment(ld) : 1);
  if (narrow_packed(L, t, mode))
    return load_by_lane(L, lane0_address(L, LLVMGetOperand(ld, 0), t, mode), t, align);
  if (mode >= PACKED_MASKED) {
    LLVMValueRef p0 = lane0_address(L, LLVMGetOperand(ld, 0), t, mode);
    return lw_intrinsic(L, "llvm.masked.load", (LLVMTypeRef[]){vt, LLVMTypeOf(p0)}, 2,
                        (LLVMValueRef[]){p0, align, m, LLVMGetPoison(vt)}, 4);
  }
  base_index bi;
  int narrow = narrow_gather_fits(lw_elem_type(t), (unsigned)LLVMConstIntGetZExtValue(align));
  if (mode == GATHER && k == 1 && base_index_of(L, ld, LLVMGetOperand(ld, 0), &bi)) {
    if (narrow) return narrow_gather_at(L, &bi, m, vt);
    LLVMValueRef ps = base_index_ptrs(L, &bi);
    return lw_intrinsic(L, "llvm.masked.gather", (LLVMTypeRef[]){vt, LLVMTypeOf(ps)}, 2,
                        (LLVMValueRef[]){ps, align, m, LLVMGetPoison(vt)}, 4);
  }
  LLVMValueRef p = gather_address(L, LLVMGetOperand(ld, 0), mode);
  LLVMValueRef ps = element_ptrs(L, p, k, LLVMABISizeOfType(L->td, lw_elem_type(t)));
  if (narrow) return narrow_gather(L, ps, m, vt);
  return lw_intrinsic(L, "llvm.masked.gather", (LLVMTypeRef[]){vt, LLVMTypeOf(ps)}, 2,
                      (LLVMValueRef[]){ps, align, m, LLVMGetPoison(vt)}, 4);
}

/* Without AVX-512, x86 has no scatter, and LLVM expands one into a branch per lane, which
 * mispredicts on a divergent warp (a third of a bitonic sort step's time). Here each lane
 * stores, without a branch: an inactive lane's store goes to the part's scatter sink. Lanes
 * store in order, so where two share an address the higher one's value stays, as in a scatter. */
static void scatter_by_lane(lower *L, LLVMValueRef v, LLVMValueRef ps, LLVMValueRef m,
                            LLVMValueRef align) {
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(ps));
  ps = or_sink(L, ps, m);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef at = lw_const_i32(L, i);
    LLVMValueRef st = LLVMBuildStore(L->b, LLVMBuildExtractElement(L->b, v, at, ""),
                                     LLVMBuildExtractElement(L->b, ps, at, ""));
    LLVMSetAlignment(st, (unsigned)LLVMConstIntGetZExtValue(align));
  }
}

static LLVMValueRef store_access(lower *L, LLVMValueRef st, enum access_mode mode) {
  LLVMValueRef val = LLVMGetOperand(st, 0);
  LLVMTypeRef t = LLVMTypeOf(val), vt = lw_vtype(L, t);
  unsigned k = lw_width(t);
  LLVMValueRef v = lw_vector_of(L, val);
  LLVMValueRef m = access_mask(L, k, mode);
  LLVMValueRef align = lw_const_i32(L, LLVMGetAlignment(st) ? LLVMGetAlignment(st) : 1);
  if (narrow_packed(L, t, mode)) {
    LLVMValueRef p0 = lane0_address(L, LLVMGetOperand(st, 1), t, mode);
    scatter_by_lane(L, LLVMBuildBitCast(L->b, v, lane_chunks(L, t), ""), packed_lanes(L, p0, t),
                    L->lane_group_mask, align);
    return NULL;
  }
  if (mode >= PACKED_MASKED) {
    LLVMValueRef p0 = lane0_address(L, LLVMGetOperand(st, 1), t, mode);
    lw_intrinsic(L, "llvm.masked.store", (LLVMTypeRef[]){vt, LLVMTypeOf(p0)}, 2,
                 (LLVMValueRef[]){v, p0, align, m}, 4);
    return NULL;
  }
  base_index bi;
  LLVMValueRef ps;
  if (mode == GATHER && k == 1 && base_index_of(L, st, LLVMGetOperand(st, 1), &bi))
    ps = base_index_ptrs(L, &bi);
  else
    ps = element_ptrs(L, gather_address(L, LLVMGetOperand(st, 1), mode), k,
                      LLVMABISizeOfType(L->td, lw_elem_type(t)));
  if (L->scatter_sink) scatter_by_lane(L, v, ps, m, align);
  else
    lw_intrinsic(L, "llvm.masked.scatter", (LLVMTypeRef[]){vt, LLVMTypeOf(ps)}, 2,
                 (LLVMValueRef[]){v, ps, align, m}, 4);
  return NULL;
}

/* A lane-affine index wrapped by a power-of-two mask, p[(l + 1) & 255] say (a ring buffer, a
 * periodic neighbour): the affine value (per lane +1) whose low bits index p, and the mask in
 * *mask; NULL for any other address. */
static LLVMValueRef wrapped_affine(lower *L, LLVMValueRef addr, LLVMTypeRef t, uint64_t *mask) {
  LLVMValueRef o;
  LLVMTypeRef element = indexed_element(addr, &o);
  if (!element || lw_width(t) != 1 ||
      LLVMABISizeOfType(L->td, element) != LLVMStoreSizeOfType(L->td, t) ||
      divergence_of(L->dv, LLVMGetOperand(addr, 0)).shape != UNIFORM)
    return NULL;
  if (LLVMIsAZExtInst(o)) o = LLVMGetOperand(o, 0);
  if (!LLVMIsAInstruction(o) || LLVMGetInstructionOpcode(o) != LLVMAnd ||
      !LLVMIsAConstantInt(LLVMGetOperand(o, 1)))
    return NULL;
  uint64_t m = LLVMConstIntGetZExtValue(LLVMGetOperand(o, 1));
  LLVMValueRef a = LLVMGetOperand(o, 0);
  value_fact f = divergence_of(L->dv, a);
  if ((m & (m + 1)) || f.shape != AFFINE || f.stride != 1) return NULL;
  *mask = m;
  return a;
}

/* A wrapped index's access is packed where the group's lanes are all active, lane-affine (an
 * x-aligned work-group) and within one period of the mask: a's values from lane 0's to lane
 * G-1's differ in no bit above it, so no lane wraps and its elements follow each other. A
 * gather otherwise (the lanes of a ring's last group, say). */
static LLVMValueRef wrapped_switch(lower *L, LLVMValueRef inst, LLVMValueRef a, uint64_t mask,
                                   access_fn f) {
  LLVMTypeRef at = LLVMTypeOf(a);
  LLVMValueRef first = lane_value(L, a, lw_const_i64(L, 0));
  LLVMValueRef last = LLVMBuildAdd(L->b, first, LLVMConstInt(at, L->G - 1, 0), "");
  LLVMValueRef above = LLVMBuildAnd(L->b, LLVMBuildXor(L->b, first, last, ""),
                                    LLVMConstInt(at, ~mask, 0), "");
  LLVMValueRef one_period = LLVMBuildICmp(L->b, LLVMIntEQ, above, LLVMConstNull(at), "");
  LLVMValueRef cond = LLVMBuildAnd(L->b, full_and_aligned(L), one_period, "");
  static const enum access_mode modes[2] = {PACKED_FULL, GATHER};
  return access_paths(L, inst, f, &cond, modes, 2);
}

/* A gathered load in a loop where one lane of the group is active reads that lane's element
 * alone: lanes leave a divergent loop one by one, so its late trips run few (the probe loops
 * of a hash lookup or a graph walk), and a gather waits for its lanes' loads in turn (about 25
 * cycles on Zen 3 for 1 lane or 8) where a load takes 4 or 5. Outside loops, where warps run
 * full, the test would cost more than it saves (a bitonic sort's step: 10% slower). Vector
 * elements (k > 1) always gather. */
static LLVMValueRef gather_switch(lower *L, LLVMValueRef inst, access_fn f) {
  int pc = cfg_pc_of(L->cfg, LLVMGetInstructionParent(inst));
  if (f != load_access || lw_width(LLVMTypeOf(inst)) != 1 || pc < 0 || !L->in_loop[pc])
    return f(L, inst, GATHER);
  LLVMValueRef bits = lw_group_bits(L, L->mask, L->lane_group);
  LLVMTypeRef bt = LLVMTypeOf(bits);
  LLVMValueRef lanes = lw_intrinsic(L, "llvm.ctpop", &bt, 1, &bits, 1);
  LLVMValueRef one = LLVMBuildICmp(L->b, LLVMIntEQ, lanes, LLVMConstInt(bt, 1, 0), "");
  static const enum access_mode modes[2] = {GATHER_ONE, GATHER};
  return access_paths(L, inst, f, &one, modes, 2);
}

/* A load or store (f) at a varying address of elements of type t, by the address's shape:
 * lane-affine, wrapped lane-affine, or any other (a gather or scatter). */
static LLVMValueRef access_by_shape(lower *L, LLVMValueRef inst, LLVMValueRef addr, LLVMTypeRef t,
                                    access_fn f) {
  if (is_packed(L, addr, t)) return affine_switch(L, inst, f);
  uint64_t mask;
  LLVMValueRef a = wrapped_affine(L, addr, t, &mask);
  return a ? wrapped_switch(L, inst, a, mask, f) : gather_switch(L, inst, f);
}

static LLVMValueRef lower_load(lower *L, LLVMValueRef ld) {
  LLVMValueRef addr = LLVMGetOperand(ld, 0);
  if (divergence_of(L->dv, addr).shape == UNIFORM) { /* read once, every lane sees it */
    LLVMValueRef c = LLVMBuildLoad2(L->b, LLVMTypeOf(ld), lw_scalar_of(L, addr), "");
    LLVMSetAlignment(c, LLVMGetAlignment(ld));
    return lw_splat(L, c);
  }
  return access_by_shape(L, ld, addr, LLVMTypeOf(ld), load_access);
}

static void lower_store(lower *L, LLVMValueRef st) {
  LLVMValueRef val = LLVMGetOperand(st, 0), addr = LLVMGetOperand(st, 1);
  if (divergence_of(L->dv, addr).shape == UNIFORM && divergence_of(L->dv, val).shape == UNIFORM) {
    LLVMSetAlignment(LLVMBuildStore(L->b, lw_scalar_of(L, val), lw_scalar_of(L, addr)),
                     LLVMGetAlignment(st));
    return;
  }
  access_by_shape(L, st, addr, LLVMTypeOf(val), store_access);
}

/* Private memory: lane l's copy of an alloca sits at frame + off + l × size, so that it survives
 * a return to the scheduler. */
static LLVMValueRef lower_alloca(lower *L, LLVMValueRef inst) {
  slot *s = lw_slot(L, inst);
  size_t size = LLVMABISizeOfType(L->td, LLVMGetAllocatedType(inst));
  LLVMValueRef lanes = LLVMBuildMul(L->b,
                                    lw_iota(L, LLVMInt64TypeInContext(L->c), L->lane_group * L->G),
                                    lw_splat(L, lw_const_i64(L, size)), "");
  LLVMValueRef off = LLVMBuildAdd(L->b, lanes, lw_splat(L, lw_const_i64(L, s->priv_off)), "");
  LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->frame, &off, 1, "");
  LLVMTypeRef t = lw_vtype(L, LLVMTypeOf(inst));
  return LLVMTypeOf(p) == t ? p : LLVMBuildAddrSpaceCast(L->b, p, t, "");
}

static LLVMValueRef lower_select(lower *L, LLVMValueRef inst) {
  LLVMValueRef c = LLVMGetOperand(inst, 0);
  LLVMValueRef a = lw_vector_of(L, LLVMGetOperand(inst, 1)),
               b = lw_vector_of(L, LLVMGetOperand(inst, 2));
  unsigned k = lw_width(LLVMTypeOf(inst));
  if (divergence_of(L->dv, c).shape == UNIFORM)
    return LLVMBuildSelect(L->b, lw_scalar_of(L, c), a, b, "");
  LLVMValueRef cv = lw_vector_of(L, c);
  if (lw_width(LLVMTypeOf(c)) != k) cv = lw_expand_mask(L, cv, k);
  return LLVMBuildSelect(L->b, cv, a, b, "");
}

/* Each lane's value of v (G lanes) repeated k times, as wide as a k-element vector per lane. */
static LLVMValueRef per_element(lower *L, LLVMValueRef v, unsigned k) {
  unsigned n = k * L->G;
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, n);
  for (unsigned i = 0; i < n; i++) m[i] = lw_const_i32(L, i / k);
  return LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(m, n), "");
}

/* An index chosen at run time selects among the k constant elements; past the end the
 * result is element 0's (OpenCL leaves it undefined). */
static LLVMValueRef lower_extract(lower *L, LLVMValueRef inst) {
  LLVMValueRef idx = LLVMGetOperand(inst, 1), v = lw_vector_of(L, LLVMGetOperand(inst, 0));
  unsigned k = lw_width(LLVMTypeOf(LLVMGetOperand(inst, 0)));
  if (LLVMIsAConstantInt(idx))
    return lw_component(L, v, k, (unsigned)LLVMConstIntGetZExtValue(idx));
  LLVMValueRef lanes_idx = lw_vector_of(L, idx), r = lw_component(L, v, k, 0);
  for (unsigned c = 1; c < k; c++) {
    LLVMValueRef at = LLVMBuildICmp(L->b, LLVMIntEQ, lanes_idx,
                                    lw_splat(L, LLVMConstInt(LLVMTypeOf(idx), c, 0)), "");
    r = LLVMBuildSelect(L->b, at, lw_component(L, v, k, c), r, "");
  }
  return r;
}

/* The inserted element where each lane's index says: with a constant index one shuffle, else
 * a select by a comparison of every element's position with its lane's index. */
static LLVMValueRef lower_insert(lower *L, LLVMValueRef inst) {
  LLVMValueRef idx = LLVMGetOperand(inst, 2);
  unsigned k = lw_width(LLVMTypeOf(inst)), n = k * L->G;
  LLVMValueRef vec = lw_vector_of(L, LLVMGetOperand(inst, 0));
  LLVMValueRef wide = per_element(L, lw_vector_of(L, LLVMGetOperand(inst, 1)), k);
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, n);
  if (LLVMIsAConstantInt(idx)) {
    unsigned c = (unsigned)LLVMConstIntGetZExtValue(idx);
    for (unsigned i = 0; i < n; i++) m[i] = lw_const_i32(L, i % k == c ? n + i : i);
    return LLVMBuildShuffleVector(L->b, vec, wide, LLVMConstVector(m, n), "");
  }
  for (unsigned i = 0; i < n; i++) m[i] = LLVMConstInt(LLVMTypeOf(idx), i % k, 0);
  LLVMValueRef at = LLVMBuildICmp(L->b, LLVMIntEQ, per_element(L, lw_vector_of(L, idx), k),
                                  LLVMConstVector(m, n), "");
  return LLVMBuildSelect(L->b, at, wide, vec, "");
}

static LLVMValueRef lower_shuffle(lower *L, LLVMValueRef inst) {
  unsigned k = lw_width(LLVMTypeOf(LLVMGetOperand(inst, 0))), n = LLVMGetNumMaskElements(inst);
  LLVMValueRef a = lw_vector_of(L, LLVMGetOperand(inst, 0)),
               b = lw_vector_of(L, LLVMGetOperand(inst, 1));
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, n * L->G);
  for (unsigned l = 0; l < L->G; l++)
    for (unsigned j = 0; j < n; j++) {
      int src = LLVMGetMaskValue(inst, j);
      unsigned i = l * n + j;
      if (src == LLVMGetUndefMaskElem()) m[i] = LLVMGetPoison(LLVMInt32TypeInContext(L->c));
      else if ((unsigned)src < k) m[i] = lw_const_i32(L, l * k + (unsigned)src);
      else m[i] = lw_const_i32(L, k * L->G + l * k + (unsigned)src - k);
    }
  return LLVMBuildShuffleVector(L->b, a, b, LLVMConstVector(m, n * L->G), "");
}

/* ---- division and remainder ----
 * x86 has no vector integer division: LLVM turns a division by a constant into multiply-high
 * sequences, and any other one into a scalar div per element, which traps on a zero divisor and
 * on INT_MIN / -1. weft defines both as RISC-V does and GPUs return (README): x / 0 is -1 (all
 * ones), x % 0 is x, INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0. So a constant divisor with
 * neither (ir_safe_divisor) is left alone for LLVM to see; a uniform one (at most 32 bits) gets
 * its magic numbers computed once, with one scalar division, for multiply-highs in every lane,
 * which never trap, and one select for a zero divisor; any other division divides by 1 where the
 * divisor is 0 or -1 (signed) or the lane is inactive (its stale divisor may be anything), then
 * puts the defined value in. */

static LLVMTypeRef with_elem(LLVMTypeRef t, LLVMTypeRef e) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMVectorType(e, LLVMGetVectorSize(t)) : e;
}

static LLVMValueRef int_op(lower *L, const char *name, LLVMValueRef a, LLVMValueRef b) {
  return lw_intrinsic(L, name, (LLVMTypeRef[]){LLVMTypeOf(a)}, 1, (LLVMValueRef[]){a, b}, 2);
}

/* An unsigned 32-bit division by d, with magic numbers after Granlund and Montgomery (PLDI
 * 1994, Figure 4.1): with l = ceil(log2 d) and m = 2^32 (2^l - d) / d + 1, n / d is
 * (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0) for t = mulhi(m, n), for every d from 1 to
 * 2^32 - 1 and every n. */
typedef struct divisor {
  LLVMValueRef d, m, s1, s2; /* scalars (<k x i32> for a vector type) */
} divisor;

/* d: the uniform divisor, i32 or <k x i32>; 0 is taken as 1, so that nothing traps (a zero
 * divisor's quotient is put in afterwards). */
static divisor magic_u32(lower *L, LLVMValueRef d) {
  LLVMTypeRef t = LLVMTypeOf(d), t64 = with_elem(t, LLVMInt64TypeInContext(L->c));
  divisor r;
  r.d = d = int_op(L, "llvm.umax", d, ir_const_int(t, 1));
  LLVMValueRef below = LLVMBuildSub(L->b, d, ir_const_int(t, 1), "");
  LLVMValueRef l = LLVMBuildSub(
      L->b, ir_const_int(t, 32),
      int_op(L, "llvm.ctlz", below, LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0)), "");
  LLVMValueRef d64 = LLVMBuildZExt(L->b, d, t64, "");
  LLVMValueRef pow = LLVMBuildShl(L->b, ir_const_int(t64, 1), LLVMBuildZExt(L->b, l, t64, ""), "");
  LLVMValueRef num = LLVMBuildShl(L->b, LLVMBuildSub(L->b, pow, d64, ""), ir_const_int(t64, 32),
                                  "");
  LLVMValueRef m = LLVMBuildAdd(L->b, LLVMBuildUDiv(L->b, num, d64, ""), ir_const_int(t64, 1), "");
  r.m = LLVMBuildTrunc(L->b, m, t, "");
  r.s1 = int_op(L, "llvm.umin", l, ir_const_int(t, 1));
  r.s2 = int_op(L, "llvm.usub.sat", l, ir_const_int(t, 1));
  return r;
}

/* The divisor's magic numbers, computed where the divisor is: a kernel argument's once in the
 * part's entry, anything else's here. Signed: of |d|. */
static divisor uniform_divisor(lower *L, LLVMValueRef b, int sgn) {
  LLVMBasicBlockRef here = LLVMIsAArgument(b) ? lw_at_entry(L) : NULL;
  LLVMValueRef d = lw_scalar_of(L, b);
  LLVMTypeRef t = with_elem(LLVMTypeOf(d), LLVMInt32TypeInContext(L->c));
  d = LLVMBuildIntCast2(L->b, d, t, sgn, "");
  if (sgn) d = int_op(L, "llvm.abs", d, LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0));
  divisor r = magic_u32(L, d);
  if (here) LLVMPositionBuilderAtEnd(L->b, here);
  return r;
}

/* n / d for every lane of n (<kG x i32>). */
static LLVMValueRef udiv_magic(lower *L, LLVMValueRef n, const divisor *dv) {
  LLVMTypeRef wt = with_elem(LLVMTypeOf(n), LLVMInt64TypeInContext(L->c));
  LLVMValueRef m = LLVMBuildZExt(L->b, lw_splat(L, dv->m), wt, "");
  LLVMValueRef t = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, n, wt, ""), m, "");
  t = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, t, ir_const_int(wt, 32), ""), LLVMTypeOf(n), "");
  LLVMValueRef half = LLVMBuildLShr(L->b, LLVMBuildSub(L->b, n, t, ""), lw_splat(L, dv->s1), "");
  return LLVMBuildLShr(L->b, LLVMBuildAdd(L->b, t, half, ""), lw_splat(L, dv->s2), "");
}

/* A division or remainder of a's lanes by the uniform b, of at most 32 bits. Signed ones
 * divide the magnitudes and put the sign back: INT_MIN / -1 wraps instead of trapping. */
static LLVMValueRef div_uniform(lower *L, LLVMOpcode op, LLVMValueRef a, LLVMValueRef b) {
  int sgn = op == LLVMSDiv || op == LLVMSRem, rem = op == LLVMURem || op == LLVMSRem;
  LLVMTypeRef vt = LLVMTypeOf(a), v32 = with_elem(vt, LLVMInt32TypeInContext(L->c));
  LLVMValueRef no_poison = LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0);
  LLVMValueRef n = LLVMBuildIntCast2(L->b, a, v32, sgn, "");
  LLVMValueRef un = sgn ? int_op(L, "llvm.abs", n, no_poison) : n;
  divisor dv = uniform_divisor(L, b, sgn);
  LLVMValueRef q = udiv_magic(L, un, &dv), sign;
  if (rem) {
    q = LLVMBuildSub(L->b, un, LLVMBuildMul(L->b, q, lw_splat(L, dv.d), ""), "");
    sign = sgn ? LLVMBuildAShr(L->b, n, ir_const_int(v32, 31), "") : NULL;
  } else {
    LLVMValueRef d = sgn ? lw_splat(L, LLVMBuildIntCast2(L->b, lw_scalar_of(L, b), LLVMTypeOf(dv.d),
                                                         1, ""))
                         : NULL;
    sign = sgn ? LLVMBuildAShr(L->b, LLVMBuildXor(L->b, n, d, ""), ir_const_int(v32, 31), "")
               : NULL;
  }
  if (sign) q = LLVMBuildSub(L->b, LLVMBuildXor(L->b, q, sign, ""), sign, "");
  q = LLVMBuildIntCast2(L->b, q, vt, sgn, "");
  LLVMValueRef d = lw_scalar_of(L, b);
  LLVMValueRef zero = LLVMBuildICmp(L->b, LLVMIntEQ, d, ir_const_int(LLVMTypeOf(d), 0), "");
  return LLVMBuildSelect(L->b, lw_splat(L, zero), rem ? a : LLVMConstAllOnes(vt), q, "");
}

/* a op b for a division or remainder op, scalars or vectors, giving the defined values for a
 * zero divisor and INT_MIN / -1. active: the lanes that divide, or NULL for all of them. */
static LLVMValueRef div_defined(lower *L, LLVMOpcode op, LLVMValueRef a, LLVMValueRef b,
                                LLVMValueRef active) {
  int sgn = op == LLVMSDiv || op == LLVMSRem, rem = op == LLVMURem || op == LLVMSRem;
  LLVMTypeRef t = LLVMTypeOf(b);
  LLVMValueRef zero = LLVMBuildICmp(L->b, LLVMIntEQ, b, ir_const_int(t, 0), "");
  LLVMValueRef minus1 = sgn ? LLVMBuildICmp(L->b, LLVMIntEQ, b, LLVMConstAllOnes(t), "") : NULL;
  LLVMValueRef by1 = minus1 ? LLVMBuildOr(L->b, zero, minus1, "") : zero;
  if (active) by1 = LLVMBuildOr(L->b, by1, LLVMBuildNot(L->b, active, ""), "");
  LLVMValueRef q = LLVMBuildBinOp(L->b, op, a,
                                  LLVMBuildSelect(L->b, by1, ir_const_int(t, 1), b, ""), "");
  /* x % 1 is the 0 that x % -1 is; x / 1 is x, where x / -1 is -x (which wraps for INT_MIN) */
  if (minus1 && !rem) q = LLVMBuildSelect(L->b, minus1, LLVMBuildNeg(L->b, a, ""), q, "");
  return LLVMBuildSelect(L->b, zero, rem ? a : LLVMConstAllOnes(t), q, "");
}

static int is_division(LLVMOpcode op) {
  return op == LLVMUDiv || op == LLVMSDiv || op == LLVMURem || op == LLVMSRem;
}

static int safe_division(LLVMValueRef inst, LLVMOpcode op) {
  return ir_safe_divisor(LLVMGetOperand(inst, 1), op == LLVMSDiv || op == LLVMSRem);
}

/* A uniform division that needs a guard, as scalars; NULL for any other instruction. */
static LLVMValueRef uniform_division(lower *L, LLVMValueRef inst) {
  LLVMOpcode op = LLVMIsAInstruction(inst) ? LLVMGetInstructionOpcode(inst) : LLVMRet;
  if (!is_division(op) || safe_division(inst, op)) return NULL;
  return div_defined(L, op, lw_scalar_of(L, LLVMGetOperand(inst, 0)),
                     lw_scalar_of(L, LLVMGetOperand(inst, 1)), NULL);
}

static LLVMValueRef lower_div(lower *L, LLVMValueRef inst, LLVMOpcode op) {
  LLVMValueRef bop = LLVMGetOperand(inst, 1);
  LLVMValueRef a = lw_vector_of(L, LLVMGetOperand(inst, 0)), b = lw_vector_of(L, bop);
  unsigned bits = LLVMGetIntTypeWidth(lw_elem_type(LLVMTypeOf(inst)));
  if (safe_division(inst, op)) return LLVMBuildBinOp(L->b, op, a, b, "");
  if (divergence_of(L->dv, bop).shape == UNIFORM)
    return bits <= 32 ? div_uniform(L, op, a, bop) : div_defined(L, op, a, b, NULL);
  return div_defined(L, op, a, b,
                     lw_expand_mask(L, L->lane_group_mask, lw_width(LLVMTypeOf(inst))));
}

static LLVMValueRef lower_binop(lower *L, LLVMValueRef inst, LLVMOpcode op) {
  if (is_division(op)) return lower_div(L, inst, op);
  return LLVMBuildBinOp(L->b, op, lw_vector_of(L, LLVMGetOperand(inst, 0)),
                        lw_vector_of(L, LLVMGetOperand(inst, 1)), "");
}

static LLVMValueRef lower_value_inst(lower *L, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op >= LLVMAdd && op <= LLVMXor) return lower_binop(L, inst, op);
  if ((op >= LLVMTrunc && op <= LLVMBitCast) || op == LLVMAddrSpaceCast)
    return LLVMBuildCast(L->b, op, lw_vector_of(L, LLVMGetOperand(inst, 0)),
                         lw_vtype(L, LLVMTypeOf(inst)), "");
  switch (op) {
  case LLVMFNeg: return LLVMBuildFNeg(L->b, lw_vector_of(L, LLVMGetOperand(inst, 0)), "");
  case LLVMICmp:
    return LLVMBuildICmp(L->b, LLVMGetICmpPredicate(inst), lw_vector_of(L, LLVMGetOperand(inst, 0)),
                         lw_vector_of(L, LLVMGetOperand(inst, 1)), "");
  case LLVMFCmp:
    return LLVMBuildFCmp(L->b, LLVMGetFCmpPredicate(inst), lw_vector_of(L, LLVMGetOperand(inst, 0)),
                         lw_vector_of(L, LLVMGetOperand(inst, 1)), "");
  case LLVMSelect: return lower_select(L, inst);
  case LLVMGetElementPtr: return group_gep(L, inst);
  case LLVMLoad: return lower_load(L, inst);
  case LLVMAlloca: return lower_alloca(L, inst);
  case LLVMExtractElement: return lower_extract(L, inst);
  case LLVMInsertElement: return lower_insert(L, inst);
  case LLVMShuffleVector: return lower_shuffle(L, inst);
  case LLVMFreeze: return lw_vector_of(L, LLVMGetOperand(inst, 0));
  default: return lw_unsupported(L, inst, "this instruction"), NULL;
  }
}

void lw_inst_group(lower *L, LLVMValueRef inst) {
  LLVMValueRef r = NULL;
  if (LLVMIsAPHINode(inst) || LLVMIsAFenceInst(inst)) return;
  if (LLVMIsAStoreInst(inst)) return lower_store(L, inst);
  if (LLVMIsACallInst(inst)) {
    builtin bi = builtin_of_call(inst);
    r = lw_builtin(L, inst, &bi, 0);
  } else if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst)) {
    lw_unsupported(L, inst, "LLVM atomic instructions (use the OpenCL atomic_* builtins)");
  } else r = lower_value_inst(L, inst);
  if (r && LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMVoidTypeKind) lw_set_vector(L, inst, r);
}
