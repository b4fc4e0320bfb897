/* The policies' own code in warp functions: runtime/policy_stack.c and policy_pc.c, compiled to
 * bitcode when weft is built (CMakeLists.txt, embed.cmake), are linked into a compile unit's
 * module whose warp functions take their steps (weft_stack_arrive, _diverge and _leave,
 * weft_pc_arrive and _diverge: lower_step.c, lower_region.c). Their functions become internal
 * and always inlined, so the policy's decisions are made where the warp runs, by the same C the
 * scheduler calls, and nothing of them is left as a symbol of its own in the JIT. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "compiler.h"

extern const unsigned char weft_policy_stack_bitcode[], weft_policy_pc_bitcode[];
extern const size_t weft_policy_stack_bitcode_size, weft_policy_pc_bitcode_size;

static const struct {
  const char *name, *step[4]; /* the steps that ask for the policy's code, NULL after */
  const unsigned char *bitcode;
  const size_t *size;
} policies[] = {
    {"policy_stack.bc",
     {"weft_stack_arrive", "weft_stack_diverge", "weft_stack_leave", "weft_stack_open"},
     weft_policy_stack_bitcode,
     &weft_policy_stack_bitcode_size},
    {"policy_pc.bc",
     {"weft_pc_arrive", "weft_pc_diverge", "weft_pc_leave"},
     weft_policy_pc_bitcode,
     &weft_policy_pc_bitcode_size},
};

/* Internal and inlined, with the warp function's CPU: the bitcode was built for any x86-64. A
 * function the policy marks cold (its slow path, `pc`'s arbitration) stays out of line: inlined
 * at every step site of every warp function, its code would crowd the hot loops' registers
 * under every policy, since each site carries every policy's steps. */
static void make_inlined(LLVMContextRef c, LLVMValueRef f) {
  static const char *const target[] = {"target-cpu", "target-features", "tune-cpu"};
  LLVMSetLinkage(f, LLVMInternalLinkage);
  for (size_t i = 0; i < sizeof target / sizeof *target; i++)
    LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, target[i],
                                     (unsigned)strlen(target[i]));
  if (LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                  LLVMGetEnumAttributeKindForName("cold", 4)))
    return;
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

static int used(LLVMModuleRef m, const char *name) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f && LLVMGetFirstUse(f);
}

/* Links policy p's bitcode into m, its functions inlined. */
static weft_status link_policy(LLVMModuleRef m, size_t p, char **err) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      (const char *)policies[p].bitcode, *policies[p].size, policies[p].name, 0);
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

weft_status policy_code_link(LLVMModuleRef m, char **err) {
  for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
    int wanted = 0;
    for (int i = 0; i < 4 && policies[p].step[i]; i++) wanted |= used(m, policies[p].step[i]);
    if (!wanted) continue;
    weft_status st = link_policy(m, p, err);
    if (st) return st;
  }
  return WEFT_SUCCESS;
}
