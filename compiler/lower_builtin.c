/* OpenCL builtins in the warp function. Work-item queries read the work-group and the warp's
 * lane ids; math becomes LLVM vector intrinsics or one call of glibc's libmvec per vector (the
 * `_ZGV` AVX-512/AVX2/SSE variants), never a loop over lanes. Lanes take turns in two places
 * only: __global atomics, one atomicrmw per active lane unless they all add the same amount at
 * the same address, and printf, one call per active lane. Sub-groups are in lower_subgroup.c.
 * Every function here works for a uniform call (scalars) and for one lane group (vectors). */
#include <string.h>

#include "lower.h"

static LLVMValueRef arg(lower *L, LLVMValueRef call, unsigned i, int uniform) {
  LLVMValueRef a = LLVMGetOperand(call, i);
  return uniform ? lw_scalar_of(L, a) : lw_vector_of(L, a);
}

static unsigned width_of(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : 1;
}

/* Makes `v` as wide as `like`: a per-lane scalar operand of a vector builtin (clamp(float4,
 * float, float)) is repeated for each element. */
static LLVMValueRef fit(lower *L, LLVMValueRef v, LLVMValueRef like) {
  unsigned n = width_of(like), m = width_of(v);
  if (n == m) return v;
  if (m == 1)
    v = LLVMBuildInsertElement(L->b, LLVMGetPoison(LLVMVectorType(LLVMTypeOf(v), 1)), v,
                               lw_const_i32(L, 0), "");
  LLVMValueRef *mask = ARENA_NEW(L->arena, LLVMValueRef, n);
  for (unsigned i = 0; i < n; i++) mask[i] = lw_const_i32(L, m == 1 ? 0 : i / (n / m));
  return LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(LLVMTypeOf(v)), LLVMConstVector(mask, n),
                                "");
}

static LLVMValueRef const_dim(lower *L, LLVMValueRef call, unsigned *d) {
  LLVMValueRef a = LLVMGetOperand(call, 0);
  if (!LLVMIsAConstantInt(a))
    return lw_unsupported(L, call, "a work-item query with a dimension chosen at run time"), NULL;
  *d = (unsigned)LLVMConstIntGetZExtValue(a);
  return a;
}

static LLVMValueRef group_query(lower *L, LLVMValueRef call, builtin_kind k, int uniform) {
  unsigned d;
  if (k == BI_WORK_DIM) {
    LLVMValueRef r = lw_load_at(L, L->work_group, offsetof(weft_group, work_dim),
                                LLVMInt32TypeInContext(L->c));
    return uniform ? r : lw_splat(L, r);
  }
  if (!const_dim(L, call, &d)) return NULL;
  size_t off = k == BI_GROUP_ID      ? offsetof(weft_group, group_id)
               : k == BI_LOCAL_SIZE  ? offsetof(weft_group, local_size)
               : k == BI_GLOBAL_SIZE ? offsetof(weft_group, global_size)
               : k == BI_NUM_GROUPS  ? offsetof(weft_group, num_groups)
                                     : offsetof(weft_group, global_offset);
  int zero = k == BI_GROUP_ID || k == BI_GLOBAL_OFFSET;
  LLVMValueRef r = d < 3 ? lw_group_u64(L, off + 8 * d) : lw_const_i64(L, zero ? 0 : 1);
  return uniform ? r : lw_splat(L, r);
}

/* get_global_id(d) - get_local_id(d), the same for every work-item of the work-group. */
static LLVMValueRef global_base(lower *L, unsigned d) {
  if (L->global_base[d]) return L->global_base[d];
  LLVMValueRef id = lw_group_u64(L, offsetof(weft_group, group_id) + 8 * d),
               size = lw_group_u64(L, offsetof(weft_group, local_size) + 8 * d),
               offset = lw_group_u64(L, offsetof(weft_group, global_offset) + 8 * d);
  LLVMBasicBlockRef here = lw_at_entry(L);
  L->global_base[d] = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, id, size, ""), offset, "");
  LLVMPositionBuilderAtEnd(L->b, here);
  return L->global_base[d];
}

/* A load of the lanes' local ids, which the scheduler writes before a call and nothing
 * writes during it: marked invariant, so that LLVM hoists an id, and what a loop computes of
 * ids only (a branch's lanes, lw_lanes_where), out of loops that store to memory. */
static LLVMValueRef lid_load(lower *L, LLVMTypeRef t, LLVMValueRef p) {
  LLVMValueRef load = LLVMBuildLoad2(L->b, t, p, "");
  unsigned kind = LLVMGetMDKindIDInContext(L->c, "invariant.load", 14);
  LLVMSetMetadata(load, kind, LLVMMetadataAsValue(L->c, LLVMMDNodeInContext2(L->c, NULL, 0)));
  return load;
}

/* get_local_id / get_global_id for the lanes of the current group. */
static LLVMValueRef work_item_id(lower *L, LLVMValueRef call, builtin_kind k) {
  unsigned d;
  if (!const_dim(L, call, &d)) return NULL;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  if (d >= 3) return lw_splat(L, LLVMConstInt(i64, 0, 0));
  LLVMValueRef p = lw_ctx_field(L, offsetof(weft_warp_ctx, lid) +
                                       4 * (d * WEFT_MAX_WARP + L->lane_group * L->G));
  LLVMValueRef lid = lid_load(L, LLVMVectorType(LLVMInt32TypeInContext(L->c), L->G), p);
  LLVMSetAlignment(lid, 4);
  lid = LLVMBuildZExt(L->b, lid, LLVMVectorType(i64, L->G), "");
  return k == BI_LOCAL_ID ? lid : LLVMBuildAdd(L->b, lw_splat(L, global_base(L, d)), lid, "");
}

LLVMValueRef lw_lane_id(lower *L, LLVMValueRef call, LLVMValueRef lane) {
  builtin bi = builtin_of_call(call);
  unsigned d;
  if ((bi.kind != BI_GLOBAL_ID && bi.kind != BI_LOCAL_ID) || !const_dim(L, call, &d)) return NULL;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), i64 = LLVMInt64TypeInContext(L->c);
  if (d >= 3) return LLVMConstInt(i64, 0, 0);
  LLVMValueRef at = LLVMBuildAdd(L->b, lane,
                                 lw_const_i64(L, d * WEFT_MAX_WARP + L->lane_group * L->G), "");
  LLVMValueRef p = LLVMBuildGEP2(L->b, i32, lw_ctx_field(L, offsetof(weft_warp_ctx, lid)), &at, 1,
                                 "");
  LLVMValueRef lid = LLVMBuildZExt(L->b, lid_load(L, i32, p), i64, "");
  return bi.kind == BI_LOCAL_ID ? lid : LLVMBuildAdd(L->b, global_base(L, d), lid, "");
}

/* ---- math ---- */

/* in_double: the float form of the first name (not the native_ and half_ ones) is computed in
 * double and rounded once: OpenCL's bound (1.2, 7.4: 3 ulp, log1p and cbrt 2) is below the 4
 * ulp of glibc's vector float variants (its logf is 3.75 ulp off at 0.88357294, exp10f 3.2 at
 * -1), and its double variants are within a few ulps of a double. */
typedef struct math_entry {
  const char *names; /* space-separated OpenCL names */
  const char *target; /* llvm intrinsic ("llvm.sqrt") or libmvec base name ("exp") */
  int nargs, in_double;
} math_entry;

static const math_entry math_table[] = {
    {" sqrt native_sqrt half_sqrt ", "llvm.sqrt", 1, 0},
    {" fabs ", "llvm.fabs", 1, 0},
    {" floor ", "llvm.floor", 1, 0},
    {" ceil ", "llvm.ceil", 1, 0},
    {" trunc ", "llvm.trunc", 1, 0},
    {" rint ", "llvm.rint", 1, 0},
    {" round ", "llvm.round", 1, 0},
    {" fmin min ", "llvm.minnum", 2, 0},
    {" fmax max ", "llvm.maxnum", 2, 0},
    {" copysign ", "llvm.copysign", 2, 0},
    {" fma ", "llvm.fma", 3, 0},
    {" exp native_exp half_exp ", "exp", 1, 1},
    {" exp2 native_exp2 half_exp2 ", "exp2", 1, 1},
    {" exp10 native_exp10 half_exp10 ", "exp10", 1, 1},
    {" log native_log half_log ", "log", 1, 1},
    {" log2 native_log2 half_log2 ", "log2", 1, 1},
    {" log10 native_log10 half_log10 ", "log10", 1, 1},
    {" sin native_sin half_sin ", "sin", 1, 0},
    {" cos native_cos half_cos ", "cos", 1, 0},
    {" tan native_tan half_tan ", "tan", 1, 0},
    {" asin ", "asin", 1, 0},
    {" acos ", "acos", 1, 0},
    {" atan ", "atan", 1, 0},
    {" sinh ", "sinh", 1, 0},
    {" cosh ", "cosh", 1, 0},
    {" tanh ", "tanh", 1, 0},
    {" cbrt ", "cbrt", 1, 1},
    {" asinh ", "asinh", 1, 0},
    {" acosh ", "acosh", 1, 0},
    {" atanh ", "atanh", 1, 0},
    {" erf ", "erf", 1, 0},
    {" erfc ", "erfc", 1, 0},
    {" expm1 ", "expm1", 1, 1},
    {" log1p ", "log1p", 1, 1},
    {" pow native_powr half_powr ", "pow", 2, 0},
    {" atan2 ", "atan2", 2, 0},
    {" hypot ", "hypot", 2, 0},
};

static const math_entry *math_find(const char *name) {
  char key[sizeof(((builtin *)0)->name) + 2];
  snprintf(key, sizeof key, " %s ", name);
  for (size_t i = 0; i < sizeof math_table / sizeof math_table[0]; i++)
    if (strstr(math_table[i].names, key)) return &math_table[i];
  return NULL;
}

/* result[first .. first+w) = piece, the rest kept. */
static LLVMValueRef place(lower *L, LLVMValueRef result, LLVMValueRef piece, unsigned first) {
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(result)), w = LLVMGetVectorSize(LLVMTypeOf(piece));
  LLVMValueRef wide = w == n ? piece : ir_subvector(L->b, piece, 0, n); /* poison past w */
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, n);
  for (unsigned i = 0; i < n; i++)
    m[i] = lw_const_i32(L, i >= first && i < first + w ? n + i - first : i);
  return LLVMBuildShuffleVector(L->b, result, wide, LLVMConstVector(m, n), "");
}

static LLVMValueRef call_named(lower *L, const char *name, LLVMTypeRef t, LLVMValueRef *args,
                               int n) {
  LLVMTypeRef params[3] = {t, t, t};
  LLVMTypeRef ft = LLVMFunctionType(t, params, (unsigned)n, 0);
  return LLVMBuildCall2(L->b, ft, ir_function(L->m, name, ft), args, (unsigned)n, "");
}

/* One libmvec call per vector of the widest ISA variant, or libm for a scalar. */
static LLVMValueRef libmvec(lower *L, const char *base, LLVMValueRef *a, int nargs) {
  LLVMTypeRef t = LLVMTypeOf(a[0]);
  int is_vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  LLVMTypeRef e = is_vec ? LLVMGetElementType(t) : t;
  int f32 = LLVMGetTypeKind(e) == LLVMFloatTypeKind;
  char name[64];
  if (!is_vec) {
    snprintf(name, sizeof name, "%s%s", base, f32 ? "f" : "");
    return call_named(L, name, t, a, nargs);
  }
  unsigned n = LLVMGetVectorSize(t), w = f32 ? (L->avx512 ? 16 : 8) : (L->avx512 ? 8 : 4);
  while (w > n || n % w) w /= 2;
  const char isa = w * (f32 ? 4 : 8) == 64 ? 'e' : w * (f32 ? 4 : 8) == 32 ? 'd' : 'b';
  snprintf(name, sizeof name, "_ZGV%cN%u%s_%s%s", isa, w, nargs == 2 ? "vv" : "v", base,
           f32 ? "f" : "");
  LLVMValueRef result = LLVMGetPoison(t);
  for (unsigned first = 0; first < n; first += w) {
    LLVMValueRef pa[2];
    for (int i = 0; i < nargs; i++) pa[i] = w == n ? a[i] : ir_subvector(L->b, a[i], first, w);
    LLVMValueRef r = call_named(L, name, LLVMVectorType(e, w), pa, nargs);
    if (w == n) return r;
    result = place(L, result, r, first);
  }
  return result;
}

static LLVMValueRef libmvec_in_double(lower *L, const char *base, LLVMValueRef *a, int nargs) {
  LLVMTypeRef t = LLVMTypeOf(a[0]), d = LLVMDoubleTypeInContext(L->c);
  LLVMTypeRef dt = ir_is_vector(t) ? LLVMVectorType(d, LLVMGetVectorSize(t)) : d;
  LLVMValueRef wide[3];
  for (int i = 0; i < nargs; i++) wide[i] = LLVMBuildFPExt(L->b, a[i], dt, "");
  return LLVMBuildFPTrunc(L->b, libmvec(L, base, wide, nargs), t, "");
}

static LLVMValueRef fconst(LLVMValueRef like, double v) {
  return ir_const_real(LLVMTypeOf(like), v);
}

static LLVMValueRef minmax(lower *L, const char *intr, LLVMValueRef a, LLVMValueRef b) {
  return lw_intrinsic(L, intr, (LLVMTypeRef[]){LLVMTypeOf(a)}, 1, (LLVMValueRef[]){a, b}, 2);
}

/* maxmag: the argument of the greater magnitude, fmax of the two when they are equal (minmag
 * likewise). */
static LLVMValueRef magnitude(lower *L, int max, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t[] = {LLVMTypeOf(x)};
  LLVMValueRef ax = lw_intrinsic(L, "llvm.fabs", t, 1, &x, 1),
               ay = lw_intrinsic(L, "llvm.fabs", t, 1, &y, 1);
  LLVMRealPredicate wins = max ? LLVMRealOGT : LLVMRealOLT, loses = max ? LLVMRealOLT : LLVMRealOGT;
  LLVMValueRef tie = minmax(L, max ? "llvm.maxnum" : "llvm.minnum", x, y);
  LLVMValueRef r = LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, loses, ax, ay, ""), y, tie, "");
  return LLVMBuildSelect(L->b, LLVMBuildFCmp(L->b, wins, ax, ay, ""), x, r, "");
}

/* ---- geometric functions: per-lane reductions over a vector's k elements ----
 * length, distance and normalize are bounded relative to the exact result, so their sums of
 * squares must neither overflow nor underflow where the result does not (the length of a float4
 * of 1e30f is 2e30f, of one of 1e-30f 2e-30f). They compute in double, where a float's square
 * is exact and in range, and scale a double vector by a power of two first: 2^-600 when an
 * element is above 2^500, 2^600 when all are below 2^-500, so that the squares that count lie
 * within [2^-948, 2^1000]; a length is scaled back. */

typedef LLVMValueRef combine(LLVMBuilderRef, LLVMValueRef, LLVMValueRef, const char *);

/* The k components of each lane of v combined in order by op (LLVMBuildFAdd, LLVMBuildOr). */
static LLVMValueRef fold(lower *L, LLVMValueRef v, unsigned k, combine *op) {
  if (k == 1) return v;
  LLVMValueRef r = lw_component(L, v, k, 0);
  for (unsigned c = 1; c < k; c++) r = op(L->b, r, lw_component(L, v, k, c), "");
  return r;
}

static LLVMValueRef dot(lower *L, LLVMValueRef x, LLVMValueRef y, unsigned k) {
  return fold(L, LLVMBuildFMul(L->b, x, y, ""), k, LLVMBuildFAdd);
}

static LLVMValueRef sqrt_of(lower *L, LLVMValueRef x) {
  return lw_intrinsic(L, "llvm.sqrt", (LLVMTypeRef[]){LLVMTypeOf(x)}, 1, &x, 1);
}

/* x in double (a float widened), and a double back in the element type of `like` */
static LLVMValueRef wide(lower *L, LLVMValueRef x) {
  LLVMTypeRef d = LLVMDoubleTypeInContext(L->c);
  if (ir_scalar_of(LLVMTypeOf(x)) == d) return x;
  return LLVMBuildFPExt(L->b, x, ir_shaped(LLVMTypeOf(x), d), "");
}

static LLVMValueRef narrow(lower *L, LLVMValueRef x, LLVMValueRef like) {
  LLVMTypeRef e = ir_scalar_of(LLVMTypeOf(like));
  if (ir_scalar_of(LLVMTypeOf(x)) == e) return x;
  return LLVMBuildFPTrunc(L->b, x, ir_shaped(LLVMTypeOf(x), e), "");
}

/* Per lane: if_big where `big`, else if_small where `small`, else 1. */
static LLVMValueRef pick(lower *L, LLVMValueRef big, LLVMValueRef small, double if_big,
                         double if_small) {
  LLVMTypeRef t = ir_shaped(LLVMTypeOf(big), LLVMDoubleTypeInContext(L->c));
  LLVMValueRef r = LLVMBuildSelect(L->b, small, ir_const_real(t, if_small), ir_const_real(t, 1),
                                   "");
  return LLVMBuildSelect(L->b, big, ir_const_real(t, if_big), r, "");
}

/* A double vector x scaled so that its squares are in range (above); *unscale, per lane, takes
 * its length back. */
static LLVMValueRef in_range(lower *L, LLVMValueRef x, unsigned k, LLVMValueRef *unscale) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef ax = lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1);
  LLVMValueRef big = fold(L, LLVMBuildFCmp(L->b, LLVMRealOGT, ax, fconst(x, 0x1p500), ""), k,
                          LLVMBuildOr);
  LLVMValueRef small = fold(L, LLVMBuildFCmp(L->b, LLVMRealOLT, ax, fconst(x, 0x1p-500), ""), k,
                            LLVMBuildAnd);
  *unscale = pick(L, big, small, 0x1p600, 0x1p-600);
  return LLVMBuildFMul(L->b, x, fit(L, pick(L, big, small, 0x1p-600, 0x1p600), x), "");
}

/* The length of a double vector, in double. */
static LLVMValueRef length(lower *L, LLVMValueRef x, unsigned k) {
  LLVMValueRef unscale, s = in_range(L, x, k, &unscale);
  return LLVMBuildFMul(L->b, sqrt_of(L, dot(L, s, s, k)), unscale, "");
}

/* x / length(x), with OpenCL C 3.0's cases (6.15.5): x itself when all its elements are zero,
 * and where one is infinite, x with its infinite elements as ±1 and the others as 0.0 * x[i]
 * (a NaN stays one, and makes every element NaN). A vector scaled down by in_range divides
 * its elements before they are scaled: an element far below the largest would otherwise lose
 * its low bits below the normal range, where its quotient need not lie (normalize((2^532,
 * 2^-443)) has a second element of 2^-975). */
static LLVMValueRef normalize(lower *L, LLVMValueRef x, unsigned k) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef ax = lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1);
  LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealOEQ, ax, fconst(x, __builtin_inf()), "");
  LLVMValueRef one = lw_intrinsic(L, "llvm.copysign", &t, 1, (LLVMValueRef[]){fconst(x, 1), x}, 2);
  LLVMValueRef v = LLVMBuildSelect(b, inf, one, LLVMBuildFMul(b, fconst(x, 0), x, ""), "");
  v = LLVMBuildSelect(b, fit(L, fold(L, inf, k, LLVMBuildOr), x), v, x, "");
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, v, fconst(x, 0), ""), unscale;
  LLVMValueRef s = in_range(L, wide(L, v), k, &unscale);
  LLVMValueRef down = fit(L, LLVMBuildFCmp(b, LLVMRealOGT, unscale, fconst(unscale, 1), ""), s);
  LLVMValueRef n = LLVMBuildFDiv(b, LLVMBuildSelect(b, down, wide(L, v), s, ""),
                                 fit(L, sqrt_of(L, dot(L, s, s, k)), s), "");
  n = LLVMBuildSelect(b, down, LLVMBuildFMul(b, n, fconst(n, 0x1p-600), ""), n, "");
  return LLVMBuildSelect(b, fit(L, fold(L, zero, k, LLVMBuildAnd), x), x, narrow(L, n, x), "");
}

/* a.yzx * b.zxy - a.zxy * b.yzx; for 4-element vectors w is 0.0 (6.12.5), whatever a.w and b.w
 * are (a.w * b.w - a.w * b.w is NaN for an infinite one). */
static LLVMValueRef cross(lower *L, LLVMValueRef a, LLVMValueRef b, unsigned k) {
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(a));
  static const unsigned yzx[4] = {1, 2, 0, 3}, zxy[4] = {2, 0, 1, 3};
  LLVMValueRef *m1 = ARENA_NEW(L->arena, LLVMValueRef, n),
               *m2 = ARENA_NEW(L->arena, LLVMValueRef, n),
               *w0 = ARENA_NEW(L->arena, LLVMValueRef, n);
  for (unsigned i = 0; i < n; i++)
    m1[i] = lw_const_i32(L, i / k * k + yzx[i % k]),
    m2[i] = lw_const_i32(L, i / k * k + zxy[i % k]),
    w0[i] = lw_const_i32(L, i % k == 3 ? n + i : i);
  LLVMValueRef s1 = LLVMConstVector(m1, n), s2 = LLVMConstVector(m2, n),
               p = LLVMGetPoison(LLVMTypeOf(a));
  LLVMValueRef l = LLVMBuildFMul(L->b, LLVMBuildShuffleVector(L->b, a, p, s1, ""),
                                 LLVMBuildShuffleVector(L->b, b, p, s2, ""), "");
  LLVMValueRef r = LLVMBuildFMul(L->b, LLVMBuildShuffleVector(L->b, a, p, s2, ""),
                                 LLVMBuildShuffleVector(L->b, b, p, s1, ""), "");
  return LLVMBuildShuffleVector(L->b, LLVMBuildFSub(L->b, l, r, ""), LLVMConstNull(LLVMTypeOf(a)),
                                LLVMConstVector(w0, n), "");
}

/* The fast_ forms may use half_sqrt and half_rsqrt (8192 ulp); these are within the full
 * forms' bounds. */
static LLVMValueRef geometric(lower *L, const char *n, LLVMValueRef *a, LLVMValueRef call) {
  unsigned k = lw_width(LLVMTypeOf(LLVMGetOperand(call, 0)));
  if (!strncmp(n, "fast_", 5)) n += 5;
  if (!strcmp(n, "dot")) return dot(L, a[0], a[1], k);
  if (!strcmp(n, "length")) return narrow(L, length(L, wide(L, a[0]), k), a[0]);
  if (!strcmp(n, "distance")) /* a float's difference in double: exact, or nearly */
    return narrow(L, length(L, LLVMBuildFSub(L->b, wide(L, a[0]), wide(L, a[1]), ""), k), a[0]);
  if (!strcmp(n, "normalize")) return normalize(L, a[0], k);
  if (!strcmp(n, "cross") && (k == 3 || k == 4)) return cross(L, a[0], a[1], k);
  return NULL;
}

/* pown(x, n): |x|^n, negative for a negative x and an odd n. The parity is n's own: n as a
 * float is even above 2^24. pow of an integral y gives the edge cases (0, inf, NaN^0 = 1). */
static LLVMValueRef pown(lower *L, LLVMValueRef x, LLVMValueRef n) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef mag = libmvec(
      L, "pow",
      (LLVMValueRef[]){lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1), LLVMBuildSIToFP(L->b, n, t, "")},
      2);
  LLVMValueRef odd = LLVMBuildTrunc(L->b, n, ir_int_shaped(LLVMTypeOf(n), 1), "");
  LLVMValueRef signed_ = lw_intrinsic(L, "llvm.copysign", &t, 1, (LLVMValueRef[]){mag, x}, 2);
  return LLVMBuildSelect(L->b, odd, signed_, mag, "");
}

static const double pi = 3.14159265358979323846;

/* x - period * rint(x / period): exact, the same angle in units of pi, however large x is. */
static LLVMValueRef reduce(lower *L, LLVMValueRef x, double period) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef q = LLVMBuildFMul(L->b, x, fconst(x, 1 / period), "");
  LLVMValueRef k = lw_intrinsic(L, "llvm.rint", &t, 1, &q, 1);
  return LLVMBuildFSub(L->b, x, LLVMBuildFMul(L->b, k, fconst(x, period), ""), "");
}

/* sin(pi s) for s in [-1, 1]: s folded into [-0.5, 0.5] (1 - s is exact there), so that the
 * zeros at the integers are exact; a zero takes the sign of `sign_of`. */
static LLVMValueRef sin_pi(lower *L, LLVMValueRef s, LLVMValueRef sign_of) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(s);
  LLVMValueRef up = LLVMBuildFCmp(b, LLVMRealOGT, s, fconst(s, 0.5), ""),
               down = LLVMBuildFCmp(b, LLVMRealOLT, s, fconst(s, -0.5), "");
  s = LLVMBuildSelect(b, up, LLVMBuildFSub(b, fconst(s, 1), s, ""), s, "");
  s = LLVMBuildSelect(b, down, LLVMBuildFSub(b, fconst(s, -1), s, ""), s, "");
  LLVMValueRef v = libmvec(L, "sin", (LLVMValueRef[]){LLVMBuildFMul(b, s, fconst(s, pi), "")}, 1);
  LLVMValueRef zero = LLVMBuildFCmp(b, LLVMRealOEQ, v, fconst(v, 0), "");
  return LLVMBuildSelect(
      b, zero, lw_intrinsic(L, "llvm.copysign", &t, 1, (LLVMValueRef[]){v, sign_of}, 2), v, "");
}

/* tan(pi x), x reduced to r in [-0.5, 0.5]. Past |r| = 0.25, tan(pi r) = ±1 / tan(pi (0.5 - |r|))
 * (0.5 - |r| is exact): pi r rounded near a pole would be many ulps off, and the poles (r = ±0.5)
 * become ±1 / +0, the infinities of r's sign. At an integer n, a zero of n's sign for an even n,
 * of -n's for an odd one (OpenCL 1.2, 7.5.1), which r, +0 whatever n is, cannot say; x / 2 is
 * exact, and an integer for an even n. */
static LLVMValueRef tan_pi(lower *L, LLVMValueRef x) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef r = reduce(L, x, 1), ar = lw_intrinsic(L, "llvm.fabs", &t, 1, &r, 1);
  LLVMValueRef far = LLVMBuildFCmp(b, LLVMRealOGT, ar, fconst(r, 0.25), "");
  LLVMValueRef s = LLVMBuildSelect(b, far, LLVMBuildFSub(b, fconst(r, 0.5), ar, ""), r, "");
  LLVMValueRef v = libmvec(L, "tan", (LLVMValueRef[]){LLVMBuildFMul(b, s, fconst(s, pi), "")}, 1);
  LLVMValueRef cot = lw_intrinsic(L, "llvm.copysign", &t, 1,
                                  (LLVMValueRef[]){LLVMBuildFDiv(b, fconst(v, 1), v, ""), r}, 2);
  v = LLVMBuildSelect(b, far, cot, v, "");
  LLVMValueRef half = LLVMBuildFMul(b, x, fconst(x, 0.5), "");
  LLVMValueRef odd = LLVMBuildFCmp(b, LLVMRealONE, lw_intrinsic(L, "llvm.rint", &t, 1, &half, 1),
                                   half, "");
  LLVMValueRef zero = lw_intrinsic(
      L, "llvm.copysign", &t, 1,
      (LLVMValueRef[]){fconst(x, 0), LLVMBuildSelect(b, odd, LLVMBuildFNeg(b, x, ""), x, "")}, 2);
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, r, fconst(r, 0), ""), zero, v, "");
}

/* sinpi, cospi, tanpi: of pi x, x reduced first (exact zeros at the integers, and at the half
 * integers for cospi; tanpi's poles are inf); asinpi, acospi, atanpi, atan2pi: over pi. NULL
 * for another name. */
static LLVMValueRef times_pi(lower *L, const char *n, LLVMValueRef *a) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef x = a[0];
  LLVMTypeRef t = LLVMTypeOf(x);
  if (!strcmp(n, "sinpi")) return sin_pi(L, reduce(L, x, 2), x);
  if (!strcmp(n, "cospi")) { /* sinpi(0.5 - |r|) */
    LLVMValueRef r = reduce(L, x, 2);
    LLVMValueRef s = LLVMBuildFSub(b, fconst(x, 0.5), lw_intrinsic(L, "llvm.fabs", &t, 1, &r, 1),
                                   "");
    return sin_pi(L, s, fconst(x, 1));
  }
  if (!strcmp(n, "tanpi")) return tan_pi(L, x);
  static const char *const over_pi[] = {"asinpi", "acospi", "atanpi", "atan2pi"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(n, over_pi[i])) {
      char base[8];
      snprintf(base, sizeof base, "%.*s", (int)strlen(n) - 2, n);
      return LLVMBuildFDiv(b, libmvec(L, base, a, i == 3 ? 2 : 1), fconst(x, pi), "");
    }
  return NULL;
}

/* ---- lgamma and tgamma of float: Lanczos's series (g 7, 9 terms) in double, about 1e-15
 * relative, far inside the 16 ulp that a float allows; a double's are the C library's, one call
 * per lane (expand_builtins.c), as that series would be hundreds of ulps off in double. ---- */

static const double lanczos[] = {
    0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
    771.32342877765313,   -176.61502916214059,   12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};

/* For y >= 0.5: gamma(y) = sqrt(2 pi) e^u A with u = (y - 0.5) ln t - t, t = y + 6.5 and A the
 * series; returns u, and A in *series. */
static LLVMValueRef lanczos_exponent(lower *L, LLVMValueRef y, LLVMValueRef *series) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef a = fconst(y, lanczos[0]);
  for (int i = 1; i < 9; i++) /* lanczos[i] / (y - 1 + i) */
    a = LLVMBuildFAdd(
        b, a,
        LLVMBuildFDiv(b, fconst(y, lanczos[i]), LLVMBuildFAdd(b, y, fconst(y, i - 1), ""), ""), "");
  *series = a;
  LLVMValueRef t = LLVMBuildFAdd(b, y, fconst(y, 6.5), "");
  LLVMValueRef u = LLVMBuildFMul(b, LLVMBuildFSub(b, y, fconst(y, 0.5), ""),
                                 libmvec(L, "log", &t, 1), "");
  return LLVMBuildFSub(b, u, t, "");
}

/* lgamma (ln |gamma x|) or tgamma of a double x. Below 0.5 through the reflection
 * gamma(x) gamma(1 - x) = pi / sin(pi x), whose sine is exact at the integers: the poles
 * (lgamma +inf, tgamma NaN past 0 and +-inf at +-0) come out of it. */
static LLVMValueRef gamma_of(lower *L, LLVMValueRef x, int log) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef reflect = LLVMBuildFCmp(b, LLVMRealOLT, x, fconst(x, 0.5), "");
  LLVMValueRef y = LLVMBuildSelect(b, reflect, LLVMBuildFSub(b, fconst(x, 1), x, ""), x, "");
  LLVMValueRef series, u = lanczos_exponent(L, y, &series);
  LLVMValueRef s = sin_pi(L, reduce(L, x, 2), x);
  LLVMValueRef inf = fconst(x, __builtin_inf()), r;
  if (log) {
    LLVMValueRef g = LLVMBuildFAdd(b, LLVMBuildFAdd(b, u, libmvec(L, "log", &series, 1), ""),
                                   fconst(x, 0.91893853320467274178), ""); /* ln sqrt(2 pi) */
    LLVMValueRef as = lw_intrinsic(L, "llvm.fabs", &t, 1, &s, 1);
    LLVMValueRef ln_pi_s = LLVMBuildFSub(b, fconst(x, 1.14472988584940017414),
                                         libmvec(L, "log", &as, 1), ""); /* ln(pi / |s|) */
    r = LLVMBuildSelect(b, reflect, LLVMBuildFSub(b, ln_pi_s, g, ""), g, "");
    LLVMValueRef one_two = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, fconst(x, 1), ""),
                                       LLVMBuildFCmp(b, LLVMRealOEQ, x, fconst(x, 2), ""), "");
    r = LLVMBuildSelect(b, one_two, fconst(x, 0), r, ""); /* exact zeros */
    LLVMValueRef ax = lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1);
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, ax, inf, ""), inf, r, "");
  }
  LLVMValueRef g = LLVMBuildFMul(b, LLVMBuildFMul(b, libmvec(L, "exp", &u, 1), series, ""),
                                 fconst(x, 2.50662827463100050242), ""); /* sqrt(2 pi) */
  r = LLVMBuildSelect(b, reflect, LLVMBuildFDiv(b, fconst(x, pi), LLVMBuildFMul(b, s, g, ""), ""),
                      g, "");
  LLVMValueRef pole = LLVMBuildAnd(
      b, LLVMBuildFCmp(b, LLVMRealOLT, x, fconst(x, 0), ""),
      LLVMBuildFCmp(b, LLVMRealOEQ, lw_intrinsic(L, "llvm.rint", &t, 1, &x, 1), x, ""), "");
  r = LLVMBuildSelect(b, pole, fconst(x, __builtin_nan("")), r, "");
  return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, inf, ""), inf, r, "");
}

/* rootn(x, n): x^(1/n); a negative x has an odd root only (-|x|^(1/n)), NaN for an even n; n = 0
 * is NaN. */
static LLVMValueRef rootn(lower *L, LLVMValueRef x, LLVMValueRef n) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef nf = LLVMBuildSIToFP(b, n, t, ""), ax = lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1);
  LLVMValueRef inv = LLVMBuildFDiv(b, fconst(x, 1), nf, "");
  LLVMValueRef r = libmvec(L, "pow", (LLVMValueRef[]){ax, inv}, 2);
  /* inv is not 1/n: x^(1/n) = x^inv x^d with d = 1/n - inv = fma(-inv, n, 1) / n, and x^d is
   * 1 + d ln x to far below an ulp, where d ln x can be 94 ulps of a double (x subnormal, n =
   * -3). Where x is 0 or inf, r is exact and the term not finite. */
  LLVMValueRef d = LLVMBuildFDiv(
      b,
      lw_intrinsic(L, "llvm.fma", &t, 1,
                   (LLVMValueRef[]){LLVMBuildFNeg(b, inv, ""), nf, fconst(x, 1)}, 3),
      nf, "");
  LLVMValueRef fix = LLVMBuildFMul(b, LLVMBuildFMul(b, r, d, ""), libmvec(L, "log", &ax, 1), "");
  LLVMValueRef finite = LLVMBuildFCmp(b, LLVMRealOLT, lw_intrinsic(L, "llvm.fabs", &t, 1, &fix, 1),
                                      fconst(x, __builtin_inf()), "");
  r = LLVMBuildSelect(b, finite, LLVMBuildFAdd(b, r, fix, ""), r, "");
  LLVMValueRef odd = LLVMBuildTrunc(b, n, ir_int_shaped(LLVMTypeOf(n), 1), "");
  LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, x, fconst(x, 0), "");
  LLVMValueRef nan = fconst(x, __builtin_nan(""));
  r = LLVMBuildSelect(b, odd, lw_intrinsic(L, "llvm.copysign", &t, 1, (LLVMValueRef[]){r, x}, 2),
                      LLVMBuildSelect(b, neg, nan, r, ""), "");
  LLVMValueRef zero_n = LLVMBuildICmp(b, LLVMIntEQ, n, LLVMConstNull(LLVMTypeOf(n)), "");
  return LLVMBuildSelect(b, zero_n, nan, r, "");
}

/* powr(x, y): pow for x >= 0 only (of +0 for -0, whose odd powers pow makes negative), NaN
 * where powr has no value and pow has one (OpenCL 1.2, 7.5.1): x < 0, a NaN (pow(1, NaN) and
 * pow(NaN, 0) are 1), 0^0, inf^0 and 1^inf. */
static LLVMValueRef powr(lower *L, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = L->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = fconst(x, 0), inf = fconst(x, __builtin_inf());
  LLVMValueRef ax = lw_intrinsic(L, "llvm.fabs", &t, 1, &x, 1),
               ay = lw_intrinsic(L, "llvm.fabs", &t, 1, &y, 1);
  LLVMValueRef y0 = LLVMBuildFCmp(b, LLVMRealOEQ, y, zero, "");
  LLVMValueRef none = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealUNO, x, y, ""),
                                  LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""), "");
  LLVMValueRef x0_or_inf = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, zero, ""),
                                       LLVMBuildFCmp(b, LLVMRealOEQ, x, inf, ""), "");
  none = LLVMBuildOr(b, none, LLVMBuildAnd(b, x0_or_inf, y0, ""), "");
  LLVMValueRef one_inf = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOEQ, x, fconst(x, 1), ""),
                                      LLVMBuildFCmp(b, LLVMRealOEQ, ay, inf, ""), "");
  none = LLVMBuildOr(b, none, one_inf, "");
  LLVMValueRef r = libmvec(L, "pow", (LLVMValueRef[]){ax, y}, 2);
  return LLVMBuildSelect(b, none, fconst(x, __builtin_nan("")), r, "");
}

static LLVMValueRef math_special(lower *L, const char *n, LLVMValueRef *a, LLVMValueRef call) {
  LLVMBuilderRef b = L->b;
  LLVMValueRef geo = geometric(L, n, a, call);
  if (geo) return geo;
  if (!strcmp(n, "mad")) return LLVMBuildFAdd(b, LLVMBuildFMul(b, a[0], a[1], ""), a[2], "");
  LLVMValueRef pi_based = times_pi(L, n, a);
  if (pi_based) return pi_based;
  if (!strcmp(n, "smoothstep")) { /* t = clamp((x - e0) / (e1 - e0), 0, 1): t^2 (3 - 2t) */
    LLVMValueRef t = LLVMBuildFDiv(b, LLVMBuildFSub(b, a[2], a[0], ""),
                                   LLVMBuildFSub(b, a[1], a[0], ""), "");
    t = minmax(L, "llvm.minnum", minmax(L, "llvm.maxnum", t, fconst(t, 0)), fconst(t, 1));
    LLVMValueRef u = LLVMBuildFSub(b, fconst(t, 3), LLVMBuildFMul(b, fconst(t, 2), t, ""), "");
    return LLVMBuildFMul(b, LLVMBuildFMul(b, t, t, ""), u, "");
  }
  if (!strcmp(n, "lgamma") || !strcmp(n, "tgamma"))
    return narrow(L, gamma_of(L, wide(L, a[0]), n[0] == 'l'), a[0]);
  if (!strcmp(n, "rootn")) return rootn(L, a[0], a[1]);
  if (!strcmp(n, "powr")) return powr(L, a[0], a[1]);
  if (!strcmp(n, "half_recip")) n = "native_recip";
  if (!strcmp(n, "half_divide")) n = "native_divide";
  if (!strcmp(n, "rsqrt") || !strcmp(n, "native_rsqrt") || !strcmp(n, "half_rsqrt"))
    return LLVMBuildFDiv(b, fconst(a[0], 1.0),
                         lw_intrinsic(L, "llvm.sqrt", (LLVMTypeRef[]){LLVMTypeOf(a[0])}, 1, a, 1),
                         "");
  if (!strcmp(n, "clamp"))
    return minmax(L, "llvm.minnum", minmax(L, "llvm.maxnum", a[0], a[1]), a[2]);
  if (!strcmp(n, "mix"))
    return LLVMBuildFAdd(b, a[0], LLVMBuildFMul(b, LLVMBuildFSub(b, a[1], a[0], ""), a[2], ""), "");
  if (!strcmp(n, "step"))
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, a[1], a[0], ""), fconst(a[1], 0),
                           fconst(a[1], 1), "");
  if (!strcmp(n, "degrees")) return LLVMBuildFMul(b, a[0], fconst(a[0], 57.29577951308232), "");
  if (!strcmp(n, "radians")) return LLVMBuildFMul(b, a[0], fconst(a[0], 0.017453292519943295), "");
  if (!strcmp(n, "fdim")) /* x - y, +0 where x <= y; NaN from a NaN */
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLE, a[0], a[1], ""), fconst(a[0], 0),
                           LLVMBuildFSub(b, a[0], a[1], ""), "");
  if (!strcmp(n, "fmod")) return LLVMBuildFRem(b, a[0], a[1], "");
  if (!strcmp(n, "maxmag") || !strcmp(n, "minmag")) return magnitude(L, n[1] == 'a', a[0], a[1]);
  if (!strcmp(n, "pown")) return pown(L, a[0], a[1]);
  if (!strcmp(n, "native_divide")) return LLVMBuildFDiv(b, a[0], a[1], "");
  if (!strcmp(n, "native_recip")) return LLVMBuildFDiv(b, fconst(a[0], 1.0), a[0], "");
  if (!strcmp(n, "sign")) {
    LLVMValueRef one = fconst(a[0], 1.0), zero = fconst(a[0], 0.0);
    LLVMValueRef s = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, a[0], zero, ""), one,
                                     LLVMBuildSelect(b,
                                                     LLVMBuildFCmp(b, LLVMRealOLT, a[0], zero, ""),
                                                     fconst(a[0], -1.0), a[0], ""),
                                     "");
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, a[0], a[0], ""), zero, s, "");
  }
  lw_unsupported(L, call, "this math builtin");
  return NULL;
}

static LLVMValueRef math(lower *L, LLVMValueRef call, const builtin *bi, int uniform) {
  LLVMValueRef a[3] = {0};
  unsigned n = LLVMGetNumArgOperands(call);
  unsigned widest = 0;
  for (unsigned i = 0; i < n && i < 3; i++) {
    a[i] = arg(L, call, i, uniform);
    if (width_of(a[i]) > width_of(a[widest])) widest = i; /* smoothstep(float, float, float4) */
  }
  for (unsigned i = 0; i < n && i < 3; i++) a[i] = fit(L, a[i], a[widest]);
  const math_entry *m = math_find(bi->name);
  if (!m) return math_special(L, bi->name, a, call);
  if (!strncmp(m->target, "llvm.", 5))
    return lw_intrinsic(L, m->target, (LLVMTypeRef[]){LLVMTypeOf(a[0])}, 1, a, (unsigned)m->nargs);
  if (m->in_double && !strcmp(bi->name, m->target) &&
      LLVMGetTypeKind(ir_scalar_of(LLVMTypeOf(a[0]))) == LLVMFloatTypeKind)
    return libmvec_in_double(L, m->target, a, m->nargs); /* not native_ and half_ */
  return libmvec(L, m->target, a, m->nargs);
}

/* ---- integers ---- */

/* mul_hi: the high half of the full product, in twice the width (i128 for long). */
static LLVMValueRef mul_hi(lower *L, LLVMValueRef x, LLVMValueRef y, int u) {
  LLVMValueRef p = LLVMBuildMul(L->b, ir_widen(L->b, x, u), ir_widen(L->b, y, u), "");
  LLVMValueRef half = ir_const_int(LLVMTypeOf(p), ir_scalar_bits(LLVMTypeOf(x)));
  LLVMValueRef high = LLVMBuildLShr(L->b, p, half, "");
  return LLVMBuildTrunc(L->b, high, LLVMTypeOf(x), "");
}

static LLVMValueRef integer(lower *L, LLVMValueRef call, const builtin *bi, int uniform) {
  LLVMValueRef a[3] = {0};
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned i = 0; i < n && i < 3; i++) a[i] = arg(L, call, i, uniform);
  for (unsigned i = 1; i < n && i < 3; i++) a[i] = fit(L, a[i], a[0]);
  int u = builtin_unsigned(bi);
  const char *mn = u ? "llvm.umin" : "llvm.smin", *mx = u ? "llvm.umax" : "llvm.smax";
  const char *name = bi->name;
  if (!strcmp(name, "min")) return minmax(L, mn, a[0], a[1]);
  if (!strcmp(name, "max")) return minmax(L, mx, a[0], a[1]);
  if (!strcmp(name, "clamp")) return minmax(L, mn, minmax(L, mx, a[0], a[1]), a[2]);
  if (!strcmp(name, "abs_diff")) /* max - min: |x - y| as the unsigned type, overflow or not */
    return LLVMBuildSub(L->b, minmax(L, mx, a[0], a[1]), minmax(L, mn, a[0], a[1]), "");
  if (!strcmp(name, "mul_hi")) return mul_hi(L, a[0], a[1], u);
  if (!strcmp(name, "mad_hi")) return LLVMBuildAdd(L->b, mul_hi(L, a[0], a[1], u), a[2], "");
  if (!strcmp(name, "mul24")) return LLVMBuildMul(L->b, a[0], a[1], "");
  if (!strcmp(name, "mad24"))
    return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, a[0], a[1], ""), a[2], "");
  if (!strcmp(name, "abs"))
    return u ? a[0]
             : lw_intrinsic(L, "llvm.abs", (LLVMTypeRef[]){LLVMTypeOf(a[0])}, 1,
                            (LLVMValueRef[]){a[0], LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0)},
                            2);
  if (!strcmp(name, "popcount"))
    return lw_intrinsic(L, "llvm.ctpop", (LLVMTypeRef[]){LLVMTypeOf(a[0])}, 1, a, 1);
  if (!strcmp(name, "clz"))
    return lw_intrinsic(L, "llvm.ctlz", (LLVMTypeRef[]){LLVMTypeOf(a[0])}, 1,
                        (LLVMValueRef[]){a[0], LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0)}, 2);
  lw_unsupported(L, call, "this integer builtin");
  return NULL;
}

/* ---- atomics: the lanes' read-modify-writes in lane order, each lane with its own old value ----
 * A __global one is a seq_cst atomicrmw or cmpxchg per lane (one for the group when all add
 * the same amount at one address): other work-groups run on other threads. A __local one needs
 * no lock: all the warps of a work-group run on one thread, one after another, so nothing else
 * touches its __local memory. It becomes plain loads and stores: at one address, one load for
 * the group, the lanes' operations in registers and one store; at several, a load and a store
 * per lane, in lane order (local_atomic). Locked instructions per lane cost more than both:
 * for 16M atomic_inc into 256 bins, 45-72 ms against 17-22 ms for a gather and a scatter,
 * which the lanes in order beat (local_atomic). */

static LLVMAtomicRMWBinOp atomic_op(const char *n, int u, int *ok) {
  *ok = 1;
  if (!strcmp(n, "add") || !strcmp(n, "inc")) return LLVMAtomicRMWBinOpAdd;
  if (!strcmp(n, "sub") || !strcmp(n, "dec")) return LLVMAtomicRMWBinOpSub;
  if (!strcmp(n, "xchg")) return LLVMAtomicRMWBinOpXchg;
  if (!strcmp(n, "min")) return u ? LLVMAtomicRMWBinOpUMin : LLVMAtomicRMWBinOpMin;
  if (!strcmp(n, "max")) return u ? LLVMAtomicRMWBinOpUMax : LLVMAtomicRMWBinOpMax;
  if (!strcmp(n, "and")) return LLVMAtomicRMWBinOpAnd;
  if (!strcmp(n, "or")) return LLVMAtomicRMWBinOpOr;
  if (!strcmp(n, "xor")) return LLVMAtomicRMWBinOpXor;
  *ok = 0;
  return LLVMAtomicRMWBinOpAdd;
}

static LLVMValueRef lane(lower *L, LLVMValueRef v, unsigned l) {
  return LLVMBuildExtractElement(L->b, v, lw_const_i32(L, l), "");
}

static int is_uniform(lower *L, LLVMValueRef v) { return divergence_of(L->dv, v).shape == UNIFORM; }

static int is_local(LLVMValueRef p) {
  LLVMTypeRef t = LLVMTypeOf(p);
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind && LLVMGetPointerAddressSpace(t) == 3;
}

/* What a __local atomic leaves where it held old: an atomicrmw's operation with v (cmp NULL),
 * or a cmpxchg's v if old is cmp. */
static LLVMValueRef rmw_apply(lower *L, LLVMAtomicRMWBinOp rmw, LLVMValueRef old, LLVMValueRef v,
                              LLVMValueRef cmp) {
  if (cmp) return LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, old, cmp, ""), v, old, "");
  const char *minmax = rmw == LLVMAtomicRMWBinOpMin    ? "llvm.smin"
                       : rmw == LLVMAtomicRMWBinOpMax  ? "llvm.smax"
                       : rmw == LLVMAtomicRMWBinOpUMin ? "llvm.umin"
                       : rmw == LLVMAtomicRMWBinOpUMax ? "llvm.umax"
                                                       : NULL;
  if (minmax)
    return lw_intrinsic(L, minmax, (LLVMTypeRef[]){LLVMTypeOf(v)}, 1, (LLVMValueRef[]){old, v}, 2);
  switch (rmw) {
  case LLVMAtomicRMWBinOpAdd: return LLVMBuildAdd(L->b, old, v, "");
  case LLVMAtomicRMWBinOpSub: return LLVMBuildSub(L->b, old, v, "");
  case LLVMAtomicRMWBinOpAnd: return LLVMBuildAnd(L->b, old, v, "");
  case LLVMAtomicRMWBinOpOr: return LLVMBuildOr(L->b, old, v, "");
  case LLVMAtomicRMWBinOpXor: return LLVMBuildXor(L->b, old, v, "");
  default: return v; /* xchg */
  }
}

/* An atomicrmw (cmp NULL) or cmpxchg at p: the old value. */
static LLVMValueRef rmw_at(lower *L, LLVMAtomicRMWBinOp rmw, LLVMValueRef p, LLVMValueRef v,
                           LLVMValueRef cmp) {
  LLVMAtomicOrdering seq = LLVMAtomicOrderingSequentiallyConsistent;
  if (!is_local(p)) {
    if (!cmp) return LLVMBuildAtomicRMW(L->b, rmw, p, v, seq, 0);
    return LLVMBuildExtractValue(L->b, LLVMBuildAtomicCmpXchg(L->b, p, cmp, v, seq, seq, 0), 0, "");
  }
  LLVMValueRef old = LLVMBuildLoad2(L->b, LLVMTypeOf(v), p, "");
  LLVMBuildStore(L->b, rmw_apply(L, rmw, old, v, cmp), p);
  return old;
}

/* Every lane adds the same amount at the same address (a counter): the group adds it once for
 * all its active lanes, and each lane gets the old value it would have seen in lane order,
 * old + (active lanes below it) x amount. One atomic instead of G, and no branch per lane. */
static LLVMValueRef atomic_together(lower *L, LLVMAtomicRMWBinOp rmw, LLVMValueRef p,
                                    LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v), i32 = LLVMInt32TypeInContext(L->c),
              gt = LLVMIntTypeInContext(L->c, L->G);
  LLVMValueRef bits = LLVMBuildBitCast(L->b, L->lane_group_mask, gt, "");
  LLVMValueRef active = lw_intrinsic(L, "llvm.ctpop", &gt, 1, &bits, 1);
  LLVMValueRef total = LLVMBuildMul(L->b, LLVMBuildZExtOrBitCast(L->b, active, t, ""), v, "");
  LLVMValueRef old = rmw_at(L, rmw, p, total, NULL);
  LLVMValueRef *below = ARENA_NEW(L->arena, LLVMValueRef, L->G);
  for (unsigned l = 0; l < L->G; l++) below[l] = LLVMConstInt(i32, (1ull << l) - 1, 0);
  LLVMValueRef lanes = LLVMBuildAnd(L->b, lw_splat(L, LLVMBuildZExt(L->b, bits, i32, "")),
                                    LLVMConstVector(below, L->G), "");
  LLVMTypeRef vi32 = LLVMTypeOf(lanes);
  LLVMValueRef rank = lw_intrinsic(L, "llvm.ctpop", &vi32, 1, &lanes, 1);
  rank = LLVMBuildZExtOrBitCast(L->b, rank, lw_vtype(L, t), "");
  LLVMValueRef step = LLVMBuildMul(L->b, rank, lw_splat(L, v), "");
  return rmw == LLVMAtomicRMWBinOpAdd ? LLVMBuildAdd(L->b, lw_splat(L, old), step, "")
                                      : LLVMBuildSub(L->b, lw_splat(L, old), step, "");
}

/* Runs body(lane) for each active lane of the group, in lane order, each in a block of its
 * own; the scalar each returns goes in its lane of the result (of vector type vt). */
typedef LLVMValueRef lane_body(lower *L, const void *arg, unsigned lane);

static LLVMValueRef each_active_lane(lower *L, LLVMTypeRef vt, lane_body *body, const void *arg) {
  LLVMValueRef acc = LLVMGetPoison(vt);
  for (unsigned l = 0; l < L->G; l++) {
    LLVMBasicBlockRef from = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(L->c, L->fn, "lane");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
    LLVMBuildCondBr(L->b, lane(L, L->lane_group_mask, l), run, next);
    LLVMPositionBuilderAtEnd(L->b, run);
    LLVMValueRef with = LLVMBuildInsertElement(L->b, acc, body(L, arg, l), lw_const_i32(L, l), "");
    LLVMBasicBlockRef ran = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, next);
    LLVMPositionBuilderAtEnd(L->b, next);
    LLVMValueRef phi = LLVMBuildPhi(L->b, vt, "");
    LLVMAddIncoming(phi, (LLVMValueRef[]){with, acc}, (LLVMBasicBlockRef[]){ran, from}, 2);
    acc = phi;
  }
  return acc;
}

typedef struct lane_atomic {
  LLVMAtomicRMWBinOp rmw;
  LLVMValueRef p, v, cmp; /* per lane: address, operand (cmpxchg's new value), cmpxchg's
                             compare value (NULL for an atomicrmw) */
} lane_atomic;

static LLVMValueRef atomic_lane(lower *L, const void *arg, unsigned l) {
  const lane_atomic *a = arg;
  return rmw_at(L, a->rmw, lane(L, a->p, l), lane(L, a->v, l), a->cmp ? lane(L, a->cmp, l) : NULL);
}

/* A __local atomic of the group at varying addresses: lane after lane, in lane order, each
 * lane loads, applies its operation and stores, at its 32-bit offset in the work-group's
 * __local memory. An inactive lane writes back the value it read at offset 0, which nothing
 * else can see (a work-group's __local memory belongs to one thread), so that no lane
 * branches; a group whose lanes are all active, the usual case, skips even that.
 * The offsets go through the stack, a volatile store and a volatile 64-bit load per two lanes:
 * an address taken from a vector register reaches its load late, and the CPU runs the next
 * lanes' loads ahead of the earlier lanes' stores, and again when one hit the same address.
 * A byte histogram in C, 16 lanes at a time: 12 ms with addresses from vector registers,
 * 0.81 ms through the stack, 1.75 ms as conflict detection's gather and scatter (the next
 * group's gather waits for the scatter), 0.64 ms as plain C; bench/'s histogram went from
 * 2.40 to 1.28 ms. */
static LLVMValueRef lanes_in_order(lower *L, const lane_atomic *a, LLVMValueRef offsets,
                                   LLVMTypeRef vt, int every_lane) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(L->c), i32 = LLVMInt32TypeInContext(L->c),
              i64 = LLVMInt64TypeInContext(L->c), et = LLVMGetElementType(vt);
  LLVMValueRef olds = LLVMGetPoison(vt), pair = NULL; /* pair: the offsets of lanes l, l + 1 */
  for (unsigned l = 0; l < L->G; l++) {
    if (l % 2 == 0) {
      LLVMValueRef at = LLVMBuildGEP2(L->b, i64, offsets, (LLVMValueRef[]){lw_const_i32(L, l / 2)},
                                      1, "");
      LLVMSetVolatile(pair = LLVMBuildLoad2(L->b, i64, at, ""), 1);
    }
    LLVMValueRef o = LLVMBuildTrunc(
        L->b, l % 2 ? LLVMBuildLShr(L->b, pair, lw_const_i64(L, 32), "") : pair, i32, "");
    LLVMValueRef p = LLVMBuildGEP2(L->b, i8, L->local_mem, &o, 1, "");
    LLVMValueRef old = LLVMBuildLoad2(L->b, et, p, "");
    LLVMValueRef nv = rmw_apply(L, a->rmw, old, lane(L, a->v, l),
                                a->cmp ? lane(L, a->cmp, l) : NULL);
    if (!every_lane) nv = LLVMBuildSelect(L->b, lane(L, L->lane_group_mask, l), nv, old, "");
    LLVMBuildStore(L->b, nv, p);
    olds = LLVMBuildInsertElement(L->b, olds, old, lw_const_i32(L, l), "");
  }
  return olds;
}

static LLVMValueRef local_atomic(lower *L, const lane_atomic *a, LLVMTypeRef vt) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), i64 = LLVMInt64TypeInContext(L->c),
              gt = LLVMIntTypeInContext(L->c, L->G);
  LLVMValueRef base = LLVMBuildPtrToInt(L->b, L->local_mem, i64, "");
  LLVMValueRef off = LLVMBuildSub(
      L->b, LLVMBuildPtrToInt(L->b, a->p, LLVMVectorType(i64, L->G), ""), lw_splat(L, base), "");
  off = LLVMBuildTrunc(L->b, off, LLVMVectorType(i32, L->G), "");
  off = LLVMBuildSelect(L->b, L->lane_group_mask, off, LLVMConstNull(LLVMTypeOf(off)), "");
  LLVMBasicBlockRef here = lw_at_entry(L);
  LLVMValueRef offsets = LLVMBuildAlloca(L->b, LLVMTypeOf(off), "lane_offsets");
  LLVMPositionBuilderAtEnd(L->b, here);
  LLVMSetVolatile(LLVMBuildStore(L->b, off, offsets), 1);
  /* every lane active, the usual case, needs no select per lane */
  LLVMBasicBlockRef every = LLVMAppendBasicBlockInContext(L->c, L->fn, "every_lane"),
                    some = LLVMAppendBasicBlockInContext(L->c, L->fn, "some_lanes"),
                    done = LLVMAppendBasicBlockInContext(L->c, L->fn, "");
  LLVMValueRef bits = LLVMBuildBitCast(L->b, L->lane_group_mask, gt, "");
  LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, bits, LLVMConstAllOnes(gt), ""), every,
                  some);
  LLVMValueRef olds[2];
  LLVMBasicBlockRef from[2];
  for (int masked = 0; masked < 2; masked++) {
    LLVMPositionBuilderAtEnd(L->b, masked ? some : every);
    olds[masked] = lanes_in_order(L, a, offsets, vt, !masked);
    from[masked] = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, done);
  }
  LLVMPositionBuilderAtEnd(L->b, done);
  LLVMValueRef phi = LLVMBuildPhi(L->b, vt, "");
  LLVMAddIncoming(phi, olds, from, 2);
  return phi;
}

/* A __local atomic of the group's lanes at one address p: one load, the lanes' operations in
 * lane order in registers (each lane's old value is the one before its own), one store. */
static LLVMValueRef local_atomic_at(lower *L, const lane_atomic *a, LLVMValueRef p,
                                    LLVMTypeRef vt) {
  LLVMValueRef cur = LLVMBuildLoad2(L->b, LLVMGetElementType(vt), p, ""), olds = LLVMGetPoison(vt);
  for (unsigned l = 0; l < L->G; l++) {
    olds = LLVMBuildInsertElement(L->b, olds, cur, lw_const_i32(L, l), "");
    LLVMValueRef nv = rmw_apply(L, a->rmw, cur, lane(L, a->v, l),
                                a->cmp ? lane(L, a->cmp, l) : NULL);
    cur = LLVMBuildSelect(L->b, lane(L, L->lane_group_mask, l), nv, cur, "");
  }
  LLVMBuildStore(L->b, cur, p);
  return olds;
}

static LLVMValueRef atomic(lower *L, LLVMValueRef call, const builtin *bi) {
  const char *op = strchr(bi->name, '_') + 1;
  int cmpxchg = !strcmp(op, "cmpxchg"), ok = 1, unary = !strcmp(op, "inc") || !strcmp(op, "dec");
  LLVMAtomicRMWBinOp rmw = cmpxchg ? LLVMAtomicRMWBinOpXchg
                                   : atomic_op(op, builtin_unsigned(bi), &ok);
  if (!ok) return lw_unsupported(L, call, "this atomic builtin"), NULL;
  LLVMTypeRef t = LLVMTypeOf(call);
  if ((rmw == LLVMAtomicRMWBinOpAdd || rmw == LLVMAtomicRMWBinOpSub) && !cmpxchg &&
      is_uniform(L, LLVMGetOperand(call, 0)) && (unary || is_uniform(L, LLVMGetOperand(call, 1))))
    return atomic_together(L, rmw, lw_scalar_of(L, LLVMGetOperand(call, 0)),
                           unary ? LLVMConstInt(t, 1, 0)
                                 : lw_scalar_of(L, LLVMGetOperand(call, 1)));
  lane_atomic a = {rmw, lw_vector_of(L, LLVMGetOperand(call, 0)),
                   unary ? lw_splat(L, LLVMConstInt(t, 1, 0))
                         : lw_vector_of(L, LLVMGetOperand(call, cmpxchg ? 2 : 1)),
                   cmpxchg ? lw_vector_of(L, LLVMGetOperand(call, 1)) : NULL};
  if (is_local(LLVMGetOperand(call, 0)) && is_uniform(L, LLVMGetOperand(call, 0)))
    return local_atomic_at(L, &a, lw_scalar_of(L, LLVMGetOperand(call, 0)), lw_vtype(L, t));
  if (is_local(LLVMGetOperand(call, 0))) return local_atomic(L, &a, lw_vtype(L, t));
  return each_active_lane(L, lw_vtype(L, t), atomic_lane, &a);
}

/* ---- calls made once per active lane: printf, the C library's math, memset and memcpy ---- */

/* A call of fn per active lane (each_active_lane's body), with each argument's value in that
 * lane, or the argument itself where it is uniform; pointers in address space 0 where fn is the
 * C library's (`flat`), whose pointers have no address space. */
typedef struct lane_call {
  LLVMTypeRef type;
  LLVMValueRef fn, *args;
  unsigned char *varying; /* args[i] is the group's vector, else the scalar */
  unsigned n;
  int flat;
} lane_call;

/* The operands of `call` for a lane_call: the scalar where uniform (every one when the call
 * is), else the group's vector. */
static lane_call lane_args(lower *L, LLVMValueRef call, int uniform) {
  lane_call c = {.n = LLVMGetNumArgOperands(call)};
  c.args = ARENA_NEW(L->arena, LLVMValueRef, c.n);
  c.varying = ARENA_NEW(L->arena, unsigned char, c.n);
  for (unsigned i = 0; i < c.n; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    c.varying[i] = !uniform && !is_uniform(L, a);
    c.args[i] = c.varying[i] ? lw_vector_of(L, a) : lw_scalar_of(L, a);
  }
  return c;
}

static LLVMValueRef call_in_lane(lower *L, const void *arg, unsigned l) {
  const lane_call *c = arg;
  LLVMValueRef *a = ARENA_NEW(L->arena, LLVMValueRef, c->n);
  for (unsigned i = 0; i < c->n; i++) {
    a[i] = c->varying[i] ? lane(L, c->args[i], l) : c->args[i];
    if (c->flat && LLVMGetTypeKind(LLVMTypeOf(a[i])) == LLVMPointerTypeKind)
      a[i] = LLVMBuildAddrSpaceCast(L->b, a[i], LLVMPointerTypeInContext(L->c, 0), "");
  }
  return LLVMBuildCall2(L->b, c->type, c->fn, a, c->n, "");
}

/* OpenCL's printf returns 0, or -1 when it failed. */
static LLVMValueRef print_lane(lower *L, const void *arg, unsigned l) {
  LLVMValueRef r = call_in_lane(L, arg, l);
  LLVMValueRef failed = LLVMBuildICmp(L->b, LLVMIntSLT, r, lw_const_i32(L, 0), "");
  return LLVMBuildSExt(L->b, failed, LLVMInt32TypeInContext(L->c), "");
}

/* printf: the C library's, in lane order (__constant strings are pointers of every lane). */
static LLVMValueRef print(lower *L, LLVMValueRef call) {
  if (printf_vector_left(call))
    return lw_unsupported(L, call, "printf of a vector without its length modifier (%v4hlf)"), NULL;
  const char *mismatch = printf_mismatch(call);
  if (mismatch) return lw_unsupported(L, call, mismatch), NULL;
  for (unsigned i = 0; i < LLVMGetNumArgOperands(call); i++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, i))) == LLVMVectorTypeKind)
      return lw_unsupported(L, call, "printf of a vector with a conversion for a scalar"), NULL;
  lane_call c = lane_args(L, call, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), ptr = LLVMPointerTypeInContext(L->c, 0);
  c.type = LLVMFunctionType(i32, &ptr, 1, 1), c.fn = LLVMGetCalledValue(call), c.flat = 1;
  return each_active_lane(L, lw_vtype(L, i32), print_lane, &c);
}

/* weft.libm.NAME.pN (expand_builtins.c): the C library's NAME, its pointers flat. */
static LLVMValueRef libm(lower *L, LLVMValueRef call, const builtin *bi, int uniform) {
  char name[48];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(bi->name + 10, "."), bi->name + 10);
  lane_call c = lane_args(L, call, uniform);
  LLVMTypeRef *params = ARENA_NEW(L->arena, LLVMTypeRef, c.n), rt = LLVMTypeOf(call);
  for (unsigned i = 0; i < c.n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, i));
    params[i] = LLVMGetTypeKind(t) == LLVMPointerTypeKind ? LLVMPointerTypeInContext(L->c, 0) : t;
  }
  c.type = LLVMFunctionType(rt, params, c.n, 0), c.flat = 1;
  c.fn = ir_function(L->m, name, c.type);
  if (uniform) return call_in_lane(L, &c, 0); /* every argument is the scalar */
  return each_active_lane(L, lw_vtype(L, rt), call_in_lane, &c);
}

static LLVMValueRef mem_lane(lower *L, const void *arg, unsigned l) {
  call_in_lane(L, arg, l);
  return lw_const_i32(L, 0); /* the call is void: each_active_lane's result goes unused */
}

/* llvm.memset, memcpy and memmove (a zeroed private array, a struct assigned): the intrinsic
 * itself on each active lane's pointers and length, in lane order; once when all are uniform. */
static LLVMValueRef mem_intrinsic(lower *L, LLVMValueRef call, int uniform) {
  unsigned id = LLVMGetIntrinsicID(LLVMGetCalledValue(call));
  int set = LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, 1))) != LLVMPointerTypeKind;
  LLVMTypeRef over[3] = {LLVMTypeOf(LLVMGetOperand(call, 0)), LLVMTypeOf(LLVMGetOperand(call, 1)),
                         LLVMTypeOf(LLVMGetOperand(call, 2))};
  if (set) over[1] = over[2]; /* memset(p, byte, n): overloaded on p and n */
  unsigned nover = set ? 2 : 3, any = 0;
  lane_call c = lane_args(L, call, uniform);
  c.type = LLVMIntrinsicGetType(L->c, id, over, nover);
  c.fn = LLVMGetIntrinsicDeclaration(L->m, id, over, nover);
  for (unsigned i = 0; i < c.n; i++) any |= c.varying[i];
  if (!any) call_in_lane(L, &c, 0);
  else each_active_lane(L, LLVMVectorType(LLVMInt32TypeInContext(L->c), L->G), mem_lane, &c);
  return NULL;
}

/* ---- calls of LLVM intrinsics that clang or the canonical pipeline left ---- */

static const char *const elementwise[] = {"llvm.fmuladd",    "llvm.fma",
                                          "llvm.fabs",       "llvm.sqrt",
                                          "llvm.floor",      "llvm.ceil",
                                          "llvm.trunc",      "llvm.rint",
                                          "llvm.round",      "llvm.nearbyint",
                                          "llvm.minnum",     "llvm.maxnum",
                                          "llvm.minimum",    "llvm.maximum",
                                          "llvm.copysign",   "llvm.smax",
                                          "llvm.smin",       "llvm.umax",
                                          "llvm.umin",       "llvm.abs",
                                          "llvm.ctpop",      "llvm.ctlz",
                                          "llvm.cttz",       "llvm.fshl",
                                          "llvm.fshr",       "llvm.bswap",
                                          "llvm.bitreverse", "llvm.sadd.sat",
                                          "llvm.uadd.sat",   "llvm.ssub.sat",
                                          "llvm.usub.sat",   "llvm.ldexp",
                                          "llvm.is.fpclass", NULL};
static const char *const no_effect[] = {"llvm.lifetime.",      "llvm.dbg.",
                                        "llvm.assume",         "llvm.experimental.noalias",
                                        "llvm.var.annotation", NULL};

static int has_prefix(const char *const *list, const char *name) {
  for (; *list; list++) {
    size_t n = strlen(*list);
    if (!strncmp(name, *list, n) && (name[n] == 0 || name[n] == '.' || (*list)[n - 1] == '.'))
      return 1;
  }
  return 0;
}

static LLVMValueRef intrinsic_call(lower *L, LLVMValueRef call, int uniform) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  size_t len;
  const char *name = LLVMGetValueName2(callee, &len);
  if (has_prefix(no_effect, name)) return NULL;
  static const char *const memory[] = {"llvm.memset.", "llvm.memcpy.", "llvm.memmove.", NULL};
  if (LLVMGetIntrinsicID(callee) && has_prefix(memory, name) && LLVMGetNumArgOperands(call) == 4)
    return mem_intrinsic(L, call, uniform);
  if (!LLVMGetIntrinsicID(callee) || !has_prefix(elementwise, name)) {
    char what[160];
    snprintf(what, sizeof what, "calls of '%s'", name);
    return lw_unsupported(L, call, what), NULL;
  }
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMTypeRef rt = LLVMTypeOf(call);
  /* llvm.ldexp's exponent is ints of the result's shape; llvm.is.fpclass (which instcombine
   * makes of compares) gives i1s of its operand's shape, and is overloaded on the operand. */
  int ldexp = !strncmp(name, "llvm.ldexp.", 11), fpclass = !strncmp(name, "llvm.is.fpclass.", 16);
  LLVMValueRef args[4];
  for (unsigned i = 0; i < n && i < 4; i++) { /* operands of the result's type are per lane */
    LLVMValueRef a = LLVMGetOperand(call, i);
    int per_lane = (LLVMTypeOf(a) == rt || (ldexp && i == 1) || (fpclass && i == 0)) && !uniform;
    args[i] = per_lane ? lw_vector_of(L, a) : lw_scalar_of(L, a);
  }
  LLVMTypeRef over[2] = {fpclass   ? LLVMTypeOf(args[0])
                         : uniform ? rt
                                   : lw_vtype(L, rt),
                         LLVMTypeOf(args[ldexp])};
  unsigned id = LLVMGetIntrinsicID(callee), nover = ldexp ? 2 : 1;
  return LLVMBuildCall2(L->b, LLVMIntrinsicGetType(L->c, id, over, nover),
                        LLVMGetIntrinsicDeclaration(L->m, id, over, nover), args, n, "");
}

/* What running a call for lanes that do not take its block costs, in kernel instructions (the
 * budget of a region run as selects, lower_region.c), or -1 when it may not run so. An LLVM
 * intrinsic may when LLVM says it is speculatable (llvm.fmuladd, llvm.floor: 1); a builtin when
 * it is arithmetic and writes through no pointer (frexp, sincos): a math function that LLVM
 * expands in line counts 2, one that calls libmvec or expands to more 12. Not weft's opaque
 * divisions (frontend.c), speculatable for LLVM's sake only: a lane that does not take the
 * block may divide by zero. */
int lw_speculation_cost(LLVMValueRef call) {
  LLVMValueRef fn = LLVMGetCalledValue(call);
  if (fn && LLVMIsAFunction(fn) && LLVMGetIntrinsicID(fn))
    return ir_has_fn_attr(fn, "speculatable") ? 1 : -1;
  builtin bi = builtin_of_call(call);
  if (bi.kind != BI_MATH && bi.kind != BI_INTEGER) return -1;
  for (unsigned i = 0; i < LLVMGetNumArgOperands(call); i++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(call, i))) == LLVMPointerTypeKind) return -1;
  const math_entry *m = bi.kind == BI_MATH ? math_find(bi.name) : NULL;
  return bi.kind == BI_INTEGER || (m && !strncmp(m->target, "llvm.", 5)) ? 2 : 12;
}

LLVMValueRef lw_builtin(lower *L, LLVMValueRef call, const builtin *bi, int uniform) {
  switch (bi->kind) {
  case BI_NONE: return intrinsic_call(L, call, uniform);
  case BI_GLOBAL_ID:
  case BI_LOCAL_ID: return work_item_id(L, call, bi->kind);
  case BI_GROUP_ID:
  case BI_LOCAL_SIZE:
  case BI_GLOBAL_SIZE:
  case BI_NUM_GROUPS:
  case BI_GLOBAL_OFFSET:
  case BI_WORK_DIM: return group_query(L, call, bi->kind, uniform);
  case BI_BARRIER:
  case BI_FENCE: return NULL;
  case BI_MATH: return math(L, call, bi, uniform);
  case BI_LIBM: return libm(L, call, bi, uniform);
  case BI_INTEGER: return integer(L, call, bi, uniform);
  case BI_ATOMIC: return atomic(L, call, bi);
  case BI_PRINTF: return print(L, call);
  case BI_SUB_GROUP: {
    LLVMValueRef r = lw_sub_group(L, call, bi, uniform);
    if (r) return r;
    break;
  }
  default: break;
  }
  char what[80];
  snprintf(what, sizeof what, "the builtin '%s'", bi->name);
  lw_unsupported(L, call, what);
  return NULL;
}
