/* Internal interface of weft's kernel compiler, one section per file (as QBE's all.h).
 *
 * Pipeline (compiler/compile.c runs it):
 *   frontend   OpenCL C --clang-19--> LLVM module; helpers inlined, branches kept as branches
 *   cfg        reachable blocks numbered by PC in source-like reverse post-order
 *   postdom    post-dominator tree over a virtual exit; the IPDOM of every block
 */
#ifndef WEFT_COMPILER_H
#define WEFT_COMPILER_H

#include <llvm-c/Core.h>
#include <stdio.h>

#include "weft.h"

/* --- arena.c: one arena per compilation, freed in one call --- */
typedef struct weft_arena weft_arena;
weft_arena *arena_create(void);
void *arena_alloc(weft_arena *a, size_t n); /* zeroed; dies on out-of-memory */
char *arena_strdup(weft_arena *a, const char *s);
void arena_release(weft_arena *a);
#define ARENA_NEW(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

/* --- die.c: internal bugs only, never a user's mistake --- */
_Noreturn void weft_die(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define DIE(...) weft_die(__FILE__, __LINE__, __VA_ARGS__)

/* --- frontend.c: OpenCL C to a canonical LLVM module --- */
typedef struct frontend_result {
  LLVMModuleRef module; /* NULL on failure */
  char *log;            /* clang's diagnostics or weft's message; malloc'd, may be NULL */
} frontend_result;
/* Compiles `path` (or `source`, when not NULL, named `path` in diagnostics) with clang-19 and
 * canonicalizes it: helpers inlined into kernels, values promoted to SSA, CFG simplified without
 * if-conversion, clang's baseline target attributes removed. */
weft_status frontend_compile(LLVMContextRef ctx, const char *path, const char *source,
                             const char *options, frontend_result *out);
int frontend_is_kernel(LLVMValueRef fn);
LLVMValueRef frontend_next_kernel(LLVMModuleRef m, LLVMValueRef after); /* after=NULL: first */

/* --- cfg.c: the control-flow graph in PC order --- */
typedef struct cfg_block {
  LLVMBasicBlockRef bb;
  int pc;
  int nsuccs, npreds;
  int *succs, *preds; /* PCs; succs in the terminator's order */
  int ipdom;          /* PC of the immediate post-dominator; cfg.nblocks is the virtual exit */
  int first_line, last_line; /* 0 when the block has no debug location */
} cfg_block;

typedef struct cfg {
  LLVMValueRef fn;
  int nblocks; /* PC nblocks is the virtual exit */
  cfg_block *blocks; /* indexed by PC */
} cfg;

cfg *cfg_build(weft_arena *a, LLVMValueRef fn);
int cfg_pc_of(const cfg *g, LLVMBasicBlockRef bb); /* -1 when unreachable */
int cfg_is_branch(const cfg_block *b); /* conditional branch or switch with 2+ distinct targets */

/* --- postdom.c: immediate post-dominators (Cooper, Harvey, Kennedy on the reversed CFG) --- */
/* Fills blocks[].ipdom. Returns and `unreachable` end at the virtual exit; a region that cannot
 * reach it (an infinite loop) is given an edge to the exit from its block with the largest PC. */
void postdom_compute(weft_arena *a, cfg *g);
int postdom_dominates(const cfg *g, int a, int b); /* does `a` post-dominate `b` (PCs) */

/* --- cfg_print.c: printers for people and tools --- */
void cfg_print_text(FILE *f, const cfg *g, const char *kernel);
void cfg_print_dot(FILE *f, const cfg *g, const char *kernel);
void cfg_print_json(FILE *f, const cfg *g, const char *kernel);

#endif
