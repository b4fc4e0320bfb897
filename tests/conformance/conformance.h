/* The builtin conformance test (builtins.def): its rows, and the references of reference.c. */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdint.h>

#include "weft.h"

/* The types of the table, in the order of TY_* (conformance.c). */
typedef struct type {
  const char *name;
  weft_type wt;
  int bits, sgn, real;
} type;

extern const type types[];
enum { T_INT = 4, T_FLOAT = 8, T_DOUBLE = 9, T_HALF = 10 }; /* a half: its bits, an integer */

/* The types of a row, as a mask (in the order of types[]). */
enum {
  TY_CHAR = 1 << 0,
  TY_UCHAR = 1 << 1,
  TY_SHORT = 1 << 2,
  TY_USHORT = 1 << 3,
  TY_INT = 1 << 4,
  TY_UINT = 1 << 5,
  TY_LONG = 1 << 6,
  TY_ULONG = 1 << 7,
  ALL_INT = 0xff,
  TY_FLOAT = 1 << 8,
  TY_DOUBLE = 1 << 9,
  ALL_TYPES = 0x3ff,
};

/* A row's flags (builtins.def says what each means). */
enum {
  Z_ANY = 1 << 0,
  SCALED = 1 << 1,
  D_ORDER = 1 << 2,
  D_FINITE = 1 << 3,
  D_MIX = 1 << 4,
  D_SMOOTH = 1 << 5,
  D_24 = 1 << 6,
  TRUTH = 1 << 7,
  SAT = 1 << 8, /* a conversion's _sat, and its (or a half store's) rounding mode, one of four */
  RTE = 1 << 9,
  RTZ = 1 << 10,
  RTP = 1 << 11,
  RTN = 1 << 12,
  CONVERSION = RTE | RTZ | RTP | RTN,
  WIDTH = 1 << 13,
  D_SIGNS = 1 << 14,
  ABS = 1 << 15, /* GEOM: the bound is absolute, in units of eps * max^2 */
  D_PRODUCTS = 1 << 16,
  D_FAST = 1 << 17,
  WHOLE = 1 << 18,
  HALF_LOAD = 1 << 19,
  HALF_STORE = 1 << 20,
  ALIGNED = 1 << 21,
  EITHER = 1 << 22, /* the stored reference (*o) is a second result also allowed (mad) */
  D_TRIG16 = 1 << 23,
  D_POWR = 1 << 24,
};

/* The function families the summary reports on (6.12's sections, and the conversions); a row's
 * is its section's in builtins.def (FAMILY). */
typedef enum family {
  F_MATH,
  F_RELAXED, /* the half_ and native_ math functions */
  F_INTEGER,
  F_COMMON,
  F_GEOMETRIC,
  F_RELATIONAL,
  F_VECTOR_DATA,
  F_CONVERSION,
  N_FAMILIES
} family;

/* A row's vector widths, a bit per width (GEOM and HALF rows; the others have all six). */
enum { V1 = 1 << 1, V2 = 1 << 2, V3 = 1 << 3, V4 = 1 << 4, V8 = 1 << 8, V16 = 1 << 16 };
enum { ALL_WIDTHS = V1 | V2 | V3 | V4 | V8 | V16 };

#define CR 0.5 /* correctly rounded */

typedef long double math_ref(const long double *x, long double *o, int dbl, int w);
typedef __int128 int_ref(__int128 a, __int128 b, __int128 c, int bits, int sgn, int w);
/* A GEOM row's: component k of the result for the work-item's vectors a and b of n elements;
 * *scale: the max of its absolute bound (ABS). Its bound at width n, in ulps or (ABS) units. */
typedef long double geom_ref(const long double *a, const long double *b, int n, int k, int dbl,
                             long double *scale);
typedef double geom_bound(int n, int dbl);

typedef struct row {
  const char *name, *shape;
  double ulp[2]; /* float, double; unused for integer rows */
  unsigned types; /* TY_*; 0 for a MATH row (float and double) */
  unsigned flags;
  math_ref *math;
  int_ref *integer;
  geom_ref *geom;
  geom_bound *bound;
  unsigned widths; /* V1 ... V16; 0: all six */
  family family;
} row;

extern const row rows[];
extern const unsigned n_rows;

long double convert_l(long double x, unsigned to, unsigned flags);
long double convert_domain(long double x, unsigned to, unsigned flags);
long double half_value(long double bits);
int half_is_nan(__int128 bits);

#endif
