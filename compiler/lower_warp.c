/* The warp function around the blocks that lower.c emits: uint32_t run(weft_warp_ctx *ctx) and
 * its parts (parts.c), each with its own entry, dispatch and exit.
 *
 * A part's entry reads what every warp of the work-group shares (the argument block, local
 * memory, the kernel's parameters from the block, kernel_abi.c) once; part 0 then loops over
 * the chain of warps of a first call (kernel.h), each warp starting at its `start` block. The
 * dispatch switches on ctx->pc: a PC of this part goes to the resume point for its set of live
 * values, which restores them from the frame; a PC of another part is a tail call to it. Every
 * exit to the scheduler goes through `leave`, which adds the call's counters to ctx and returns
 * the event. lower_kernel puts it together: the parts of the warp function this compile unit
 * emits. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

static void map_params(lower *L, LLVMValueRef kfn, const weft_compiled_kernel *k) {
  for (unsigned i = 0; i < k->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(kfn, i), v;
    LLVMTypeRef t = LLVMTypeOf(p);
    if (k->params[i].kind == WEFT_ARG_LOCAL) {
      LLVMValueRef off = lw_load_at(L, L->args, k->params[i].offset, LLVMInt64TypeInContext(L->c));
      v = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->local_mem, &off, 1, "");
      v = LLVMBuildAddrSpaceCast(L->b, v, t, "");
    } else if (kernel_param_is_struct(&k->params[i])) {
      LLVMValueRef off = lw_const_i64(L, k->params[i].offset);
      v = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->args, &off, 1, "");
    } else {
      v = lw_load_at(L, L->args, k->params[i].offset, t);
      LLVMSetAlignment(v, 8);
    }
    ptrmap_put(L->arena, &L->uniforms, p, v);
  }
}

/* The kernel's own __local arrays become offsets in the work-group's local memory. Every part
 * lays them out again from 0, so that all parts agree on where each array is. */
static void map_static_locals(lower *L) {
  L->static_local_size = 0;
  for (LLVMValueRef gv = LLVMGetFirstGlobal(L->m); gv; gv = LLVMGetNextGlobal(gv)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(gv)) != 3) continue;
    LLVMTypeRef t = LLVMGlobalGetValueType(gv);
    size_t off = (L->static_local_size + 63) & ~(size_t)63;
    L->static_local_size = off + LLVMABISizeOfType(L->td, t);
    LLVMValueRef o = lw_const_i64(L, off);
    LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->local_mem, &o, 1, "");
    ptrmap_put(L->arena, &L->uniforms, gv, LLVMBuildAddrSpaceCast(L->b, p, LLVMTypeOf(gv), ""));
  }
}

/* What every warp of the work-group shares: the chain of first calls (kernel.h) stays in one
 * work-group, so part 0 reads it once for all the warps it runs. */
static void build_entry(lower *L, LLVMValueRef kfn, const weft_compiled_kernel *k) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(L->c, 0), i64 = LLVMInt64TypeInContext(L->c),
              i32 = LLVMInt32TypeInContext(L->c);
  lw_make_allocas(L);
  L->event = LLVMBuildAlloca(L->b, i32, "event");
  L->count = LLVMBuildAlloca(L->b, i64, "count");
  L->end_from = LLVMBuildAlloca(L->b, i32, "end_from");
  L->mask_var = LLVMBuildAlloca(L->b, i64, "mask");
  L->guard_var = LLVMBuildAlloca(L->b, i32, "guard");
  /* an inactive lane's element, or its 2 to 32 bytes of 8- and 16-bit elements (lower_inst.c),
   * aligned as a short16 is */
  L->scatter_sink = L->avx512 ? NULL : LLVMBuildAlloca(L->b, LLVMArrayType(i64, 4), "scatter_sink");
  if (L->scatter_sink) LLVMSetAlignment(L->scatter_sink, 32);
  L->work_group = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, group), ptr);
  L->args = lw_load_at(L, L->work_group, offsetof(weft_group, args), ptr);
  L->local_mem = lw_load_at(L, L->work_group, offsetof(weft_group, local_mem), ptr);
  L->x_aligned = L->x_aligned_only ? LLVMConstInt(LLVMInt1TypeInContext(L->c), 1, 0)
                                   : LLVMBuildICmp(L->b, LLVMIntNE,
                                                   lw_load_at(L, L->work_group,
                                                              offsetof(weft_group, x_aligned), i32),
                                                   lw_const_i32(L, 0), "");
  map_params(L, kfn, k);
  map_static_locals(L);
}

/* Where each warp starts: in part 0 the loop header of the chain, with ctx a phi that
 * end_tail (lower.c) adds the next warp to. */
static void build_warp_start(lower *L) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(L->c, 0), i64 = LLVMInt64TypeInContext(L->c),
              i32 = LLVMInt32TypeInContext(L->c);
  L->start = LLVMAppendBasicBlockInContext(L->c, L->fn, "start");
  LLVMBuildBr(L->b, L->start);
  LLVMPositionBuilderAtEnd(L->b, L->start);
  if (L->part == 0) {
    LLVMValueRef first = L->ctx;
    L->ctx = LLVMBuildPhi(L->b, ptr, "ctx");
    LLVMAddIncoming(L->ctx, &first, &L->entry, 1);
  }
  L->frame = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, frame), ptr);
  L->mask = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, mask), i64);
  LLVMBuildStore(L->b, L->mask, L->mask_var);
  L->call_lanes = L->mask;
  LLVMBuildStore(L->b, lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, guard), i32), L->guard_var);
  /* what the call's branches ask of ctx, read once: the code stores to memory the compiler
   * cannot tell apart from ctx, and a loop read these at every divergent branch */
  L->regions = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, regions), i32);
  L->ahead = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, ahead), i32);
  L->counting = LLVMBuildICmp(L->b, LLVMIntNE,
                              lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, counting), i32),
                              lw_const_i32(L, 0), "");
  LLVMBuildStore(L->b, lw_const_i64(L, 0), L->count);
  LLVMBuildStore(L->b, lw_const_i32(L, 0), L->event);
}

/* Where the warp resumes at the PCs of this part: one block per set of live values, which
 * restores them from the frame and goes on to the PC's block (many PCs share a set: the blocks
 * of one loop or one branch, say). */
static void build_resumes(lower *L, LLVMValueRef pc, LLVMValueRef sw, LLVMBasicBlockRef bad) {
  LLVMBasicBlockRef *resume = ARENA_NEW(L->arena, LLVMBasicBlockRef, L->cfg->nblocks); /* by set */
  for (int i = L->cfg->part_first[L->part]; i < L->cfg->part_first[L->part + 1]; i++) {
    LLVMBasicBlockRef *r = &resume[L->live_set[i]];
    if (!*r) {
      *r = LLVMAppendBasicBlockInContext(L->c, L->fn, "resume");
      LLVMPositionBuilderAtEnd(L->b, *r);
      lw_frame_restore(L, i);
      LLVMBuildSwitch(L->b, pc, bad, 1);
    }
    LLVMAddCase(LLVMGetBasicBlockTerminator(*r), lw_const_i32(L, (uint64_t)i), L->bbs[i]);
    LLVMAddCase(sw, lw_const_i32(L, (uint64_t)i), *r);
  }
}

/* Resumes at ctx->pc: in this part, the live values come back from the frame; a PC of another
 * part is handed to that part. */
static void build_dispatch(lower *L) {
  LLVMValueRef pc = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, pc),
                               LLVMInt32TypeInContext(L->c));
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(L->c, L->fn, "bad.pc");
  LLVMValueRef sw = LLVMBuildSwitch(L->b, pc, bad, (unsigned)L->cfg->nblocks);
  LLVMPositionBuilderAtEnd(L->b, bad);
  LLVMBuildUnreachable(L->b);
  for (int p = 0; p < L->cfg->nparts; p++) {
    if (p == L->part) continue;
    LLVMBasicBlockRef elsewhere = LLVMAppendBasicBlockInContext(L->c, L->fn, "elsewhere");
    LLVMPositionBuilderAtEnd(L->b, elsewhere);
    LLVMBuildRet(L->b, lw_tail_call(L, p, L->ctx));
    for (int i = L->cfg->part_first[p]; i < L->cfg->part_first[p + 1]; i++)
      LLVMAddCase(sw, lw_const_i32(L, (uint64_t)i), elsewhere);
  }
  build_resumes(L, pc, sw, bad);
}

static void build_leave(lower *L) {
  LLVMPositionBuilderAtEnd(L->b, L->leave);
  lw_count_to_ctx(L);
  LLVMValueRef event = LLVMBuildLoad2(L->b, LLVMInt32TypeInContext(L->c), L->event, "");
  LLVMBuildStore(L->b, event, lw_ctx_field(L, offsetof(weft_warp_ctx, event)));
  LLVMBuildRet(L->b, event);
}

/* Part 0 is the warp function the runtime calls; part p > 0 is named NAME.p. */
static LLVMValueRef create_run_fn(LLVMModuleRef m, const char *name, int part) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  char *part_name = NULL;
  if (part && asprintf(&part_name, "%s.%d", name, part) < 0) DIE("out of memory");
  LLVMValueRef f = LLVMAddFunction(m, part ? part_name : name,
                                   LLVMFunctionType(LLVMInt32TypeInContext(c), &ptr, 1, 0));
  free(part_name);
  /* 512-bit vectors go to libmvec in zmm registers only with this (notes/toolchain.md) */
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(c, "min-legal-vector-width", 22, "512", 3));
  return f;
}

/* One part of the warp function: its own entry, resume points and exits around its blocks. */
static void build_part(lower *L, LLVMValueRef kfn, const weft_compiled_kernel *k) {
  L->fn = L->part_fns[L->part];
  L->ctx = LLVMGetParam(L->fn, 0);
  L->entry = LLVMAppendBasicBlockInContext(L->c, L->fn, "entry");
  for (int pc = L->cfg->part_first[L->part]; pc < L->cfg->part_first[L->part + 1]; pc++)
    L->bbs[pc] = LLVMAppendBasicBlockInContext(L->c, L->fn, "B");
  L->leave = LLVMAppendBasicBlockInContext(L->c, L->fn, "leave");
  memset(L->group_u64, 0, sizeof L->group_u64), memset(L->global_base, 0, sizeof L->global_base);
  lw_step_begin_part(L);
  LLVMPositionBuilderAtEnd(L->b, L->entry);
  build_entry(L, kfn, k);
  build_warp_start(L);
  build_dispatch(L);
  lw_emit_blocks(L);
  build_leave(L);
}

/* -cl-denorms-are-zero, as clang marks the kernel (denormal-fp-math preserve-sign, files.c):
 * the warp functions say the same to code generation, and the launch runs them with the CPU
 * flushing denormals (launch.c). */
static int flushes_denormals(LLVMValueRef kfn, LLVMValueRef *fns, int n) {
  static const char key[] = "denormal-fp-math";
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(kfn, LLVMAttributeFunctionIndex, key,
                                                     sizeof key - 1);
  unsigned len = 0;
  const char *v = a ? LLVMGetStringAttributeValue(a, &len) : NULL;
  if (!v || len < 13 || strncmp(v, "preserve-sign", 13)) return 0;
  for (int i = 0; i < n; i++) LLVMAddAttributeAtIndex(fns[i], LLVMAttributeFunctionIndex, a);
  return 1;
}

/* Sets mine[p] for the parts of g that split's unit emits (lower_split in compiler.h). */
static void plan_parts(weft_arena *a, const cfg *g, lower_split *split, unsigned char *mine) {
  unsigned *size = ARENA_NEW(a, unsigned, g->nparts);
  for (int p = 0; p < g->nparts; p++) mine[p] = !split, size[p] = g->part_instrs[p];
  for (int given = 0; split && given < g->nparts; given++) {
    int big = -1, least = 0;
    for (int p = 0; p < g->nparts; p++)
      if (size[p] != UINT_MAX && (big < 0 || size[p] > size[big])) big = p;
    for (int u = 1; u < split->nunits; u++)
      if (split->load[u] < split->load[least]) least = u;
    split->load[least] += size[big];
    mine[big] = least == split->unit;
    size[big] = UINT_MAX;
  }
}

weft_status lower_kernel(weft_arena *a, LLVMValueRef kfn, const cfg *g, const divergence *dv,
                         const lower_target *t, lower_split *split, lowered_kernel *out,
                         char **err) {
  LLVMModuleRef m = LLVMGetGlobalParent(kfn);
  weft_compiled_kernel *k = &out->info;
  lower L = {.arena = a,
             .cfg = g,
             .dv = dv,
             .c = LLVMGetModuleContext(m),
             .m = m,
             .W = t->warp,
             .G = t->lanes,
             .ngroups = t->warp / t->lanes,
             .avx512 = t->avx512,
             .x_aligned_only = t->x_aligned_only,
             .td = LLVMGetModuleDataLayout(m)};
  ptrmap_init(L.arena, &L.slots, 256);
  ptrmap_init(L.arena, &L.uniforms, 64);
  lw_make_slots(&L);
  lw_liveness(&L);
  lw_step_setup(&L);
  lw_region_setup(&L);
  L.b = LLVMCreateBuilderInContext(L.c);
  L.bbs = ARENA_NEW(L.arena, LLVMBasicBlockRef, g->nblocks);
  L.part_fns = ARENA_NEW(L.arena, LLVMValueRef, g->nparts);
  unsigned char *mine = ARENA_NEW(L.arena, unsigned char, g->nparts);
  plan_parts(L.arena, g, split, mine);
  for (int p = 0; p < g->nparts; p++) L.part_fns[p] = create_run_fn(m, out->run_name, p);
  for (L.part = 0; L.part < g->nparts; L.part++)
    if (mine[L.part]) build_part(&L, kfn, k);
  k->frame_size = (L.frame_size + 63) & ~(size_t)63;
  k->static_local_size = L.static_local_size;
  k->flush_denormals = flushes_denormals(kfn, L.part_fns, g->nparts);
  out->has_entry = mine[0];
  LLVMDisposeBuilder(L.b);
  if (L.error) {
    *err = L.error;
    return WEFT_ERROR_UNSUPPORTED;
  }
  return WEFT_SUCCESS;
}
