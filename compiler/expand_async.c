/* The async copies of OpenCL C 1.2 (6.12.10): async_work_group_copy, async_work_group_strided_copy
 * and wait_group_events, as the specification lets an implementation do them. Every work-item
 * of a work-group calls the copy with the same arguments, so each takes its share: element k
 * by the work-item whose linear local id is k modulo the group's size (a loop in a helper of its
 * own, weft.async_copy.*, which the front end's pipeline inlines). The copy need only be done
 * when wait_group_events returns, which every work-item of the group also calls: that is a
 * barrier. The event the copy returns is the one it was given; nothing reads it. */
#include <stdio.h>
#include <string.h>

#include "compiler.h"

/* A work-item query of dimension d (get_local_id, get_local_size: size_t of a uint). */
static LLVMValueRef query(LLVMModuleRef m, LLVMBuilderRef b, const char *mangled, unsigned d) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c),
              ft = LLVMFunctionType(LLVMInt64TypeInContext(c), &i32, 1, 0);
  LLVMValueRef dim = LLVMConstInt(i32, d, 0);
  return LLVMBuildCall2(b, ft, ir_function(m, mangled, ft), &dim, 1, "");
}

/* void weft.async_copy.SIZE.pD.pS(dst, src, num, dst_stride, src_stride): elements of SIZE
 * bytes, element k from src[k * src_stride] to dst[k * dst_stride], for k from this
 * work-item's linear local id up to num by the group's size. */
static LLVMValueRef copy_helper(LLVMModuleRef m, LLVMTypeRef dt, LLVMTypeRef st, unsigned size) {
  char name[64];
  snprintf(name, sizeof name, "weft.async_copy.%u.p%u.p%u", size, LLVMGetPointerAddressSpace(dt),
           LLVMGetPointerAddressSpace(st));
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (f) return f;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), i8 = LLVMInt8TypeInContext(c);
  LLVMTypeRef params[5] = {dt, st, i64, i64, i64};
  f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), params, 5, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, f, ""),
                    check = LLVMAppendBasicBlockInContext(c, f, ""),
                    body = LLVMAppendBasicBlockInContext(c, f, ""),
                    done = LLVMAppendBasicBlockInContext(c, f, "");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef id = query(m, b, "_Z12get_local_idj", 2),
               items = query(m, b, "_Z14get_local_sizej", 2);
  for (unsigned d = 2; d-- > 0;) {
    LLVMValueRef n = query(m, b, "_Z14get_local_sizej", d);
    id = LLVMBuildAdd(b, LLVMBuildMul(b, id, n, ""), query(m, b, "_Z12get_local_idj", d), "");
    items = LLVMBuildMul(b, items, n, "");
  }
  LLVMBuildBr(b, check);
  LLVMPositionBuilderAtEnd(b, check);
  LLVMValueRef k = LLVMBuildPhi(b, i64, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, k, LLVMGetParam(f, 2), ""), body, done);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef bytes = LLVMConstInt(i64, size, 0), at[2];
  for (unsigned i = 0; i < 2; i++) {
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildMul(b, k, LLVMGetParam(f, 3 + i), ""), bytes, "");
    at[i] = LLVMBuildGEP2(b, i8, LLVMGetParam(f, i), &off, 1, "");
  }
  LLVMBuildMemCpy(b, at[0], 1, at[1], 1, bytes);
  LLVMValueRef next = LLVMBuildAdd(b, k, items, "");
  LLVMBuildBr(b, check);
  LLVMAddIncoming(k, (LLVMValueRef[]){id, next}, (LLVMBasicBlockRef[]){entry, body}, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return f; /* made internal and always inlined with the kernel's other helpers (frontend.c) */
}

/* Bytes of the gentype a copy's first parameter points to: a 3-vector takes a 4-vector's. */
static unsigned element_bytes(const cl_type *t) {
  static const char codes[] = "cahstijlmfdD";
  static const unsigned bytes[] = {1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2};
  const char *at = strchr(codes, t->code);
  if (!t->code || !at) return 0;
  unsigned n = t->width == 3 ? 4 : t->width ? t->width : 1;
  return bytes[at - codes] * n;
}

LLVMValueRef expand_async(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), i32 = LLVMInt32TypeInContext(c);
  if (!strcmp(name, "wait_group_events")) { /* barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_...) */
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(c), &i32, 1, 0);
    LLVMValueRef flags = LLVMConstInt(i32, 3, 0);
    return LLVMBuildCall2(b, ft, ir_function(m, "_Z7barrierj", ft), &flags, 1, "");
  }
  int strided = !strcmp(name, "async_work_group_strided_copy");
  if (!strided && strcmp(name, "async_work_group_copy")) return NULL;
  cl_type p[5];
  unsigned n = LLVMGetNumArgOperands(call), size;
  if (n != 4u + (unsigned)strided ||
      builtin_param_types(LLVMGetCalledValue(call), p, 5) != (int)n ||
      !(size = element_bytes(&p[0])))
    return NULL;
  LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0), stride = strided ? LLVMGetOperand(call, 3) : one;
  int to_local = LLVMGetPointerAddressSpace(LLVMTypeOf(dst)) == 3; /* the stride is global's */
  LLVMValueRef f = copy_helper(m, LLVMTypeOf(dst), LLVMTypeOf(src), size);
  LLVMValueRef args[5] = {dst, src, LLVMGetOperand(call, 2), to_local ? one : stride,
                          to_local ? stride : one};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 5, "");
  return LLVMGetOperand(call, n - 1); /* the event given */
}
