/* cl_khr_subgroup_ballot's functions of a ballot (a uint4 whose bit i stands for sub-group lane
 * i) and its lane masks, as the plain IR they mean over get_sub_group_local_id and
 * get_sub_group_size: a warp has at most 64 lanes, so a ballot is its first two words as one
 * i64, and the other two are 0. The ballot itself, a collective, is lowered with the others
 * (lower_subgroup.c). */
#include <string.h>

#include "compiler.h"

typedef struct ballot_ir {
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTypeRef i32, i64;
} ballot_ir;

static LLVMValueRef sub_group_query(const ballot_ir *x, const char *mangled) {
  LLVMTypeRef ft = LLVMFunctionType(x->i32, NULL, 0, 0);
  return LLVMBuildCall2(x->b, ft, ir_function(x->m, mangled, ft), NULL, 0, "");
}

static LLVMValueRef local_id(const ballot_ir *x) {
  return LLVMBuildZExt(x->b, sub_group_query(x, "_Z22get_sub_group_local_idv"), x->i64, "");
}

static LLVMValueRef i64c(const ballot_ir *x, unsigned long long v) {
  return LLVMConstInt(x->i64, v, 0);
}

/* The ballot's lanes as one i64. */
static LLVMValueRef bits_of(const ballot_ir *x, LLVMValueRef v) {
  LLVMValueRef lo = LLVMBuildExtractElement(x->b, v, LLVMConstInt(x->i32, 0, 0), "");
  LLVMValueRef hi = LLVMBuildExtractElement(x->b, v, LLVMConstInt(x->i32, 1, 0), "");
  return LLVMBuildOr(x->b, LLVMBuildZExt(x->b, lo, x->i64, ""),
                     LLVMBuildShl(x->b, LLVMBuildZExt(x->b, hi, x->i64, ""), i64c(x, 32), ""), "");
}

/* The i64 of lanes as a ballot. */
static LLVMValueRef ballot_of(const ballot_ir *x, LLVMValueRef bits) {
  LLVMValueRef v = LLVMConstNull(LLVMVectorType(x->i32, 4));
  v = LLVMBuildInsertElement(x->b, v, LLVMBuildTrunc(x->b, bits, x->i32, ""),
                             LLVMConstInt(x->i32, 0, 0), "");
  LLVMValueRef hi = LLVMBuildTrunc(x->b, LLVMBuildLShr(x->b, bits, i64c(x, 32), ""), x->i32, "");
  return LLVMBuildInsertElement(x->b, v, hi, LLVMConstInt(x->i32, 1, 0), "");
}

/* Lanes 0 .. n - 1 (n <= 64): ~0 >> (64 - n), which needs no shift by 64. */
static LLVMValueRef below(const ballot_ir *x, LLVMValueRef n) {
  LLVMValueRef all = i64c(x, ~0ull), none = LLVMBuildICmp(x->b, LLVMIntEQ, n, i64c(x, 0), "");
  LLVMValueRef m = LLVMBuildLShr(x->b, all, LLVMBuildSub(x->b, i64c(x, 64), n, ""), "");
  return LLVMBuildSelect(x->b, none, i64c(x, 0), m, "");
}

/* The lanes of the sub-group. */
static LLVMValueRef in_group(const ballot_ir *x) {
  return below(x, LLVMBuildZExt(x->b, sub_group_query(x, "_Z18get_sub_group_sizev"), x->i64, ""));
}

static LLVMValueRef count(const ballot_ir *x, LLVMValueRef bits) {
  LLVMTypeRef t = x->i64;
  LLVMValueRef n = ir_intrinsic(x->b, x->m, "llvm.ctpop", &t, 1, &bits, 1);
  return LLVMBuildTrunc(x->b, n, x->i32, "");
}

/* 1 (an int) where bit i of bits is set. */
static LLVMValueRef bit(const ballot_ir *x, LLVMValueRef bits, LLVMValueRef i) {
  LLVMValueRef inside = LLVMBuildICmp(x->b, LLVMIntULT, i, i64c(x, 64), "");
  LLVMValueRef b = LLVMBuildAnd(
      x->b, LLVMBuildLShr(x->b, bits, LLVMBuildAnd(x->b, i, i64c(x, 63), ""), ""), i64c(x, 1), "");
  return LLVMBuildTrunc(x->b, LLVMBuildSelect(x->b, inside, b, i64c(x, 0), ""), x->i32, "");
}

/* The lane masks get_sub_group_{eq,ge,gt,le,lt}_mask: which ("eq", ...), as lanes. */
static LLVMValueRef lane_mask(const ballot_ir *x, const char *which) {
  LLVMValueRef id = local_id(x), upto = below(x, id); /* the lanes below this one */
  LLVMValueRef self = LLVMBuildShl(x->b, i64c(x, 1), id, "");
  if (!strcmp(which, "eq")) return self;
  if (!strcmp(which, "lt")) return upto;
  if (!strcmp(which, "le")) return LLVMBuildOr(x->b, upto, self, "");
  LLVMValueRef above = LLVMBuildAnd(x->b, in_group(x), LLVMBuildNot(x->b, upto, ""), "");
  if (!strcmp(which, "ge")) return above;
  return LLVMBuildAnd(x->b, above, LLVMBuildNot(x->b, self, ""), ""); /* gt */
}

/* The functions of a ballot, as named after "sub_group_", with their operand counts. */
static int of_a_ballot(const char *f, unsigned n) {
  static const char *const one[] = {"inverse_ballot",        "ballot_bit_count",
                                    "ballot_inclusive_scan", "ballot_exclusive_scan",
                                    "ballot_find_lsb",       "ballot_find_msb"};
  if (n == 2) return !strcmp(f, "ballot_bit_extract");
  for (size_t i = 0; n == 1 && i < sizeof one / sizeof *one; i++)
    if (!strcmp(f, one[i])) return 1;
  return 0;
}

LLVMValueRef expand_ballot(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  ballot_ir x = {m, b, LLVMInt32TypeInContext(c), LLVMInt64TypeInContext(c)};
  unsigned n = LLVMGetNumArgOperands(call);
  if (n == 0 && !strncmp(name, "get_sub_group_", 14) && strlen(name) == 21 &&
      !strcmp(name + 16, "_mask"))
    return ballot_of(&x, lane_mask(&x, (char[]){name[14], name[15], 0}));
  const char *f = name + 10; /* past "sub_group_" */
  if (strncmp(name, "sub_group_", 10) || !of_a_ballot(f, n)) return NULL;
  LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, 0));
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) != 4) return NULL;
  LLVMValueRef bits = bits_of(&x, LLVMGetOperand(call, 0));
  if (!strcmp(f, "inverse_ballot")) return bit(&x, bits, local_id(&x));
  if (!strcmp(f, "ballot_bit_extract"))
    return bit(&x, bits, LLVMBuildZExt(b, LLVMGetOperand(call, 1), x.i64, ""));
  bits = LLVMBuildAnd(b, bits, in_group(&x), "");
  if (!strcmp(f, "ballot_bit_count")) return count(&x, bits);
  if (!strcmp(f, "ballot_inclusive_scan"))
    return count(&x, LLVMBuildAnd(b, bits, lane_mask(&x, "le"), ""));
  if (!strcmp(f, "ballot_exclusive_scan"))
    return count(&x, LLVMBuildAnd(b, bits, lane_mask(&x, "lt"), ""));
  LLVMValueRef no = LLVMConstInt(LLVMInt1TypeInContext(c), 0, 0);
  LLVMValueRef z = ir_intrinsic(b, m, strcmp(f, "ballot_find_lsb") ? "llvm.ctlz" : "llvm.cttz",
                                &x.i64, 1, (LLVMValueRef[]){bits, no}, 2);
  if (!strcmp(f, "ballot_find_msb")) z = LLVMBuildSub(b, i64c(&x, 63), z, "");
  return LLVMBuildTrunc(b, z, x.i32, "");
}
