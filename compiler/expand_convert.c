/* OpenCL's conversions as plain IR, for expand_builtins.c: convert_<type>, with _sat
 * (out-of-range values clamp to the type's range, NaN becomes 0) and a rounding mode (_rte,
 * _rtz, _rtp, _rtn), and the conversions of the half loads and stores (vload_half,
 * vstore_half_rtz).
 *
 * LLVM's conversions round to nearest even, and toward zero from floating point to integer.
 * Another mode from floating point to integer rounds first (rint, ceil, floor). A conversion
 * that narrows a floating-point value, or makes one of an integer, compares its nearest-even
 * result with the source and, where the result lies on the wrong side, moves it one unit in the
 * last place toward that side by stepping its bits; the step also takes an overflow to
 * infinity back to the largest finite value, as rounding toward zero must. */
#include <math.h>
#include <string.h>

#include "compiler.h"

static int is_float(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(ir_scalar_of(t));
  return k == LLVMHalfTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
}

/* The bits of the significand, with the implicit one: integers of this many bits or fewer
 * convert exactly. */
static unsigned precision(LLVMTypeRef t) {
  unsigned bits = ir_scalar_bits(t);
  return bits == 16 ? 11 : bits == 32 ? 24 : 53;
}

static LLVMValueRef bool_like(LLVMValueRef like, int v) {
  return ir_const_int(LLVMTypeOf(like), (unsigned long long)v);
}

/* r moved one unit in the last place: toward zero under ROUND_TO_ZERO where it is above the
 * source in magnitude, up under ROUND_UP where it is below, down under ROUND_DOWN where it is
 * above. `above`/`below`: r is greater/less than its source. */
static LLVMValueRef step(LLVMBuilderRef b, LLVMValueRef r, LLVMValueRef above, LLVMValueRef below,
                         ir_rounding mode) {
  LLVMTypeRef t = LLVMTypeOf(r);
  LLVMTypeRef it = ir_int_shaped(t, ir_scalar_bits(t));
  LLVMValueRef bits = LLVMBuildBitCast(b, r, it, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, bits, ir_const_int(it, 0), "");
  LLVMValueRef one = ir_const_int(it, 1), minus = ir_const_int(it, ~0ULL), move, delta;
  if (mode == ROUND_TO_ZERO) {
    move = LLVMBuildSelect(b, neg, below, above, "");
    delta = minus;
  } else if (mode == ROUND_UP) {
    move = below;
    delta = LLVMBuildSelect(b, neg, minus, one, "");
  } else {
    move = above;
    delta = LLVMBuildSelect(b, neg, one, minus, "");
  }
  LLVMValueRef moved = LLVMBuildBitCast(b, LLVMBuildAdd(b, bits, delta, ""), t, "");
  return LLVMBuildSelect(b, move, moved, r, "");
}

static int directed(ir_rounding mode) {
  return mode == ROUND_TO_ZERO || mode == ROUND_UP || mode == ROUND_DOWN;
}

/* A double rounded to float to odd: toward zero, its last bit then set where that was inexact
 * (from the nearest: one unit toward zero where that rounded away). A float keeps 13 bits more
 * than a half, so this float rounds to the half the double itself rounds to, by every mode (two
 * bits more would do); LLVM's direct double-to-half conversion is a library call per element
 * on x86, and 15 times the code for a double16. */
static LLVMValueRef to_odd_float(LLVMBuilderRef b, LLVMValueRef x) {
  LLVMTypeRef f = ir_shaped(LLVMTypeOf(x),
                            LLVMFloatTypeInContext(LLVMGetTypeContext(LLVMTypeOf(x))));
  LLVMValueRef r = LLVMBuildFPTrunc(b, x, f, ""), back = LLVMBuildFPExt(b, r, LLVMTypeOf(x), "");
  LLVMValueRef zero = ir_const_real(LLVMTypeOf(x), 0);
  LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGT, back, x, ""),
                                 LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""), "");
  LLVMValueRef down = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, back, x, ""),
                                   LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""), "");
  LLVMTypeRef it = ir_int_shaped(f, 32);
  LLVMValueRef bits = LLVMBuildBitCast(b, r, it, ""), away = LLVMBuildOr(b, up, down, "");
  bits = LLVMBuildSub(b, bits, LLVMBuildZExt(b, away, it, ""), "");
  LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, back, x, "");
  bits = LLVMBuildOr(b, bits, LLVMBuildZExt(b, inexact, it, ""), "");
  return LLVMBuildBitCast(b, bits, f, "");
}

static LLVMValueRef float_to_float(LLVMBuilderRef b, LLVMValueRef x, LLVMTypeRef to,
                                   ir_rounding mode) {
  unsigned from_bits = ir_scalar_bits(LLVMTypeOf(x)), to_bits = ir_scalar_bits(to);
  if (from_bits == 64 && to_bits == 16) x = to_odd_float(b, x), from_bits = 32;
  if (from_bits <= to_bits) return from_bits == to_bits ? x : LLVMBuildFPExt(b, x, to, "");
  LLVMValueRef r = LLVMBuildFPTrunc(b, x, to, "");
  if (!directed(mode)) return r;
  LLVMValueRef back = LLVMBuildFPExt(b, r, LLVMTypeOf(x), "");
  return step(b, r, LLVMBuildFCmp(b, LLVMRealOGT, back, x, ""),
              LLVMBuildFCmp(b, LLVMRealOLT, back, x, ""), mode);
}

/* An integer of N bits becomes a float that may be 2^N (unsigned) or 2^(N-1) (signed), out of
 * the integer's range: that result is above it; any other converts back exactly. */
static LLVMValueRef int_to_float(LLVMBuilderRef b, LLVMValueRef x, int x_unsigned, LLVMTypeRef to,
                                 ir_rounding mode) {
  LLVMValueRef r = x_unsigned ? LLVMBuildUIToFP(b, x, to, "") : LLVMBuildSIToFP(b, x, to, "");
  unsigned n = ir_scalar_bits(LLVMTypeOf(x));
  if (!directed(mode) || n - (unsigned)!x_unsigned <= precision(to)) return r;
  LLVMValueRef limit = ir_const_real(to, ldexp(1, (int)n - !x_unsigned));
  LLVMValueRef over = LLVMBuildFCmp(b, LLVMRealOGE, r, limit, "");
  LLVMValueRef back = x_unsigned ? LLVMBuildFPToUI(b, r, LLVMTypeOf(x), "")
                                 : LLVMBuildFPToSI(b, r, LLVMTypeOf(x), "");
  LLVMValueRef gt = LLVMBuildICmp(b, x_unsigned ? LLVMIntUGT : LLVMIntSGT, back, x, "");
  LLVMValueRef lt = LLVMBuildICmp(b, x_unsigned ? LLVMIntULT : LLVMIntSLT, back, x, "");
  LLVMValueRef above = LLVMBuildSelect(b, over, bool_like(over, 1), gt, "");
  LLVMValueRef below = LLVMBuildSelect(b, over, bool_like(over, 0), lt, "");
  return step(b, r, above, below, mode);
}

/* The largest value of an integer of `bits` bits (at most 64 counted). */
static unsigned long long max_of(unsigned bits, int is_unsigned) {
  unsigned magnitude = bits - !is_unsigned;
  return magnitude >= 64 ? ~0ULL : (1ULL << magnitude) - 1;
}

static LLVMValueRef float_to_int(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x, LLVMTypeRef to,
                                 int to_unsigned, int saturate, ir_rounding mode) {
  const char *round = mode == ROUND_NEAREST ? "llvm.rint"
                      : mode == ROUND_UP    ? "llvm.ceil"
                      : mode == ROUND_DOWN  ? "llvm.floor"
                                            : NULL;
  if (round) x = ir_intrinsic(b, m, round, (LLVMTypeRef[]){LLVMTypeOf(x)}, 1, &x, 1);
  LLVMValueRef r = to_unsigned ? LLVMBuildFPToUI(b, x, to, "") : LLVMBuildFPToSI(b, x, to, "");
  if (!saturate) return r;
  LLVMTypeRef ft = LLVMTypeOf(x);
  int n = (int)ir_scalar_bits(to);
  LLVMValueRef low = ir_const_real(ft, to_unsigned ? 0 : -ldexp(1, n - 1));
  LLVMValueRef high = ir_const_real(ft, ldexp(1, to_unsigned ? n : n - 1));
  unsigned long long max = max_of((unsigned)n, to_unsigned), min = to_unsigned ? 0 : ~max;
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, x, high, ""), ir_const_int(to, max), r, "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, low, ""), ir_const_int(to, min), r, "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""), ir_const_int(to, 0), r, "");
}

/* The intrinsic `name` (llvm.smin) of x and a bound, a value of the destination's type (taken
 * as signed or not) in x's wider or equal type. */
static LLVMValueRef minmax(LLVMBuilderRef b, LLVMModuleRef m, const char *name, LLVMValueRef x,
                           unsigned long long bound, int bound_signed) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef v = ir_splat(t, LLVMConstInt(ir_scalar_of(t), bound, bound_signed));
  return ir_intrinsic(b, m, name, (LLVMTypeRef[]){LLVMTypeOf(x)}, 1, (LLVMValueRef[]){x, v}, 2);
}

/* x clamped to the range of an integer of `bits` bits, where x's own range exceeds it. */
static LLVMValueRef clamp_to(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x, int x_unsigned,
                             unsigned bits, int to_unsigned) {
  unsigned from = ir_scalar_bits(LLVMTypeOf(x));
  unsigned long long to_max = max_of(bits, to_unsigned);
  if (!x_unsigned && to_unsigned) x = minmax(b, m, "llvm.smax", x, 0, 0);
  else if (!x_unsigned && bits < from) x = minmax(b, m, "llvm.smax", x, ~to_max, 1);
  if (bits - !to_unsigned < from - !x_unsigned) /* the magnitudes' bits: 2^128 does not fit */
    x = minmax(b, m, x_unsigned ? "llvm.umin" : "llvm.smin", x, to_max, !to_unsigned);
  return x;
}

LLVMValueRef ir_convert(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x, int x_unsigned,
                        LLVMTypeRef to, int to_unsigned, int saturate, ir_rounding mode) {
  int from_fp = is_float(LLVMTypeOf(x)), to_fp = is_float(to);
  if (from_fp && to_fp) return float_to_float(b, x, to, mode);
  if (to_fp) return int_to_float(b, x, x_unsigned, to, mode);
  if (from_fp) return float_to_int(b, m, x, to, to_unsigned, saturate, mode);
  unsigned from = ir_scalar_bits(LLVMTypeOf(x)), bits = ir_scalar_bits(to);
  if (saturate) x = clamp_to(b, m, x, x_unsigned, bits, to_unsigned);
  if (from == bits) return x;
  return from > bits  ? LLVMBuildTrunc(b, x, to, "")
         : x_unsigned ? LLVMBuildZExt(b, x, to, "")
                      : LLVMBuildSExt(b, x, to, "");
}

int ir_conversion_modifiers(const char *s, int *saturate, ir_rounding *mode) {
  static const char *const modes[] = {"", "_rte", "_rtz", "_rtp", "_rtn"};
  *saturate = !strncmp(s, "_sat", 4);
  if (*saturate) s += 4;
  for (int i = 0; i < 5; i++)
    if (!strcmp(s, modes[i])) return *mode = (ir_rounding)i, 1;
  return 0;
}
