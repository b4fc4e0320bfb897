/* Division and remainder (issue 18) by constants (signed and unsigned, powers of two and not,
 * negative, -1), by uniform divisors (kernel arguments, values of the work-group) and by varying
 * ones, 32 and 64 bits, under a divergent branch: the lanes that skip it hold a divisor of 0
 * and, one in four, a dividend of INT_MIN, which trap in a division by a stale 0 or by -1.
 * s: -7, u: 3000000000, m1: -1. out[DIV_REM_N * i + k]: result k of work-item i. */
#define DIV_REM_N 28
__kernel void div_rem(__global const int *a, __global const int *b, int s, uint u, int m1,
                      __global int *out) {
  int i = get_global_id(0);
  int x = a[i], d = b[i] == 0 ? 3 : b[i];
  if ((i & 3) == 1)
    x = -2147483647 - 1, d = 0;
  if ((i & 7) == 2)
    d = 0;
  uint ux = (uint)x;
  int y = (i & 7) == 3 ? -2147483647 - 1 : x; /* INT_MIN in active lanes too */
  long lx = (long)x * 3;
  int g = (int)get_group_id(0) * 3 - 4; /* -4, -1, 2, ...: uniform, computed */
  uint ug = (uint)get_group_id(0) + 1;  /* 1, 2, 3, ... */
  __global int *o = out + DIV_REM_N * i;
  if (d != 0 && x != -2147483647 - 1) {
    o[0] = (int)(ux % 48u);
    o[1] = (int)(ux / 48u);
    o[2] = x / 7;
    o[3] = x % 7;
    o[4] = x / -7;
    o[5] = x % -6;
    o[6] = x / 16;
    o[7] = x % -16 + (int)(ux % 1024u);
    o[8] = x / -1;
    o[9] = y / 7 + y % -8 + (int)((uint)y / 3u);
    o[10] = x / s;
    o[11] = x % s;
    o[12] = (int)(ux / u);
    o[13] = (int)(ux % u);
    o[14] = x / m1;
    o[15] = x % m1 + y / s;
    o[16] = x / g;
    o[17] = x % g;
    o[18] = (int)(ux / ug);
    o[19] = (int)(ux % ug);
    o[20] = x / d;
    o[21] = x % d;
    o[22] = (int)(ux / (uint)d + ux % (uint)d);
    o[23] = (int)(lx / 1000003);
    o[24] = (int)(lx % s + lx / m1);
    o[25] = (int)((ulong)lx / u);
    o[26] = (int)(lx / d);
    o[27] = (int)((ulong)lx % ug);
  } else {
    for (int k = 0; k < DIV_REM_N; k++)
      o[k] = -5;
  }
}
