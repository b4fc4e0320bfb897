/* OpenCL builtins that are plain IR: each call becomes the loads, stores, compares, selects or
 * intrinsics it means, before the front end's pipeline, so that the rest of weft sees ordinary
 * instructions (vload4 at a lane-affine address is then a packed load like any other). A call
 * this file does not know, or a form of one it does not handle, stays a call, and the lowering
 * reports it with its line. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler.h"

typedef struct expander {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef call;
  builtin bi;
} expander;

static LLVMValueRef arg(const expander *x, unsigned i) { return LLVMGetOperand(x->call, i); }

/* The access (a load, or a store of data) of a value of type t at p + offset * stride
 * elements of t's element type. */
static LLVMValueRef access_at(const expander *x, LLVMValueRef data, LLVMTypeRef t,
                              LLVMValueRef offset, LLVMValueRef p, unsigned stride) {
  LLVMTypeRef et = ir_scalar_of(t);
  LLVMValueRef index = LLVMBuildMul(x->b, offset, LLVMConstInt(LLVMTypeOf(offset), stride, 0), "");
  LLVMValueRef at = LLVMBuildGEP2(x->b, et, p, &index, 1, "");
  unsigned align = (unsigned)LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(x->m), et);
  LLVMValueRef access = data ? LLVMBuildStore(x->b, data, at) : LLVMBuildLoad2(x->b, t, at, "");
  LLVMSetAlignment(access, align);
  return access;
}

/* vloadN(offset, p): the N elements at p + offset * N; vstoreN(data, offset, p). */
static LLVMValueRef vload_store(const expander *x, int store) {
  LLVMValueRef data = store ? arg(x, 0) : NULL;
  LLVMTypeRef vt = store ? LLVMTypeOf(data) : LLVMTypeOf(x->call);
  if (!ir_is_vector(vt)) return NULL;
  return access_at(x, data, vt, arg(x, store), arg(x, store + 1), LLVMGetVectorSize(vt));
}

/* vload_half[N](offset, p), vloada_half[N], vstore_half[N][_rtX](data, offset, p) and
 * vstorea_half[N][_rtX]: N halves in memory, floats in the kernel (or doubles, stored). The
 * aligned forms of 3 take the room of 4. */
static LLVMValueRef half_access(const expander *x, int store) {
  const char *p = x->bi.name + (store ? 6 : 5);
  int aligned = *p == 'a', saturate;
  if (strncmp(p + aligned, "_half", 5)) return NULL;
  char *mods;
  unsigned long n = strtoul(p + aligned + 5, &mods, 10);
  ir_rounding mode;
  int width_ok = n == 0 || n == 3 || (n >= 2 && n <= 16 && !(n & (n - 1)));
  if (!width_ok || !ir_conversion_modifiers(mods, &saturate, &mode) || saturate || (!store && mode))
    return NULL;
  LLVMTypeRef half = LLVMHalfTypeInContext(x->c), t = n ? LLVMVectorType(half, (unsigned)n) : half;
  unsigned stride = n == 0 ? 1 : n == 3 && aligned ? 4 : (unsigned)n;
  LLVMValueRef offset = arg(x, store), at = arg(x, store + 1);
  if (store)
    return access_at(x, ir_convert(x->b, x->m, arg(x, 0), 0, t, 0, 0, mode), t, offset, at, stride);
  LLVMValueRef v = access_at(x, NULL, t, offset, at, stride);
  return ir_convert(x->b, x->m, v, 0, LLVMTypeOf(x->call), 0, 0, ROUND_DEFAULT);
}

/* convert_<type>[N][_sat][_rtX](v) */
static LLVMValueRef convert(const expander *x) {
  const char *to = x->bi.name + 8, *mods = to + strcspn(to, "0123456789_");
  int saturate;
  ir_rounding mode;
  mods += strspn(mods, "0123456789");
  if (!ir_conversion_modifiers(mods, &saturate, &mode)) return NULL;
  return ir_convert(x->b, x->m, arg(x, 0), builtin_unsigned(&x->bi), LLVMTypeOf(x->call),
                    to[0] == 'u', saturate, mode);
}

/* select(a, b, c): b where c is set, a elsewhere; for vectors "set" is the element's top bit. */
static LLVMValueRef select_builtin(const expander *x) {
  LLVMValueRef a = arg(x, 0), b = arg(x, 1), c = arg(x, 2);
  LLVMTypeRef ct = LLVMTypeOf(c);
  LLVMIntPredicate set_if = ir_is_vector(ct) ? LLVMIntSLT : LLVMIntNE;
  LLVMValueRef set = LLVMBuildICmp(x->b, set_if, c, ir_const_int(ct, 0), "");
  return LLVMBuildSelect(x->b, set, b, a, "");
}

/* any(x) / all(x): 1 if the top bit of any / every element of x is set, else 0. */
static LLVMValueRef any_all(const expander *x, int all) {
  LLVMValueRef v = arg(x, 0);
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef neg = LLVMBuildICmp(x->b, LLVMIntSLT, v, ir_const_int(t, 0), ""), r = neg;
  for (unsigned i = 0; ir_is_vector(t) && i < LLVMGetVectorSize(t); i++) {
    LLVMValueRef at = LLVMConstInt(LLVMInt32TypeInContext(x->c), i, 0);
    LLVMValueRef e = LLVMBuildExtractElement(x->b, neg, at, "");
    r = i == 0 ? e : all ? LLVMBuildAnd(x->b, r, e, "") : LLVMBuildOr(x->b, r, e, "");
  }
  return LLVMBuildZExt(x->b, r, LLVMTypeOf(x->call), "");
}

/* OpenCL's truth of c in the call's type: 1 or 0 for a scalar, -1 or 0 per element of a
 * vector. */
static LLVMValueRef truth(const expander *x, LLVMValueRef c) {
  LLVMTypeRef t = LLVMTypeOf(x->call);
  return ir_is_vector(t) ? LLVMBuildSExt(x->b, c, t, "") : LLVMBuildZExt(x->b, c, t, "");
}

/* isequal, isless, ... */
static LLVMValueRef compare(const expander *x, LLVMRealPredicate pred) {
  return truth(x, LLVMBuildFCmp(x->b, pred, arg(x, 0), arg(x, 1), ""));
}

/* A call of the intrinsic `name` (llvm.smax), overloaded on the type of args[0]. */
static LLVMValueRef intrinsic(const expander *x, const char *name, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  return ir_intrinsic(x->b, x->m, name, &t, 1, args, n);
}

static double min_normal(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(ir_scalar_of(t));
  return k == LLVMHalfTypeKind ? 0x1p-14 : k == LLVMFloatTypeKind ? 0x1p-126 : 0x1p-1022;
}

/* isnan, isinf, isfinite, isnormal, and signbit (the sign bit of the encoding); NULL for another
 * name. */
static LLVMValueRef fp_class(const expander *x, const char *name) {
  LLVMValueRef v = arg(x, 0), c;
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef magnitude = intrinsic(x, "llvm.fabs", &v, 1),
               inf = ir_const_real(t, __builtin_inf());
  if (!strcmp(name, "isnan")) c = LLVMBuildFCmp(x->b, LLVMRealUNO, v, v, "");
  else if (!strcmp(name, "isinf")) c = LLVMBuildFCmp(x->b, LLVMRealOEQ, magnitude, inf, "");
  else if (!strcmp(name, "isfinite")) c = LLVMBuildFCmp(x->b, LLVMRealOLT, magnitude, inf, "");
  else if (!strcmp(name, "isnormal"))
    c = LLVMBuildAnd(
        x->b, LLVMBuildFCmp(x->b, LLVMRealOLT, magnitude, inf, ""),
        LLVMBuildFCmp(x->b, LLVMRealOGE, magnitude, ir_const_real(t, min_normal(t)), ""), "");
  else if (!strcmp(name, "signbit")) {
    LLVMTypeRef it = ir_int_shaped(t, ir_scalar_bits(t));
    c = LLVMBuildICmp(x->b, LLVMIntSLT, LLVMBuildBitCast(x->b, v, it, ""), ir_const_int(it, 0), "");
  } else return NULL;
  return truth(x, c);
}

/* hadd(a, b) = (a + b) >> 1 and rhadd(a, b) = (a + b + 1) >> 1 without overflow: the halves
 * plus the carry of the low bits. */
static LLVMValueRef half_add(const expander *x, int round) {
  LLVMValueRef a = arg(x, 0), b = arg(x, 1);
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef one = ir_const_int(t, 1);
  LLVMValueRef (*shift)(LLVMBuilderRef, LLVMValueRef, LLVMValueRef,
                        const char *) = builtin_unsigned(&x->bi) ? LLVMBuildLShr : LLVMBuildAShr;
  LLVMValueRef halves = LLVMBuildAdd(x->b, shift(x->b, a, one, ""), shift(x->b, b, one, ""), "");
  LLVMValueRef low = round ? LLVMBuildOr(x->b, a, b, "") : LLVMBuildAnd(x->b, a, b, "");
  return LLVMBuildAdd(x->b, halves, LLVMBuildAnd(x->b, low, one, ""), "");
}

/* upsample(hi, lo): hi's bits above lo's, in the integer type of twice their width. */
static LLVMValueRef upsample(const expander *x) {
  LLVMValueRef hi = arg(x, 0), lo = arg(x, 1);
  LLVMTypeRef t = LLVMTypeOf(x->call);
  LLVMValueRef wide = ir_widen(x->b, hi, builtin_unsigned(&x->bi));
  LLVMValueRef high = LLVMBuildShl(x->b, wide, ir_const_int(t, ir_scalar_bits(LLVMTypeOf(lo))), "");
  return LLVMBuildOr(x->b, high, LLVMBuildZExt(x->b, lo, t, ""), "");
}

/* mad_sat(a, b, c): a * b + c, exact in twice the width (where it cannot overflow), then
 * converted back with saturation. */
static LLVMValueRef mad_sat(const expander *x) {
  int u = builtin_unsigned(&x->bi);
  LLVMValueRef w[3];
  for (unsigned i = 0; i < 3; i++) w[i] = ir_widen(x->b, arg(x, i), u);
  LLVMValueRef r = LLVMBuildAdd(x->b, LLVMBuildMul(x->b, w[0], w[1], ""), w[2], "");
  return ir_convert(x->b, x->m, r, u, LLVMTypeOf(x->call), u, 1, ROUND_DEFAULT);
}

static LLVMValueRef integer_op(const expander *x, const char *name, unsigned n) {
  LLVMValueRef a[2] = {arg(x, 0), n > 1 ? arg(x, 1) : NULL};
  int u = builtin_unsigned(&x->bi);
  if (n == 3) return !strcmp(name, "mad_sat") ? mad_sat(x) : NULL;
  if (n != 2) return NULL;
  if (!strcmp(name, "rotate")) /* a funnel shift of x with itself is a rotation */
    return intrinsic(x, "llvm.fshl", (LLVMValueRef[]){a[0], a[0], a[1]}, 3);
  if (!strcmp(name, "add_sat")) return intrinsic(x, u ? "llvm.uadd.sat" : "llvm.sadd.sat", a, 2);
  if (!strcmp(name, "sub_sat")) return intrinsic(x, u ? "llvm.usub.sat" : "llvm.ssub.sat", a, 2);
  if (!strcmp(name, "hadd")) return half_add(x, 0);
  if (!strcmp(name, "rhadd")) return half_add(x, 1);
  if (!strcmp(name, "upsample")) return upsample(x);
  return NULL;
}

static const struct {
  const char *name;
  LLVMRealPredicate pred;
} comparisons[] = {
    {"isequal", LLVMRealOEQ},        {"isnotequal", LLVMRealUNE}, {"isgreater", LLVMRealOGT},
    {"isgreaterequal", LLVMRealOGE}, {"isless", LLVMRealOLT},     {"islessequal", LLVMRealOLE},
    {"islessgreater", LLVMRealONE},  {"isordered", LLVMRealORD},  {"isunordered", LLVMRealUNO},
};

/* fract(x, p): x - floor(x), below 1 (a tiny negative x would round up to it), and floor(x)
 * stored at p; as OpenCL's edge cases say, ±0 and NaN give themselves and ±inf gives +0. */
static LLVMValueRef fract_of(const expander *x) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef v = arg(x, 0), fl = intrinsic(x, "llvm.floor", &v, 1);
  LLVMTypeRef t = LLVMTypeOf(v);
  int f32 = LLVMGetTypeKind(ir_scalar_of(t)) == LLVMFloatTypeKind;
  LLVMValueRef below_one = ir_const_real(t, f32 ? 0x1.fffffep-1 : 0x1.fffffffffffffp-1);
  LLVMValueRef diff = LLVMBuildFSub(b, v, fl, ""), zero = ir_const_real(t, 0);
  access_at(x, fl, t, LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), arg(x, 1), 1);
  LLVMValueRef r = intrinsic(x, "llvm.minnum", (LLVMValueRef[]){diff, below_one}, 2);
  LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealOEQ, intrinsic(x, "llvm.fabs", &v, 1),
                                   ir_const_real(t, __builtin_inf()), "");
  r = LLVMBuildSelect(b, inf, zero, r, "");
  LLVMValueRef itself = LLVMBuildFCmp(b, LLVMRealUEQ, v, zero, ""); /* NaN or ±0 */
  return LLVMBuildSelect(b, itself, v, r, "");
}

/* ---- a float's parts, from its encoding: frexp, ilogb, logb, modf, ldexp ---- */

/* x = mantissa * 2^exponent with the mantissa in [0.5, 1) (frexp): the exponent field, a
 * subnormal scaled into the normal range first; 0, inf and NaN are their own mantissa, with
 * exponent 0. The exponent is an int of x's shape; *special says which lanes were 0, inf or
 * NaN. */
static LLVMValueRef decompose(const expander *x, LLVMValueRef v, LLVMValueRef *exponent,
                              LLVMValueRef *special) {
  LLVMBuilderRef b = x->b;
  LLVMTypeRef t = LLVMTypeOf(v), it = ir_int_shaped(t, ir_scalar_bits(t)),
              i32 = ir_int_shaped(t, 32);
  int f32 = LLVMGetTypeKind(ir_scalar_of(t)) == LLVMFloatTypeKind;
  unsigned mant = f32 ? 23 : 52, bias = f32 ? 127 : 1023, emask = f32 ? 0xff : 0x7ff;
  LLVMValueRef mag = intrinsic(x, "llvm.fabs", &v, 1), zero = ir_const_real(t, 0);
  LLVMValueRef sub = LLVMBuildFCmp(b, LLVMRealOLT, mag, ir_const_real(t, min_normal(t)), "");
  LLVMValueRef scaled = LLVMBuildSelect(
      b, sub, LLVMBuildFMul(b, v, ir_const_real(t, f32 ? 0x1p24 : 0x1p53), ""), v, "");
  LLVMValueRef bits = LLVMBuildBitCast(b, scaled, it, "");
  LLVMValueRef field = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, ir_const_int(it, mant), ""),
                                    ir_const_int(it, emask), "");
  LLVMValueRef e = LLVMBuildSub(b, field, ir_const_int(it, bias - 1), "");
  e = LLVMBuildSub(
      b, e, LLVMBuildSelect(b, sub, ir_const_int(it, f32 ? 24 : 53), ir_const_int(it, 0), ""), "");
  LLVMValueRef m = LLVMBuildOr(
      b, LLVMBuildAnd(b, bits, ir_const_int(it, ~((unsigned long long)emask << mant)), ""),
      ir_const_int(it, (unsigned long long)(bias - 1) << mant), "");
  *special = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, v, zero, ""),
                         LLVMBuildFCmp(b, LLVMRealUGE, mag, ir_const_real(t, __builtin_inf()), ""),
                         "");
  e = f32 ? e : LLVMBuildTrunc(b, e, i32, "");
  *exponent = LLVMBuildSelect(b, *special, ir_const_int(i32, 0), e, "");
  return LLVMBuildSelect(b, *special, v, LLVMBuildBitCast(b, m, t, ""), "");
}

/* frexp(x, e): the mantissa, and the exponent stored at e. */
static LLVMValueRef frexp_of(const expander *x) {
  LLVMValueRef e, special, m = decompose(x, arg(x, 0), &e, &special);
  access_at(x, e, LLVMTypeOf(e), LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), arg(x, 1), 1);
  return m;
}

/* ilogb(x): the unbiased exponent as an int; FP_ILOGB0 (INT_MIN) for 0, FP_ILOGBNAN (INT_MAX)
 * for NaN, INT_MAX for inf. logb(x): the same as a float; -inf for 0, +inf for inf, NaN for
 * NaN. */
static LLVMValueRef log_exponent(const expander *x, int as_int) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef v = arg(x, 0), e, special;
  LLVMTypeRef t = LLVMTypeOf(v);
  decompose(x, v, &e, &special);
  LLVMTypeRef it = LLVMTypeOf(e);
  e = LLVMBuildSub(b, e, ir_const_int(it, 1), "");
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, v, ir_const_real(t, 0), "");
  if (as_int)
    return LLVMBuildSelect(
        b, special,
        LLVMBuildSelect(b, zero, ir_const_int(it, 0x80000000u), ir_const_int(it, 0x7fffffff), ""),
        e, "");
  LLVMValueRef inf = ir_const_real(t, __builtin_inf());
  LLVMValueRef edge = LLVMBuildSelect(b, zero, LLVMBuildFNeg(b, inf, ""),
                                      intrinsic(x, "llvm.fabs", &v, 1), ""); /* inf, NaN */
  return LLVMBuildSelect(b, special, edge, LLVMBuildSIToFP(b, e, t, ""), "");
}

/* modf(x, ip): x's fraction with x's sign (±0 for ±inf), and its integral part stored at ip. */
static LLVMValueRef modf_of(const expander *x) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef v = arg(x, 0), whole = intrinsic(x, "llvm.trunc", &v, 1);
  LLVMTypeRef t = LLVMTypeOf(v);
  access_at(x, whole, t, LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), arg(x, 1), 1);
  LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealOEQ, intrinsic(x, "llvm.fabs", &v, 1),
                                   ir_const_real(t, __builtin_inf()), "");
  LLVMValueRef frac = LLVMBuildSelect(b, inf, ir_const_real(t, 0), LLVMBuildFSub(b, v, whole, ""),
                                      "");
  return intrinsic(x, "llvm.copysign", (LLVMValueRef[]){frac, v}, 2);
}

/* ldexp(x, k): llvm.ldexp, k in every element when it is one int. */
static LLVMValueRef ldexp_of(const expander *x) {
  LLVMValueRef v = arg(x, 0), k = arg(x, 1);
  LLVMTypeRef t = LLVMTypeOf(v), kt = ir_int_shaped(t, 32);
  if (ir_is_vector(t) && !ir_is_vector(LLVMTypeOf(k))) {
    LLVMValueRef one = LLVMBuildInsertElement(x->b, LLVMGetPoison(kt), k,
                                              LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), "");
    k = LLVMBuildShuffleVector(x->b, one, LLVMGetPoison(kt), LLVMConstNull(kt), "");
  }
  return ir_intrinsic(x->b, x->m, "llvm.ldexp", (LLVMTypeRef[]){t, kt}, 2, (LLVMValueRef[]){v, k},
                      2);
}

/* bitselect(a, b, c): each bit from b where c's is set, else from a (floats by their bits). */
static LLVMValueRef bitselect_of(const expander *x) {
  LLVMTypeRef t = LLVMTypeOf(x->call), it = ir_int_shaped(t, ir_scalar_bits(t));
  LLVMValueRef v[3];
  for (unsigned i = 0; i < 3; i++) v[i] = LLVMBuildBitCast(x->b, arg(x, i), it, "");
  LLVMValueRef r = LLVMBuildOr(x->b, LLVMBuildAnd(x->b, v[0], LLVMBuildNot(x->b, v[2], ""), ""),
                               LLVMBuildAnd(x->b, v[1], v[2], ""), "");
  return LLVMBuildBitCast(x->b, r, t, "");
}

/* A private int per element of the call's value, in the function's entry block. */
static LLVMValueRef scratch_ints(const expander *x, unsigned n) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(x->call));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(x->c);
  LLVMValueRef p = ir_entry_alloca(b, fn, LLVMArrayType(LLVMInt32TypeInContext(x->c), n));
  LLVMDisposeBuilder(b);
  return p;
}

/* One step of remquo below: where m >= i |y|, m loses it and the quotient gains i. Exact: m
 * lies in [0, 2i |y|) (an i |y| that overflows is infinite, and beyond m). */
static LLVMValueRef quotient_step(const expander *x, LLVMValueRef m, LLVMValueRef ay,
                                  LLVMValueRef *q, unsigned i) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef s = LLVMBuildFMul(b, ay, ir_const_real(LLVMTypeOf(ay), i), "");
  LLVMValueRef ge = LLVMBuildFCmp(b, LLVMRealOGE, m, s, "");
  *q = LLVMBuildSelect(b, ge, LLVMBuildOr(b, *q, ir_const_int(LLVMTypeOf(*q), i), ""), *q, "");
  return LLVMBuildSelect(b, ge, LLVMBuildFSub(b, m, s, ""), m, "");
}

/* remainder(x, y) and remquo(x, y, q) in vector code, not the C library's remquo, which keeps
 * three of the quotient's bits where OpenCL asks for seven. m = |x| mod 2^k |y| (frem, exact)
 * keeps the quotient's low k bits and its parity (k: 7 for remquo, 1 for remainder); steps of
 * 2^(k-1) |y| ... |y| take them off, and the last step rounds m to the nearest multiple of |y|,
 * a tie to the even quotient (|y| - m is exact where it decides). The remainder then takes x's
 * sign (a zero too), the quotient x / y's. A NaN, |x| inf or y 0 gives NaN from frem (and an
 * unspecified quotient); y inf gives x. */
static LLVMValueRef remquo_of(const expander *x, int with_quo) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef vx = arg(x, 0), vy = arg(x, 1);
  LLVMTypeRef t = LLVMTypeOf(vx), it = ir_int_shaped(t, ir_scalar_bits(t)),
              i32 = ir_int_shaped(t, 32);
  unsigned k = with_quo ? 7 : 1;
  LLVMValueRef ax = intrinsic(x, "llvm.fabs", &vx, 1), ay = intrinsic(x, "llvm.fabs", &vy, 1);
  LLVMValueRef m = LLVMBuildFRem(b, ax, LLVMBuildFMul(b, ay, ir_const_real(t, 1u << k), ""), "");
  LLVMValueRef q = ir_const_int(i32, 0);
  for (unsigned i = 1u << (k - 1); i; i >>= 1) m = quotient_step(x, m, ay, &q, i);
  LLVMValueRef d = LLVMBuildFSub(b, ay, m, "");
  LLVMValueRef odd = LLVMBuildTrunc(b, q, ir_int_shaped(t, 1), "");
  LLVMValueRef up = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOGT, m, d, ""),
                                LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOEQ, m, d, ""), odd, ""),
                                "");
  m = LLVMBuildSelect(b, up, LLVMBuildFSub(b, m, ay, ""), m, "");
  LLVMValueRef sign = ir_const_int(it, 1ull << (ir_scalar_bits(t) - 1));
  LLVMValueRef x_sign = LLVMBuildAnd(b, LLVMBuildBitCast(b, vx, it, ""), sign, "");
  LLVMValueRef r = LLVMBuildBitCast(b, LLVMBuildXor(b, LLVMBuildBitCast(b, m, it, ""), x_sign, ""),
                                    t, "");
  if (!with_quo) return r;
  q = LLVMBuildAnd(b, LLVMBuildAdd(b, q, LLVMBuildZExt(b, up, i32, ""), ""), ir_const_int(i32, 127),
                   "");
  LLVMValueRef y_sign = LLVMBuildAnd(b, LLVMBuildBitCast(b, vy, it, ""), sign, "");
  LLVMValueRef negative = LLVMBuildICmp(b, LLVMIntNE, x_sign, y_sign, "");
  q = LLVMBuildSelect(b, negative, LLVMBuildNeg(b, q, ""), q, "");
  access_at(x, q, i32, LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), arg(x, 2), 1);
  return r;
}

/* lgamma, lgamma_r and tgamma of double: the C library's, element by element, each a call of
 * "weft.libm.NAME.pADDRSPACE" (a name no kernel can declare), which the lowering makes once per
 * active lane (lw_builtin, BI_LIBM): glibc has no vector variant of them, and a series in
 * vectors would be hundreds of ulps off (float's are, lower_builtin.c). lgamma_r's int goes
 * through its pointer, element k to the k-th int. lgamma is lgamma_r with the sign put aside:
 * the C library's lgamma writes it to signgam, one int for the whole process, which the workers
 * would race on. */
static LLVMValueRef libm_each(const expander *x) {
  const char *name = x->bi.name;
  int sign = !strcmp(name, "lgamma"), out = sign || !strcmp(name, "lgamma_r");
  unsigned nin = LLVMGetNumArgOperands(x->call) - (unsigned)(out && !sign);
  LLVMTypeRef t = LLVMTypeOf(x->call), e = ir_scalar_of(t), params[3];
  int f32 = LLVMGetTypeKind(e) == LLVMFloatTypeKind;
  LLVMValueRef p = sign  ? scratch_ints(x, ir_is_vector(t) ? LLVMGetVectorSize(t) : 1)
                   : out ? arg(x, nin)
                         : NULL;
  char c_name[64];
  size_t stem = strcspn(name, "_");
  snprintf(c_name, sizeof c_name, "weft.libm.%.*s%s%s.p%u", (int)stem, name, f32 ? "f" : "",
           sign ? "_r" : name + stem, p ? LLVMGetPointerAddressSpace(LLVMTypeOf(p)) : 0);
  for (unsigned i = 0; i < nin; i++) params[i] = e;
  if (p) params[nin] = LLVMTypeOf(p);
  LLVMTypeRef ft = LLVMFunctionType(e, params, nin + (unsigned)out, 0);
  LLVMValueRef fn = ir_function(x->m, c_name, ft);
  unsigned n = ir_is_vector(t) ? LLVMGetVectorSize(t) : 1;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c);
  LLVMValueRef r = LLVMGetPoison(t);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef at = LLVMConstInt(i32, k, 0), a[3];
    for (unsigned i = 0; i < nin; i++)
      a[i] = n > 1 ? LLVMBuildExtractElement(x->b, arg(x, i), at, "") : arg(x, i);
    if (p) a[nin] = LLVMBuildGEP2(x->b, i32, p, &at, 1, "");
    LLVMValueRef v = LLVMBuildCall2(x->b, ft, fn, a, nin + (unsigned)out, "");
    r = n > 1 ? LLVMBuildInsertElement(x->b, r, v, at, "") : v;
  }
  return r;
}

/* lgamma_r(x, p) of float: the sign of gamma(x) to *p, and lgamma(x), which lower_builtin.c
 * computes in vectors. The sign is -1 where gamma is negative: at -0, and below 0 where floor(x)
 * is odd; at the poles it is unspecified (here 1 past 0). */
static LLVMValueRef lgamma_sign(const expander *x) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef v = arg(x, 0);
  LLVMTypeRef t = LLVMTypeOf(v), it = ir_shaped(t, LLVMInt32TypeInContext(x->c));
  LLVMValueRef half = LLVMBuildFMul(b, intrinsic(x, "llvm.floor", &v, 1), ir_const_real(t, 0.5),
                                    "");
  LLVMValueRef odd = LLVMBuildFCmp(b, LLVMRealONE, intrinsic(x, "llvm.floor", &half, 1), half, "");
  LLVMValueRef negative = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, v, ir_const_real(t, 0), ""),
                                       odd, "");
  LLVMValueRef minus_zero = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, v, it, ""),
                                          ir_const_int(it, 0x80000000u), "");
  negative = LLVMBuildOr(b, negative, minus_zero, "");
  LLVMBuildStore(
      b, LLVMBuildSelect(b, negative, ir_const_int(it, (uint32_t)-1), ir_const_int(it, 1), ""),
      arg(x, 1));
  /* lgamma's mangled name: its one parameter is lgamma_r's first ("f", "Dv4_f"), before 'P' */
  size_t len;
  const char *m = LLVMGetValueName2(LLVMGetCalledValue(x->call), &len);
  char name[64];
  snprintf(name, sizeof name, "_Z6lgamma%.*s", (int)strcspn(m + 11, "P"), m + 11);
  LLVMTypeRef ft = LLVMFunctionType(t, &t, 1, 0);
  return LLVMBuildCall2(b, ft, ir_function(x->m, name, ft), &v, 1, "");
}

/* shuffle(x, mask) and shuffle2(x, y, mask): element k is element mask[k] of x (of x then y),
 * of which only the low bits that can index it count. A constant mask folds to one
 * shufflevector; a mask known at run time indexes each element. */
static LLVMValueRef shuffle_of(const expander *x, int two) {
  LLVMValueRef a = arg(x, 0), b = two ? arg(x, 1) : NULL, mask = arg(x, 1 + (unsigned)two);
  LLVMTypeRef vt = LLVMTypeOf(a), mt = LLVMTypeOf(mask), i32 = LLVMInt32TypeInContext(x->c);
  if (!ir_is_vector(vt) || !ir_is_vector(mt)) return NULL;
  unsigned n = LLVMGetVectorSize(vt), m = LLVMGetVectorSize(mt);
  LLVMTypeRef rt = LLVMVectorType(ir_scalar_of(vt), m);
  if (LLVMTypeOf(x->call) != rt) return NULL;
  LLVMValueRef r = LLVMGetPoison(rt);
  for (unsigned k = 0; k < m; k++) {
    LLVMValueRef at = LLVMConstInt(i32, k, 0);
    LLVMValueRef idx = LLVMBuildIntCast2(x->b, LLVMBuildExtractElement(x->b, mask, at, ""), i32, 0,
                                         "");
    LLVMValueRef low = LLVMBuildAnd(x->b, idx, LLVMConstInt(i32, n - 1, 0), "");
    LLVMValueRef e = LLVMBuildExtractElement(x->b, a, low, "");
    if (two) {
      LLVMValueRef in_b = LLVMBuildICmp(x->b, LLVMIntNE,
                                        LLVMBuildAnd(x->b, idx, LLVMConstInt(i32, n, 0), ""),
                                        LLVMConstInt(i32, 0, 0), "");
      e = LLVMBuildSelect(x->b, in_b, LLVMBuildExtractElement(x->b, b, low, ""), e, "");
    }
    r = LLVMBuildInsertElement(x->b, r, e, at, "");
  }
  return r;
}

/* A call of the OpenCL math builtin `name` (sin, cos) on x, declared with the mangling of the
 * expanded call's first parameter (`_Z6sincosDv4_fPS_` -> `_Z3sinDv4_f`); NULL when that
 * cannot be read. */
static LLVMValueRef math_call(const expander *x, const char *name, LLVMValueRef v) {
  cl_type p[2];
  if (builtin_param_types(LLVMGetCalledValue(x->call), p, 2) < 1 || p[0].pointer) return NULL;
  char mangled[64], type[16];
  if (p[0].width) snprintf(type, sizeof type, "Dv%u_%c", p[0].width, p[0].code);
  else snprintf(type, sizeof type, "%c", p[0].code);
  snprintf(mangled, sizeof mangled, "_Z%zu%s%s", strlen(name), name, type);
  LLVMTypeRef t = LLVMTypeOf(v), ft = LLVMFunctionType(t, &t, 1, 0);
  return LLVMBuildCall2(x->b, ft, ir_function(x->m, mangled, ft), &v, 1, "");
}

/* sincos(x, p): sin(x), and cos(x) stored at p. */
static LLVMValueRef sin_cos(const expander *x) {
  LLVMValueRef v = arg(x, 0), c = math_call(x, "cos", v);
  if (!c) return NULL;
  access_at(x, c, LLVMTypeOf(v), LLVMConstInt(LLVMInt32TypeInContext(x->c), 0, 0), arg(x, 1), 1);
  return math_call(x, "sin", v);
}

/* nextafter(x, y): the next float after x towards y, by one step of x's encoding away from or
 * towards 0; from 0 the least subnormal with y's sign; y when they are equal; NaN from a NaN. */
static LLVMValueRef next_after(const expander *x) {
  LLVMBuilderRef b = x->b;
  LLVMValueRef v = arg(x, 0), y = arg(x, 1);
  LLVMTypeRef t = LLVMTypeOf(v), it = ir_int_shaped(t, ir_scalar_bits(t));
  LLVMValueRef bits = LLVMBuildBitCast(b, v, it, ""), zero = ir_const_real(t, 0);
  LLVMValueRef away = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildFCmp(b, LLVMRealOLT, v, y, ""),
                                    LLVMBuildFCmp(b, LLVMRealOGT, v, zero, ""), "");
  LLVMValueRef step = LLVMBuildSelect(b, away, ir_const_int(it, 1), LLVMConstAllOnes(it), "");
  LLVMValueRef r = LLVMBuildBitCast(b, LLVMBuildAdd(b, bits, step, ""), t, "");
  LLVMValueRef sign = LLVMBuildAnd(
      b, LLVMBuildBitCast(b, y, it, ""),
      LLVMBuildShl(b, ir_const_int(it, 1), ir_const_int(it, ir_scalar_bits(t) - 1), ""), "");
  LLVMValueRef tiny = LLVMBuildBitCast(b, LLVMBuildOr(b, sign, ir_const_int(it, 1), ""), t, "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, v, zero, ""), tiny, r, "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, v, y, ""), y, r, "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, v, y, ""), LLVMBuildFAdd(b, v, y, ""), r,
                         "");
}

/* nan(code): a quiet NaN, code in the low bits of its significand (OpenCL 1.2, 6.12.2: "may
 * be placed"); code is a ushort for a half, a uint for a float, a ulong for a double. */
static LLVMValueRef nan_of(const expander *x) {
  unsigned bits = ir_scalar_bits(LLVMTypeOf(x->call)), frac = bits == 16   ? 10
                                                              : bits == 32 ? 23
                                                                           : 52;
  LLVMTypeRef t = LLVMTypeOf(x->call), it = ir_int_shaped(t, bits);
  unsigned long long quiet = 1ull << (frac - 1), exponent = ((1ull << (bits - 1)) - 1) >> frac;
  LLVMValueRef code = LLVMBuildAnd(x->b, arg(x, 0), ir_const_int(it, quiet - 1), "");
  LLVMValueRef nan = ir_const_int(it, exponent << frac | quiet);
  return LLVMBuildBitCast(x->b, LLVMBuildOr(x->b, code, nan, ""), t, "");
}

/* name is `prefix` and a vector width: vload4, vstore16, ... */
static int sized(const char *name, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n)) return 0;
  const char *w = name + n;
  return !strcmp(w, "2") || !strcmp(w, "3") || !strcmp(w, "4") || !strcmp(w, "8") ||
         !strcmp(w, "16");
}

/* The IR for x->call, built before it; NULL when this file does not expand it. */
static LLVMValueRef expand(const expander *x) {
  const char *name = x->bi.name;
  unsigned n = LLVMGetNumArgOperands(x->call);
  if (sized(name, "vload") && n == 2) return vload_store(x, 0);
  if (sized(name, "vstore") && n == 3) return vload_store(x, 1);
  if (!strncmp(name, "vload", 5) && n == 2) return half_access(x, 0);
  if (!strncmp(name, "vstore", 6) && n == 3) return half_access(x, 1);
  if (!strncmp(name, "convert_", 8) && n == 1) return convert(x);
  if (!strcmp(name, "select") && n == 3) return select_builtin(x);
  if (!strcmp(name, "shuffle") && n == 2) return shuffle_of(x, 0);
  if (!strcmp(name, "shuffle2") && n == 3) return shuffle_of(x, 1);
  if (!strcmp(name, "prefetch") && n == 2) return arg(x, 0); /* a hint: nothing to do */
  if (!strncmp(name, "async_work_group_", 17) || !strcmp(name, "wait_group_events"))
    return expand_async(x->m, x->b, x->call, name);
  if (!strncmp(name, "sub_group_", 10) || !strncmp(name, "get_sub_group_", 14))
    return expand_ballot(x->m, x->b, x->call, name);
  LLVMTypeKind e = LLVMGetTypeKind(ir_scalar_of(LLVMTypeOf(x->call)));
  int real = e == LLVMFloatTypeKind || e == LLVMDoubleTypeKind;
  if (!strcmp(name, "fract") && n == 2 && real) return fract_of(x);
  if (!strcmp(name, "sincos") && n == 2 && real) return sin_cos(x);
  if (!strcmp(name, "nextafter") && n == 2 && real) return next_after(x);
  if (!strcmp(name, "nan") && n == 1 && real) return nan_of(x);
  if (!strcmp(name, "remainder") && n == 2 && real) return remquo_of(x, 0);
  if (!strcmp(name, "remquo") && n == 3 && real) return remquo_of(x, 1);
  static const char *const from_libm[] = {"lgamma", "lgamma_r", "tgamma"};
  for (size_t i = 0; i < sizeof from_libm / sizeof *from_libm && real; i++)
    if (!strcmp(name, from_libm[i])) /* float's lgamma and tgamma are lower_builtin.c's */
      return e == LLVMDoubleTypeKind ? libm_each(x) : i == 1 ? lgamma_sign(x) : NULL;
  if (!strcmp(name, "frexp") && n == 2 && real) return frexp_of(x);
  if (!strcmp(name, "modf") && n == 2 && real) return modf_of(x);
  if (!strcmp(name, "ldexp") && n == 2 && real) return ldexp_of(x);
  if (!strcmp(name, "logb") && n == 1 && real) return log_exponent(x, 0);
  LLVMTypeKind a0 = LLVMGetTypeKind(ir_scalar_of(LLVMTypeOf(arg(x, 0))));
  if (!strcmp(name, "ilogb") && n == 1 && (a0 == LLVMFloatTypeKind || a0 == LLVMDoubleTypeKind))
    return log_exponent(x, 1);
  if (!strcmp(name, "bitselect") && n == 3) return bitselect_of(x);
  if (n == 1 && LLVMGetTypeKind(ir_scalar_of(LLVMTypeOf(arg(x, 0)))) != LLVMIntegerTypeKind) {
    LLVMValueRef r = fp_class(x, name);
    if (r) return r;
  }
  if ((!strcmp(name, "any") || !strcmp(name, "all")) && n == 1) return any_all(x, name[1] == 'l');
  for (size_t i = 0; i < sizeof comparisons / sizeof comparisons[0]; i++)
    if (!strcmp(name, comparisons[i].name) && n == 2) return compare(x, comparisons[i].pred);
  int integer = LLVMGetTypeKind(ir_scalar_of(LLVMTypeOf(x->call))) == LLVMIntegerTypeKind;
  return integer ? integer_op(x, name, n) : NULL;
}

/* get_global_id(d) and the other work-item queries with d chosen at run time: the query of
 * each dimension, selected by d, so that the lowering sees constant dimensions only. Past the
 * last dimension ids and offsets are 0, sizes 1 (OpenCL 1.2, 6.12.1). */
static LLVMValueRef dimension_select(const expander *x) {
  LLVMValueRef d = arg(x, 0), fn = LLVMGetCalledValue(x->call);
  LLVMTypeRef t = LLVMTypeOf(x->call), ft = LLVMGlobalGetValueType(fn);
  builtin_kind k = x->bi.kind;
  int zero = k == BI_GLOBAL_ID || k == BI_LOCAL_ID || k == BI_GROUP_ID || k == BI_GLOBAL_OFFSET;
  LLVMValueRef r = LLVMConstInt(t, zero ? 0 : 1, 0);
  for (unsigned dim = 3; dim-- > 0;) {
    LLVMValueRef c = LLVMConstInt(LLVMTypeOf(d), dim, 0);
    LLVMValueRef q = LLVMBuildCall2(x->b, ft, fn, &c, 1, "");
    r = LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntEQ, d, c, ""), q, r, "");
  }
  return r;
}

static int dimension_at_run_time(const expander *x) {
  return x->bi.kind >= BI_GLOBAL_ID && x->bi.kind <= BI_GLOBAL_OFFSET &&
         LLVMGetNumArgOperands(x->call) == 1 && !LLVMIsAConstantInt(arg(x, 0));
}

static void expand_block(expander *x, LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (!LLVMIsACallInst(i)) continue;
    x->call = i;
    x->bi = builtin_of_call(i);
    int by_dimension = dimension_at_run_time(x);
    if (x->bi.kind != BI_UNSUPPORTED && x->bi.kind != BI_SUB_GROUP && !by_dimension) continue;
    LLVMPositionBuilderBefore(x->b, i);
    LLVMSetCurrentDebugLocation2(x->b, LLVMInstructionGetDebugLoc(i)); /* lines for the CFG */
    LLVMValueRef r = by_dimension ? dimension_select(x) : expand(x);
    if (!r) continue;
    if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) LLVMReplaceAllUsesWith(i, r);
    LLVMInstructionEraseFromParent(i);
  }
}

void expand_builtins(LLVMModuleRef m) {
  expander x = {.c = LLVMGetModuleContext(m), .m = m};
  x.b = LLVMCreateBuilderInContext(x.c);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      expand_block(&x, bb);
  LLVMDisposeBuilder(x.b);
}
