/* long and ulong: 64-bit multiply, divide, shifts, unsigned wrap-around. */
__kernel void types_long(__global const long *a, __global const ulong *b, __global long *c,
                         __global ulong *d) {
  int i = get_global_id(0);
  long x = a[i];
  ulong y = b[i];
  c[i] = x * 1000003L / 7 - (long)(y >> 40);
  d[i] = y * 0x9e3779b97f4a7c15UL + (ulong)x;
  d[i] ^= d[i] >> 29;
  if (x < 0 && (y & 1))
    c[i] = -c[i];
}
