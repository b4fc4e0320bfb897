/* The builtin conformance test: every row of builtins.def, for each of its types and the vector
 * widths 1, 2, 3, 4, 8 and 16 (a geometric function's 1 to 4), run through weft over edge
 * values (every combination, for two and three arguments, of a set of them) and seeded random
 * values, and compared element by element with the row's host reference (reference.c): floats
 * within the row's ULP bound (or absolute bound), a NaN for a NaN, the sign of an exact zero;
 * integers and halves exactly. A geometric function's reference reads its work-item's whole
 * vectors; a half store must also leave alone the halves it does not store.
 *
 *     conformance [--only NAME[/TYPE],...] [--skip NAME[/TYPE],...] [--configs WxG,...]
 *                 [--skip-at WxG:NAME[/TYPE],...] [--widths 1,2,...] [--show N]
 *                 [--print source|worst]
 *
 * (NAME and TYPE may be fnmatch patterns: --only 'convert_*_sat/float'.) WEFT_CONFORMANCE=full
 * in the environment runs 16 times the values, and every row at every width.
 *
 * One kernel per row and type (its widths in a switch on a uniform argument), all in one
 * program, built once per configuration (W x G; 0x0, the default: W 32 and the CPU's G). A
 * failure prints the builtin, type, width, configuration, inputs, result and reference;
 * skipped rows are named in the summary; --print worst prints each case's largest error
 * among the elements that passed. The summary counts the signatures (builtin x type x width)
 * tested and gives each family's largest error. Exit status 0 when every element passed. */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "weft.h"

/* n_el: elements per case, a multiple of 48 (N_QUICK, or N_FULL under WEFT_CONFORMANCE=full);
 * n_in: values per argument and slots per half buffer, room for n_el elements as aligned
 * 3-vectors of halves (4 slots each) */
enum { N_QUICK = 1536, N_FULL = 16 * N_QUICK, NIN_MAX = N_FULL / 3 * 4, MAX_ARGS = 3 };
static unsigned n_el = N_QUICK, n_in = N_QUICK / 3 * 4;
static const unsigned widths[] = {1, 2, 3, 4, 8, 16};
static unsigned shown_max = 4; /* failures printed per case and configuration (--show) */
static int print_worst;          /* --print worst: each case's largest error */
static unsigned only_widths = ALL_WIDTHS; /* --widths: the widths run, of each row's */

const type types[] = {
    {"char", WEFT_I8, 8, 1, 0},     {"uchar", WEFT_U8, 8, 0, 0},   {"short", WEFT_I16, 16, 1, 0},
    {"ushort", WEFT_U16, 16, 0, 0}, {"int", WEFT_I32, 32, 1, 0},   {"uint", WEFT_U32, 32, 0, 0},
    {"long", WEFT_I64, 64, 1, 0},   {"ulong", WEFT_U64, 64, 0, 0}, {"float", WEFT_F32, 32, 1, 1},
    {"double", WEFT_F64, 64, 1, 1}, {"half", WEFT_U16, 16, 0, 0},
};

/* The type of a SHAPE letter for a row of type t (builtins.def). */
static unsigned kind_type(char kind, unsigned t) {
  if (isdigit((unsigned char)kind)) return (unsigned)(kind - '0'); /* a conversion's result */
  kind = (char)toupper((unsigned char)kind); /* a lowercase letter: the same type, a scalar */
  unsigned same_width = t == T_FLOAT ? T_INT : t == T_DOUBLE ? T_INT + 2 : t;
  switch (kind) {
  case 'I': return T_INT;
  case 'B': return same_width & ~1u; /* an unsigned type follows its signed one */
  case 'U': return same_width | 1;
  case 'W': return t + 2;
  case 'H': return T_HALF;
  default: return t;
  }
}

/* A row's shape, read: the kinds of the result, of each argument and of the stored value. */
typedef struct shape {
  char result, args[MAX_ARGS], out;
  unsigned nargs;
} shape;

static shape shape_of(const row *r) {
  shape s = {.result = r->shape[0]};
  for (const char *p = r->shape + 2; *p && *p != '*'; p++) s.args[s.nargs++] = *p;
  const char *star = strchr(r->shape, '*');
  s.out = star ? star[1] : 0;
  return s;
}

/* A value of any type: f for the floats (and ints in a MATH row's reference), i for integers. */
typedef struct val {
  long double f;
  __int128 i;
} val;

/* ---- the kernels' source ---- */

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap * 2 + (size_t)n + 1024;
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
}

static void vec_name(char *out, unsigned t, unsigned w) {
  sprintf(out, w > 1 ? "%s%u" : "%s", types[t].name, w);
}

/* buf[i] = v, or vstoreN(v, i, buf) for a vector. */
static void store(text *src, const char *v, const char *buf, unsigned w) {
  if (w > 1) put(src, " vstore%u(%s, i, %s);", w, v, buf);
  else put(src, " %s[i] = %s;", buf, v);
}

/* A CONVERT row (a HALF store has a rounding mode too). */
static int is_convert(const row *r) { return (r->flags & CONVERSION) && !(r->flags & HALF_STORE); }

/* The builtin's name at width w: a conversion's has the width after its type's name
 * (convert_int4_sat), a half load's or store's after "_half" (vstore_half4_rtz). */
static void call_name(char *out, const row *r, const shape *s, unsigned t, unsigned w) {
  const char *to = types[kind_type(s->result, t)].name;
  size_t at = is_convert(r) ? strlen("convert_") + strlen(to)
              : r->flags & (HALF_LOAD | HALF_STORE)
                  ? (size_t)(strstr(r->name, "_half") - r->name) + 5
                  : 0;
  if (!at || w == 1) strcpy(out, r->name);
  else sprintf(out, "%.*s%u%s", (int)at, r->name, w, r->name + at);
}

static int has_width(const row *r, unsigned w) {
  return (only_widths >> w & 1) && (!r->widths || (r->widths >> w & 1));
}

/* --widths 1,2,3,4: the mask of V1 ... V16 */
static unsigned parse_widths(const char *list) {
  unsigned mask = 0;
  for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    unsigned w = (unsigned)atoi(p);
    if (w != 1 && w != 2 && w != 3 && w != 4 && w != 8 && w != 16)
      fprintf(stderr, "conformance: --widths takes 1, 2, 3, 4, 8 and 16\n"), exit(2);
    mask |= 1u << w;
  }
  return mask;
}

/* One case of the kernel's switch: the builtin at width w, its arguments loaded with vloadN
 * (a[i] for scalars), its result and stored value written back the same way. A half load reads
 * its halves itself (vload_halfN(i, a0)), a half store writes its result itself. */
static void emit_width(text *src, const row *r, const shape *s, unsigned t, unsigned w) {
  char call[256], ot[24], name[40];
  call_name(name, r, s, t, w);
  int n = snprintf(call, sizeof call, "%s(%s", name, r->flags & HALF_LOAD ? "i, a0" : "");
  for (unsigned k = 0; k < s->nargs && !(r->flags & HALF_LOAD); k++)
    n += w > 1 && !islower((unsigned char)s->args[k])
             ? snprintf(call + n, sizeof call - (size_t)n, "%svload%u(i, a%u)", k ? ", " : "", w, k)
             : snprintf(call + n, sizeof call - (size_t)n, "%sa%u[i]", k ? ", " : "", k);
  snprintf(call + n, sizeof call - (size_t)n, "%s)",
           s->out                  ? ", &t"
           : r->flags & HALF_STORE ? ", i, r"
                                   : "");
  put(src, "  case %u: {", w);
  if (s->out) vec_name(ot, kind_type(s->out, t), w), put(src, " %s t;", ot);
  if (r->flags & HALF_STORE) put(src, " %s;", call);
  else store(src, call, "r", islower((unsigned char)s->result) ? 1 : w);
  if (s->out) store(src, "t", "o", w);
  put(src, " } break;\n");
}

/* k<row>_NAME_TYPE: a builtin may have rows of several shapes (fmax(float4, float)). */
static void kernel_name(char *out, size_t n, const row *r, unsigned t) {
  snprintf(out, n, "k%u_%s_%s", (unsigned)(r - rows), r->name, types[t].name);
}

static void emit_kernel(text *src, const row *r, unsigned t) {
  shape s = shape_of(r);
  char name[64];
  kernel_name(name, sizeof name, r, t);
  put(src, "__kernel void %s(", name);
  for (unsigned k = 0; k < s.nargs; k++)
    put(src, "__global const %s *a%u, ", types[kind_type(s.args[k], t)].name, k);
  put(src, "__global %s *r, ", types[kind_type(s.result, t)].name);
  if (s.out) put(src, "__global %s *o, ", types[kind_type(s.out, t)].name);
  put(src, "int w) {\n  size_t i = get_global_id(0);\n  switch (w) {\n");
  for (unsigned k = 0; k < sizeof widths / sizeof *widths; k++)
    if (has_width(r, widths[k])) emit_width(src, r, &s, t, widths[k]);
  put(src, "  }\n}\n");
}

/* ---- inputs: edge values, every combination of them, then seeded random values ---- */

static uint64_t next_random(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

static long double to_type(long double v, unsigned t) {
  return t == T_DOUBLE ? (double)v : (float)v;
}

/* An integer wrapped to type t: its low bits, sign-extended for a signed type. */
static __int128 wrap(__int128 v, unsigned t) {
  int bits = types[t].bits;
  unsigned __int128 low = (unsigned __int128)v & (((unsigned __int128)1 << bits) - 1);
  if (types[t].sgn && (low >> (bits - 1))) return (__int128)low - ((__int128)1 << bits);
  return (__int128)low;
}

/* A half's edge values, as bits: ±0, the least and largest subnormals, the least normal, ±1 and
 * its neighbours, the largest finite, ±inf, quiet and signalling NaNs, and two of no note. */
static unsigned half_edges(val *out) {
  static const unsigned bits[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x8400,
                                  0x3c00, 0xbc00, 0x3bff, 0x3c01, 0x7bff, 0xfbff, 0x7c00,
                                  0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x7fff, 0x3555, 0x5640};
  for (unsigned k = 0; k < sizeof bits / sizeof *bits; k++) out[k] = (val){0, bits[k]};
  return sizeof bits / sizeof *bits;
}

/* The edge values of type t (floats in f, integers in i) for row r; their number. A
 * conversion's have more ties and the integer types' bounds and halves next to them; a half
 * store's the half's range and ties: 65504 (the largest), 65520 (the tie above it, infinity to
 * nearest), the least normal and subnormal and the ties next to them, ties at 1 and 4096, and
 * (for a double) a value just past a tie, which a float would round onto it. */
static unsigned edges(unsigned t, const row *r, val *out) {
  static const long double reals[] = {NAN,  INFINITY, -INFINITY, 0,     -0.0L,     1,       -1,
                                      0.5,  -0.5,     2,         -2,    1.5,       -2.5,    3,
                                      0.25, 100,      -100,      1e10L, -0x1p-70L, 16777217};
  static const long double halves[] = {
      65504,      -65504,   65519,         65520,        -65520,        65536,
      1e5L,       0x1p-14L, -0x1.ffcp-15L, 0x1p-24L,     0x1p-25L,      -0x1p-25L,
      0x1.8p-25L, 0x1p-26L, 0x1.8p-24L,    1 + 0x1p-11L, -1 - 0x3p-11L, 1 + 0x1p-11L + 0x1p-40L,
      4097,       4098,     -0x1.00fp-3L};
  /* a double geometric function's: elements 2^960 apart, next to each other in vectors of 2, 3
   * and 4 (a small one below 2^-422, all its bits set, next to one above 2^500 has a normal
   * quotient) */
  static const long double far[] = {0x1p510L, -0x1.5555555555555p-440L, -0x1.4p520L,
                                    0x1.9e3779b97f4a7p-430L};
  int conv = is_convert(r);
  unsigned n = 0;
  if (t == T_HALF) return half_edges(out);
  if (types[t].real) {
    int dbl = t == T_DOUBLE;
    long double tiny = dbl ? 0x1p-1074L : 0x1p-149L, least = dbl ? 0x1p-1022L : 0x1p-126L,
                most = dbl ? 0x1.fffffffffffffp1023L : 0x1.fffffep127L;
    const long double own[] = {tiny, -tiny, least, -least, most, -most, -most / 3};
    for (unsigned k = 0; k < sizeof reals / sizeof *reals; k++) out[n++].f = to_type(reals[k], t);
    for (unsigned k = 0; k < sizeof own / sizeof *own; k++) out[n++].f = to_type(own[k], t);
    for (int bits = 8; conv && bits <= 64; bits *= 2) {
      long double m = ldexpl(1, bits - 1), u = 2 * m;
      const long double near[] = {m - 0.5L, m, -m - 0.5L, -m - 1, u - 0.5L, u};
      for (unsigned k = 0; k < sizeof near / sizeof *near; k++) out[n++].f = to_type(near[k], t);
    }
    if (conv) out[n++].f = 2.5, out[n++].f = -1.5;
    for (unsigned k = 0; (r->flags & HALF_STORE) && k < sizeof halves / sizeof *halves; k++)
      out[n++].f = to_type(halves[k], t);
    for (unsigned k = 0; r->geom && dbl && k < sizeof far / sizeof *far; k++) out[n++].f = far[k];
    return n;
  }
  int bits = types[t].bits;
  __int128 min = types[t].sgn ? -((__int128)1 << (bits - 1)) : 0,
           max = types[t].sgn ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
  const __int128 ints[] = {
      0,       1,    -1,       2,        min,      min + 1, max,
      max - 1, bits, bits - 1, bits + 1, 2 * bits, -bits,   (__int128)0x5555555555555555ll,
      -3};
  for (; n < sizeof ints / sizeof *ints; n++) out[n].i = wrap(ints[n], t);
  return n;
}

/* A random value of type t: for floats a third random bits, a third in [-1, 1], a third of a
 * magnitude in [2^-12, 2^12]; for ints a quarter in [-40, 40] (shift counts, exponents), the
 * rest random bits (for an int argument of a MATH row, three quarters in [-40, 40]). */
static val random_value(unsigned t, int math_int, uint64_t *s) {
  uint64_t bits = next_random(s);
  unsigned pick = (unsigned)(next_random(s) % 12);
  val v = {0, 0};
  if (types[t].real) {
    long double u = (long double)(bits >> 11) * 0x1p-52L - 1;
    if (pick < 4 && t == T_FLOAT) {
      float f;
      memcpy(&f, &(uint32_t){(uint32_t)bits}, sizeof f);
      v.f = f;
    } else if (pick < 4) {
      double d;
      memcpy(&d, &bits, sizeof d);
      v.f = d;
    } else v.f = pick < 8 ? u : ldexpl(u, (int)(next_random(s) % 25) - 12);
    v.f = to_type(v.f, t);
    return v;
  }
  int small = math_int ? pick < 9 : pick < 3;
  v.i = wrap(small ? (__int128)(bits % 81) - 40 : (__int128)bits, t);
  return v;
}

/* A finite v's exponent moved to at most e (exact). */
static long double limit_exponent(long double v, int e) {
  return isfinite(v) && fabsl(v) > ldexpl(1, e) ? scalbnl(v, e - ilogbl(v)) : v;
}

/* v's exponent moved to at most 2^60: mix and smoothstep of huge values overflow in their
 * formulas, where the specification leaves them to the implementation. */
static long double moderate(long double v) {
  if (isnan(v)) return 0.75L;
  if (isinf(v)) return copysignl(2, v);
  return limit_exponent(v, 60);
}

static void swap(long double *a, long double *b) {
  long double t = *a;
  *a = *b, *b = t;
}

/* The arguments x of one element moved into the row's domain (builtins.def's D_* flags). */
static void fix_real(unsigned flags, unsigned t, long double *x) {
  if (flags & D_ORDER) {
    if (isnan(x[1])) x[1] = -1;
    if (isnan(x[2])) x[2] = 1;
    if (x[1] > x[2]) swap(&x[1], &x[2]);
  }
  if (flags & D_FINITE)
    for (int k = 0; k < 2; k++)
      x[k] = isnan(x[k]) ? 0.75L : isinf(x[k]) ? copysignl(2, x[k]) : x[k];
  if (flags & D_MIX) {
    x[0] = moderate(x[0]), x[1] = moderate(x[1]);
    long double a = isnan(x[2]) ? 0.5L : isinf(x[2]) ? 1 : fabsl(x[2]);
    x[2] = a > 1 ? a - floorl(a) : a;
  }
  if (flags & D_SMOOTH) {
    for (int k = 0; k < 3; k++) x[k] = moderate(x[k]);
    if (x[0] > x[1]) swap(&x[0], &x[1]);
    if (x[0] == x[1])
      x[1] = t == T_DOUBLE ? nextafter((double)x[1], 1e300) : nextafterf(x[1], 1e30f);
  }
  if (flags & D_TRIG16) /* |x| <= 2^16: finite exponents at most 15, inf 2^16 */
    x[0] = isinf(x[0]) ? copysignl(0x1p16L, x[0]) : limit_exponent(x[0], 15);
  if (flags & D_POWR) x[0] = fabsl(x[0]);
  for (int k = 0; k < 2 && (flags & D_PRODUCTS); k++)
    x[k] = limit_exponent(x[k], t == T_DOUBLE ? 509 : 61);
  for (int k = 0; k < 2 && (flags & D_FAST); k++) {
    x[k] = moderate(x[k]);
    if (x[k] != 0 && fabsl(x[k]) < 0x1p-60L) x[k] = scalbnl(x[k], -60 - ilogbl(x[k]));
  }
}

static void fix_int(unsigned flags, unsigned t, __int128 *x) {
  if ((flags & D_ORDER) && x[1] > x[2]) {
    __int128 s = x[1];
    x[1] = x[2], x[2] = s;
  }
  for (int k = 0; k < 2 && (flags & D_24); k++) /* 24 bits, sign-extended for int */
    x[k] = types[t].sgn ? (__int128)((int32_t)((uint32_t)x[k] << 8) >> 8) : x[k] & 0xffffff;
}

/* One case: a row at one type, its inputs and references. */
typedef struct test_case {
  const row *r;
  shape s;
  unsigned t, at[MAX_ARGS]; /* the row's type, the arguments' */
  val in[MAX_ARGS][NIN_MAX], want[N_FULL], want_out[N_FULL];
  long double scale[N_FULL]; /* a GEOM row's: the max of its ABS bound */
  double worst;         /* the largest error in ulps (ABS: units) of an element that passed */
} test_case;

/* Element e's arguments: the e-th combination of edge values (of the first 9 of each for three
 * arguments), past them random values. WHOLE: the elements from n_el / 2 in blocks of 12 (each
 * vector of 1 to 4 elements lies in one) all of one edge value, another for each argument. */
static void make_inputs(test_case *c, uint64_t seed) {
  static val edge[MAX_ARGS][64];
  unsigned ne[MAX_ARGS], combos = 1;
  for (unsigned k = 0; k < c->s.nargs; k++) {
    ne[k] = edges(c->at[k], c->r, edge[k]);
    if (c->s.nargs == 3 && ne[k] > 9) ne[k] = 9;
    combos *= ne[k];
  }
  for (unsigned e = 0; e < n_in; e++)
    for (unsigned k = 0, rest = e; k < c->s.nargs; k++) {
      int math_int = types[c->t].real && !types[c->at[k]].real && c->at[k] != T_HALF;
      c->in[k][e] = e < combos ? edge[k][rest % ne[k]] : random_value(c->at[k], math_int, &seed);
      if ((c->r->flags & WHOLE) && e >= n_el / 2 && e < n_el / 2 + n_el / 4)
        c->in[k][e] = edge[k][((e - n_el / 2) / 12 + 7 * k) % ne[k]];
      rest /= ne[k];
    }
}

static void fix_domain(test_case *c) {
  for (unsigned e = 0; e < n_in; e++) {
    long double x[MAX_ARGS] = {0};
    __int128 i[MAX_ARGS] = {0};
    for (unsigned k = 0; k < c->s.nargs; k++) x[k] = c->in[k][e].f, i[k] = c->in[k][e].i;
    if ((c->r->flags & D_SIGNS) && e >= n_el / 2 && (e / 16) % 4 < 2) /* whole vectors' signs */
      i[0] = wrap((e / 16) % 4 ? i[0] & ~((__int128)1 << (types[c->t].bits - 1))
                               : i[0] | ((__int128)1 << (types[c->t].bits - 1)),
                  c->t);
    if (is_convert(c->r) && types[c->t].real)
      x[0] = convert_domain(x[0], kind_type(c->s.result, c->t), c->r->flags);
    else if (types[c->t].real) fix_real(c->r->flags, c->t, x);
    else fix_int(c->r->flags, c->t, i);
    for (unsigned k = 0; k < c->s.nargs; k++) c->in[k][e].f = x[k], c->in[k][e].i = i[k];
  }
}

/* Where element e of a half buffer is at width w: an aligned 3-vector's in 4 slots. */
static unsigned slot_of(const row *r, unsigned e, unsigned w) {
  return (r->flags & ALIGNED) && w == 3 ? e / 3 * 4 + e % 3 : e;
}

/* Argument k of element e at width w: a scalar argument (a lowercase letter) is work-item
 * e / w's, the same for every element of its vector. */
static val arg_at(const test_case *c, unsigned k, unsigned e, unsigned w) {
  if (c->at[k] == T_HALF) e = slot_of(c->r, e, w);
  return c->in[k][islower((unsigned char)c->s.args[k]) ? e / w : e];
}

/* A scalar result at every width (any, all): one per work-item, its reference folded over the
 * elements of its vector. */
static int per_item(const shape *s) { return islower((unsigned char)s->result); }

/* The reference of work-item j of an INT row with a scalar result: the row's function called for
 * each element of its vector in turn, with the result so far in b and c 1 for the first. */
static __int128 fold(const test_case *c, unsigned j, unsigned w) {
  __int128 acc = 0;
  for (unsigned k = 0; k < w; k++)
    acc = c->r->integer(c->in[0][j * w + k].i, acc, k == 0, types[c->t].bits, types[c->t].sgn,
                        (int)w);
  return acc;
}

static int has_scalar(const shape *s) {
  for (unsigned k = 0; k < s->nargs; k++)
    if (islower((unsigned char)s->args[k])) return 1;
  return 0;
}

/* A GEOM row's references at width w: for each work-item's vectors, its result (a scalar) or
 * each of its elements, with the max of an absolute bound. */
static void geom_references(test_case *c, unsigned w) {
  for (unsigned j = 0; j < n_el / w; j++) {
    long double a[4], b[4] = {0};
    for (unsigned k = 0; k < w; k++)
      a[k] = c->in[0][j * w + k].f, b[k] = c->s.nargs > 1 ? c->in[1][j * w + k].f : 0;
    for (unsigned k = 0; k < (per_item(&c->s) ? 1 : w); k++) {
      unsigned e = per_item(&c->s) ? j : j * w + k;
      c->want[e].f = c->r->geom(a, b, (int)w, (int)k, c->t == T_DOUBLE, &c->scale[e]);
    }
  }
}

/* Whether the references depend on the width: a GEOM row's, an aligned half row's, a fold's,
 * or a row's with a scalar argument or one that reads w. */
static int width_dependent(const test_case *c) {
  return c->r->geom || (c->r->flags & (ALIGNED | WIDTH)) || has_scalar(&c->s) || per_item(&c->s);
}

/* The references of every element at width w: a MATH row's in long double (an int argument as
 * one), an INT row's exact and wrapped to the result's type. */
static void make_references(test_case *c, unsigned w) {
  unsigned rt = kind_type(c->s.result, c->t);
  if (c->r->geom) return geom_references(c, w);
  for (unsigned j = 0; per_item(&c->s) && j < n_el / w; j++) c->want[j].i = wrap(fold(c, j, w), rt);
  for (unsigned e = 0; e < n_el && !per_item(&c->s); e++) {
    val a[MAX_ARGS] = {{0, 0}};
    for (unsigned k = 0; k < c->s.nargs; k++) a[k] = arg_at(c, k, e, w);
    if (c->r->math) {
      long double x[MAX_ARGS] = {0}, o = 0;
      for (unsigned k = 0; k < c->s.nargs; k++)
        x[k] = types[c->at[k]].real ? a[k].f : (long double)a[k].i;
      c->want[e].f = c->r->math(x, &o, c->t == T_DOUBLE, (int)w);
      c->want_out[e].f = o;
      continue;
    }
    __int128 v = c->r->integer(a[0].i, a[1].i, a[2].i, types[c->t].bits, types[c->t].sgn, (int)w);
    c->want[e].i = wrap(v, rt);
  }
}

/* ---- running a case and comparing ---- */

static void store_val(void *buf, unsigned t, size_t e, val v) {
  size_t size = weft_type_size(types[t].wt);
  char *at = (char *)buf + e * size;
  if (t == T_FLOAT) memcpy(at, &(float){(float)v.f}, size);
  else if (t == T_DOUBLE) memcpy(at, &(double){(double)v.f}, size);
  else memcpy(at, &(uint64_t){(uint64_t)v.i}, size); /* the low bytes: x86 is little-endian */
}

static val load_val(const void *buf, unsigned t, size_t e) {
  size_t size = weft_type_size(types[t].wt);
  const char *at = (const char *)buf + e * size;
  val v = {0, 0};
  float f;
  double d;
  uint64_t u = 0;
  if (t == T_FLOAT) memcpy(&f, at, size), v.f = f;
  else if (t == T_DOUBLE) memcpy(&d, at, size), v.f = d;
  else memcpy(&u, at, size), v.i = wrap(u, t);
  return v;
}

/* One ulp of the type at v's magnitude (the least subnormal's below the normal range, the
 * largest finite's above the type's range). */
static long double ulp_at(long double v, int dbl) {
  int emin = dbl ? -1022 : -126, emax = dbl ? 1023 : 127, e = v == 0 ? emin : ilogbl(v);
  e = e < emin ? emin : e > emax ? emax : e;
  return ldexpl(1, e - (dbl ? 52 : 23));
}

/* The unit of an absolute bound (ABS): eps * max^2, and half the least subnormal, what each
 * operation may lose below the normal range (builtins.def, the geometric functions). */
static long double abs_unit(long double max, int dbl) {
  return (dbl ? 0x1p-52L : 0x1p-23L) * max * max + (dbl ? 0x1p-1075L : 0x1p-150L);
}

/* Whether got is within bound of want (a real result); *ulps says how far it is. An infinite
 * result counts as 2^(emax + 1), as the OpenCL conformance tests count it; it is right outright
 * when want rounds to it. scale: the largest argument's magnitude (SCALED), or the max of an
 * absolute bound (ABS: *ulps is then in its units). */
static int real_ok(unsigned flags, int dbl, long double want, long double got, long double scale,
                   double bound, double *ulps) {
  *ulps = 0;
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  long double rounded = dbl ? (double)want : (float)want;
  if (isinf(rounded) && got == rounded) return 1;
  if (want == 0 && got == 0) return (flags & Z_ANY) || signbit(want) == signbit(got);
  long double g = isinf(got) ? copysignl(dbl ? 0x1p1024L : 0x1p128L, got) : got;
  long double unit = flags & ABS      ? abs_unit(scale, dbl)
                     : flags & SCALED ? ulp_at(scale, dbl)
                                      : ulp_at(want, dbl);
  *ulps = (double)(fabsl(g - want) / unit);
  /* The reference itself is within 2^-11 ulp of a double (2^-40 of a float) */
  return bound == 0 ? g == want : *ulps <= bound + (dbl ? 0x1p-10 : 0x1p-30);
}

/* The row's bound at width w, for its type: a GEOM row's grows with the width. */
static double bound_of(const test_case *c, unsigned w) {
  int dbl = c->t == T_DOUBLE;
  return c->r->bound ? c->r->bound((int)w, dbl) : c->r->ulp[dbl];
}

/* A MATH row's int result (ilogb, frexp's exponent): exact; NaN: unspecified. A truth (TRUTH)
 * is 1 for a scalar and -1 for a vector. */
static int int_of_real_ok(const row *r, unsigned w, long double want, __int128 got) {
  if ((r->flags & TRUTH) && w > 1) want = -want;
  return isnan(want) || (long double)got == want;
}

typedef struct config {
  unsigned warp, lanes;
  char name[24];
} config;

static void print_val(val v, unsigned t) {
  if (t == T_HALF) printf("0x%04x (%Lg)", (unsigned)v.i, half_value(v.i));
  else if (types[t].real) printf("%.17Lg (%La)", v.f, v.f);
  else printf("%lld", (long long)v.i);
  if (!types[t].real && v.i > INT64_MAX) printf(" (%llu)", (unsigned long long)v.i);
}

static void print_failure(const test_case *c, const config *cf, unsigned w, unsigned e,
                          const char *what, val got, val want, unsigned vt, double ulps) {
  char tn[24];
  vec_name(tn, c->t, w);
  printf("FAIL %s %s%s [%s] %s %u: x = ", c->r->name, tn, what, cf->name,
         per_item(&c->s) ? "work-item" : "element", e);
  /* a fold's or a geometric function's result reads its work-item's whole vectors */
  int whole = per_item(&c->s) || c->r->geom;
  unsigned first = (per_item(&c->s) ? e : e / w) * w;
  for (unsigned k = 0; k < c->s.nargs; k++) {
    printf("%s", !k ? "" : whole ? "; " : ", ");
    for (unsigned i = 0; i < (whole ? w : 1); i++)
      printf("%s", i ? ", " : ""),
          print_val(whole ? c->in[k][first + i] : arg_at(c, k, e, w), c->at[k]);
  }
  printf("; got "), print_val(got, vt), printf(", want "), print_val(want, vt);
  if (types[vt].real)
    printf(" (%.3g %s, bound %g)", ulps, c->r->flags & ABS ? "eps max^2" : "ulp", bound_of(c, w));
  printf("\n");
}

/* Whether element e of a result (out: the stored value) of value type vt is right. */
static int element_ok(const test_case *c, int out, unsigned vt, unsigned w, unsigned e, val got,
                      double *ulps) {
  val want = out ? c->want_out[e] : c->want[e];
  *ulps = 0;
  if (vt == T_HALF) /* the bits, or for a NaN any NaN */
    return half_is_nan((__int128)want.f) ? half_is_nan(got.i) : got.i == (__int128)want.f;
  if (!c->r->math && !c->r->geom) return got.i == want.i;
  if (!types[vt].real) return int_of_real_ok(c->r, w, want.f, got.i);
  long double scale = c->r->geom ? c->scale[e] : 0;
  for (unsigned k = 0; k < c->s.nargs && !c->r->geom; k++)
    scale = fmaxl(scale, fabsl(arg_at(c, k, e, w).f));
  int dbl = vt == T_DOUBLE;
  if (real_ok(c->r->flags, dbl, want.f, got.f, scale, bound_of(c, w), ulps)) return 1;
  double other; /* EITHER: the second result the reference allows */
  if (out || !(c->r->flags & EITHER) ||
      !real_ok(c->r->flags, dbl, c->want_out[e].f, got.f, scale, bound_of(c, w), &other))
    return 0;
  *ulps = other;
  return 1;
}

/* The halves a half store at width w must leave alone (they keep the bytes 0xa5 the test
 * fills the buffer with): the fourth of each aligned 3-vector, and those past the n_el elements. */
static unsigned untouched(const test_case *c, const config *cf, unsigned w, const void *buf,
                          unsigned *shown) {
  unsigned failed = 0;
  for (unsigned p = 0; p < n_in; p++) {
    int stored = (c->r->flags & ALIGNED) && w == 3 ? p % 4 != 3 : p < n_el;
    __int128 bits = load_val(buf, T_HALF, p).i;
    if (stored || bits == 0xa5a5) continue;
    failed++;
    if ((*shown)++ < shown_max)
      printf("FAIL %s %s%u [%s]: half %u, which it must not store, is 0x%04x\n", c->r->name,
             types[c->t].name, w, cf->name, p, (unsigned)bits);
  }
  return failed;
}

/* Compares a buffer with the references; prints failures while *shown, the case's printed so
 * far, is below shown_max. Their number. */
static unsigned compare(test_case *c, const config *cf, unsigned w, int out, const void *buf,
                        unsigned *shown) {
  unsigned vt = kind_type(out ? c->s.out : c->s.result, c->t), failed = 0;
  for (unsigned e = 0; e < (per_item(&c->s) ? n_el / w : n_el); e++) {
    val got = load_val(buf, vt, vt == T_HALF ? slot_of(c->r, e, w) : e);
    double ulps;
    if (element_ok(c, out, vt, w, e, got, &ulps)) {
      c->worst = ulps > c->worst ? ulps : c->worst;
      continue;
    }
    failed++;
    val want = out ? c->want_out[e] : c->want[e];
    if ((c->r->flags & TRUTH) && w > 1) want.f = -want.f; /* as int_of_real_ok says */
    if (c->r->math && !types[vt].real) want.i = isnan(want.f) ? 0 : (__int128)want.f;
    if ((*shown)++ < shown_max)
      print_failure(c, cf, w, e, out ? " (stored value)" : "", got, want, vt, ulps);
  }
  return vt == T_HALF ? failed + untouched(c, cf, w, buf, shown) : failed;
}

/* ---- the summary: signatures tested, and each family's largest error ---- */

/* A family's largest error among the elements that passed, in ulps ([0]) and for the ABS rows
 * in units of eps * max^2 ([1]), and the case it came from (r NULL: no case of it ran). */
typedef struct worst_case {
  double error;
  const row *r;
  unsigned t;
} worst_case;

static worst_case family_worst[N_FAMILIES][2];
static unsigned (*widths_run)[T_HALF + 1]; /* per row and type: the widths run, a bit each */

static void note_case(const test_case *c, unsigned wi) {
  widths_run[c->r - rows][c->t] |= 1u << wi;
  worst_case *f = &family_worst[c->r->family][(c->r->flags & ABS) != 0];
  if (!f->r || c->worst > f->error) *f = (worst_case){c->worst, c->r, c->t};
}

static void print_worst_of(const worst_case *f, const char *unit, const char *before) {
  if (!f->r) return;
  if (f->error == 0) printf("%sexact (0 %s)", before, unit);
  else printf("%s%.3g %s (%s %s)", before, f->error, unit, f->r->name, types[f->t].name);
}

/* The number of signatures (builtin x type x vector width) that ran under some configuration,
 * and each family's largest error. */
static void print_summary(void) {
  static const char *const names[N_FAMILIES] = {[F_MATH] = "math (6.12.2)",
                                                [F_RELAXED] = "half_, native_ (6.12.2)",
                                                [F_INTEGER] = "integer (6.12.3)",
                                                [F_COMMON] = "common (6.12.4)",
                                                [F_GEOMETRIC] = "geometric (6.12.5)",
                                                [F_RELATIONAL] = "relational (6.12.6)",
                                                [F_VECTOR_DATA] = "vector data (6.12.7)",
                                                [F_CONVERSION] = "conversions (6.2.3)"};
  unsigned signatures = 0;
  for (unsigned i = 0; i < n_rows; i++)
    for (unsigned t = 0; t <= T_HALF; t++)
      signatures += (unsigned)__builtin_popcount(widths_run[i][t]);
  printf("%u signatures (builtin x type x vector width) tested, over %u values each\n", signatures,
         n_el);
  printf("largest error per family, among the elements within their bound:\n");
  for (unsigned f = 0; f < N_FAMILIES; f++) {
    if (!family_worst[f][0].r && !family_worst[f][1].r) continue;
    printf("  %-24s", names[f]);
    print_worst_of(&family_worst[f][0], "ulp", " ");
    print_worst_of(&family_worst[f][1], "eps max^2", family_worst[f][0].r ? ", " : " ");
    printf("\n");
  }
}

static unsigned gcd(unsigned a, unsigned b) { return b ? gcd(b, a % b) : a; }

/* Runs the case's kernel at every width; the number of wrong elements (all n_el for a launch that
 * failed). */
static unsigned run_case(weft_program *prog, test_case *c, const config *cf) {
  char name[64];
  kernel_name(name, sizeof name, c->r, c->t);
  weft_kernel *k;
  if (weft_kernel_create(prog, name, &k)) return printf("FAIL %s: no kernel\n", name), n_el;
  unsigned n = 0, failed = 0, shown = 0, made = 0, at_width[sizeof widths / sizeof *widths] = {0};
  weft_arg args[MAX_ARGS + 3];
  void *bufs[MAX_ARGS + 2];
  unsigned bt[MAX_ARGS + 2];
  size_t bytes[MAX_ARGS + 2];
  for (unsigned i = 0; i < c->s.nargs; i++) bt[n++] = c->at[i];
  bt[n++] = kind_type(c->s.result, c->t);
  if (c->s.out) bt[n++] = kind_type(c->s.out, c->t);
  for (unsigned i = 0; i < n; i++) {
    bytes[i] = n_in * weft_type_size(types[bt[i]].wt);
    bufs[i] = weft_buffer_alloc(bytes[i]);
    for (unsigned e = 0; i < c->s.nargs && e < n_in; e++) store_val(bufs[i], bt[i], e, c->in[i][e]);
    args[i] = (weft_arg){WEFT_ARG_GLOBAL, types[bt[i]].wt, bytes[i], bufs[i]};
  }
  for (unsigned wi = 0; wi < sizeof widths / sizeof *widths; wi++) {
    int w = (int)widths[wi];
    if (!has_width(c->r, widths[wi])) continue;
    args[n] = (weft_arg){WEFT_ARG_VALUE, WEFT_I32, sizeof w, &w};
    unsigned items = n_el / widths[wi];
    weft_ndrange range = {1, {items, 1, 1}, {gcd(items, 64), 1, 1}};
    for (unsigned i = c->s.nargs; i < n; i++) memset(bufs[i], 0xa5, bytes[i]); /* not a result */
    weft_status st = weft_kernel_launch(k, &range, n + 1, args, NULL);
    if (width_dependent(c) || !made++) make_references(c, widths[wi]);
    if (st) {
      printf("FAIL %s width %d [%s]: %s\n", name, w, cf->name, weft_status_name(st));
      at_width[wi] = n_el, failed += n_el;
      continue;
    }
    at_width[wi] = compare(c, cf, widths[wi], 0, bufs[c->s.nargs], &shown);
    if (c->s.out) at_width[wi] += compare(c, cf, widths[wi], 1, bufs[c->s.nargs + 1], &shown);
    failed += at_width[wi];
    note_case(c, wi);
  }
  if (failed) {
    printf("FAIL %s %s [%s]: wrong elements per width", c->r->name, types[c->t].name, cf->name);
    for (unsigned wi = 0; wi < sizeof widths / sizeof *widths; wi++)
      if (has_width(c->r, widths[wi])) printf(" %u:%u", widths[wi], at_width[wi]);
    printf(" (of %u)\n", n_el);
  }
  if (print_worst && types[kind_type(c->s.result, c->t)].real)
    printf("worst %s %s [%s]: %.3g %s\n", c->r->name, types[c->t].name, cf->name, c->worst,
           c->r->flags & ABS ? "eps max^2" : "ulp");
  for (unsigned i = 0; i < n; i++) weft_buffer_free(bufs[i], bytes[i]);
  weft_kernel_release(k);
  return failed;
}

/* ---- the cases, the options, the configurations ---- */

/* Whether "name" or "name/type" matches a pattern of the comma-separated list (fnmatch's: a
 * star stands for any part of the name or type). */
static int listed(const char *list, const row *r, unsigned t) {
  char full[64], pattern[64];
  snprintf(full, sizeof full, "%s/%s", r->name, types[t].name);
  for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    snprintf(pattern, sizeof pattern, "%.*s", (int)strcspn(p, ","), p);
    if (!fnmatch(pattern, r->name, 0) || !fnmatch(pattern, full, 0)) return 1;
  }
  return 0;
}

static int row_has_type(const row *r, unsigned t) {
  return r->types ? r->types >> t & 1 : t == T_FLOAT || t == T_DOUBLE;
}

/* A seed of its own per case, so that a subset sees the values the whole table does. */
static uint64_t case_seed(const row *r, unsigned t) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ t;
  for (const char *p = r->name; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
  return h | 1;
}

typedef struct options {
  const char *only, *skip, *configs;
  const char *skip_at; /* --skip-at WxG:LIST: LIST skipped under that configuration only */
  unsigned skip_warp, skip_lanes;
  int print; /* --print source: the program's source, nothing run */
} options;

static int selected(const options *o, const config *cf, const row *r, unsigned t) {
  int here = o->skip_at && cf->warp == o->skip_warp && cf->lanes == o->skip_lanes;
  return row_has_type(r, t) && (!o->only || listed(o->only, r, t)) && !listed(o->skip, r, t) &&
         !(here && listed(o->skip_at, r, t));
}

static char *program_source(const options *o, const config *cf) {
  text src = {0};
  put(&src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  for (unsigned i = 0; i < n_rows; i++)
    for (unsigned t = 0; t < sizeof types / sizeof *types; t++)
      if (selected(o, cf, &rows[i], t)) emit_kernel(&src, &rows[i], t);
  return src.s;
}

/* Every selected case under one configuration; the number of cases with a wrong element, or -1
 * when the program did not build. */
static int run_config(const options *o, const config *cf, unsigned *cases) {
  weft_options wo = {.warp = cf->warp, .lanes = cf->lanes};
  weft_context *ctx;
  weft_program *prog;
  if (weft_context_create(&wo, &ctx)) return printf("FAIL [%s]: no context\n", cf->name), -1;
  char *source = program_source(o, cf);
  weft_status built = weft_program_build_source(ctx, "builtins.cl", source, NULL, &prog);
  free(source);
  if (built) {
    printf("FAIL [%s]: the program did not build:\n%s\n", cf->name, weft_last_error(ctx));
    weft_context_release(ctx);
    return -1;
  }
  static test_case c;
  int bad = 0;
  for (unsigned i = 0; i < n_rows; i++)
    for (unsigned t = 0; t < sizeof types / sizeof *types; t++) {
      if (!selected(o, cf, &rows[i], t)) continue;
      c.r = &rows[i], c.s = shape_of(c.r), c.t = t, c.worst = 0;
      for (unsigned k = 0; k < c.s.nargs; k++) c.at[k] = kind_type(c.s.args[k], t);
      make_inputs(&c, case_seed(c.r, t));
      fix_domain(&c);
      bad += run_case(prog, &c, cf) > 0;
      ++*cases;
    }
  weft_program_release(prog);
  weft_context_release(ctx);
  return bad;
}

static options parse(int argc, char **argv) {
  options o = {.configs = "0x0,4x4"};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--only")) o.only = argv[i + 1];
    else if (!strcmp(argv[i], "--skip")) o.skip = argv[i + 1];
    else if (!strcmp(argv[i], "--configs")) o.configs = argv[i + 1];
    else if (!strcmp(argv[i], "--skip-at")) {
      o.skip_at = strchr(argv[i + 1], ':');
      if (!o.skip_at || sscanf(argv[i + 1], "%ux%u", &o.skip_warp, &o.skip_lanes) != 2)
        fprintf(stderr, "conformance: --skip-at WxG:LIST\n"), exit(2);
      o.skip_at++;
    } else if (!strcmp(argv[i], "--show")) shown_max = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--widths")) only_widths = parse_widths(argv[i + 1]);
    else if (!strcmp(argv[i], "--print") && !strcmp(argv[i + 1], "worst")) print_worst = 1;
    else if (!strcmp(argv[i], "--print")) o.print = !strcmp(argv[i + 1], "source");
    else fprintf(stderr, "conformance: unknown option %s\n", argv[i]), exit(2);
  }
  if (argc % 2 == 0) fprintf(stderr, "conformance: %s needs a value\n", argv[argc - 1]), exit(2);
  return o;
}

/* "W32 G cpu" for 0x0 (G: the CPU's), "W4 G 4" */
static void name_config(config *cf) {
  char g[8];
  snprintf(g, sizeof g, "%u", cf->lanes);
  snprintf(cf->name, sizeof cf->name, "W%u G %s", cf->warp ? cf->warp : 32, cf->lanes ? g : "cpu");
}

/* WEFT_CONFORMANCE=full: N_FULL values per case, and every selected row at every width under
 * every configuration (the ctest's --skip, --skip-at and --widths only save time). 0: quick;
 * -1: unknown. */
static int full_mode(options *o) {
  const char *mode = getenv("WEFT_CONFORMANCE");
  if (!mode || !*mode || !strcmp(mode, "quick")) return 0;
  if (strcmp(mode, "full")) return -1;
  n_el = N_FULL, n_in = N_FULL / 3 * 4, only_widths = ALL_WIDTHS;
  o->skip = o->skip_at = NULL;
  return 1;
}

int main(int argc, char **argv) {
  options o = parse(argc, argv);
  int bad = 0, full = full_mode(&o);
  if (full < 0) return fprintf(stderr, "conformance: WEFT_CONFORMANCE is quick or full\n"), 2;
  if (full)
    printf("WEFT_CONFORMANCE=full: %u values per case; --skip, --skip-at, --widths ignored\n",
           n_el);
  widths_run = calloc(n_rows, sizeof *widths_run);
  if (!widths_run) return fprintf(stderr, "conformance: out of memory\n"), 2;
  for (const char *p = o.configs; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
    config cf = {0};
    if (sscanf(p, "%ux%u", &cf.warp, &cf.lanes) != 2)
      return fprintf(stderr, "conformance: bad --configs\n"), 2;
    name_config(&cf);
    if (o.print) { /* the first configuration's */
      char *source = program_source(&o, &cf);
      return fputs(source, stdout), free(source), 0;
    }
    unsigned cases = 0;
    int r = run_config(&o, &cf, &cases);
    printf("[%s] %u cases (builtin x type, each at its widths x %u values): %s\n", cf.name, cases,
           n_el,
           r < 0 ? "no program"
           : r   ? "FAILED"
                 : "all passed");
    if (r) printf("[%s] %d cases with wrong elements\n", cf.name, r < 0 ? 0 : r);
    bad |= r != 0;
  }
  if (o.skip) printf("skipped: %s\n", o.skip);
  config at = {o.skip_warp, o.skip_lanes, ""};
  if (o.skip_at) name_config(&at), printf("skipped under [%s] only: %s\n", at.name, o.skip_at);
  print_summary();
  free(widths_run);
  return bad;
}
