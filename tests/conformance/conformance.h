/* The builtin conformance test (builtins.def): its rows, and the references of reference.c. */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdint.h>

/* The integer types of a row, as a mask (in the order of conformance.c's types[]). */
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
};

#define CR 0.5 /* correctly rounded */

typedef long double math_ref(const long double *x, long double *o, int dbl);
typedef __int128 int_ref(__int128 a, __int128 b, __int128 c, int bits, int sgn);

typedef struct row {
  const char *name, *shape;
  double ulp[2]; /* float, double; unused for integer rows */
  unsigned types; /* integer rows: TY_*; 0 for a MATH row */
  unsigned flags;
  math_ref *math;
  int_ref *integer;
} row;

extern const row rows[];
extern const unsigned n_rows;

#endif
