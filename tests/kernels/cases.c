/* The kernel suite's table, kcases[] from the rows of cases.def, and the helpers that fill a
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
#define R1(g, l) .dims = 1, .global = {g, 1, 1}, .local = {l, 1, 1}
#define R2(gx, gy, lx, ly) .dims = 2, .global = {gx, gy, 1}, .local = {lx, ly, 1}
#define R3(gx, gy, gz, lx, ly, lz) .dims = 3, .global = {gx, gy, gz}, .local = {lx, ly, lz}
#define OPTIONS(...) __VA_ARGS__
#define KERNEL(k, options, range, ...)                          \
  {.name = #k,                                                  \
   range,                                                       \
   .params = {__VA_ARGS__},                                     \
   .nparams = sizeof((kparam[]){__VA_ARGS__}) / sizeof(kparam), \
   .oracle = oracle_##k,                                        \
   OPTIONS options},

const kcase kcases[] = {
#include "cases.def"
};
const unsigned nkcases = sizeof kcases / sizeof *kcases;

const kcase *kcase_find(const char *name) {
  for (unsigned i = 0; i < nkcases; i++)
    if (!strcmp(kcases[i].name, name)) return &kcases[i];
  return NULL;
}

size_t ktype_size(weft_type t) { return weft_type_size(t); }

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
  case WEFT_I8:
  case WEFT_U8: ((uint8_t *)p)[i] = (uint8_t)iv; break;
  case WEFT_I16:
  case WEFT_U16: ((uint16_t *)p)[i] = (uint16_t)iv; break;
  case WEFT_I32:
  case WEFT_U32: ((uint32_t *)p)[i] = (uint32_t)iv; break;
  case WEFT_I64:
  case WEFT_U64: ((uint64_t *)p)[i] = (uint64_t)iv; break;
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

/* At least 8 bytes, from weft_buffer_alloc: aligned for the largest type, and ending at a guard
 * page, so that a store past a buffer faults (a launch's memory fault) instead of landing in
 * the next buffer, where no oracle would look. */
static size_t buffer_bytes(size_t bytes) { return bytes < 8 ? 8 : bytes; }
static void *buffer_alloc(size_t bytes) { return weft_buffer_alloc(buffer_bytes(bytes)); }

bool kbufs_make(const kcase *c, kbufs *b) {
  memset(b, 0, sizeof *b);
  for (unsigned k = 0; k < c->nparams; k++) {
    const kparam *pk = &c->params[k];
    size_t size = ktype_size(pk->type);
    if (pk->kind == KP_LOCAL) continue;
    b->bytes[k] = pk->kind == KP_VALUE ? size : size * pk->count;
    if (!(b->p[k] = buffer_alloc(b->bytes[k]))) return kbufs_free(c, b), false;
    memset(b->p[k], 0, buffer_bytes(b->bytes[k]));
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
    if (!(to->p[k] = buffer_alloc(to->bytes[k]))) return kbufs_free(c, to), false;
    memcpy(to->p[k], from->p[k], to->bytes[k]);
  }
  return true;
}

void kbufs_free(const kcase *c, kbufs *b) {
  for (unsigned k = 0; k < c->nparams; k++)
    if (b->p[k]) weft_buffer_free(b->p[k], buffer_bytes(b->bytes[k])), b->p[k] = NULL;
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
  case WEFT_I8:
  case WEFT_I16:
  case WEFT_I32:
  case WEFT_I64: snprintf(out, 40, "%lld", (long long)(bits << sh) >> sh); break;
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
