/* Division and remainder by 0, and of the most negative value by -1, give the values the
 * README defines instead of trapping: x / 0 is -1 (all ones), x % 0 is x, MIN / -1 is MIN and
 * MIN % -1 is 0. Divisors vary per lane (b: -2 .. 2, so many are 0 or -1), are kernel arguments
 * (zero: 0, m1: -1), values of the work-group (-1, 0, 1) or uniform with a uniform dividend too;
 * 32 and 64 bits, signed and unsigned, and vectors of 8 and 16 bits; some under a divergent
 * branch. Not C: vectors, and C itself traps. out[DIV0_N * i + k]: result k of work-item i. */
#define DIV0_N 32
#define DIV0_MIN (-2147483647 - 1)
__kernel void div_by_zero(__global const int *a, __global const int *b, int zero, int m1,
                          __global int *out) {
  int i = get_global_id(0);
  int x = (i & 3) == 1 ? DIV0_MIN : a[i], d = b[i];
  uint ux = (uint)x, ud = (uint)d;
  int g = (int)(get_group_id(0) % 3) - 1;
  long lx = (i & 3) == 1 ? (long)0x8000000000000000UL : (long)a[i] * 5, ld = d;
  int umin = zero + DIV0_MIN; /* uniform */
  __global int *o = out + DIV0_N * i;
  o[0] = x / d;
  o[1] = x % d;
  o[2] = (int)(ux / ud);
  o[3] = (int)(ux % ud);
  o[4] = x / zero;
  o[5] = x % zero;
  o[6] = (int)(ux / (uint)zero);
  o[7] = (int)(ux % (uint)zero);
  o[8] = x / m1;
  o[9] = x % m1;
  o[10] = x / g;
  o[11] = x % g;
  o[12] = (int)(lx / ld);
  o[13] = (int)(lx % ld);
  o[14] = (int)((lx / m1) >> 32);
  o[15] = (int)((ulong)lx / (ulong)zero) + (int)((ulong)lx % (ulong)zero);
  o[16] = umin / m1;
  o[17] = umin % m1;
  o[18] = m1 / zero;
  o[19] = m1 % zero;
  int4 q = (int4)(x, DIV0_MIN, 7, x) / (int4)(d, m1, zero, g);
  int4 r = (int4)(x, DIV0_MIN, 7, x) % (int4)(d, m1, zero, g);
  o[20] = q.x, o[21] = q.y, o[22] = q.z, o[23] = q.w;
  o[24] = r.x, o[25] = r.y, o[26] = r.z, o[27] = r.w;
  char2 c = (char2)((char)x, (char)-128) / (char2)((char)d, (char)m1);
  short2 s = (short2)((short)x, (short)-32768) % (short2)((short)zero, (short)m1);
  o[28] = c.x + 1000 * c.y;
  o[29] = s.x + 100000 * s.y;
  if (x & 1) {
    o[30] = x / d;
    o[31] = (int)(ux % ud);
  } else {
    o[30] = (int)(ux / ud);
    o[31] = x % d;
  }
}
