/* Call fusion: one call of a helper where both sides of a branch call it.
 *
 *     B: br c, T, E           B: br c, T1, E1
 *     T: a; x = f(p); b       T1: a                      E1: d
 *     E: d; y = f(q); e  =>   M: r = f(phi(p, q)); br c, T, E
 *     T, E: br J              T: b[x := r]   E: e[y := r]   (then J, as before)
 *
 * A kernel that calls a helper on both sides of a divergent branch would otherwise run the
 * helper twice per warp, each time with only its side's lanes: a loop inside it runs at half
 * the SIMD width or less. Fused, the helper runs once with every lane, and only what each side
 * does before and after the call stays divergent. SIMT semantics allow it: the lanes of the two
 * sides run in no defined order relative to each other, and each lane still runs its own side's
 * code, the call, and its side's code after it, in that order.
 *
 * Only where it pays and is safe: T and E are single blocks with B as their only predecessor
 * and the same successor, each calls f exactly once, f holds a loop or is large, and nothing
 * f can reach is collective (a barrier, a sub-group or work-group function), whose result
 * depends on which lanes run it together. Runs before inlining, on SSA (frontend.c). */
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "compiler.h"

#define FUSE_MIN_INSTRS 32 /* a helper without a loop: smaller ones cost less than a branch */

/* The helper a call calls, if it has a body. */
static LLVMValueRef defined_callee(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return NULL;
  LLVMValueRef f = LLVMGetCalledValue(inst);
  return f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) ? f : NULL;
}

static int collective_name(const char *name) {
  return strstr(name, "barrier") || strstr(name, "sub_group") || strstr(name, "work_group");
}

/* Whether f and what it calls are free of collective functions; *size gets their instructions
 * and *loops whether any has a back edge (a branch to itself or to an earlier block). depth
 * bounds the walk: OpenCL C has no recursion, but a module may still hold some. */
static int fusible(LLVMValueRef f, unsigned *size, int *loops, int depth) {
  if (depth > 16) return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++)
      for (LLVMBasicBlockRef x = LLVMGetFirstBasicBlock(f); x; x = LLVMGetNextBasicBlock(x)) {
        if (x == LLVMGetSuccessor(term, s)) *loops = 1;
        if (x == bb) break;
      }
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i), (*size)++) {
      if (!LLVMIsACallInst(i)) continue;
      LLVMValueRef g = LLVMGetCalledValue(i);
      if (!g || !LLVMIsAFunction(g)) return 0; /* indirect or inline asm: unknown */
      size_t len;
      if (collective_name(LLVMGetValueName2(g, &len))) return 0;
      if (!LLVMIsDeclaration(g) && !fusible(g, size, loops, depth + 1)) return 0;
    }
  }
  return 1;
}

/* The one call of a defined helper in bb, or NULL when there is none or more than one. */
static LLVMValueRef only_call(LLVMBasicBlockRef bb) {
  LLVMValueRef found = NULL;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAPHINode(i)) return NULL;
    if (defined_callee(i)) {
      if (found) return NULL;
      found = i;
    }
  }
  return found;
}

/* bb's only predecessor is `pred` (counting the terminators that name it). */
static int only_pred(LLVMBasicBlockRef bb, LLVMBasicBlockRef pred) {
  int n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsATerminatorInst(user) || LLVMGetInstructionParent(user) != pred) return 0;
    n++;
  }
  return n == 1;
}

static LLVMBasicBlockRef only_succ(LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  return LLVMGetNumSuccessors(term) == 1 && LLVMIsABranchInst(term) ? LLVMGetSuccessor(term, 0)
                                                                    : NULL;
}

/* The call of T that pairs with one in E, when the branch ending B can be fused. */
static int can_fuse(LLVMBasicBlockRef b, LLVMValueRef call[2]) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(b);
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term)) return 0;
  LLVMBasicBlockRef t = LLVMGetSuccessor(term, 0), e = LLVMGetSuccessor(term, 1);
  if (t == e || !only_pred(t, b) || !only_pred(e, b) || !only_succ(t) ||
      only_succ(t) != only_succ(e))
    return 0;
  call[0] = only_call(t), call[1] = only_call(e);
  if (!call[0] || !call[1] || defined_callee(call[0]) != defined_callee(call[1])) return 0;
  unsigned size = 0;
  int loops = 0;
  return fusible(defined_callee(call[0]), &size, &loops, 0) && (loops || size >= FUSE_MIN_INSTRS);
}

/* Moves the instructions of `from` before `call` to the end of `to`. */
static void move_before(LLVMBuilderRef bld, LLVMBasicBlockRef from, LLVMValueRef call,
                        LLVMBasicBlockRef to) {
  LLVMPositionBuilderAtEnd(bld, to);
  for (LLVMValueRef i = LLVMGetFirstInstruction(from); i != call;) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilder(bld, i);
    i = next;
  }
}

/* The values `side` (now running before M) defines and code after M uses reach it through a
 * phi in M, poison from the other side, which never reads them. */
static void pass_through(LLVMBuilderRef bld, LLVMBasicBlockRef side, LLVMBasicBlockRef other,
                         LLVMBasicBlockRef m) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(side); i; i = LLVMGetNextInstruction(i)) {
    LLVMValueRef phi = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(i), next; u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef user = LLVMGetUser(u);
      LLVMBasicBlockRef at = LLVMGetInstructionParent(user);
      if (at == side || (at == m && LLVMIsAPHINode(user))) continue; /* M's phis take it as is */
      if (!phi) {
        LLVMPositionBuilder(bld, m, LLVMGetFirstInstruction(m));
        phi = LLVMBuildPhi(bld, LLVMTypeOf(i), "");
        LLVMValueRef in[2] = {i, LLVMGetPoison(LLVMTypeOf(i))};
        LLVMBasicBlockRef from[2] = {side, other};
        LLVMAddIncoming(phi, in, from, 2);
      }
      for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(user); k++)
        if (LLVMGetOperand(user, k) == i) LLVMSetOperand(user, k, phi);
    }
  }
}

/* M's call: the helper once, its arguments and attributes from the sides' calls. */
static LLVMValueRef fused_call(LLVMBuilderRef bld, LLVMValueRef call[2],
                               LLVMBasicBlockRef side[2]) {
  LLVMValueRef f = LLVMGetCalledValue(call[0]);
  unsigned n = LLVMGetNumArgOperands(call[0]);
  LLVMValueRef args[64];
  if (n > 64) return NULL;
  for (unsigned a = 0; a < n; a++) {
    LLVMValueRef in[2] = {LLVMGetOperand(call[0], a), LLVMGetOperand(call[1], a)};
    args[a] = in[0];
    if (in[0] == in[1]) continue;
    args[a] = LLVMBuildPhi(bld, LLVMTypeOf(in[0]), "");
    LLVMAddIncoming(args[a], in, side, 2);
  }
  LLVMValueRef r = LLVMBuildCall2(bld, LLVMGlobalGetValueType(f), f, args, n, "");
  LLVMSetInstructionCallConv(r, LLVMGetInstructionCallConv(call[0]));
  LLVMInstructionSetDebugLoc(r, LLVMInstructionGetDebugLoc(call[0]));
  for (int idx = -1; idx <= (int)n; idx++) { /* the function, its result, each argument */
    unsigned k = LLVMGetCallSiteAttributeCount(call[0], (LLVMAttributeIndex)idx);
    LLVMAttributeRef attrs[64];
    if (k > 64) continue;
    LLVMGetCallSiteAttributes(call[0], (LLVMAttributeIndex)idx, attrs);
    for (unsigned j = 0; j < k; j++) LLVMAddCallSiteAttribute(r, (LLVMAttributeIndex)idx, attrs[j]);
  }
  return r;
}

static void fuse(LLVMBuilderRef bld, LLVMBasicBlockRef b, LLVMValueRef call[2]) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(LLVMGetBasicBlockParent(b)));
  LLVMValueRef term = LLVMGetBasicBlockTerminator(b);
  LLVMBasicBlockRef side[2], pre[2];
  for (int k = 0; k < 2; k++) {
    side[k] = LLVMGetSuccessor(term, (unsigned)k);
    pre[k] = LLVMInsertBasicBlockInContext(c, side[k], "fuse.pre");
  }
  LLVMBasicBlockRef m = LLVMInsertBasicBlockInContext(c, side[0], "fuse.call");
  for (int k = 0; k < 2; k++) {
    move_before(bld, side[k], call[k], pre[k]);
    LLVMBuildBr(bld, m);
    LLVMSetSuccessor(term, (unsigned)k, pre[k]);
  }
  LLVMPositionBuilderAtEnd(bld, m);
  LLVMValueRef r = fused_call(bld, call, pre);
  LLVMValueRef br = LLVMBuildCondBr(bld, LLVMGetCondition(term), side[0], side[1]);
  LLVMInstructionSetDebugLoc(br, LLVMInstructionGetDebugLoc(term));
  for (int k = 0; k < 2; k++) {
    pass_through(bld, pre[k], pre[1 - k], m);
    LLVMReplaceAllUsesWith(call[k], r);
    LLVMInstructionEraseFromParent(call[k]);
  }
}

void frontend_fuse_calls(LLVMModuleRef m) {
  LLVMBuilderRef bld = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
      LLVMValueRef call[2];
      if (can_fuse(b, call) && LLVMGetNumArgOperands(call[0]) <= 64) fuse(bld, b, call);
    }
  LLVMDisposeBuilder(bld);
}
