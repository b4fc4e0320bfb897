/* A float's parts from its encoding (expand_builtins.c): frexp, logb, modf, ldexp, ilogb,
 * bitselect and isnormal, of zeros, infinities, NaN, subnormals and random floats. g gets 5
 * floats and e 3 ints per work-item. */

/* A float from random bits, or one of the edge values by i. */
static float edge_value(int i, uint bits) {
  switch (i % 16) {
  case 0: return 0.0f;
  case 1: return -0.0f;
  case 2: return INFINITY;
  case 3: return -INFINITY;
  case 4: return NAN;
  case 5: return as_float(bits & 0x807fffffu); /* subnormal */
  default: return as_float(bits);
  }
}

static float not_nan(float v) { return isnan(v) ? -7.0f : v; } /* NaN's bits are the CPU's */

__kernel void float_parts(__global const uint *bits, __global const int *n, __global float *g,
                          __global int *e) {
  int i = get_global_id(0), k = n[i];
  float z = edge_value(i, bits[i]), whole;
  int ex;
  g[5 * i] = not_nan(frexp(z, &ex));
  e[3 * i] = ex;
  g[5 * i + 1] = not_nan(logb(z));
  g[5 * i + 2] = not_nan(modf(z, &whole));
  g[5 * i + 3] = not_nan(whole);
  g[5 * i + 4] = not_nan(ldexp(z, k % 300));
  e[3 * i + 1] = ilogb(z);
  e[3 * i + 2] = as_int(bitselect(z, -z, as_float(0x80000000u))) ^ isnormal(z);
}
