/* The frame: where a warp keeps its values between calls of the warp function.
 *
 * A value used outside its block (a cross slot) has W lanes in the frame. Where a call stops,
 * the values live at the targets are written for the call's lanes only (masked stores), so the
 * other calls' lanes stay; where a call resumes, the live values are read back, a uniform one
 * from the first active lane. A rematerialisable value is never kept: it is computed again,
 * with what it is made of, where the warp resumes. Which values are live at each block's start
 * is the usual backward data-flow over the CFG, with one bit per cross slot. */
#include <string.h>

#include "lower.h"

/* ---- the frame ---- */

static LLVMValueRef frame_ptr(lower *L, size_t off) {
  LLVMValueRef o = lw_const_i64(L, off);
  return LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), L->frame, &o, 1, "");
}

static LLVMValueRef to_frame(lower *L, LLVMValueRef v, LLVMTypeRef ft) {
  return LLVMTypeOf(v) == ft ? v : LLVMBuildZExt(L->b, v, ft, "");
}

static LLVMValueRef from_frame(lower *L, LLVMValueRef v, LLVMTypeRef t) {
  return LLVMTypeOf(v) == t ? v : LLVMBuildTrunc(L->b, v, t, "");
}

static void restore_slot(lower *L, slot *s, LLVMValueRef first_lane) {
  LLVMTypeRef ft = lw_frame_type(L, s->type);
  size_t lane = LLVMABISizeOfType(L->td, ft);
  if (s->shape == UNIFORM) { /* any active lane holds the warp's value */
    LLVMValueRef off = LLVMBuildMul(L->b, first_lane, lw_const_i64(L, lane), "");
    LLVMValueRef p = LLVMBuildGEP2(L->b, LLVMInt8TypeInContext(L->c), frame_ptr(L, s->frame_off),
                                   &off, 1, "");
    LLVMBuildStore(L->b, from_frame(L, LLVMBuildLoad2(L->b, ft, p, ""), s->type), s->u);
    return;
  }
  LLVMTypeRef vft = lw_vtype(L, ft), vt = lw_vtype(L, s->type);
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef x = LLVMBuildLoad2(L->b, vft, frame_ptr(L, s->frame_off + g * L->G * lane), "");
    LLVMSetAlignment(x, 1);
    LLVMBuildStore(L->b, from_frame(L, x, vt), s->v[g]);
  }
}

int lw_live_at(const lower *L, int pc, int index) {
  return (int)(L->live_in[(size_t)pc * L->live_words + index / 64] >> (index % 64) & 1);
}

/* Computes a rematerialised value (and first the ones it is made of) for every lane group. */
static void remat_value(lower *L, LLVMValueRef inst) {
  slot *s = lw_slot(L, inst);
  if (s->stamp == L->stamp) return;
  s->stamp = L->stamp;
  for (int i = 0; i < LLVMGetNumOperands(inst); i++)
    if (lw_slot(L, LLVMGetOperand(inst, i))) remat_value(L, LLVMGetOperand(inst, i));
  if (s->shape == UNIFORM) {
    lw_inst_uniform(L, inst);
    return;
  }
  for (unsigned g = 0; g < L->ngroups; g++) {
    L->lane_group = g, L->lane_group_mask = lw_group_mask(L, L->mask, g);
    lw_inst_group(L, inst);
  }
}

void lw_remat(lower *L, LLVMValueRef inst) {
  unsigned g = L->lane_group;
  LLVMValueRef m = L->lane_group_mask;
  L->stamp++;
  remat_value(L, inst);
  L->lane_group = g, L->lane_group_mask = m;
}

/* A call's start: every lane of a value is read, the call's are right (the others are never
 * used in the call: a split with other lanes makes it leave, lower_step.c). */
void lw_frame_restore(lower *L, int pc) {
  LLVMValueRef first = lw_intrinsic(
      L, "llvm.cttz", (LLVMTypeRef[]){LLVMInt64TypeInContext(L->c)}, 1,
      (LLVMValueRef[]){L->mask, LLVMConstInt(LLVMInt1TypeInContext(L->c), 1, 0)}, 2);
  L->stamp++;
  for (int i = 0; i < L->ncross; i++) {
    if (!lw_live_at(L, pc, i)) continue;
    slot *s = L->cross[i];
    if (s->remat) remat_value(L, s->inst);
    else restore_slot(L, s, first);
  }
}

/* Stores x's lanes m at p in the frame. Without AVX-512 a masked store is a vmaskmov, which
 * AMD's Zen 3 runs slowly: with one per lane group for each value a warp keeps, a barrier (which
 * saves every live value) cost 200 ns per warp there, and the ray tracer ran at 1.1x plain C;
 * with a load, a blend and a whole store, 100 ns and 2.4-2.7x. The frame is the warp's own
 * memory, so writing its other lanes back as they were changes nothing. */
static void frame_store(lower *L, LLVMValueRef x, LLVMValueRef p, LLVMValueRef m) {
  if (L->avx512) {
    lw_intrinsic(L, "llvm.masked.store", (LLVMTypeRef[]){LLVMTypeOf(x), LLVMTypeOf(p)}, 2,
                 (LLVMValueRef[]){x, p, lw_const_i32(L, 1), m}, 4);
    return;
  }
  LLVMValueRef old = LLVMBuildLoad2(L->b, LLVMTypeOf(x), p, "");
  LLVMSetAlignment(old, 1);
  LLVMSetAlignment(LLVMBuildStore(L->b, LLVMBuildSelect(L->b, m, x, old, ""), p), 1);
}

/* Writes the lanes `lanes`, and only those, of one value into the frame. */
static void save_slot(lower *L, slot *s, LLVMValueRef lanes) {
  LLVMTypeRef ft = lw_frame_type(L, s->type), vft = lw_vtype(L, ft);
  size_t lane = LLVMABISizeOfType(L->td, ft);
  LLVMValueRef u = s->shape == UNIFORM
                       ? lw_splat(L, to_frame(L, LLVMBuildLoad2(L->b, s->type, s->u, ""), ft))
                       : NULL;
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef p = frame_ptr(L, s->frame_off + g * L->G * lane);
    LLVMValueRef x = u ? u
                       : to_frame(L, LLVMBuildLoad2(L->b, lw_vtype(L, s->type), s->v[g], ""), vft);
    LLVMValueRef m = lw_expand_mask(L, lw_group_mask(L, lanes, g), lw_width(ft));
    frame_store(L, x, p, m);
  }
}

void lw_frame_save(lower *L, const int *to, int n) { lw_frame_save_of(L, to, n, lw_mask_here(L)); }

void lw_frame_save_of(lower *L, const int *to, int n, LLVMValueRef lanes) {
  for (int i = 0; i < L->ncross; i++) {
    if (L->cross[i]->remat) continue; /* computed again where the warp resumes */
    int needed = 0;
    for (int k = 0; k < n && !needed; k++)
      needed = to[k] < L->cfg->nblocks && lw_live_at(L, to[k], i);
    if (needed) save_slot(L, L->cross[i], lanes);
  }
}

void lw_frame_save_lanes(lower *L, LLVMValueRef lanes) {
  for (int i = 0; i < L->ncross; i++)
    if (!L->cross[i]->remat) save_slot(L, L->cross[i], lanes);
}

/* ---- liveness of the cross slots, by the usual backward data-flow ---- */

static void set_bit(uint64_t *set, int i) { set[i / 64] |= 1ull << (i % 64); }

static void use_of(lower *L, LLVMValueRef v, uint64_t *use, const uint64_t *def) {
  slot *s = lw_slot(L, v);
  if (s && s->cross && !(def[s->index / 64] >> (s->index % 64) & 1)) set_bit(use, s->index);
}

/* use: read in the block before any write; def: written in the block, including the phis of
 * its successors, which are written on the way out. */
static void block_use_def(lower *L, int pc, uint64_t *use, uint64_t *def) {
  const cfg_block *b = &L->cfg->blocks[pc];
  for (LLVMValueRef i = LLVMGetFirstInstruction(b->bb); i; i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsAPHINode(i))
      for (int k = 0; k < LLVMGetNumOperands(i); k++) use_of(L, LLVMGetOperand(i, k), use, def);
    slot *s = lw_slot(L, i);
    if (s && s->cross && !LLVMIsAPHINode(i)) set_bit(def, s->index);
  }
  for (int k = 0; k < b->nsuccs; k++)
    for (LLVMValueRef phi = LLVMGetFirstInstruction(L->cfg->blocks[b->succs[k]].bb);
         phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi))
      for (unsigned j = 0; j < LLVMCountIncoming(phi); j++)
        if (LLVMGetIncomingBlock(phi, j) == b->bb)
          use_of(L, LLVMGetIncomingValue(phi, j), use, def);
  for (int k = 0; k < b->nsuccs; k++)
    for (LLVMValueRef phi = LLVMGetFirstInstruction(L->cfg->blocks[b->succs[k]].bb);
         phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi))
      set_bit(def, lw_slot(L, phi)->index);
}

void lw_liveness(lower *L) {
  int n = L->cfg->nblocks, w = L->live_words = (L->ncross + 63) / 64 + 1;
  uint64_t *use = ARENA_NEW(L->arena, uint64_t, (size_t)n *w),
           *def = ARENA_NEW(L->arena, uint64_t, (size_t)n *w);
  L->live_in = ARENA_NEW(L->arena, uint64_t, (size_t)n *w);
  for (int pc = 0; pc < n; pc++) {
    block_use_def(L, pc, use + (size_t)pc * w, def + (size_t)pc * w);
    for (LLVMValueRef phi = LLVMGetFirstInstruction(L->cfg->blocks[pc].bb);
         phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi))
      set_bit(use + (size_t)pc * w, lw_slot(L, phi)->index); /* a phi is live where it starts */
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int pc = n - 1; pc >= 0; pc--) {
      const cfg_block *b = &L->cfg->blocks[pc];
      for (int k = 0; k < w; k++) {
        uint64_t out = 0;
        for (int s = 0; s < b->nsuccs; s++) out |= L->live_in[(size_t)b->succs[s] * w + k];
        uint64_t in = use[(size_t)pc * w + k] | (out & ~def[(size_t)pc * w + k]);
        if (in != L->live_in[(size_t)pc * w + k]) L->live_in[(size_t)pc * w + k] = in, changed = 1;
      }
    }
  }
  L->live_set = ARENA_NEW(L->arena, int, n);
  for (int pc = 0; pc < n; pc++) {
    int same = 0; /* pc itself at the latest */
    while (
        memcmp(L->live_in + (size_t)same * w, L->live_in + (size_t)pc * w, (size_t)w * sizeof *use))
      same++;
    L->live_set[pc] = same;
  }
}
