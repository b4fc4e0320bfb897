/* A barrier ends its block: every block is split after each barrier call, so that arriving at a
 * barrier is the end of a block, where generated code can return to the scheduler, and resuming
 * is the start of the next one. LLVM's C API has no SplitBasicBlock, so the instructions after
 * the barrier are moved into a new block by hand and the successors' phis, whose incoming block
 * cannot be changed through the C API, are rebuilt. */
#include "compiler.h"

int is_barrier_call(LLVMValueRef inst) {
  return LLVMIsACallInst(inst) && builtin_of_call(inst).kind == BI_BARRIER;
}

static void rebuild_phi(LLVMBuilderRef b, LLVMValueRef phi, LLVMBasicBlockRef from,
                        LLVMBasicBlockRef to) {
  LLVMPositionBuilderBefore(b, phi);
  LLVMValueRef np = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
  for (unsigned i = 0; i < LLVMCountIncoming(phi); i++) {
    LLVMValueRef v = LLVMGetIncomingValue(phi, i);
    LLVMBasicBlockRef bb = LLVMGetIncomingBlock(phi, i);
    LLVMAddIncoming(np, &v, bb == from ? &to : &bb, 1);
  }
  LLVMReplaceAllUsesWith(phi, np);
  LLVMInstructionEraseFromParent(phi);
}

static void retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(to);
  for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(term, s);
    LLVMValueRef i = LLVMGetFirstInstruction(succ);
    while (i && LLVMIsAPHINode(i)) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      for (unsigned k = 0; k < LLVMCountIncoming(i); k++)
        if (LLVMGetIncomingBlock(i, k) == from) {
          rebuild_phi(b, i, from, to);
          break;
        }
      i = next;
    }
  }
}

/* Moves everything after `barrier` into a new block that follows it. */
static LLVMBasicBlockRef split_after(LLVMBuilderRef b, LLVMValueRef barrier) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(barrier);
  LLVMBasicBlockRef nb = LLVMInsertBasicBlockInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(LLVMGetBasicBlockParent(bb))),
      LLVMGetNextBasicBlock(bb) ? LLVMGetNextBasicBlock(bb) : bb, "after.barrier");
  if (!LLVMGetNextBasicBlock(bb)) LLVMMoveBasicBlockAfter(nb, bb);
  LLVMPositionBuilderAtEnd(b, nb);
  for (LLVMValueRef i = LLVMGetNextInstruction(barrier), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilder(b, i);
  }
  LLVMPositionBuilderAtEnd(b, bb);
  LLVMBuildBr(b, nb);
  retarget_phis(b, bb, nb);
  return nb;
}

static int ends_block(LLVMValueRef barrier) {
  LLVMValueRef next = LLVMGetNextInstruction(barrier);
  return LLVMIsABranchInst(next) && !LLVMIsConditional(next);
}

void barrier_split(LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (is_barrier_call(i) && !ends_block(i)) {
        split_after(b, i);
        break; /* the rest of this block is now the next block, visited next */
      }
  LLVMDisposeBuilder(b);
}
