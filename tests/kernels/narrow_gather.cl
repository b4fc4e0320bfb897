/* Bytes and shorts at data-dependent addresses, at every offset within a 32-bit word, on both
 * sides of a divergent branch: 8- and 16-bit gathers (lower_inst.c, narrow_gather), sign- and
 * zero-extended, up to the last byte of each buffer. */
__kernel void narrow_gather(__global const int *perm, __global const char *a,
                            __global const uchar *b, __global const short *c,
                            __global const ushort *d, __global int *out) {
  int i = get_global_id(0), j = perm[i];
  int r = a[j] * 3 + b[1023 - j];
  if (j & 1)
    r += c[j] - d[(j * 7) & 1023];
  else
    r ^= d[j] + c[1023 - j] * 16;
  out[i] = r;
}
