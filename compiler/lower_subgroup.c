/* Sub-groups (cl_khr_subgroups): a sub-group is a warp, W work-items of consecutive linear local
 * ids, the last one of a work-group cut short when W does not divide its size. The collective
 * functions work over the lanes that call them, the warp's active lanes: OpenCL asks for the
 * whole sub-group, and under a divergent branch the active lanes are the ones that took it.
 *
 * Also the warp functions of cl_khr_subgroup_ballot, _non_uniform_vote, _shuffle,
 * _shuffle_relative, _non_uniform_arithmetic and _clustered_reduce (the functions of a ballot
 * are IR before this, expand_ballot.c), and sub_group_barrier.
 *
 * A reduction, ballot, broadcast or vote has one result per warp: it is uniform, emitted once
 * per warp as a loop over the lane groups (each group's lanes reduced as a vector, masked), and
 * its result takes no vector registers. Where that result is used past a divergent branch it
 * is under, divergence.c makes it per lane: then each lane group takes the warp's value, in a
 * segment of its own. A scan is per lane: it runs as a segment of its own, lane group by lane
 * group in order, with the total of the groups before in `scan_carry`. Shuffles, clustered
 * reductions and elect are per lane too, each lane group reading every group's values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower.h"

typedef enum sg_op { SG_ADD, SG_MUL, SG_MIN, SG_MAX, SG_AND, SG_OR, SG_XOR } sg_op;

/* The operation that `name` ends with ("..._add", ..., "..._logical_xor"); *logical for the
 * logical ones, which work on (x != 0) and give 0 or 1. */
static int op_of(const char *name, sg_op *op, int *logical) {
  static const char *const names[] = {"add", "mul", "min", "max", "and", "or", "xor"};
  const char *last = strrchr(name, '_');
  if (!last) return 0;
  *logical = last - name >= 8 && !strncmp(last - 8, "_logical", 8);
  for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
    if (!strcmp(last + 1, names[i]) && (!*logical || i >= SG_AND)) return *op = (sg_op)i, 1;
  return 0;
}

static int is_real(LLVMTypeRef t) {
  return LLVMGetTypeKind(lw_elem_type(t)) != LLVMIntegerTypeKind;
}

/* The value that changes nothing under op (-0 for a float sum, so that -0 stays -0). */
static LLVMValueRef identity(LLVMTypeRef t, sg_op op, int is_unsigned) {
  if (is_real(t))
    return ir_const_real(t, op == SG_ADD   ? -0.0
                            : op == SG_MUL ? 1.0
                            : op == SG_MIN ? INFINITY
                                           : -INFINITY);
  unsigned bits = ir_scalar_bits(t);
  unsigned long long all = bits == 64 ? ~0ull : (1ull << bits) - 1, sign = 1ull << (bits - 1);
  unsigned long long v = op == SG_MUL   ? 1
                         : op == SG_AND ? all
                         : op == SG_MIN ? (is_unsigned ? all : sign - 1)
                         : op == SG_MAX ? (is_unsigned ? 0 : sign)
                                        : 0; /* add, or, xor */
  return ir_const_int(t, v);
}

/* Where a reduction or scan starts: the identity, but +0 for a float sum, which is what OpenCL
 * makes the first lane of an exclusive sum (the lanes without a value add -0, which keeps a -0
 * sum of values as it is). */
static LLVMValueRef start(LLVMTypeRef t, sg_op op, int is_unsigned) {
  return op == SG_ADD && is_real(t) ? ir_const_real(t, 0.0) : identity(t, op, is_unsigned);
}

static LLVMValueRef combine(lower *L, sg_op op, int is_unsigned, LLVMValueRef a, LLVMValueRef b) {
  int real = is_real(LLVMTypeOf(a));
  switch (op) {
  case SG_ADD: return real ? LLVMBuildFAdd(L->b, a, b, "") : LLVMBuildAdd(L->b, a, b, "");
  case SG_MUL: return real ? LLVMBuildFMul(L->b, a, b, "") : LLVMBuildMul(L->b, a, b, "");
  case SG_AND: return LLVMBuildAnd(L->b, a, b, "");
  case SG_OR: return LLVMBuildOr(L->b, a, b, "");
  case SG_XOR: return LLVMBuildXor(L->b, a, b, "");
  default: break;
  }
  const char *name = real           ? (op == SG_MIN ? "llvm.minnum" : "llvm.maxnum")
                     : op == SG_MIN ? (is_unsigned ? "llvm.umin" : "llvm.smin")
                                    : (is_unsigned ? "llvm.umax" : "llvm.smax");
  LLVMTypeRef t = LLVMTypeOf(a);
  return lw_intrinsic(L, name, &t, 1, (LLVMValueRef[]){a, b}, 2);
}

/* op over the elements of v, in order, starting from acc (a scalar). */
static LLVMValueRef reduce(lower *L, sg_op op, int is_unsigned, LLVMValueRef acc, LLVMValueRef v) {
  LLVMTypeRef vt = LLVMTypeOf(v);
  int real = is_real(vt);
  if (real && (op == SG_ADD || op == SG_MUL)) /* ordered: lane 0 first, as a loop would */
    return lw_intrinsic(L, op == SG_ADD ? "llvm.vector.reduce.fadd" : "llvm.vector.reduce.fmul",
                        &vt, 1, (LLVMValueRef[]){acc, v}, 2);
  static const char *const ints[] = {"add", "mul", "", "", "and", "or", "xor"};
  char name[40];
  if (real) snprintf(name, sizeof name, "llvm.vector.reduce.f%s", op == SG_MIN ? "min" : "max");
  else if (op == SG_MIN || op == SG_MAX)
    snprintf(name, sizeof name, "llvm.vector.reduce.%c%s", is_unsigned ? 'u' : 's',
             op == SG_MIN ? "min" : "max");
  else snprintf(name, sizeof name, "llvm.vector.reduce.%s", ints[op]);
  return combine(L, op, is_unsigned, acc, lw_intrinsic(L, name, &vt, 1, &v, 1));
}

/* A logical operation's operand: 1 where v is non-zero, else 0. */
static LLVMValueRef truth(lower *L, LLVMValueRef v) {
  LLVMValueRef nz = LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  return LLVMBuildZExt(L->b, nz, LLVMTypeOf(v), "");
}

/* A reduction or scan: sub_group_{reduce,scan_inclusive,scan_exclusive}_OP,
 * sub_group_non_uniform_ the same, sub_group_clustered_reduce_OP. */
typedef enum sg_kind { SG_REDUCE, SG_INCLUSIVE, SG_EXCLUSIVE, SG_CLUSTERED } sg_kind;
typedef struct collective {
  sg_kind kind;
  sg_op op;
  int logical, is_unsigned;
} collective;

/* A sub-group function's name past "sub_group_" and, in the non-uniform forms, "non_uniform_":
 * each does over the active lanes what the other does, which is what both do here. */
static const char *sub_group_op(const char *name) {
  return !strncmp(name, "sub_group_non_uniform_", 22) ? name + 22 : name + 10;
}

static int collective_of(const builtin *bi, collective *c) {
  const char *n = bi->name, *rest = sub_group_op(n);
  if (!strncmp(rest, "reduce_", 7)) c->kind = SG_REDUCE;
  else if (!strncmp(rest, "scan_inclusive_", 15)) c->kind = SG_INCLUSIVE;
  else if (!strncmp(rest, "scan_exclusive_", 15)) c->kind = SG_EXCLUSIVE;
  else if (!strncmp(rest, "clustered_reduce_", 17)) c->kind = SG_CLUSTERED;
  else return 0;
  c->is_unsigned = builtin_unsigned(bi);
  return op_of(n, &c->op, &c->logical);
}

/* x's vector in lane group g. */
static LLVMValueRef value_in_group(lower *L, LLVMValueRef x, unsigned g) {
  unsigned was = L->lane_group;
  L->lane_group = g;
  LLVMValueRef v = lw_vector_of(L, x);
  L->lane_group = was;
  return v;
}

/* x's value in lane group g, its inactive lanes set to `idle`. */
static LLVMValueRef group_value(lower *L, LLVMValueRef x, unsigned g, LLVMValueRef idle) {
  return LLVMBuildSelect(L->b, lw_group_mask(L, L->mask, g), value_in_group(L, x, g),
                         lw_splat(L, idle), "");
}

/* A collective's operand in lane group g, its inactive lanes the identity. */
static LLVMValueRef operand_in_group(lower *L, LLVMValueRef call, const collective *c, unsigned g) {
  LLVMValueRef v = group_value(L, LLVMGetOperand(call, 0), g,
                               identity(LLVMTypeOf(call), c->op, c->is_unsigned));
  return c->logical ? truth(L, v) : v;
}

/* sub_group_reduce_<op>(x) over the active lanes, lane group by lane group. */
static LLVMValueRef reduction(lower *L, LLVMValueRef call, const collective *c) {
  LLVMValueRef acc = start(LLVMTypeOf(call), c->op, c->is_unsigned);
  for (unsigned g = 0; g < L->ngroups; g++)
    acc = reduce(L, c->op, c->is_unsigned, acc, operand_in_group(L, call, c, g));
  return acc;
}

/* sub_group_all / sub_group_any: 1 when the predicate holds in every / some active lane. As
 * W-bit masks, not as <G x i1> selects and reductions, which LLVM 19's instruction selection
 * loops forever on in some kernels (a vote of a uniform value after a barrier). */
static LLVMValueRef vote(lower *L, LLVMValueRef call, int all) {
  LLVMValueRef x = LLVMGetOperand(call, 0), zero = LLVMConstNull(LLVMTypeOf(x)), r;
  if (divergence_of(L->dv, x).shape == UNIFORM) { /* and a call has an active lane */
    r = LLVMBuildICmp(L->b, LLVMIntNE, lw_scalar_of(L, x), zero, "");
    return LLVMBuildZExt(L->b, r, LLVMTypeOf(call), "");
  }
  LLVMValueRef holds = lw_lanes_where(L, LLVMIntNE, x, zero);
  r = all ? LLVMBuildICmp(L->b, LLVMIntEQ, holds, L->mask, "")
          : LLVMBuildICmp(L->b, LLVMIntNE, holds, lw_const_i64(L, 0), "");
  return LLVMBuildZExt(L->b, r, LLVMTypeOf(call), "");
}

/* x in lane id (a scalar). */
static LLVMValueRef value_in_lane(lower *L, LLVMValueRef x, LLVMValueRef id) {
  LLVMValueRef G = LLVMConstInt(LLVMTypeOf(id), L->G, 0);
  LLVMValueRef lane = LLVMBuildURem(L->b, id, G, ""), grp = LLVMBuildUDiv(L->b, id, G, "");
  LLVMValueRef r = LLVMGetPoison(LLVMTypeOf(x));
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef v = group_value(L, x, g, LLVMGetPoison(LLVMTypeOf(x)));
    LLVMValueRef here = LLVMBuildICmp(L->b, LLVMIntEQ, grp, LLVMConstInt(LLVMTypeOf(id), g, 0), "");
    r = LLVMBuildSelect(L->b, here, LLVMBuildExtractElement(L->b, v, lane, ""), r, "");
  }
  return r;
}

/* The lowest active lane (i32). */
static LLVMValueRef first_lane(lower *L) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(L->c);
  LLVMValueRef args[2] = {L->mask, LLVMConstInt(LLVMInt1TypeInContext(L->c), 0, 0)};
  return LLVMBuildTrunc(L->b, lw_intrinsic(L, "llvm.cttz", &i64, 1, args, 2),
                        LLVMInt32TypeInContext(L->c), "");
}

/* sub_group_broadcast(x, id), sub_group_non_uniform_broadcast: lane id's x (id the same in
 * every lane); sub_group_broadcast_first(x): the lowest active lane's. */
static LLVMValueRef broadcast(lower *L, LLVMValueRef call, int first) {
  if (!first && divergence_of(L->dv, LLVMGetOperand(call, 1)).shape != UNIFORM)
    return lw_unsupported(L, call, "sub_group_broadcast from a lane that differs between lanes"),
           NULL;
  return value_in_lane(L, LLVMGetOperand(call, 0),
                       first ? first_lane(L) : lw_scalar_of(L, LLVMGetOperand(call, 1)));
}

/* sub_group_non_uniform_all_equal(x): 1 when x is the same in every active lane. */
static LLVMValueRef all_equal(lower *L, LLVMValueRef call) {
  LLVMValueRef x = LLVMGetOperand(call, 0);
  if (divergence_of(L->dv, x).shape == UNIFORM) return LLVMConstInt(LLVMTypeOf(call), 1, 0);
  LLVMValueRef same = lw_lanes_where(L, LLVMIntEQ, x, value_in_lane(L, x, first_lane(L)));
  return LLVMBuildZExt(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, same, L->mask, ""), LLVMTypeOf(call),
                       "");
}

/* sub_group_ballot(predicate): bit i of the uint4 set where lane i is active and its predicate
 * non-zero (a warp has at most 64 lanes: the last two words are 0). */
static LLVMValueRef ballot(lower *L, LLVMValueRef call) {
  LLVMValueRef x = LLVMGetOperand(call, 0), zero = LLVMConstNull(LLVMTypeOf(x)), holds;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  if (divergence_of(L->dv, x).shape == UNIFORM)
    holds = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntNE, lw_scalar_of(L, x), zero, ""),
                            L->mask, lw_const_i64(L, 0), "");
  else holds = lw_lanes_where(L, LLVMIntNE, x, zero);
  LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, holds, lw_const_i64(L, 32), ""), i32,
                                   "");
  LLVMValueRef r = LLVMBuildInsertElement(L->b, LLVMConstNull(LLVMTypeOf(call)),
                                          LLVMBuildTrunc(L->b, holds, i32, ""), lw_const_i32(L, 0),
                                          "");
  return LLVMBuildInsertElement(L->b, r, hi, lw_const_i32(L, 1), "");
}

/* sub_group_elect(): 1 in the lowest active lane, in lane group L->lane_group. */
static LLVMValueRef elect(lower *L, LLVMValueRef call) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef here = LLVMBuildICmp(L->b, LLVMIntEQ, lw_iota(L, i32, L->lane_group * L->G),
                                    lw_splat(L, first_lane(L)), "");
  return LLVMBuildZExt(L->b, here, lw_vtype(L, LLVMTypeOf(call)), "");
}

/* ---- cl_khr_subgroup_shuffle and _shuffle_relative: each lane of lane group L->lane_group
 * takes x from another lane: sub_group_shuffle(x, i) from lane i, _xor(x, m) from lane ^ m,
 * _up(x, d) from lane - d, _down(x, d) from lane + d; from a lane outside the warp or inactive,
 * a value OpenCL leaves undefined. All in registers. With the same i, m or d in every lane, the
 * usual case, a lane of the warp or log2(W) constant shuffles of the whole warp's vector, each
 * taken where its bit of m or d is set; else a select per lane of the warp. */

typedef enum shuffle_kind { SHUFFLE_INDEX, SHUFFLE_XOR, SHUFFLE_UP, SHUFFLE_DOWN } shuffle_kind;

/* The lane that `lane` takes x from, by a step of `by` lanes; -1 outside the warp. */
static int shuffle_source(const lower *L, shuffle_kind k, int lane, int by) {
  int s = k == SHUFFLE_XOR ? lane ^ by : k == SHUFFLE_UP ? lane - by : lane + by;
  return s >= 0 && s < (int)L->W ? s : -1;
}

/* The whole warp's values as one <W x T>, from each lane group's vector in v[]. */
static LLVMValueRef join_groups(lower *L, LLVMValueRef *v) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, L->W), all = NULL;
  for (unsigned g = 0; g < L->ngroups; g++) {
    for (unsigned i = 0; i < L->W; i++) m[i] = i < L->G ? lw_const_i32(L, i) : LLVMGetPoison(i32);
    LLVMValueRef wide = LLVMBuildShuffleVector(L->b, v[g], LLVMGetPoison(LLVMTypeOf(v[g])),
                                               LLVMConstVector(m, L->W), "");
    for (unsigned i = 0; i < L->W; i++) m[i] = lw_const_i32(L, i / L->G == g ? L->W + i % L->G : i);
    all = all ? LLVMBuildShuffleVector(L->b, all, wide, LLVMConstVector(m, L->W), "") : wide;
  }
  return all;
}

/* Lane group L->lane_group's lanes of a whole warp's <W x T>. */
static LLVMValueRef this_group(lower *L, LLVMValueRef all) {
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, L->G);
  for (unsigned i = 0; i < L->G; i++) m[i] = lw_const_i32(L, L->lane_group * L->G + i);
  return LLVMBuildShuffleVector(L->b, all, LLVMGetPoison(LLVMTypeOf(all)), LLVMConstVector(m, L->G),
                                "");
}

static LLVMValueRef shuffle_uniform(lower *L, LLVMValueRef x, LLVMValueRef by, shuffle_kind k) {
  if (k == SHUFFLE_INDEX) return lw_splat(L, value_in_lane(L, x, by));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef *part = ARENA_NEW(L->arena, LLVMValueRef, L->ngroups);
  for (unsigned g = 0; g < L->ngroups; g++) part[g] = value_in_group(L, x, g);
  LLVMValueRef v = join_groups(L, part), *m = ARENA_NEW(L->arena, LLVMValueRef, L->W);
  for (unsigned step = 1; step < L->W; step *= 2) {
    for (unsigned i = 0; i < L->W; i++) {
      int s = shuffle_source(L, k, (int)i, (int)step);
      m[i] = s < 0 ? LLVMGetPoison(i32) : lw_const_i32(L, (unsigned)s);
    }
    LLVMValueRef moved = LLVMBuildShuffleVector(L->b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                                LLVMConstVector(m, L->W), "");
    LLVMValueRef on = LLVMBuildICmp(
        L->b, LLVMIntNE, LLVMBuildAnd(L->b, by, lw_const_i32(L, step), ""), lw_const_i32(L, 0), "");
    v = LLVMBuildSelect(L->b, on, moved, v, "");
  }
  return this_group(L, v);
}

static LLVMValueRef shuffle_varying(lower *L, LLVMValueRef x, LLVMValueRef by, shuffle_kind k) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef lane = lw_iota(L, i32, L->lane_group * L->G), src = by;
  if (k == SHUFFLE_XOR) src = LLVMBuildXor(L->b, lane, by, "");
  if (k == SHUFFLE_UP) src = LLVMBuildSub(L->b, lane, by, "");
  if (k == SHUFFLE_DOWN) src = LLVMBuildAdd(L->b, lane, by, "");
  LLVMValueRef r = LLVMGetPoison(lw_vtype(L, LLVMTypeOf(x)));
  for (unsigned g = 0; g < L->ngroups; g++) {
    LLVMValueRef v = value_in_group(L, x, g);
    for (unsigned j = 0; j < L->G; j++) {
      LLVMValueRef here = LLVMBuildICmp(L->b, LLVMIntEQ, src,
                                        lw_splat(L, lw_const_i32(L, g * L->G + j)), "");
      r = LLVMBuildSelect(
          L->b, here, lw_splat(L, LLVMBuildExtractElement(L->b, v, lw_const_i32(L, j), "")), r, "");
    }
  }
  return r;
}

static LLVMValueRef shuffle(lower *L, LLVMValueRef call, const char *kind) {
  shuffle_kind k = !*kind                  ? SHUFFLE_INDEX
                   : !strcmp(kind, "_xor") ? SHUFFLE_XOR
                   : !strcmp(kind, "_up")  ? SHUFFLE_UP
                                           : SHUFFLE_DOWN;
  LLVMValueRef x = LLVMGetOperand(call, 0), by = LLVMGetOperand(call, 1);
  if (lw_width(LLVMTypeOf(x)) > 1)
    return lw_unsupported(L, call, "a sub-group shuffle of a vector"), NULL;
  if (divergence_of(L->dv, x).shape == UNIFORM) return lw_splat(L, lw_scalar_of(L, x));
  if (divergence_of(L->dv, by).shape == UNIFORM)
    return shuffle_uniform(L, x, lw_scalar_of(L, by), k);
  return shuffle_varying(L, x, lw_vector_of(L, by), k);
}

/* Work-items of the work-group. */
static LLVMValueRef group_items(lower *L) {
  LLVMValueRef n = lw_group_u64(L, offsetof(weft_group, local_size));
  for (int d = 1; d < 3; d++)
    n = LLVMBuildMul(L->b, n, lw_group_u64(L, offsetof(weft_group, local_size) + 8 * (size_t)d),
                     "");
  return n;
}

/* The warp's index in the work-group: its lane 0's linear local id, over W. */
static LLVMValueRef warp_index(lower *L) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c), i64 = LLVMInt64TypeInContext(L->c);
  LLVMValueRef linear = lw_const_i64(L, 0), scale = lw_const_i64(L, 1);
  for (size_t d = 0; d < 3; d++) {
    LLVMValueRef lid = LLVMBuildLoad2(
        L->b, i32, lw_ctx_field(L, offsetof(weft_warp_ctx, lid) + 4 * d * WEFT_MAX_WARP), "");
    linear = LLVMBuildAdd(L->b, linear,
                          LLVMBuildMul(L->b, LLVMBuildZExt(L->b, lid, i64, ""), scale, ""), "");
    scale = LLVMBuildMul(L->b, scale, lw_group_u64(L, offsetof(weft_group, local_size) + 8 * d),
                         "");
  }
  return LLVMBuildUDiv(L->b, linear, lw_const_i64(L, L->W), "");
}

/* get_sub_group_size and the other queries (uint, as OpenCL declares them). */
static LLVMValueRef query(lower *L, const char *name, int uniform) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef W = lw_const_i64(L, L->W), r;
  if (!strcmp(name, "get_sub_group_local_id"))
    return uniform ? NULL : lw_iota(L, i32, L->lane_group * L->G);
  if (!strcmp(name, "get_max_sub_group_size")) r = W;
  else if (!strcmp(name, "get_sub_group_id")) r = warp_index(L);
  else if (strstr(name, "num_sub_groups"))
    r = LLVMBuildUDiv(L->b, LLVMBuildAdd(L->b, group_items(L), lw_const_i64(L, L->W - 1), ""), W,
                      "");
  else if (!strcmp(name, "get_sub_group_size")) {
    LLVMValueRef left = LLVMBuildSub(L->b, group_items(L), LLVMBuildMul(L->b, warp_index(L), W, ""),
                                     "");
    r = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntULT, left, W, ""), left, W, "");
  } else return NULL;
  r = LLVMBuildTrunc(L->b, r, i32, "");
  return uniform ? r : lw_splat(L, r);
}

/* sub_group_scan_{inclusive,exclusive}_<op>(x) in lane group L->lane_group: a scan of the group's
 * lanes in log2(G) shifted steps, then the groups before it (the carry) put in front. */
static LLVMValueRef scan(lower *L, LLVMValueRef call, const collective *c) {
  LLVMTypeRef t = LLVMTypeOf(call), i32 = LLVMInt32TypeInContext(L->c);
  LLVMValueRef idle = lw_splat(L, identity(t, c->op, c->is_unsigned));
  LLVMValueRef v = operand_in_group(L, call, c, L->lane_group);
  LLVMValueRef *m = ARENA_NEW(L->arena, LLVMValueRef, L->G);
  for (unsigned step = 1; step < L->G; step *= 2) {
    for (unsigned i = 0; i < L->G; i++)
      m[i] = LLVMConstInt(i32, i >= step ? i - step : L->G + i, 0);
    v = combine(L, c->op, c->is_unsigned, v,
                LLVMBuildShuffleVector(L->b, v, idle, LLVMConstVector(m, L->G), ""));
  }
  LLVMValueRef carry = lw_splat(L, LLVMBuildLoad2(L->b, t, L->scan_carry, ""));
  LLVMValueRef incl = combine(L, c->op, c->is_unsigned, carry, v);
  LLVMBuildStore(L->b, LLVMBuildExtractElement(L->b, incl, lw_const_i32(L, L->G - 1), ""),
                 L->scan_carry);
  if (c->kind == SG_INCLUSIVE) return incl;
  for (unsigned i = 0; i < L->G; i++) m[i] = LLVMConstInt(i32, i ? i - 1 : L->G, 0);
  return LLVMBuildShuffleVector(L->b, incl, carry, LLVMConstVector(m, L->G), "");
}

/* sub_group_clustered_reduce_<op>(x, n) in lane group L->lane_group: each lane gets the
 * reduction over the active lanes of its cluster, the n lanes (a constant power of 2) from a
 * multiple of n: log2(n) steps over the whole warp's vector, each combining a lane with the
 * one `step` away (lane ^ step), so that every lane of a cluster ends with all of it. */
static LLVMValueRef clustered(lower *L, LLVMValueRef call, const collective *c) {
  LLVMValueRef size = LLVMGetOperand(call, 1);
  unsigned long long n = LLVMIsAConstantInt(size) ? LLVMConstIntGetZExtValue(size) : 0;
  if (!n || (n & (n - 1)))
    return lw_unsupported(L, call, "a cluster size that is not a constant power of 2"), NULL;
  LLVMValueRef *part = ARENA_NEW(L->arena, LLVMValueRef, L->ngroups);
  for (unsigned g = 0; g < L->ngroups; g++) part[g] = operand_in_group(L, call, c, g);
  LLVMValueRef v = join_groups(L, part), *m = ARENA_NEW(L->arena, LLVMValueRef, L->W);
  for (unsigned step = 1; step < n && step < L->W; step *= 2) {
    for (unsigned i = 0; i < L->W; i++) m[i] = lw_const_i32(L, i ^ step);
    v = combine(L, c->op, c->is_unsigned, v,
                LLVMBuildShuffleVector(L->b, v, v, LLVMConstVector(m, L->W), ""));
  }
  return this_group(L, v);
}

int lw_runs_alone(lower *L, LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return 0;
  builtin bi = builtin_of_call(inst);
  if (bi.kind == BI_PRINTF) return 1;
  /* every lane group's code before it runs before any group's code after it */
  if (bi.kind == BI_FENCE && !strcmp(bi.name, "sub_group_barrier")) return 1;
  if (bi.kind != BI_SUB_GROUP || !strncmp(bi.name, "get_", 4)) return 0;
  collective c;
  if (!collective_of(&bi, &c) || (c.kind != SG_INCLUSIVE && c.kind != SG_EXCLUSIVE))
    return 1; /* a reduction whose result is per lane (divergence.c): the warp's, in each group */
  LLVMTypeRef t = LLVMTypeOf(inst);
  LLVMBasicBlockRef here = lw_at_entry(L);
  L->scan_carry = LLVMBuildAlloca(L->b, t, "carry");
  LLVMPositionBuilderAtEnd(L->b, here);
  LLVMBuildStore(L->b, start(t, c.op, c.is_unsigned), L->scan_carry);
  return 1;
}

LLVMValueRef lw_sub_group(lower *L, LLVMValueRef call, const builtin *bi, int uniform) {
  const char *n = bi->name;
  collective c;
  if (!strncmp(n, "get_", 4)) return query(L, n, uniform);
  int reduces = collective_of(bi, &c);
  if (reduces && c.kind != SG_REDUCE)
    return uniform ? NULL : c.kind == SG_CLUSTERED ? clustered(L, call, &c) : scan(L, call, &c);
  const char *op = sub_group_op(n);
  if (!strcmp(op, "elect")) return uniform ? NULL : elect(L, call);
  if (!strncmp(op, "shuffle", 7)) return uniform ? NULL : shuffle(L, call, op + 7);
  LLVMValueRef r = NULL;
  if (!strcmp(op, "all") || !strcmp(op, "any")) r = vote(L, call, op[1] == 'l');
  else if (!strcmp(op, "all_equal")) r = all_equal(L, call);
  else if (!strcmp(op, "broadcast")) r = broadcast(L, call, 0);
  else if (!strcmp(op, "broadcast_first")) r = broadcast(L, call, 1);
  else if (!strcmp(op, "ballot")) r = ballot(L, call);
  else if (reduces) r = reduction(L, call, &c);
  /* Uniform but for a result used past the divergent branch it is under (divergence.c): then
   * each lane group takes the warp's value, in a segment of its own (lw_runs_alone). */
  return r && !uniform ? lw_splat(L, r) : r;
}
