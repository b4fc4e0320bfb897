/* Test helper: builds one LLVM function block by block with the LLVM C API (conditions are the
 * function's parameters), runs cfg_build and postdom_compute on it, and maps the test's block
 * numbers to PCs. Blocks are numbered in creation order; block 0 is the entry. */
#ifndef WEFT_TEST_CFG_BUILDER_H
#define WEFT_TEST_CFG_BUILDER_H

#include "compiler.h"

#define TB_MAX 32      /* blocks per function */
#define TB_MAX_SUCCS 5 /* a switch with 4 cases and a default */
#define TB_EXIT (-1)   /* the virtual exit, as a test block number */

typedef struct tb {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  int n, ncond, owns_ctx;
  LLVMBasicBlockRef bb[TB_MAX];
  int nsuccs[TB_MAX], succs[TB_MAX][TB_MAX_SUCCS]; /* by block number; -1 nsuccs: no terminator */
  unsigned back[TB_MAX]; /* bit s of back[i]: the edge i -> s is a back (retreating) edge */
  weft_arena *arena;
  cfg *g;
} tb;

/* A function `void k(i1 x 16, i32)` with `nblocks` empty blocks in a context of its own. */
void tb_init(tb *t, int nblocks);
/* The same in a caller's context (the property test reuses one context for thousands). */
void tb_init_in(tb *t, LLVMContextRef ctx, int nblocks);
void tb_dispose(tb *t);

void tb_br(tb *t, int from, int to);
void tb_condbr(tb *t, int from, int then, int els); /* condition: the next i1 parameter */
void tb_switch(tb *t, int from, int dflt, int ncases, const int *cases); /* on the i32 */
void tb_ret(tb *t, int from);
void tb_unreachable(tb *t, int from);
void tb_back(tb *t, int from, int to); /* declares from -> to a back edge for tb_check_order */

cfg *tb_analyse(tb *t);          /* cfg_build + postdom_compute, once all blocks end */
int tb_pc(const tb *t, int blk); /* PC of a block, g->nblocks for TB_EXIT, -1 if dropped */
int tb_ipdom(const tb *t, int blk); /* the block number of blk's IPDOM, TB_EXIT for the exit */

/* cmocka checks: every edge not declared back goes to a larger PC, every back edge to a PC no
 * larger than its source; and the `then` side of `from`'s branch has the smaller PC. */
void tb_check_order(const tb *t);
void tb_check_then_first(const tb *t, int from);

#endif
