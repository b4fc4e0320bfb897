/* The policies' own code in warp functions: runtime/policy_stack.c, compiled to bitcode when
 * weft is built (CMakeLists.txt, embed.cmake), is linked into a compile unit's module whose warp
 * functions take its steps (weft_stack_arrive, weft_stack_diverge: lower_step.c). Its functions become internal and always
 * inlined, so the policy's decisions are made where the warp runs, by the same C the scheduler
 * calls, and nothing of it is left as a symbol of its own in the JIT. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "compiler.h"

extern const unsigned char weft_policy_bitcode[];
extern const size_t weft_policy_bitcode_size;

/* Internal and inlined, with the warp function's CPU: the bitcode was built for any x86-64. */
static void make_inlined(LLVMContextRef c, LLVMValueRef f) {
  static const char *const target[] = {"target-cpu", "target-features", "tune-cpu"};
  LLVMSetLinkage(f, LLVMInternalLinkage);
  for (size_t i = 0; i < sizeof target / sizeof *target; i++)
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, target[i],
                                     (unsigned)strlen(target[i]));
  LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                 LLVMGetEnumAttributeKindForName("noinline", 8));
  LLVMAddAttributeAtIndex(
      f, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
}

/* The names the bitcode defines, to find them in m after linking (NULL-terminated). */
static char **defined_names(LLVMModuleRef src) {
  size_t n = 0, len;
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f; f = LLVMGetNextFunction(f)) n++;
  char **names = calloc(n + 1, sizeof *names);
  if (!names) DIE("out of memory");
  n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && !(names[n++] = strdup(LLVMGetValueName2(f, &len))))
      DIE("out of memory");
  return names;
}

weft_status policy_code_link(LLVMModuleRef m, char **err) {
  LLVMValueRef arrive = LLVMGetNamedFunction(m, "weft_stack_arrive"),
               diverge = LLVMGetNamedFunction(m, "weft_stack_diverge");
  if (!(arrive && LLVMGetFirstUse(arrive)) && !(diverge && LLVMGetFirstUse(diverge)))
    return WEFT_SUCCESS;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      (const char *)weft_policy_bitcode, weft_policy_bitcode_size, "policy_stack.bc", 0);
  LLVMModuleRef src;
  int bad = LLVMParseBitcodeInContext2(c, buf, &src);
  LLVMDisposeMemoryBuffer(buf);
  if (bad)
    return *err = strdup("weft: internal error: the policy's bitcode does not read"),
           WEFT_ERROR_JIT;
  LLVMSetTarget(src, LLVMGetTarget(m));
  LLVMSetDataLayout(src, LLVMGetDataLayoutStr(m));
  for (LLVMValueRef g = LLVMGetFirstGlobal(src); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage); /* the ops table */
  char **names = defined_names(src);
  if (LLVMLinkModules2(m, src)) { /* src is gone either way */
    for (char **n = names; *n; n++) free(*n);
    free(names);
    return *err = strdup("weft: internal error: the policy's bitcode does not link"),
           WEFT_ERROR_JIT;
  }
  for (char **n = names; *n; n++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, *n);
    if (f) make_inlined(c, f);
    free(*n);
  }
  free(names);
  return WEFT_SUCCESS;
}
