/* The kernel suite's table: one row per tests/kernels/NAME.cl, and the helpers that fill a
 * case's buffers (splitmix64 seeded by the case's name and the parameter's position, so a
 * failure reproduces exactly) and compare results with the oracle's. */
#include "cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracles.h"

/* Parameters: __global / __constant buffers (random in [lo, hi], random bits, permutation),
 * values, __local buffers. */
#define G(T, n, lo, hi) {KP_GLOBAL, WEFT_##T, n, KI_RAND, lo, hi}
#define GBITS(T, n) {KP_GLOBAL, WEFT_##T, n, KI_BITS, 0, 0}
#define GPERM(T, n) {KP_GLOBAL, WEFT_##T, n, KI_PERM, 0, 0}
#define C(T, n, lo, hi) {KP_CONSTANT, WEFT_##T, n, KI_RAND, lo, hi}
#define V(T, v) {KP_VALUE, WEFT_##T, 1, KI_RAND, v, v}
#define L(T, n) {KP_LOCAL, WEFT_##T, n, KI_RAND, 0, 0}
/* NDRanges */
#define R1(g, l) 1, {g, 1, 1}, {l, 1, 1}
#define R2(gx, gy, lx, ly) 2, {gx, gy, 1}, {lx, ly, 1}
#define R3(gx, gy, gz, lx, ly, lz) 3, {gx, gy, gz}, {lx, ly, lz}
#define CASE(name, range, n, ...) \
  {#name, range, n, {__VA_ARGS__}, oracle_##name, 0, false, false, false, false}
#define CASE_TOL(name, tol, range, n, ...) \
  {#name, range, n, {__VA_ARGS__}, oracle_##name, tol, false, false, false, false}

const kcase kcases[] = {
    /* control flow */
    CASE(if_else, R1(1024, 64), 2, G(I32, 1024, -100, 100), G(I32, 1024, 0, 0)),
    CASE(nested_if, R1(1024, 64), 2, G(I32, 1024, -100, 100), G(I32, 1024, 0, 0)),
    CASE(if_no_else, R1(1024, 64), 2, G(I32, 1024, -100, 100), G(I32, 1024, -1000, 1000)),
    CASE(loop_divergent_trip, R1(1024, 64), 2, G(I32, 1024, 0, 40), G(I32, 1024, 0, 0)),
    CASE(loop_break, R1(1024, 64), 4, G(I32, 1024, 0, 1000), V(I32, 980), V(I32, 1024),
         G(I32, 1024, 0, 0)),
    CASE(loop_break_carried, R1(1024, 64), 3, G(U32, 1024, 0, 1000000), G(U32, 2048, 0, 0),
         V(U32, 200)),
    CASE(loop_continue, R1(1024, 64), 2, G(I32, 1024, 0, 255), G(I32, 1024, 0, 0)),
    CASE(early_return, R1(1024, 64), 2, G(I32, 1024, -100, 100), G(I32, 1024, -1000, 1000)),
    CASE(int_indexes, R1(1024, 64), 3, G(I32, 1025, -1000, 1000), G(I32, 1024, 0, 0),
         G(I32, 1024, 0, 0)),
    CASE(packed_after_return, R1(1024, 64), 3, G(I32, 1024, -100, 100),
         G(I32, 1024, -1000, 1000), V(I32, 0)),
    CASE(switch_fallthrough, R1(1024, 64), 2, G(I32, 1024, 0, 100), G(I32, 1024, 0, 0)),
    {"uniform_branch", R1(1024, 64), 3, {G(I32, 1024, -100, 100), V(I32, 1), G(I32, 1024, 0, 0)},
     oracle_uniform_branch, 0, false, .uniform = true},
    CASE(varying_branch, R1(512, 64), 1, G(I32, 512, 0, 0)),
    CASE(loop_in_divergent, R1(1024, 64), 2, G(I32, 1024, 0, 10000), G(I32, 1024, 0, 0)),
    CASE(gcd_while, R1(1024, 64), 3, G(U32, 1024, 0, 100000), G(U32, 1024, 1, 100000),
         G(U32, 1024, 0, 0)),
    CASE(nested_loops_break, R1(512, 64), 2, G(I32, 512, 0, 300), G(I32, 512, 0, 0)),
    CASE(function_calls, R1(1024, 64), 2, G(I32, 1024, -20, 150), G(I32, 1024, 0, 0)),
    CASE(uniform_loop_divergent_body, R1(1024, 64), 3, G(I32, 1024, 0, 1000), V(I32, 20),
         G(I32, 1024, 0, 0)),
    CASE(loop_ulong, R1(1024, 64), 2, G(U64, 1024, 1, 1000000), G(U32, 1024, 0, 0)),
    CASE(short_circuit, R1(1024, 64), 3, G(I32, 1024, -50, 50), G(I32, 1024, 0, 0),
         G(I32, 1, 0, 0)),
    CASE(odd_local_size, R1(120, 24), 2, G(I32, 120, 0, 100), G(I32, 120, 0, 0)),
    /* __local memory, barriers, atomics */
    CASE(barrier_local_static, R1(1024, 64), 2, G(I32, 1024, -100, 100), G(I32, 16, 0, 0)),
    CASE(barrier_local_arg, R1(1024, 128), 3, G(I32, 1024, -100, 100), G(I32, 1024, 0, 0),
         L(I32, 128)),
    {"barrier_divergent", R1(1024, 64), 3, {G(I32, 1024, -100, 100), G(I32, 1024, 0, 0),
     L(I32, 64)}, oracle_barrier_divergent, 0, false, .divergent_barrier = true},
    CASE(address_after_barrier, R1(1024, 64), 2, G(I32, 1, 0, 16), G(I32, 1024 + 16, 0, 0)),
    CASE(parts, R1(2048, 64), 4, G(I32, 2048, -1000, 1000), G(I32, 2048, 0, 0),
         G(F32, 2048, 0, 0), L(I32, 64)),
    CASE(parts_uniform, R1(2048, 128), 3, G(I32, 2048, 0, 1000), G(I32, 2048, 0, 0), V(I32, 5)),
    CASE(parts_static_local, R1(2048, 64), 2, G(I32, 2048, 0, 1000), G(I32, 2048, 0, 0)),
    CASE(prefix_sum, R1(512, 128), 3, G(I32, 512, -100, 100), G(I32, 512, 0, 0), L(I32, 128)),
    CASE(atomics_global, R1(2048, 64), 4, G(I32, 2048, -1000, 1000), G(I32, 16, 0, 0),
         G(I32, 6, 0, 0), G(U32, 1, 0, 0)),
    CASE(atomics_unsigned, R1(1024, 64), 3, GBITS(U32, 1024), GBITS(U32, 2 + 2 * 16), L(U32, 2)),
    CASE(atomic_tickets, R1(2048, 64), 3, G(I32, 2048, -1000, 1000), G(I32, 3 * 2048, 0, 0),
         G(I32, 3, 0, 0)),
    CASE(atomics_local, R1(4096, 1024), 4, G(I32, 4096, 0, 100), G(I32, 33, 0, 0), L(I32, 32),
         L(I32, 1)),
    CASE(atomics_local_lanes, R1(1024, 128), 4, G(I32, 1024, -1000, 1000),
         G(I32, 4 * 1024 + 10 * 8, 0, 0), L(I32, 12), L(I32, 4 * 128)),
    CASE(transpose_tile, R2(32, 24, 8, 8), 4, G(F32, 768, -1, 1), G(F32, 768, 0, 0), V(I32, 32),
         V(I32, 24)),
    /* types */
    CASE(types_char, R1(1024, 64), 4, GBITS(I8, 1024), GBITS(U8, 1024), G(I8, 1024, 0, 0),
         G(U8, 1024, 0, 0)),
    CASE(types_short, R1(1024, 64), 4, GBITS(I16, 1024), GBITS(U16, 1024), G(I16, 1024, 0, 0),
         G(U16, 1024, 0, 0)),
    CASE(types_long, R1(1024, 64), 4, G(I64, 1024, -1e12, 1e12), GBITS(U64, 1024),
         G(I64, 1024, 0, 0), G(U64, 1024, 0, 0)),
    CASE(types_uint, R1(1024, 64), 3, GBITS(U32, 1024), GBITS(U32, 1024), G(U32, 1024, 0, 0)),
    CASE_TOL(types_float, 1e-6, R1(1024, 64), 3, G(F32, 1024, -2, 2), G(F32, 1024, -2, 2),
             G(F32, 1024, 0, 0)),
    CASE_TOL(types_double, 1e-12, R1(1024, 64), 4, G(F64, 1024, -2, 2), G(F64, 1024, -2, 2),
             G(F64, 1024, 0, 0), G(F32, 1024, 0, 0)),
    CASE(int_mul_hi, R1(1024, 64), 7, GBITS(I32, 1024), GBITS(U32, 1024), GBITS(I64, 1024),
         G(U32, 2048, 0, 0), G(I32, 1024, 0, 0), G(U32, 1024, 0, 0), G(I64, 1024, 0, 0)),
    CASE(div_rem, R1(1024, 64), 6, G(I32, 1024, -2147483647, 2147483647),
         G(I32, 1024, -3, 3), V(I32, -7), V(U32, 3000000000u), V(I32, -1),
         G(I32, 28 * 1024, 0, 0)),
    CASE(int_builtins, R1(1024, 64), 3, G(I32, 1024, -50, 50), C(I32, 1024, -50, 50),
         G(I32, 1024, 0, 0)),
    /* memory */
    CASE(uniform_after_store, R1(1024, 64), 4, G(I32, 16, 0, 0), G(I32, 1024, 0, 0), V(I32, 7),
         V(I32, 0)),
    CASE(pointer_arith, R1(1024, 64), 3, G(I32, 4096, -100, 100), G(I32, 1024, 0, 0), V(I32, 4)),
    CASE(scatter_gather, R1(1024, 64), 4, GPERM(I32, 1024), G(F32, 1024, -10, 10),
         G(F32, 1024, 0, 0), G(I32, 1024, 0, 0)),
    /* float4 and math */
    CASE_TOL(float4_arith, 1e-5, R1(1024, 64), 4, G(F32, 4096, -1, 1), G(F32, 4096, -1, 1),
             G(F32, 4096, 0, 0), G(F32, 1024, 0, 0)),
    {"common_builtins", R1(1024, 64), 5, {G(F32, 4096, -1, 1), G(I32, 1024, -1e9, 1e9),
     GBITS(U32, 1024), G(F32, 15 * 1024, 0, 0), G(I32, 8 * 1024, 0, 0)},
     oracle_common_builtins, 0, .not_c = true}, /* vector literals and components */
    {"conversions", R1(1024, 64), 8, {G(F32, 1024, -3e9, 3e9), G(F64, 1024, -1e5, 1e5),
     GBITS(I32, 1024), GBITS(I64, 1024), G(I32, 20 * 1024, 0, 0), G(I64, 4 * 1024, 0, 0),
     G(F32, 8 * 1024, 0, 0), G(U16, 8 * 1024, 0, 0)},
     oracle_conversions, 0, .not_c = true}, /* vector literals and components */
    {"float4_swizzle", R1(1024, 64), 2, {G(F32, 4096, -1, 1), G(F32, 4096, 0, 0)},
     oracle_float4_swizzle, 1e-6, .not_c = true}, /* components, a vector literal */
    CASE_TOL(math_basic, 1e-5, R1(1024, 64), 3, G(F32, 1024, -2, 2), G(F32, 1024, -2, 2),
             G(F32, 1024, 0, 0)),
    CASE_TOL(math_transcendental, 5e-5, R1(1024, 64), 3, G(F32, 1024, 0.1, 4),
             G(F32, 1024, -3, 3), G(F32, 1024, 0, 0)),
    {"math_more", R1(1024, 64), 7, {G(F32, 1024, -4, 4), G(F32, 1024, -4, 4),
     G(I32, 1024, -3, 3), G(F32, 4 * 1024, 0, 0), G(I32, 8 * 1024, 0, 0),
     G(F32, 12 * 1024, 0, 0), G(I32, 6 * 1024, 0, 0)}, oracle_math_more, 2e-6,
     .not_c = true}, /* vector components */
    {"sub_groups", R1(1000, 40), 4, {G(I32, 1000, -100, 100), G(F32, 1000, -1, 1),
     G(I32, 13 * 1000, 0, 0), G(F32, 3 * 1000, 0, 0)}, oracle_sub_groups, 0, .not_c = true,
     .per_warp = true}, /* sub-groups are warps */
    /* NDRanges */
    CASE(ndrange_2d, R2(64, 48, 8, 6), 2, G(I32, 64 * 48, 0, 0), G(I32, 4, 0, 0)),
    CASE(ndrange_3d, R3(16, 8, 6, 4, 4, 2), 1, G(I32, 16 * 8 * 6, 0, 0)),
    {"dynamic_index", R3(16, 8, 8, 4, 4, 2), 7, {G(F32, 4 * 1024, -8, 8), G(I32, 8 * 1024, -1000, 1000),
     G(I32, 1024, 0, 1023), G(F32, 4 * 1024, 0, 0), G(I32, 8 * 1024, 0, 0), G(I32, 1024, 0, 0),
     V(I32, 6)}, oracle_dynamic_index, 0, .not_c = true}, /* vector elements */
};
const unsigned nkcases = sizeof kcases / sizeof *kcases;

const kcase *kcase_find(const char *name) {
  for (unsigned i = 0; i < nkcases; i++)
    if (!strcmp(kcases[i].name, name)) return &kcases[i];
  return NULL;
}

size_t ktype_size(weft_type t) {
  static const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return t <= WEFT_F64 ? sizes[t] : 0;
}

/* ---- filling ---- */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t seed_of(const char *name, unsigned param) {
  uint64_t h = 14695981039346656037u; /* FNV-1a */
  for (; *name; name++) h = (h ^ (unsigned char)*name) * 1099511628211u;
  return h ^ param;
}

/* Stores v (an integer or a float, by the type) as element i of buffer p. */
static void store(weft_type t, void *p, size_t i, int64_t iv, double fv) {
  switch (t) {
  case WEFT_I8: case WEFT_U8: ((uint8_t *)p)[i] = (uint8_t)iv; break;
  case WEFT_I16: case WEFT_U16: ((uint16_t *)p)[i] = (uint16_t)iv; break;
  case WEFT_I32: case WEFT_U32: ((uint32_t *)p)[i] = (uint32_t)iv; break;
  case WEFT_I64: case WEFT_U64: ((uint64_t *)p)[i] = (uint64_t)iv; break;
  case WEFT_F32: ((float *)p)[i] = (float)fv; break;
  case WEFT_F64: ((double *)p)[i] = fv; break;
  default: break;
  }
}

static void fill(const kparam *k, void *p, uint64_t seed) {
  bool flt = k->type == WEFT_F32 || k->type == WEFT_F64;
  for (size_t i = 0; i < k->count; i++) {
    uint64_t r = splitmix64(&seed);
    double u = (double)(r >> 11) * 0x1p-53;
    int64_t span = (int64_t)(k->hi - k->lo) + 1;
    if (k->init == KI_BITS) store(k->type, p, i, (int64_t)r, 0);
    else if (k->init == KI_PERM) store(k->type, p, i, (int64_t)i, (double)i);
    else if (flt) store(k->type, p, i, 0, k->lo + (k->hi - k->lo) * u);
    else store(k->type, p, i, (int64_t)k->lo + (int64_t)(r % (uint64_t)span), 0);
  }
  if (k->init != KI_PERM) return;
  for (size_t i = k->count - 1; i > 0; i--) { /* Fisher-Yates over the identity */
    size_t j = splitmix64(&seed) % (i + 1), s = ktype_size(k->type);
    unsigned char tmp[8];
    memcpy(tmp, (char *)p + i * s, s);
    memcpy((char *)p + i * s, (char *)p + j * s, s);
    memcpy((char *)p + j * s, tmp, s);
  }
}

bool kbufs_make(const kcase *c, kbufs *b) {
  memset(b, 0, sizeof *b);
  for (unsigned k = 0; k < c->nparams; k++) {
    const kparam *pk = &c->params[k];
    size_t size = ktype_size(pk->type);
    if (pk->kind == KP_LOCAL) continue;
    b->bytes[k] = pk->kind == KP_VALUE ? size : size * pk->count;
    if (!(b->p[k] = calloc(1, b->bytes[k] < 8 ? 8 : b->bytes[k]))) return kbufs_free(c, b), false;
    if (pk->kind == KP_VALUE) store(pk->type, b->p[k], 0, (int64_t)pk->lo, pk->lo);
    else fill(pk, b->p[k], seed_of(c->name, k));
  }
  return true;
}

bool kbufs_copy(const kcase *c, const kbufs *from, kbufs *to) {
  memset(to, 0, sizeof *to);
  for (unsigned k = 0; k < c->nparams; k++) {
    if (!from->p[k]) continue;
    to->bytes[k] = from->bytes[k];
    if (!(to->p[k] = malloc(to->bytes[k] < 8 ? 8 : to->bytes[k]))) return kbufs_free(c, to), false;
    memcpy(to->p[k], from->p[k], to->bytes[k]);
  }
  return true;
}

void kbufs_free(const kcase *c, kbufs *b) {
  for (unsigned k = 0; k < c->nparams; k++) free(b->p[k]), b->p[k] = NULL;
}

void kcase_expect(const kcase *c, kbufs *want, unsigned warp) {
  kio io = {c, {0}, c->per_warp ? warp : 0};
  memcpy(io.p, want->p, sizeof io.p);
  c->oracle(&io);
}

/* ---- comparing ---- */

static bool close_enough(double got, double want, double tol) {
  if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
  return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

/* Element i of buffer p as text (40 bytes). */
static void show(weft_type t, const void *p, size_t i, char *out) {
  size_t s = ktype_size(t);
  uint64_t bits = 0;
  memcpy(&bits, (const char *)p + i * s, s);
  unsigned sh = 64 - 8 * (unsigned)s; /* to sign-extend a narrow signed integer */
  switch (t) {
  case WEFT_F32: snprintf(out, 40, "%.9g", ((const float *)p)[i]); break;
  case WEFT_F64: snprintf(out, 40, "%.17g", ((const double *)p)[i]); break;
  case WEFT_I8: case WEFT_I16: case WEFT_I32: case WEFT_I64:
    snprintf(out, 40, "%lld", (long long)(bits << sh) >> sh);
    break;
  default: snprintf(out, 40, "%llu", (unsigned long long)bits);
  }
}

/* Whether element i agrees: integers (and floats when tol is 0) bit for bit. */
static bool agree(weft_type t, const void *g, const void *w, size_t i, double tol) {
  const float *gf = g, *wf = w;
  const double *gd = g, *wd = w;
  size_t s = ktype_size(t);
  if (tol && t == WEFT_F32) return close_enough(gf[i], wf[i], tol);
  if (tol && t == WEFT_F64) return close_enough(gd[i], wd[i], tol);
  return !memcmp((const char *)g + i * s, (const char *)w + i * s, s);
}

bool kcase_compare(const kcase *c, const kbufs *got, const kbufs *want, char *msg, size_t size) {
  bool ok = true;
  size_t len = 0;
  msg[0] = 0;
  for (unsigned k = 0; k < c->nparams; k++) {
    const kparam *pk = &c->params[k];
    if (pk->kind != KP_GLOBAL && pk->kind != KP_CONSTANT) continue;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < pk->count; i++)
      if (!agree(pk->type, got->p[k], want->p[k], i, c->tol) && !bad++) first = i;
    if (!bad) continue;
    ok = false;
    char fg[40], fw[40];
    show(pk->type, got->p[k], first, fg);
    show(pk->type, want->p[k], first, fw);
    if (len < size)
      len += (size_t)snprintf(msg + len, size - len,
                              "%sparameter %u [%zu]: got %s, want %s (%zu of %zu differ)",
                              len ? "; " : "", k, first, fg, fw, bad, pk->count);
  }
  return ok;
}
