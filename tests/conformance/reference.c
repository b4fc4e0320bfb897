/* The host references of builtins.def: each row's expression made a function, and the helpers
 * they call. Floats are computed in long double (64 bits of mantissa: every float and double
 * argument is exact, and an int too), integers exactly in __int128. */
/* exp10l needs _GNU_SOURCE, which the build defines */
#include <math.h>
#include <string.h>

#include "conformance.h"

static const long double PI_L = 3.141592653589793238462643383279502884L;

/* v rounded to the row's type, as the specification's formulas round their steps. */
static long double to_type(long double v, int dbl) { return dbl ? (double)v : (float)v; }

/* sin(pi x), exact at the integers with the sign of x, as the specification asks. x is reduced
 * exactly (fmodl), then folded into [-0.5, 0.5] (1 - r is exact), so that sinl's argument keeps
 * its relative precision near the zeros. */
static long double sinpi_l(long double x) {
  if (isinf(x)) return NAN;
  long double r = fmodl(x, 2);
  if (r > 1) r -= 2;
  if (r < -1) r += 2;
  if (r == 0 || fabsl(r) == 1) return copysignl(0, x);
  if (r > 0.5L) r = 1 - r;
  if (r < -0.5L) r = -1 - r;
  return sinl(PI_L * r);
}

/* cos(pi x) = sin(pi (0.5 - |x|)), +0 at the half integers. */
static long double cospi_l(long double x) {
  if (isinf(x)) return NAN;
  long double r = fabsl(fmodl(x, 2)), s = sinpi_l(0.5L - r);
  return s == 0 ? 0 : s;
}

/* fract: fmin(x - floor(x), the largest value below 1), x - floor(x) rounded to the type first
 * (a tiny negative x gives 1 there); ±0 and NaN give themselves, ±inf +0. */
static long double fract_l(long double x, long double *o, int dbl) {
  *o = floorl(x);
  if (isinf(x)) return 0;
  if (x == 0 || isnan(x)) return x;
  return fminl(to_type(x - floorl(x), dbl), dbl ? 0x1.fffffffffffffp-1L : 0x1.fffffep-1L);
}

/* frexp: the exponent is unspecified for inf and NaN (C99, which OpenCL follows). */
static long double frexp_l(long double x, long double *o) {
  int e = 0;
  long double m = frexpl(x, &e);
  *o = isfinite(x) ? e : NAN;
  return m;
}

/* FP_ILOGB0 and FP_ILOGBNAN are INT_MIN and INT_MAX in clang's OpenCL headers; inf gives
 * INT_MAX as in C99. */
static long double ilogb_l(long double x) {
  if (x == 0) return -2147483648.0L;
  if (!isfinite(x)) return 2147483647.0L;
  return ilogbl(x);
}

/* maxmag (max 1) and minmag: x if |x| is greater (smaller), y if |y| is, else fmax (fmin). */
static long double magnitude_l(long double x, long double y, int max) {
  long double ax = fabsl(x), ay = fabsl(y);
  if (max ? ax > ay : ax < ay) return x;
  if (max ? ay > ax : ay < ax) return y;
  return max ? fmaxl(x, y) : fminl(x, y);
}

static long double modf_l(long double x, long double *o) {
  *o = truncl(x);
  return isinf(x) ? copysignl(0, x) : copysignl(x - truncl(x), x);
}

/* powr: pow for x >= 0 only, with the edge cases of OpenCL 1.2, 7.5.1. */
static long double powr_l(long double x, long double y) {
  if (isnan(x) || isnan(y) || x < 0) return NAN;
  if (x == 0 && y == 0) return NAN;
  if (isinf(x) && y == 0) return NAN;
  if (x == 1 && isinf(y)) return NAN;
  if (x == 1) return 1;
  return powl(fabsl(x), y); /* -0 is +0 here: pow(-0, -3) is -inf, powr(-0, -3) +inf */
}

/* rootn: x^(1/n); a negative x has odd roots only; n = 0 is NaN. */
static long double rootn_l(long double x, long double n) {
  long long k = (long long)n;
  if (k == 0 || (x < 0 && k % 2 == 0)) return NAN;
  long double r = powl(fabsl(x), 1 / n);
  return k % 2 ? copysignl(r, x) : r;
}

static long double sincos_l(long double x, long double *o) {
  *o = cosl(x);
  return sinl(x);
}

/* sign: ±1, ±0 itself, 0 for a NaN. */
static long double sign_l(long double x) {
  if (isnan(x)) return 0;
  return x > 0 ? 1 : x < 0 ? -1 : x;
}

static long double smoothstep_l(long double e0, long double e1, long double x) {
  long double t = fminl(fmaxl((x - e0) / (e1 - e0), 0), 1);
  return t * t * (3 - 2 * t);
}

/* bitselect: each bit of the encoding from x[1] where x[2]'s is set, else from x[0]. */
static long double bitselect_l(const long double *x, int dbl) {
  if (dbl) {
    uint64_t v[3];
    for (int k = 0; k < 3; k++) memcpy(&v[k], &(double){(double)x[k]}, sizeof v[k]);
    double r;
    memcpy(&r, &(uint64_t){(v[0] & ~v[2]) | (v[1] & v[2])}, sizeof r);
    return r;
  }
  uint32_t v[3];
  for (int k = 0; k < 3; k++) memcpy(&v[k], &(float){(float)x[k]}, sizeof v[k]);
  float r;
  memcpy(&r, &(uint32_t){(v[0] & ~v[2]) | (v[1] & v[2])}, sizeof r);
  return r;
}

/* mad's two evaluations: fma(a, b, c), returned, and a * b rounded to the type (by the host's
 * own float or double product) then added to c, in *o (EITHER). */
static long double mad_l(const long double *x, long double *o, int dbl) {
  *o = (dbl ? (long double)((double)x[0] * (double)x[1])
            : (long double)((float)x[0] * (float)x[1])) +
       x[2];
  return fmal(x[0], x[1], x[2]);
}

/* ln |gamma(x)|, and in *o the sign of gamma(x): unspecified (NaN) at the poles (the negative
 * integers), at -inf and for a NaN; gamma(±0) is ±inf. */
static long double lgamma_l(long double x, long double *o) {
  int sign = 1;
  long double r = lgammal_r(x, &sign);
  int pole = x < 0 && (isinf(x) || x == floorl(x));
  *o = isnan(x) || pole ? NAN : x == 0 ? (signbit(x) ? -1 : 1) : sign;
  return r;
}

/* remquo: remainder(x, y), and in *o the lower seven bits of the quotient it rounds to, with the
 * sign of x / y (NaN, unspecified, where the remainder is NaN). |x| mod 128|y| (exact, and long
 * double does not overflow) keeps the quotient's parity and low bits; its own remainder by |y|
 * gives them, as (m - r) / |y| is an integer of at most 8 bits times |y|, exact. */
static long double remquo_l(long double x, long double y, long double *o) {
  long double r = remainderl(x, y), ay = fabsl(y), m = fmodl(fabsl(x), 128 * ay);
  long double q = isinf(y) ? 0 : fmodl((m - remainderl(m, ay)) / ay, 128);
  *o = isnan(r) ? NAN : signbit(x) != signbit(y) ? -q : q;
  return r;
}

/* ---- integers ---- */

static __int128 saturate(__int128 v, int bits, int sgn) {
  __int128 lo = sgn ? -((__int128)1 << (bits - 1)) : 0,
           hi = sgn ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
  return v < lo ? lo : v > hi ? hi : v;
}

/* The high half of a * b: a floor, which >> is on a negative __int128 (GCC and clang). The
 * product of two ulongs needs the unsigned type. */
static __int128 mul_hi_i(__int128 a, __int128 b, int bits, int sgn) {
  if (!sgn) return (__int128)(((unsigned __int128)a * (unsigned __int128)b) >> bits);
  return (a * b) >> bits;
}

/* a * b + c saturated; for ulong the product may pass 2^127, but not 2^128. */
static __int128 mad_sat_i(__int128 a, __int128 b, __int128 c, int bits, int sgn) {
  if (sgn) return saturate(a * b + c, bits, sgn);
  unsigned __int128 v = (unsigned __int128)a * (unsigned __int128)b + (unsigned __int128)c;
  unsigned __int128 max = ((unsigned __int128)1 << bits) - 1;
  return (__int128)(v > max ? max : v);
}

/* The set bits among a's low `bits` bits. */
static __int128 popcount_i(__int128 a, int bits) {
  int n = 0;
  for (int i = 0; i < bits; i++) n += (int)((a >> i) & 1);
  return n;
}

/* Leading zeros of a's low `bits` bits. */
static __int128 clz_i(__int128 a, int bits) {
  int n = 0;
  for (int i = bits - 1; i >= 0 && !((a >> i) & 1); i--) n++;
  return n;
}

/* a rotated left by b modulo the width (b's low bits, whatever its sign). */
static __int128 rotate_i(__int128 a, __int128 b, int bits) {
  unsigned __int128 mask = ((unsigned __int128)1 << bits) - 1, v = (unsigned __int128)a & mask;
  int n = (int)((unsigned __int128)b & (unsigned)(bits - 1));
  return n ? (__int128)(((v << n) | (v >> (bits - n))) & mask) : (__int128)v;
}

/* select's choice (6.12.6): a vector's selector element c picks b where its most significant
 * bit is set, a scalar's where it is not zero. c is the value of a signed or unsigned integer
 * of `bits` bits. */
static int selects(long double c, int bits, int w) {
  return w > 1 ? c < 0 || c >= ldexpl(1, bits - 1) : c != 0;
}

/* ---- conversions (6.2.3) ---- */

/* x rounded to an integer by the row's mode. */
static long double round_mode(long double x, unsigned flags) {
  return flags & RTZ ? truncl(x) : flags & RTP ? ceill(x) : flags & RTN ? floorl(x) : rintl(x);
}

/* v rounded to float or double by the row's mode: to nearest even, then a step of one ulp where
 * that lies on the wrong side of v (which takes an overflow to infinity back to the largest
 * finite value where the mode rounds toward zero). */
static long double round_to(long double v, int dbl, unsigned flags) {
  long double r = to_type(v, dbl);
  int down = flags & RTN ? 1 : flags & RTP ? 0 : flags & RTZ ? v > 0 : -1;
  if (isnan(v) || down < 0 || (down ? r <= v : r >= v)) return r;
  long double toward = down ? -INFINITY : INFINITY;
  return dbl ? nextafter((double)r, (double)toward) : nextafterf((float)r, (float)toward);
}

/* The least and greatest values of integer type t. */
static void int_range(unsigned t, long double *lo, long double *hi) {
  int bits = types[t].bits - types[t].sgn;
  *hi = ldexpl(1, bits) - 1, *lo = types[t].sgn ? -*hi - 1 : 0;
}

/* convert_<to><flags>(x), x exact: to a float rounded by the mode; to an integer rounded by the
 * mode, then with _sat NaN 0 and clamped to the range, without it wrapped (an integer x, two's
 * complement as 6.1.1 has it; convert_domain keeps a float x in range). */
long double convert_l(long double x, unsigned to, unsigned flags) {
  if (types[to].real) return round_to(x, to == T_DOUBLE, flags);
  long double lo, hi, r = isnan(x) ? 0 : round_mode(x, flags);
  int_range(to, &lo, &hi);
  if (flags & SAT) return r < lo ? lo : r > hi ? hi : r;
  r = fmodl(r, hi - lo + 1);
  return r < lo ? r + (hi - lo + 1) : r > hi ? r - (hi - lo + 1) : r;
}

/* A float x moved to where convert_<to><flags>(x) is defined: a float out of an integer type's
 * range (after rounding), NaN or infinite, is undefined there without _sat (6.2.3.3). It keeps
 * its low bits (fmodl: exact, and a value of x's type), then loses its fraction if rounding
 * still takes it out. */
long double convert_domain(long double x, unsigned to, unsigned flags) {
  if (types[to].real || (flags & SAT)) return x;
  long double lo, hi, r;
  int_range(to, &lo, &hi);
  x = isnan(x) ? 0.75L : isinf(x) ? copysignl(2.5L, x) : x;
  if (r = round_mode(x, flags), r >= lo && r <= hi) return x;
  x = fmodl(lo < 0 ? x : fabsl(x), hi + 1);
  return r = round_mode(x, flags), r >= lo && r <= hi ? x : truncl(x);
}

/* ---- geometric functions (6.12.5), of the work-item's vectors a and b of n elements ---- */

static long double max_magnitude(const long double *a, const long double *b, int n) {
  long double m = 0;
  for (int i = 0; i < n; i++) m = fmaxl(m, fmaxl(fabsl(a[i]), fabsl(b[i])));
  return m;
}

/* The sum of a[i] * b[i] in long double: exact for float (48-bit products, sums of four within
 * 64 bits unless their exponents lie far apart), within 2^-63 of it for double. */
static long double dot_l(const long double *a, const long double *b, int n, long double *scale) {
  long double s = a[0] * b[0]; /* not 0 + ...: -0 * 0 is -0 */
  for (int i = 1; i < n; i++) s += a[i] * b[i];
  *scale = max_magnitude(a, b, n);
  return s;
}

/* Component k of a x b (of 3 or 4 elements; the fourth is 0.0, 6.12.5). Its bound's max is of
 * the four elements that enter it, as the OpenCL CTS reads "max". */
static long double cross_l(const long double *a, const long double *b, int k, long double *scale) {
  static const int next[3] = {1, 2, 0}, after[3] = {2, 0, 1};
  if (k == 3) return *scale = 0, 0;
  int i = next[k], j = after[k];
  long double x[2] = {a[i], a[j]}, y[2] = {b[i], b[j]};
  *scale = max_magnitude(x, y, 2);
  return a[i] * b[j] - a[j] * b[i];
}

static long double length_l(const long double *a, int n) {
  long double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return sqrtl(s);
}

static long double distance_l(const long double *a, const long double *b, int n) {
  long double d[4];
  for (int i = 0; i < n; i++) d[i] = a[i] - b[i];
  return length_l(d, n);
}

/* Component k of normalize(a), with the cases OpenCL C 3.0 (6.15.5) spells out: all zeros give
 * a itself, a NaN NaNs, and infinite elements count as copysign(1, a[i]) and the others as
 * 0.0 * a[i] (so a NaN stays one). */
static long double normalize_l(const long double *a, int n, int k) {
  long double v[4];
  int inf = 0, zero = 1;
  for (int i = 0; i < n; i++) inf |= isinf(a[i]) != 0, zero &= a[i] == 0;
  if (zero) return a[k];
  for (int i = 0; i < n; i++) v[i] = !inf ? a[i] : isinf(a[i]) ? copysignl(1, a[i]) : 0 * a[i];
  return v[k] / length_l(v, n);
}

/* ---- halves (6.12.7): the bits of a half in a long double ---- */

long double half_value(long double bits) {
  unsigned h = (unsigned)bits, e = h >> 10 & 0x1f, m = h & 0x3ff;
  long double v = e == 31 ? (m ? NAN : INFINITY)
                  : e     ? ldexpl(1024 + m, (int)e - 25)
                          : ldexpl(m, -24);
  return h & 0x8000 ? -v : v;
}

int half_is_nan(__int128 bits) { return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff); }

/* x (exact) rounded to a half by the mode of flags, as its bits: x in units of the half's ulp
 * at its magnitude (2^-24 below the normal range) rounded to an integer. Beyond the largest half
 * (65504) it is infinite where the mode rounds away from zero or to nearest, else 65504. A NaN
 * gives 0x7e00: the test takes any NaN for it (half_is_nan). */
static long double half_bits(long double x, unsigned flags) {
  unsigned sign = signbit(x) ? 0x8000 : 0;
  long double a = fabsl(x);
  if (isnan(x)) return 0x7e00;
  if (isinf(a)) return sign | 0x7c00;
  int e = a < 0x1p-14L ? -14 : ilogbl(a);
  long double m = fabsl(round_mode(x / ldexpl(1, e - 10), flags)) * ldexpl(1, e - 10);
  if (m > 65504) {
    int up = flags & RTE || (flags & RTP && !sign) || (flags & RTN && sign);
    return sign | (up ? 0x7c00 : 0x7bff);
  }
  if (m < 0x1p-14L) return sign | (unsigned)ldexpl(m, 24); /* 0 or a subnormal */
  e = ilogbl(m);
  return sign | (unsigned)(e + 15) << 10 | ((unsigned)ldexpl(m, 10 - e) - 1024);
}

/* ---- the table's expressions as functions, and the table ---- */

/* A row's functions are named by its line (a builtin may have several rows); a conversion's, a
 * geometric function's and a half load's or store's by its name (a macro of the table makes
 * several on one line). */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define MATH(name, shape, fu, du, flags, expr)                                                   \
  static long double CAT(ref_, __LINE__)(const long double *x, long double *o, int dbl, int w) { \
    (void)x, (void)o, (void)dbl, (void)w;                                                        \
    return expr;                                                                                 \
  }
#define MATH_F(name, shape, fu, flags, expr) MATH(name, shape, fu, 0, flags, expr)
#define INT(name, shape, types, flags, expr)                                                  \
  static __int128 CAT(iref_, __LINE__)(__int128 a, __int128 b, __int128 c, int bits, int sgn, \
                                       int w) {                                               \
    (void)a, (void)b, (void)c, (void)bits, (void)sgn, (void)w;                                \
    return expr;                                                                              \
  }
#define CONVERT(dst, to, suffix, flags)                                                          \
  static long double CAT(conv_, CAT(dst, suffix))(const long double *x, long double *o, int dbl, \
                                                  int w) {                                       \
    (void)o, (void)dbl, (void)w;                                                                 \
    return convert_l(x[0], to, flags);                                                           \
  }
#define GEOM(name, shape, types, widths, fu, du, flags, expr)                                   \
  static long double CAT(gref_, name)(const long double *a, const long double *b, int n, int k, \
                                      int dbl, long double *scale) {                            \
    (void)a, (void)b, (void)n, (void)k, (void)dbl, (void)scale;                                 \
    return expr;                                                                                \
  }                                                                                             \
  static double CAT(gbound_, name)(int n, int dbl) { return (void)n, dbl ? (du) : (fu); }
#define HALF(name, shape, types, widths, flags, expr)                                         \
  static long double CAT(href_, name)(const long double *x, long double *o, int dbl, int w) { \
    (void)o, (void)dbl, (void)w;                                                              \
    return expr;                                                                              \
  }
#include "builtins.def"
#undef MATH
#undef MATH_F
#undef INT
#undef CONVERT
#undef GEOM
#undef HALF

const row rows[] = {
#define MATH(name, shape, fu, du, flg, expr) \
  {#name, shape, {fu, du}, .flags = flg, .math = CAT(ref_, __LINE__), .family = FAMILY},
#define MATH_F(name, shape, fu, flg, expr)                                                        \
  {#name,           shape, {fu, 0}, .types = TY_FLOAT, .flags = flg, .math = CAT(ref_, __LINE__), \
   .family = FAMILY},
#define INT(name, shape, tys, flg, expr) \
  {#name, shape, .types = tys, .flags = flg, .integer = CAT(iref_, __LINE__), .family = FAMILY},
#define CONVERT(dst, to, suffix, flg)    \
  {"convert_" #dst #suffix,              \
   #to ":T",                             \
   .types = ALL_TYPES,                   \
   .flags = flg,                         \
   .math = CAT(conv_, CAT(dst, suffix)), \
   .family = FAMILY},
#define GEOM(name, shape, tys, wid, fu, du, flg, expr) \
  {#name,                                              \
   shape,                                              \
   .types = tys,                                       \
   .flags = flg,                                       \
   .geom = CAT(gref_, name),                           \
   .bound = CAT(gbound_, name),                        \
   .widths = wid,                                      \
   .family = FAMILY},
#define HALF(name, shape, tys, wid, flg, expr)                                           \
  {#name,         shape,           .types = tys, .flags = flg, .math = CAT(href_, name), \
   .widths = wid, .family = FAMILY},
#include "builtins.def"
#undef MATH
#undef MATH_F
#undef INT
#undef CONVERT
#undef GEOM
#undef HALF
};
const unsigned n_rows = sizeof rows / sizeof *rows;
