/* Helpers for building LLVM IR that the front end's expansions, the lowering and the JIT
 * share: constants in every element of a vector, the bits of an element, widening, calling an
 * intrinsic, and reading an argument as the x86-64 calling convention passed it.
 *
 * Each works on LLVM types alone (no pass's state), so any pass may call them: they are below
 * every pass, and none of them calls up into one. An intrinsic is called one way only,
 * ir_intrinsic, with the types it is overloaded on. */
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

/* ---- constants and types ---- */

LLVMValueRef ir_splat(LLVMTypeRef t, LLVMValueRef e) {
  LLVMValueRef es[256];
  if (!ir_is_vector(t)) return e;
  unsigned n = LLVMGetVectorSize(t) < 256 ? LLVMGetVectorSize(t) : 256;
  for (unsigned i = 0; i < n; i++) es[i] = e;
  return LLVMConstVector(es, n);
}

LLVMValueRef ir_const_int(LLVMTypeRef t, unsigned long long v) {
  return ir_splat(t, LLVMConstInt(ir_scalar_of(t), v, 0));
}

LLVMValueRef ir_const_real(LLVMTypeRef t, double v) {
  return ir_splat(t, LLVMConstReal(ir_scalar_of(t), v));
}

unsigned ir_scalar_bits(LLVMTypeRef t) {
  LLVMTypeRef e = ir_scalar_of(t);
  switch (LLVMGetTypeKind(e)) {
  case LLVMHalfTypeKind: return 16;
  case LLVMFloatTypeKind: return 32;
  case LLVMDoubleTypeKind: return 64;
  default: return LLVMGetIntTypeWidth(e);
  }
}

LLVMValueRef ir_widen(LLVMBuilderRef b, LLVMValueRef x, int x_unsigned) {
  LLVMTypeRef t = LLVMTypeOf(x), wide = ir_int_shaped(t, 2 * ir_scalar_bits(t));
  return x_unsigned ? LLVMBuildZExt(b, x, wide, "") : LLVMBuildSExt(b, x, wide, "");
}

/* An element of a divisor: a ConstantInt that is neither 0 nor, signed, -1. */
static int safe_element(LLVMValueRef e, int is_signed) {
  return e && LLVMIsAConstantInt(e) && LLVMConstIntGetZExtValue(e) != 0 &&
         !(is_signed && LLVMConstIntGetSExtValue(e) == -1);
}

int ir_safe_divisor(LLVMValueRef b, int is_signed) {
  LLVMTypeRef t = LLVMTypeOf(b);
  if (!LLVMIsAConstant(b) || LLVMIsAConstantExpr(b)) return 0;
  if (!ir_is_vector(t)) return safe_element(b, is_signed);
  for (unsigned i = 0; i < LLVMGetVectorSize(t); i++)
    if (!safe_element(LLVMGetAggregateElement(b, i), is_signed)) return 0;
  return 1;
}

/* ---- diagnostics ---- */

static void keep_first_error(LLVMDiagnosticInfoRef info, void *arg) {
  ir_diagnostics *d = arg;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || d->error) return;
  char *text = LLVMGetDiagInfoDescription(info);
  d->error = strdup(text ? text : "LLVM reported an error");
  LLVMDisposeMessage(text);
}

void ir_diagnostics_begin(ir_diagnostics *d, LLVMContextRef c) {
  *d = (ir_diagnostics){LLVMContextGetDiagnosticHandler(c), LLVMContextGetDiagnosticContext(c),
                        NULL};
  LLVMContextSetDiagnosticHandler(c, keep_first_error, d);
}

char *ir_diagnostics_end(ir_diagnostics *d, LLVMContextRef c) {
  LLVMContextSetDiagnosticHandler(c, d->handler, d->arg);
  return d->error;
}

/* ---- calls ---- */

LLVMValueRef ir_intrinsic(LLVMBuilderRef b, LLVMModuleRef m, const char *name, LLVMTypeRef *over,
                          unsigned nover, LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) DIE("unknown intrinsic %s", name);
  LLVMContextRef c = LLVMGetModuleContext(m);
  return LLVMBuildCall2(b, LLVMIntrinsicGetType(c, id, over, nover),
                        LLVMGetIntrinsicDeclaration(m, id, over, nover), args, nargs, "");
}

LLVMTypeRef ir_byval_type(LLVMValueRef fn, unsigned param) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, param + 1, kind);
  return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

LLVMValueRef ir_entry_alloca(LLVMBuilderRef b, LLVMValueRef fn, LLVMTypeRef t) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMPositionBuilder(b, entry, LLVMGetFirstInstruction(entry));
  return LLVMBuildAlloca(b, t, "");
}

LLVMValueRef ir_function(LLVMModuleRef m, const char *name, LLVMTypeRef ft) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f ? f : LLVMAddFunction(m, name, ft);
}

void ir_fn_attr(LLVMValueRef fn, const char *name, uint64_t value) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(fn));
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, kind, value));
}

int ir_has_fn_attr(LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

LLVMValueRef ir_subvector(LLVMBuilderRef b, LLVMValueRef v, unsigned first, unsigned n) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)));
  unsigned size = LLVMGetVectorSize(LLVMTypeOf(v));
  LLVMValueRef *idx = malloc(n * sizeof *idx);
  if (!idx) DIE("out of memory");
  for (unsigned i = 0; i < n; i++)
    idx[i] = first + i < size ? LLVMConstInt(i32, first + i, 0) : LLVMGetPoison(i32);
  LLVMValueRef r = LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                          LLVMConstVector(idx, n), "");
  free(idx);
  return r;
}

static int is_vector3(LLVMTypeRef t) { return ir_is_vector(t) && LLVMGetVectorSize(t) == 3; }

LLVMValueRef ir_bitcast_abi(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef t) {
  if (is_vector3(LLVMTypeOf(v))) v = ir_subvector(b, v, 0, 4);
  if (!is_vector3(t)) return LLVMBuildBitCast(b, v, t, "");
  LLVMTypeRef four = LLVMVectorType(LLVMGetElementType(t), 4);
  return ir_subvector(b, LLVMBuildBitCast(b, v, four, ""), 0, 3);
}

LLVMValueRef ir_passed_as(LLVMBuilderRef b, LLVMValueRef a, LLVMTypeRef real) {
  if (LLVMTypeOf(a) == real) return a;
  if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind) return LLVMBuildLoad2(b, real, a, "");
  return ir_bitcast_abi(b, a, real);
}
