/* A kernel's interface to the runtime: its parameters (from clang's kernel_arg_* metadata), the
 * argument block they are stored in, the argument setter that libffi calls once per launch,
 * and the warp function's entry and exit around the blocks that lower.c emits. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* ---- parameters ---- */

static LLVMValueRef md_operand(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned id = LLVMGetMDKindIDInContext(c, kind, (unsigned)strlen(kind));
  size_t n;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  LLVMValueRef r = NULL;
  for (size_t k = 0; k < n && !r; k++) {
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)k) != id) continue;
    LLVMValueRef node = LLVMMetadataAsValue(c, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
    if (i < LLVMGetMDNodeNumOperands(node)) {
      LLVMValueRef *ops = calloc(LLVMGetMDNodeNumOperands(node), sizeof *ops);
      LLVMGetMDNodeOperands(node, ops);
      r = ops[i];
      free(ops);
    }
  }
  if (md) LLVMDisposeValueMetadataEntries(md);
  return r;
}

static char *md_string(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMValueRef v = md_operand(fn, kind, i);
  unsigned len = 0;
  const char *s = v ? LLVMGetMDString(v, &len) : NULL;
  return s ? strndup(s, len) : strdup("?");
}

typedef struct type_name {
  const char *name;
  weft_type type;
} type_name;

static const type_name scalar_names[] = {
    {"unsigned char", WEFT_U8}, {"uchar", WEFT_U8}, {"char", WEFT_I8},
    {"unsigned short", WEFT_U16}, {"ushort", WEFT_U16}, {"short", WEFT_I16},
    {"unsigned int", WEFT_U32}, {"uint", WEFT_U32}, {"int", WEFT_I32},
    {"unsigned long", WEFT_U64}, {"ulong", WEFT_U64}, {"size_t", WEFT_U64}, {"long", WEFT_I64},
    {"float", WEFT_F32}, {"double", WEFT_F64}, {"bool", WEFT_U8}};

/* "const float4*" -> F32, width 4. */
static weft_type parse_type_name(const char *tn, unsigned *width) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", tn);
  char *p = buf;
  for (const char *q; (q = strstr(p, "const ")) == p || (q = strstr(p, "volatile ")) == p;)
    p += strchr(p, ' ') - p + 1;
  char *star = strchr(p, '*');
  if (star) *star = 0;
  for (size_t n = strlen(p); n && p[n - 1] == ' '; n--) p[n - 1] = 0;
  *width = 1;
  for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++) {
    size_t n = strlen(scalar_names[i].name);
    if (strncmp(p, scalar_names[i].name, n)) continue;
    if (p[n] && (p[n] < '0' || p[n] > '9')) continue;
    if (p[n]) *width = (unsigned)atoi(p + n);
    return scalar_names[i].type;
  }
  return WEFT_OTHER;
}

static weft_arg_kind param_kind(LLVMValueRef fn, unsigned i, LLVMValueRef param) {
  LLVMValueRef as = md_operand(fn, "kernel_arg_addr_space", i);
  unsigned space = as ? (unsigned)LLVMConstIntGetZExtValue(as) : 0;
  if (LLVMGetTypeKind(LLVMTypeOf(param)) != LLVMPointerTypeKind || ir_byval_type(fn, i))
    return WEFT_ARG_VALUE;
  return space == 3 ? WEFT_ARG_LOCAL : space == 2 ? WEFT_ARG_CONSTANT : WEFT_ARG_GLOBAL;
}

/* Fills the parameter table and lays out the argument block. */
static weft_status describe_params(LLVMValueRef fn, LLVMTargetDataRef td, weft_compiled_kernel *k, char **err) {
  k->nparams = LLVMCountParams(fn);
  weft_param *ps = calloc(k->nparams ? k->nparams : 1, sizeof *ps);
  size_t off = 0;
  for (unsigned i = 0; i < k->nparams; i++) {
    weft_param *p = &ps[i];
    LLVMValueRef param = LLVMGetParam(fn, i);
    LLVMTypeRef t = LLVMTypeOf(param);
    p->name = md_string(fn, "kernel_arg_name", i);
    p->type_name = md_string(fn, "kernel_arg_type", i);
    p->kind = param_kind(fn, i, param);
    p->type = parse_type_name(p->type_name, &p->vector_width);
    LLVMTypeRef by_struct = ir_byval_type(fn, i);
    if (by_struct) { /* its bytes, which setargs copies into the block */
      p->type = WEFT_OTHER, p->vector_width = 1;
      p->size = LLVMABISizeOfType(td, by_struct);
    } else if (p->kind == WEFT_ARG_VALUE) {
      p->size = LLVMABISizeOfType(td, t);
      if (LLVMGetTypeKind(t) == LLVMStructTypeKind || LLVMGetTypeKind(t) == LLVMArrayTypeKind || p->type == WEFT_OTHER) {
        k->params = ps;
        if (asprintf(err, "kernel %s: parameter '%s' of type %s: weft supports scalar and vector "
                     "parameters and pointers only", k->name, p->name, p->type_name) < 0) *err = NULL;
        return WEFT_ERROR_UNSUPPORTED;
      }
    } else {
      size_t elem = p->type == WEFT_OTHER ? 1 : weft_type_size(p->type); /* struct*: bytes */
      p->size = elem * (p->vector_width == 3 ? 4 : p->vector_width);      /* short3: 8 */
    }
    size_t slot = by_struct ? p->size : p->kind == WEFT_ARG_VALUE ? LLVMABISizeOfType(td, t) : 8;
    size_t align = slot >= 64 ? 64 : slot >= 32 ? 32 : slot >= 16 ? 16 : 8;
    off = (off + align - 1) & ~(align - 1);
    p->offset = off;
    off += slot;
  }
  k->params = ps;
  k->args_size = off ? off : 8;
  return WEFT_SUCCESS;
}

void kernel_info_free(lowered_kernel *lk) {
  weft_compiled_kernel *k = &lk->info;
  for (unsigned i = 0; k->params && i < k->nparams; i++)
    free((char *)k->params[i].name), free((char *)k->params[i].type_name);
  free((void *)k->params);
  free((void *)k->ipdom), free((void *)k->first_line), free((void *)k->last_line);
  free((void *)k->barrier_line);
  free((void *)k->ninstr), free((char *)k->name), free((char *)k->file);
  free(lk->run_name), free(lk->setargs_name);
  memset(lk, 0, sizeof *lk);
}

/* ---- the argument setter: void setargs(ptr block, params...) ---- */

/* A struct passed by value: setargs gets a pointer to its bytes, the kernel a pointer to the
 * block's copy of them (which private_struct_params in frontend.c copies again per work-item). */
static int is_struct(const weft_param *p) { return p->kind == WEFT_ARG_VALUE && p->type == WEFT_OTHER; }

static LLVMTypeRef ffi_param_type(LLVMContextRef c, const weft_param *p, LLVMTypeRef t) {
  if (p->kind == WEFT_ARG_LOCAL) return LLVMInt64TypeInContext(c);
  if (p->kind != WEFT_ARG_VALUE || LLVMGetTypeKind(t) == LLVMVectorTypeKind) return LLVMPointerTypeInContext(c, 0);
  return t;
}

static void build_setargs(LLVMValueRef fn, const weft_compiled_kernel *k, const char *name) {
  LLVMModuleRef m = LLVMGetGlobalParent(fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef *pt = calloc(k->nparams + 1, sizeof *pt);
  pt[0] = LLVMPointerTypeInContext(c, 0);
  for (unsigned i = 0; i < k->nparams; i++)
    pt[i + 1] = ffi_param_type(c, &k->params[i], LLVMTypeOf(LLVMGetParam(fn, i)));
  LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), pt, k->nparams + 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, ""));
  for (unsigned i = 0; i < k->nparams; i++) {
    LLVMValueRef v = LLVMGetParam(f, i + 1), off = LLVMConstInt(LLVMInt64TypeInContext(c), k->params[i].offset, 0);
    LLVMTypeRef kt = LLVMTypeOf(LLVMGetParam(fn, i));
    if (k->params[i].kind == WEFT_ARG_VALUE && LLVMGetTypeKind(kt) == LLVMVectorTypeKind) {
      v = LLVMBuildLoad2(b, kt, v, "");
      LLVMSetAlignment(v, 1);
    }
    LLVMValueRef dst = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), LLVMGetParam(f, 0), &off, 1, "");
    if (is_struct(&k->params[i]))
      LLVMBuildMemCpy(b, dst, 8, v, 1, LLVMConstInt(LLVMInt64TypeInContext(c), k->params[i].size, 0));
    else
      LLVMSetAlignment(LLVMBuildStore(b, v, dst), 8);
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(pt);
}

/* ---- the warp function's entry and exit ---- */

static void map_params(lower *L, LLVMValueRef kfn, const weft_compiled_kernel *k) {
  for (unsigned i = 0; i < k->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(kfn, i), v;
    LLVMTypeRef t = LLVMTypeOf(p);
    if (k->params[i].kind == WEFT_ARG_LOCAL) {
      LLVMValueRef off = lw_load_at(L, L->args, k->params[i].offset, LLVMInt64TypeInContext(L->c));
      v = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->local_mem, &off, 1, "");
      v = LLVMBuildAddrSpaceCast(L->b, v, t, "");
    } else if (is_struct(&k->params[i])) {
      LLVMValueRef off = lw_const_i64(L, k->params[i].offset);
      v = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->args, &off, 1, "");
    } else {
      v = lw_load_at(L, L->args, k->params[i].offset, t);
      LLVMSetAlignment(v, 8);
    }
    ptrmap_put(L->a, &L->uniforms, p, v);
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
    ptrmap_put(L->a, &L->uniforms, gv, LLVMBuildAddrSpaceCast(L->b, p, LLVMTypeOf(gv), ""));
  }
}

static void count_active(lower *L) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  L->active_lanes = lw_intrinsic(L, "llvm.ctpop", &i64, 1, &L->mask, 1);
  L->active_groups = lw_const_i64(L, 0);
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef nz = LLVMBuildICmp(L->b, LLVMIntNE, lw_group_bits(L, L->mask, g),
                                    LLVMConstInt(LLVMIntTypeInContext(L->c, L->G), 0, 0), "");
    L->active_groups = LLVMBuildAdd(L->b, L->active_groups, LLVMBuildZExt(L->b, nz, i64, ""), "");
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
  for (int i = 0; i < 4; i++) L->counted[i] = LLVMBuildAlloca(L->b, i64, "counted");
  for (int i = 0; i < 4; i++) LLVMBuildStore(L->b, lw_const_i64(L, 0), L->counted[i]);
  L->group = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, group), ptr);
  L->args = lw_load_at(L, L->group, offsetof(weft_group, args), ptr);
  L->local_mem = lw_load_at(L, L->group, offsetof(weft_group, local_mem), ptr);
  L->x_aligned = L->x_aligned_only
                     ? LLVMConstInt(LLVMInt1TypeInContext(L->c), 1, 0)
                     : LLVMBuildICmp(L->b, LLVMIntNE,
                                     lw_load_at(L, L->group, offsetof(weft_group, x_aligned), i32),
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
  L->guard_v = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, guard), i32);
  count_active(L);
  LLVMBuildStore(L->b, lw_const_i64(L, 0), L->count);
  LLVMBuildStore(L->b, lw_const_i32(L, 0), L->event);
}

LLVMValueRef lw_tail_call(lower *L, int part, LLVMValueRef ctx) {
  LLVMValueRef f = L->part_fns[part];
  LLVMValueRef r = LLVMBuildCall2(L->b, LLVMGlobalGetValueType(f), f, &ctx, 1, "");
  LLVMSetTailCallKind(r, LLVMTailCallKindMustTail);
  return r;
}

/* Where the warp resumes at the PCs of this part: one block per set of live values, which
 * restores them from the frame and goes on to the PC's block (many PCs share a set: the blocks
 * of one loop or one branch, say). */
static void build_resumes(lower *L, LLVMValueRef pc, LLVMValueRef sw, LLVMBasicBlockRef bad) {
  LLVMBasicBlockRef *resume = ARENA_NEW(L->a, LLVMBasicBlockRef, L->g->nblocks); /* by set */
  for (int i = L->g->part_first[L->part]; i < L->g->part_first[L->part + 1]; i++) {
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
  LLVMValueRef pc = lw_load_at(L, L->ctx, offsetof(weft_warp_ctx, pc), LLVMInt32TypeInContext(L->c));
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(L->c, L->fn, "bad.pc");
  LLVMValueRef sw = LLVMBuildSwitch(L->b, pc, bad, (unsigned)L->g->nblocks);
  LLVMPositionBuilderAtEnd(L->b, bad);
  LLVMBuildUnreachable(L->b);
  for (int p = 0; p < L->g->nparts; p++) {
    if (p == L->part) continue;
    LLVMBasicBlockRef elsewhere = LLVMAppendBasicBlockInContext(L->c, L->fn, "elsewhere");
    LLVMPositionBuilderAtEnd(L->b, elsewhere);
    LLVMBuildRet(L->b, lw_tail_call(L, p, L->ctx));
    for (int i = L->g->part_first[p]; i < L->g->part_first[p + 1]; i++)
      LLVMAddCase(sw, lw_const_i32(L, (uint64_t)i), elsewhere);
  }
  build_resumes(L, pc, sw, bad);
}

static void add_to(lower *L, LLVMValueRef p, LLVMValueRef v) {
  LLVMBuildStore(L->b, LLVMBuildAdd(L->b, LLVMBuildLoad2(L->b, LLVMInt64TypeInContext(L->c), p, ""), v, ""), p);
}

/* The counters in ctx that L->counted accumulates, in its order. */
static const size_t counter_field[4] = {offsetof(weft_warp_ctx, block_execs), offsetof(weft_warp_ctx, instr_execs),
                                        offsetof(weft_warp_ctx, lane_instrs), offsetof(weft_warp_ctx, groups_run)};

/* Adds the current warp's counters to L->counted: a chain of warps (kernel.h) adds all of
 * theirs to ctx once, when the call ends, not four stores per warp. */
void lw_count_warp(lower *L) {
  LLVMValueRef count = LLVMBuildLoad2(L->b, LLVMInt64TypeInContext(L->c), L->count, "");
  LLVMValueRef blocks = LLVMBuildLShr(L->b, count, lw_const_i64(L, COUNT_BLOCK_SHIFT), "");
  LLVMValueRef instrs = LLVMBuildAnd(L->b, count, lw_const_i64(L, (1ull << COUNT_BLOCK_SHIFT) - 1), "");
  LLVMValueRef v[4] = {blocks, instrs, LLVMBuildMul(L->b, instrs, L->active_lanes, ""),
                       LLVMBuildMul(L->b, blocks, L->active_groups, "")};
  for (int i = 0; i < 4; i++) add_to(L, L->counted[i], v[i]);
}

void lw_flush_counts(lower *L) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  lw_count_warp(L);
  for (int i = 0; i < 4; i++) add_to(L, lw_ctx_field(L, counter_field[i]), LLVMBuildLoad2(L->b, i64, L->counted[i], ""));
}

static void build_leave(lower *L) {
  LLVMPositionBuilderAtEnd(L->b, L->leave);
  lw_flush_counts(L);
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
  /* 512-bit vectors go to libmvec in zmm registers only with this (toolchain.md, section 3) */
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(c, "min-legal-vector-width", 22, "512", 3));
  return f;
}

/* One part of the warp function: its own entry, resume points and exits around its blocks. */
static void build_part(lower *L, LLVMValueRef kfn, const weft_compiled_kernel *k) {
  L->fn = L->part_fns[L->part];
  L->ctx = LLVMGetParam(L->fn, 0);
  L->entry = LLVMAppendBasicBlockInContext(L->c, L->fn, "entry");
  for (int pc = L->g->part_first[L->part]; pc < L->g->part_first[L->part + 1]; pc++)
    L->bbs[pc] = LLVMAppendBasicBlockInContext(L->c, L->fn, "B");
  L->leave = LLVMAppendBasicBlockInContext(L->c, L->fn, "leave");
  memset(L->group_u64, 0, sizeof L->group_u64), memset(L->global_base, 0, sizeof L->global_base);
  LLVMPositionBuilderAtEnd(L->b, L->entry);
  build_entry(L, kfn, k);
  build_warp_start(L);
  build_dispatch(L);
  lw_emit_blocks(L);
  build_leave(L);
}

static void fill_block_info(const cfg *g, weft_compiled_kernel *k) {
  uint32_t *ipdom = calloc((size_t)g->nblocks + 1, 4), *fl = calloc((size_t)g->nblocks + 1, 4),
           *ll = calloc((size_t)g->nblocks + 1, 4), *ni = calloc((size_t)g->nblocks + 1, 4),
           *bl = calloc((size_t)g->nblocks + 1, 4);
  for (int pc = 0; pc < g->nblocks; pc++) {
    ipdom[pc] = (uint32_t)g->blocks[pc].ipdom;
    fl[pc] = (uint32_t)g->blocks[pc].first_line, ll[pc] = (uint32_t)g->blocks[pc].last_line;
    ni[pc] = cfg_instrs(g->blocks[pc].bb);
    bl[pc] = (uint32_t)g->blocks[pc].barrier_line;
  }
  k->nblocks = (unsigned)g->nblocks;
  k->ipdom = ipdom, k->first_line = fl, k->last_line = ll, k->ninstr = ni, k->barrier_line = bl;
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

weft_status lower_kernel(LLVMValueRef kfn, unsigned program, const lower_target *t,
                         lower_split *split, lowered_kernel *out, char **err) {
  memset(out, 0, sizeof *out);
  LLVMModuleRef m = LLVMGetGlobalParent(kfn);
  size_t len;
  weft_compiled_kernel *k = &out->info;
  k->name = strdup(LLVMGetValueName2(kfn, &len));
  const char *file = LLVMGetDebugLocFilename(kfn, &(unsigned){0});
  k->file = file && *file ? strdup(file) : NULL;
  k->warp = t->warp, k->lanes = t->lanes;
  if (asprintf(&out->run_name, "__weft_p%u_run_%s", program, k->name) < 0 ||
      asprintf(&out->setargs_name, "__weft_p%u_setargs_%s", program, k->name) < 0)
    return WEFT_ERROR_OUT_OF_MEMORY;
  lower L = {.a = arena_create(), .c = LLVMGetModuleContext(m), .m = m, .W = t->warp,
             .G = t->lanes, .ngroups = t->warp / t->lanes, .avx512 = t->avx512,
             .x_aligned_only = t->x_aligned_only, .td = LLVMGetModuleDataLayout(m)};
  weft_status st = describe_params(kfn, L.td, k, err);
  if (st) return arena_release(L.a), st;
  barrier_split(kfn);
  cfg *g = cfg_build(L.a, kfn);
  postdom_compute(L.a, g);
  L.g = g;
  L.dv = divergence_compute(L.a, g);
  fill_block_info(g, k);
  parts_compute(L.a, g);
  ptrmap_init(L.a, &L.slots, 256);
  ptrmap_init(L.a, &L.uniforms, 64);
  lw_make_slots(&L);
  lw_liveness(&L);
  L.b = LLVMCreateBuilderInContext(L.c);
  L.bbs = ARENA_NEW(L.a, LLVMBasicBlockRef, g->nblocks);
  L.part_fns = ARENA_NEW(L.a, LLVMValueRef, g->nparts);
  unsigned char *mine = ARENA_NEW(L.a, unsigned char, g->nparts);
  plan_parts(L.a, g, split, mine);
  for (int p = 0; p < g->nparts; p++) L.part_fns[p] = create_run_fn(m, out->run_name, p);
  for (L.part = 0; L.part < g->nparts; L.part++)
    if (mine[L.part]) build_part(&L, kfn, k);
  k->frame_size = (L.frame_size + 63) & ~(size_t)63;
  k->static_local_size = L.static_local_size;
  if ((out->has_entry = mine[0])) build_setargs(kfn, k, out->setargs_name);
  LLVMDisposeBuilder(L.b);
  arena_release(L.a);
  if (L.error) {
    *err = L.error;
    return WEFT_ERROR_UNSUPPORTED;
  }
  return WEFT_SUCCESS;
}
