/* short and ushort: division of negatives, shifts, wrap-around, mixed compare. */
__kernel void types_short(__global const short *a, __global const ushort *b, __global short *c,
                          __global ushort *d) {
  int i = get_global_id(0);
  short x = a[i];
  ushort y = b[i];
  c[i] = (short)(x / 7 - (y >> 3));
  d[i] = (ushort)(y * 31u + (ushort)x);
  if (x > y)
    c[i] = (short)(c[i] + 1);
}
