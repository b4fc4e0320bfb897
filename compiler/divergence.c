/* Divergence analysis: is a value the same in every active lane (uniform: one scalar per warp),
 * base + lane × stride (lane-affine: packed loads and stores), or anything else (varying)?
 *
 * Sources of non-uniformity are the work-item ids, atomics and private memory. Shapes flow
 * forward through the instructions until nothing changes. Control flow adds two rules, both about
 * a branch with a varying condition D and its region: the blocks reachable from D's successors
 * before its IPDOM.
 *   - sync dependence: a phi whose block is outside the region (the IPDOM, or past it) but that
 *     has an incoming edge from inside the region or from D, and a phi inside the region that is
 *     reached from two of D's successors, merge lanes that took different paths: varying.
 *   - temporal divergence: a uniform value defined inside the region and used outside it was
 *     computed by lanes that left at different times (a loop with a varying exit): varying,
 *     unless it is read outside only by phis on the edges that leave (read_on_exit).
 * Needs: cfg_build, postdom_compute. Preserves the IR. */
#include "compiler.h"

#include <string.h>

typedef struct dv_state {
  weft_arena *a;
  const cfg *g;
  divergence *d;
  int changed;
  int first_pass; /* values along back edges are not reached yet */
} dv_state;

value_fact divergence_of(const divergence *d, LLVMValueRef v) {
  value_fact *f = ptrmap_get(&d->facts, v);
  return f ? *f : (value_fact){UNIFORM, 0};
}

/* Facts only climb the lattice uniform < affine < varying (two strides meet at varying), so the
 * iteration ends. */
static void set_fact(dv_state *s, LLVMValueRef v, value_fact nf) {
  value_fact old = divergence_of(s->d, v);
  if (nf.shape < old.shape) nf = old;
  if (nf.shape == AFFINE && old.shape == AFFINE && nf.stride != old.stride) nf.shape = VARYING;
  if (old.shape == nf.shape && (nf.shape != AFFINE || old.stride == nf.stride)) return;
  value_fact *f = ptrmap_get(&s->d->facts, v);
  if (!f) f = ARENA_NEW(s->a, value_fact, 1), ptrmap_put(s->a, &s->d->facts, v, f);
  *f = nf;
  s->changed = 1;
}

static value_fact varying(void) { return (value_fact){VARYING, 0}; }

/* All operands uniform: uniform; otherwise varying. */
static value_fact join_operands(const divergence *d, LLVMValueRef inst) {
  for (int i = 0; i < LLVMGetNumOperands(inst); i++)
    if (divergence_of(d, LLVMGetOperand(inst, i)).shape != UNIFORM) return varying();
  return (value_fact){UNIFORM, 0};
}

static int64_t const_int(LLVMValueRef v, int *ok) {
  *ok = LLVMIsAConstantInt(v) != NULL;
  return *ok ? LLVMConstIntGetSExtValue(v) : 0;
}

static value_fact affine_binop(const divergence *d, LLVMValueRef inst, LLVMOpcode op) {
  value_fact x = divergence_of(d, LLVMGetOperand(inst, 0));
  value_fact y = divergence_of(d, LLVMGetOperand(inst, 1));
  if (x.shape == VARYING || y.shape == VARYING) return varying();
  if (x.shape == UNIFORM && y.shape == UNIFORM) return x;
  int ok;
  switch (op) {
  case LLVMAdd: return (value_fact){AFFINE, x.stride + y.stride};
  case LLVMSub: return (value_fact){AFFINE, x.stride - y.stride};
  case LLVMMul: {
    if ((x.shape == AFFINE ? x.stride : y.stride) == 0) return (value_fact){AFFINE, 0};
    int64_t c = const_int(LLVMGetOperand(inst, x.shape == UNIFORM ? 0 : 1), &ok);
    return ok ? (value_fact){AFFINE, (x.shape == AFFINE ? x.stride : y.stride) * c} : varying();
  }
  case LLVMShl: {
    int64_t c = const_int(LLVMGetOperand(inst, 1), &ok), stride;
    if (!ok || x.shape != AFFINE || c < 0 || c > 62 ||
        __builtin_mul_overflow(x.stride, (int64_t)1 << c, &stride))
      return varying();
    return (value_fact){AFFINE, stride};
  }
  case LLVMAShr:
  case LLVMLShr: { /* exact when every lane has the same low bits */
    int64_t c = const_int(LLVMGetOperand(inst, 1), &ok);
    if (!ok || x.shape != AFFINE || c < 0 || c > 62 || x.stride % ((int64_t)1 << c))
      return varying();
    return (value_fact){AFFINE, x.stride / ((int64_t)1 << c)};
  }
  default: return varying();
  }
}

/* Integer casts as instcombine writes them keep lane-affinity, like trunc and sext, as long as
 * no lane group's values straddle the cut: (long)(int)x becomes `ashr (shl x, 32), 32` (the
 * shifts above), (ulong)(uint)x becomes `and x, 2^32 - 1`, and i * 4 + 3 an `or disjoint`. That
 * holds for ids, the values that matter: a group's lanes are G consecutive ids from a multiple of
 * G (packed accesses need local size X to be a multiple of G), and 2^31 and 2^32 are multiples
 * of G. */
static value_fact bitwise_fact(const divergence *d, LLVMValueRef inst, LLVMOpcode op) {
  LLVMValueRef x = LLVMGetOperand(inst, 0), y = LLVMGetOperand(inst, 1);
  if (op == LLVMOr && LLVMGetIsDisjoint(inst)) return affine_binop(d, inst, LLVMAdd);
  if (op == LLVMAnd && LLVMIsAConstantInt(y)) {
    uint64_t m = LLVMConstIntGetZExtValue(y);
    if (m >= 0xffffffffull && (m & (m + 1)) == 0) return divergence_of(d, x);
  }
  return join_operands(d, inst);
}

static value_fact gep_fact(const divergence *d, LLVMValueRef gep) {
  value_fact base = divergence_of(d, LLVMGetOperand(gep, 0));
  if (base.shape == VARYING) return varying();
  int64_t stride = base.shape == AFFINE ? base.stride : 0;
  int any = base.shape == AFFINE;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(
      LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(gep))));
  LLVMTypeRef t = LLVMGetGEPSourceElementType(gep);
  for (int i = 1; i < LLVMGetNumOperands(gep); i++) {
    value_fact f = divergence_of(d, LLVMGetOperand(gep, i));
    if (i > 1) {
      if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        t = LLVMStructGetTypeAtIndex(t, (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(gep, i)));
        continue;
      }
      t = LLVMGetElementType(t);
    }
    if (f.shape == VARYING) return varying();
    if (f.shape == AFFINE) any = 1, stride += f.stride * (int64_t)LLVMABISizeOfType(td, t);
  }
  return any ? (value_fact){AFFINE, stride} : (value_fact){UNIFORM, 0};
}

static value_fact call_fact(const divergence *d, LLVMValueRef call) {
  builtin b = builtin_of_call(call);
  int ok;
  switch (b.kind) {
  case BI_GLOBAL_ID:
  case BI_LOCAL_ID: {
    /* lane-affine within a lane group when the local size's X is a multiple of G, which the
     * generated code checks before it uses a packed access: X has stride 1, Y and Z stride 0 */
    int64_t dim = const_int(LLVMGetOperand(call, 0), &ok);
    return ok && dim >= 0 && dim < 3 ? (value_fact){AFFINE, dim == 0} : varying();
  }
  case BI_ATOMIC:
  case BI_PRINTF: return varying(); /* one call per lane */
  case BI_SUB_GROUP: /* one value per warp, but for the lane's index and the per-lane ones */
    if (!strcmp(b.name, "get_sub_group_local_id")) return (value_fact){AFFINE, 1};
    return builtin_sub_group_per_lane(b.name) ? varying() : (value_fact){UNIFORM, 0};
  default: break;
  }
  for (unsigned i = 0; i < LLVMGetNumArgOperands(call); i++)
    if (divergence_of(d, LLVMGetOperand(call, i)).shape != UNIFORM) return varying();
  return (value_fact){UNIFORM, 0};
}

static int pc_of_inst(const cfg *g, LLVMValueRef inst) {
  return cfg_pc_of(g, LLVMGetInstructionParent(inst));
}

/* A phi whose incoming values are all uniform is uniform; all lane-affine with one stride (a
 * uniform one counting as stride 0), lane-affine: the lanes that run its block together all came
 * along one edge (a phi that merges lanes from different edges is made varying by the sync
 * dependence rule), so each lane group holds one incoming value's lanes. That keeps a
 * grid-stride loop's `i += get_global_size(0)` lane-affine, its accesses packed. In the first
 * pass, values not yet reached (along a back edge) are left out; they join in the next pass. */
static value_fact phi_fact(const dv_state *s, LLVMValueRef phi) {
  int pc = pc_of_inst(s->g, phi), any = 0;
  value_fact f = {UNIFORM, 0};
  for (unsigned i = 0; i < LLVMCountIncoming(phi); i++) {
    LLVMValueRef v = LLVMGetIncomingValue(phi, i);
    if (s->first_pass && LLVMIsAInstruction(v) && pc_of_inst(s->g, v) >= pc) continue;
    value_fact x = divergence_of(s->d, v);
    if (x.shape == VARYING) return varying();
    if (any && (x.shape == AFFINE ? x.stride : 0) != (f.shape == AFFINE ? f.stride : 0))
      return varying();
    if (x.shape == AFFINE) f = x;
    any = 1;
  }
  return f;
}

static value_fact inst_fact(const dv_state *s, LLVMValueRef inst) {
  const divergence *d = s->d;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  switch (op) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMShl:
  case LLVMAShr:
  case LLVMLShr: return affine_binop(d, inst, op);
  case LLVMAnd:
  case LLVMOr: return bitwise_fact(d, inst, op);
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
  case LLVMFreeze:
  case LLVMAddrSpaceCast:
  case LLVMBitCast: return divergence_of(d, LLVMGetOperand(inst, 0));
  case LLVMGetElementPtr: return gep_fact(d, inst);
  case LLVMCall: return call_fact(d, inst);
  case LLVMAlloca: {
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(
        LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))));
    return (value_fact){AFFINE, (int64_t)LLVMABISizeOfType(td, LLVMGetAllocatedType(inst))};
  }
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg: return varying();
  case LLVMLoad:
    return divergence_of(d, LLVMGetOperand(inst, 0)).shape == UNIFORM ? (value_fact){UNIFORM, 0}
                                                                      : varying();
  case LLVMPHI: return phi_fact(s, inst);
  default: return join_operands(d, inst);
  }
}

static LLVMValueRef branch_condition(LLVMValueRef term) {
  if (LLVMIsABranchInst(term) && LLVMIsConditional(term)) return LLVMGetCondition(term);
  if (LLVMIsASwitchInst(term)) return LLVMGetOperand(term, 0);
  return NULL;
}

/* region[pc] = 1 + index of the successor of D it was reached from (or 255 when reached from
 * two), for the blocks reachable from D's successors before ipdom(D). */
static void region_of(const cfg *g, int dpc, unsigned char *region, int *stack) {
  const cfg_block *d = &g->blocks[dpc];
  memset(region, 0, (size_t)g->nblocks);
  for (int s = 0; s < d->nsuccs; s++) {
    int sp = 0, tag = s + 1;
    if (d->succs[s] != d->ipdom) stack[sp++] = d->succs[s];
    while (sp > 0) {
      int x = stack[--sp];
      if (region[x] == tag || region[x] == 255) continue;
      region[x] = region[x] ? 255 : (unsigned char)tag;
      for (int k = 0; k < g->blocks[x].nsuccs; k++)
        if (g->blocks[x].succs[k] != d->ipdom) stack[sp++] = g->blocks[x].succs[k];
    }
  }
}

/* Whether phi reads v only on edges that leave D's region (from inside it, or from D): the
 * sync dependence rule makes such a phi varying, and the lowering writes a phi on each edge,
 * into the lanes that take it when they take it, so each lane keeps the value it left with and
 * v itself may stay uniform in the region (a loop's counter, say, which every lane still in the
 * loop shares). */
static int read_on_exit(const cfg *g, const unsigned char *region, int dpc, LLVMValueRef phi,
                        LLVMValueRef v) {
  if (!LLVMIsAPHINode(phi)) return 0;
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
    if (LLVMGetIncomingValue(phi, k) != v) continue;
    int from = cfg_pc_of(g, LLVMGetIncomingBlock(phi, k));
    if (from < 0 || !(region[from] || from == dpc)) return 0;
  }
  return 1;
}

/* The sync-dependence and temporal-divergence rules for one varying branch D. */
static void control_rules(dv_state *s, int dpc, const unsigned char *region) {
  const cfg *g = s->g;
  for (int pc = 0; pc < g->nblocks; pc++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[pc].bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsAPHINode(i)) {
        int join = region[pc] == 255;
        for (unsigned k = 0; !region[pc] && k < LLVMCountIncoming(i); k++) {
          int from = cfg_pc_of(g, LLVMGetIncomingBlock(i, k));
          join |= from >= 0 && (region[from] || from == dpc);
        }
        if (join) set_fact(s, i, varying());
      }
      if (!region[pc] || divergence_of(s->d, i).shape != UNIFORM) continue;
      for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        int upc = pc_of_inst(g, user);
        if (upc >= 0 && !region[upc] && !read_on_exit(g, region, dpc, user, i))
          set_fact(s, i, varying());
      }
    }
}

static void flow_facts(dv_state *s) {
  for (int pc = 0; pc < s->g->nblocks; pc++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g->blocks[pc].bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) set_fact(s, i, inst_fact(s, i));
}

divergence *divergence_compute(weft_arena *a, const cfg *g) {
  divergence *d = ARENA_NEW(a, divergence, 1);
  ptrmap_init(a, &d->facts, 256);
  d->varying_branch = ARENA_NEW(a, char, g->nblocks);
  dv_state s = {a, g, d, 1, 1};
  unsigned char *region = ARENA_NEW(a, unsigned char, g->nblocks);
  int edges = 0;
  for (int pc = 0; pc < g->nblocks; pc++) edges += g->blocks[pc].nsuccs;
  int *stack = ARENA_NEW(a, int, 2 * edges + 1); /* a block is entered at most twice */
  while (s.changed) {
    s.changed = 0;
    flow_facts(&s);
    for (int pc = 0; pc < g->nblocks; pc++) {
      LLVMValueRef c = branch_condition(LLVMGetBasicBlockTerminator(g->blocks[pc].bb));
      if (!c || !cfg_is_branch(&g->blocks[pc]) || divergence_of(d, c).shape == UNIFORM) continue;
      d->varying_branch[pc] = 1;
      region_of(g, pc, region, stack);
      control_rules(&s, pc, region);
    }
    s.first_pass = 0;
  }
  return d;
}

void divergence_print(FILE *f, const cfg *g, const divergence *d) {
  static const char *names[] = {"uniform", "affine", "varying"};
  for (int pc = 0; pc < g->nblocks; pc++) {
    fprintf(f, "B%d%s\n", pc, d->varying_branch[pc] ? "  (varying branch)" : "");
    for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[pc].bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind) continue;
      value_fact v = divergence_of(d, i);
      char *text = LLVMPrintValueToString(i);
      fprintf(f, "  %-7s", names[v.shape]);
      if (v.shape == AFFINE) fprintf(f, "(%+lld)", (long long)v.stride);
      fprintf(f, " %s\n", text + strspn(text, " "));
      LLVMDisposeMessage(text);
    }
  }
}
