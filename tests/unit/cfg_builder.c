/* Test helper for the CFG and post-dominator tests; see cfg_builder.h. */
#include "cfg_builder.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

enum { NCOND = 16 };

void tb_init_in(tb *t, LLVMContextRef ctx, int nblocks) {
  assert_true(nblocks > 0 && nblocks <= TB_MAX);
  *t = (tb){.ctx = ctx, .n = nblocks};
  t->mod = LLVMModuleCreateWithNameInContext("test", ctx);
  LLVMTypeRef params[NCOND + 1];
  for (int i = 0; i < NCOND; i++) params[i] = LLVMInt1TypeInContext(ctx);
  params[NCOND] = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, NCOND + 1, 0);
  t->fn = LLVMAddFunction(t->mod, "k", fty);
  for (int i = 0; i < nblocks; i++) {
    char name[8] = {(char)(i < 26 ? 'A' + i : 'a' + i - 26)};
    t->bb[i] = LLVMAppendBasicBlockInContext(ctx, t->fn, name);
    t->nsuccs[i] = -1;
  }
  t->b = LLVMCreateBuilderInContext(ctx);
}

void tb_init(tb *t, int nblocks) {
  tb_init_in(t, LLVMContextCreate(), nblocks);
  t->owns_ctx = 1;
}

void tb_dispose(tb *t) {
  if (t->arena) arena_release(t->arena);
  LLVMDisposeBuilder(t->b);
  LLVMDisposeModule(t->mod);
  if (t->owns_ctx) LLVMContextDispose(t->ctx);
}

static void at(tb *t, int from, int nsuccs, const int *succs) {
  assert_true(from >= 0 && from < t->n && t->nsuccs[from] < 0);
  t->nsuccs[from] = nsuccs;
  for (int s = 0; s < nsuccs; s++) t->succs[from][s] = succs[s];
  LLVMPositionBuilderAtEnd(t->b, t->bb[from]);
}

void tb_br(tb *t, int from, int to) {
  at(t, from, 1, &to);
  LLVMBuildBr(t->b, t->bb[to]);
}

void tb_condbr(tb *t, int from, int then, int els) {
  at(t, from, 2, (int[]){then, els});
  LLVMBuildCondBr(t->b, LLVMGetParam(t->fn, (unsigned)(t->ncond++ % NCOND)), t->bb[then],
                  t->bb[els]);
}

void tb_switch(tb *t, int from, int dflt, int ncases, const int *cases) {
  int succs[TB_MAX_SUCCS] = {dflt};
  for (int c = 0; c < ncases; c++) succs[c + 1] = cases[c];
  at(t, from, ncases + 1, succs);
  LLVMValueRef sw = LLVMBuildSwitch(t->b, LLVMGetParam(t->fn, NCOND), t->bb[dflt],
                                    (unsigned)ncases);
  for (int c = 0; c < ncases; c++)
    LLVMAddCase(sw, LLVMConstInt(LLVMInt32TypeInContext(t->ctx), (unsigned long long)c, 0),
                t->bb[cases[c]]);
}

void tb_ret(tb *t, int from) {
  at(t, from, 0, NULL);
  LLVMBuildRetVoid(t->b);
}

void tb_unreachable(tb *t, int from) {
  at(t, from, 0, NULL);
  LLVMBuildUnreachable(t->b);
}

void tb_back(tb *t, int from, int to) { t->back[from] |= 1u << to; }

cfg *tb_analyse(tb *t) {
  for (int i = 0; i < t->n; i++) assert_true(t->nsuccs[i] >= 0); /* every block terminated */
  t->arena = arena_create();
  t->g = cfg_build(t->arena, t->fn);
  postdom_compute(t->arena, t->g);
  return t->g;
}

int tb_pc(const tb *t, int blk) {
  return blk == TB_EXIT ? t->g->nblocks : cfg_pc_of(t->g, t->bb[blk]);
}

int tb_ipdom(const tb *t, int blk) {
  int pc = tb_pc(t, blk);
  assert_true(pc >= 0);
  int d = t->g->blocks[pc].ipdom;
  if (d == t->g->nblocks) return TB_EXIT;
  for (int i = 0; i < t->n; i++)
    if (tb_pc(t, i) == d) return i;
  fail_msg("ipdom PC %d of block %d is no block", d, blk);
  return TB_EXIT - 1;
}

void tb_check_order(const tb *t) {
  for (int i = 0; i < t->n; i++) {
    if (tb_pc(t, i) < 0) continue;
    for (int s = 0; s < t->nsuccs[i]; s++) {
      int to = t->succs[i][s];
      if (t->back[i] >> to & 1) assert_true(tb_pc(t, to) <= tb_pc(t, i));
      else if (tb_pc(t, to) <= tb_pc(t, i))
        fail_msg("forward edge %d -> %d goes from PC %d to PC %d", i, to, tb_pc(t, i),
                 tb_pc(t, to));
    }
  }
}

void tb_check_then_first(const tb *t, int from) {
  assert_true(t->nsuccs[from] >= 2);
  assert_int_not_equal(tb_pc(t, t->succs[from][0]), -1);
  assert_true(tb_pc(t, t->succs[from][0]) < tb_pc(t, t->succs[from][1]));
}
