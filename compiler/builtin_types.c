/* Calls to builtins in their vectors' own types. clang declares the builtins with the x86-64
 * calling convention, which passes and returns a vector of 8 bytes or less as a scalar (float2
 * and int2 as a double, short2 as an i32, char2 as an i16) and passes one of 32 bytes or more
 * through memory (a byval pointer to a float8). Taken as they stand, fmax(float2) would compare
 * two doubles, select(int2) would test one and fmax(float8) would take two pointers. Each such
 * declaration is replaced by one with the vector types the mangled name gives, and each call
 * bitcasts or loads its arguments to them and bitcasts its result back, which the front end's
 * pipeline folds away. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler.h"

enum { MAX_PARAMS = 8 };

static LLVMTypeRef scalar_type(LLVMContextRef c, char code) {
  switch (code) {
  case 'c':
  case 'a':
  case 'h': return LLVMInt8TypeInContext(c);
  case 's':
  case 't': return LLVMInt16TypeInContext(c);
  case 'i':
  case 'j': return LLVMInt32TypeInContext(c);
  case 'l':
  case 'm': return LLVMInt64TypeInContext(c);
  case 'f': return LLVMFloatTypeInContext(c);
  case 'd': return LLVMDoubleTypeInContext(c);
  case 'D': return LLVMHalfTypeInContext(c);
  default: return NULL;
  }
}

/* The vector type t stands for, when t is the scalar the calling convention made of it. */
static LLVMTypeRef restored(LLVMTargetDataRef td, LLVMTypeRef t, LLVMTypeRef vector) {
  if (!vector || ir_is_vector(t) || !LLVMTypeIsSized(t)) return NULL;
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) return NULL;
  return LLVMABISizeOfType(td, t) == LLVMABISizeOfType(td, vector) ? vector : NULL;
}

/* The type convert_T<n> converts to, from "T<n>" ("int2", "uchar4"); NULL for a scalar. */
static LLVMTypeRef converted(LLVMContextRef c, const char *to) {
  static const struct {
    const char *name;
    char code;
  } types[] = {{"char", 'c'}, {"uchar", 'h'}, {"short", 's'}, {"ushort", 't'}, {"int", 'i'},
               {"uint", 'j'}, {"long", 'l'},  {"ulong", 'm'}, {"float", 'f'},  {"double", 'd'}};
  size_t n = strcspn(to, "0123456789");
  int width = atoi(to + n);
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strlen(types[i].name) == n && !strncmp(to, types[i].name, n) && width >= 2)
      return LLVMVectorType(scalar_type(c, types[i].code), (unsigned)width);
  return NULL;
}

/* The vector type a builtin returns, from its name and parameters; NULL for the builtins that
 * return a scalar from vectors, or when it cannot tell. */
static LLVMTypeRef result_vector(LLVMContextRef c, const char *name, const cl_type *p, int n) {
  static const char *const scalar_results[] = {"any",      "all",         "dot",           "length",
                                               "distance", "fast_length", "fast_distance", NULL};
  for (const char *const *s = scalar_results; *s; s++)
    if (!strcmp(name, *s)) return NULL;
  const cl_type *v = NULL;
  for (int i = 0; i < n && !v; i++) v = p[i].width && !p[i].pointer ? &p[i] : NULL;
  if ((!strncmp(name, "vload_half", 10) || !strncmp(name, "vloada_half", 11)) && n == 2) {
    int width = atoi(name + strcspn(name, "0123456789")); /* floats from halves */
    return width >= 2 ? LLVMVectorType(LLVMFloatTypeInContext(c), (unsigned)width) : NULL;
  }
  if (!strncmp(name, "vload", 5) && n == 2 && p[1].pointer) /* vloadN(offset, p) */
    return scalar_type(c, p[1].code) && atoi(name + 5) >= 2
               ? LLVMVectorType(scalar_type(c, p[1].code), (unsigned)atoi(name + 5))
               : NULL;
  if (!v || !scalar_type(c, v->code)) return NULL;
  if (!strncmp(name, "is", 2) || !strcmp(name, "signbit")) /* relational: ints of its width */
    return LLVMVectorType(LLVMIntTypeInContext(c, v->code == 'd' ? 64 : 32), v->width);
  if (!strncmp(name, "convert_", 8)) return converted(c, name + 8);
  if (!strcmp(name, "shuffle") || !strcmp(name, "shuffle2")) /* x's elements, mask's width */
    return p[n - 1].width ? LLVMVectorType(scalar_type(c, v->code), p[n - 1].width) : NULL;
  if (!strcmp(name, "nan")) /* the reals of its codes' width: uintN gives floatN */
    return LLVMVectorType(v->code == 'm'   ? LLVMDoubleTypeInContext(c)
                          : v->code == 't' ? LLVMHalfTypeInContext(c)
                                           : LLVMFloatTypeInContext(c),
                          v->width);
  if (!strcmp(name, "upsample")) { /* hi and lo, in an element of twice their bits */
    LLVMTypeRef e = scalar_type(c, v->code);
    if (LLVMGetTypeKind(e) != LLVMIntegerTypeKind) return NULL;
    return LLVMVectorType(LLVMIntTypeInContext(c, 2 * LLVMGetIntTypeWidth(e)), v->width);
  }
  return LLVMVectorType(scalar_type(c, v->code), v->width);
}

/* Each call of fn with the restored types: its arguments bitcast to them, its result back. */
static void rewrite_calls(LLVMValueRef fn, LLVMValueRef to, LLVMBuilderRef b) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn), nt = LLVMGlobalGetValueType(to);
  unsigned np = LLVMCountParamTypes(ft);
  LLVMTypeRef real[MAX_PARAMS];
  LLVMGetParamTypes(nt, real);
  for (LLVMUseRef u = LLVMGetFirstUse(fn), next; u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u), args[MAX_PARAMS];
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn) continue;
    LLVMPositionBuilderBefore(b, call);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call)); /* for its line in errors */
    for (unsigned i = 0; i < np; i++) args[i] = ir_passed_as(b, LLVMGetOperand(call, i), real[i]);
    LLVMValueRef r = LLVMBuildCall2(b, nt, to, args, np, "");
    if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind)
      LLVMReplaceAllUsesWith(call, LLVMGetReturnType(ft) == LLVMGetReturnType(nt)
                                       ? r
                                       : ir_bitcast_abi(b, r, LLVMGetReturnType(ft)));
    LLVMInstructionEraseFromParent(call);
  }
}

/* Replaces builtin declaration fn by one with its vectors' own types, when the calling
 * convention made scalars of any. */
static void restore(LLVMModuleRef m, LLVMValueRef fn, LLVMBuilderRef b) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn), params[MAX_PARAMS], real[MAX_PARAMS];
  cl_type p[MAX_PARAMS];
  unsigned np = LLVMCountParamTypes(ft);
  LLVMUseRef use = LLVMGetFirstUse(fn);
  if (!use || !LLVMIsACallInst(LLVMGetUser(use)) || np > MAX_PARAMS ||
      builtin_param_types(fn, p, MAX_PARAMS) != (int)np)
    return;
  builtin bi = builtin_of_call(LLVMGetUser(use));
  LLVMGetParamTypes(ft, params);
  int changed = 0;
  for (unsigned i = 0; i < np; i++) {
    LLVMTypeRef e = p[i].width && !p[i].pointer ? scalar_type(c, p[i].code) : NULL;
    LLVMTypeRef vector = e ? LLVMVectorType(e, p[i].width) : NULL;
    real[i] = vector && ir_byval_type(fn, i) ? vector : restored(td, params[i], vector);
    changed |= real[i] != NULL;
    if (!real[i]) real[i] = params[i];
  }
  LLVMTypeRef ret = LLVMGetReturnType(ft);
  LLVMTypeRef rret = restored(td, ret, result_vector(c, bi.name, p, (int)np));
  if (!changed && !rret) return;
  LLVMValueRef to = LLVMAddFunction(m, "", LLVMFunctionType(rret ? rret : ret, real, np, 0));
  rewrite_calls(fn, to, b);
  size_t len;
  const char *old = LLVMGetValueName2(fn, &len);
  char *name = strndup(old, len);
  if (!LLVMGetFirstUse(fn)) LLVMDeleteFunction(fn); /* else a use that is not a call: keep both */
  LLVMSetValueName2(to, name ? name : "", name ? len : 0);
  free(name);
}

void builtin_types_restore(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f)) restore(m, f, b);
  }
  LLVMDisposeBuilder(b);
}
