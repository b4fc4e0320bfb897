/* Bytes and shorts at data-dependent addresses, at every offset within a 32-bit word, on both
 * sides of a divergent branch: 8- and 16-bit gathers (lower_inst.c, narrow_gather and
 * narrow_gather_at), sign- and zero-extended, up to the last byte of each buffer; from bases
 * off a word boundary (off is 3) by int indices, negative ones too, and by uint ones. */
__kernel void narrow_gather(__global const int *perm, __global const char *a,
                            __global const uchar *b, __global const short *c,
                            __global const ushort *d, __global int *out, int off) {
  int i = get_global_id(0), j = perm[i];
  uint u = (uint)j;
  __global const char *a_off = a + off;
  __global const short *c_end = c + 1023;
  int r = a[j] * 3 + b[1023 - j] + a_off[j - off] * 5 + (b + off)[u >> 1];
  if (j & 1)
    r += c[j] - d[(j * 7) & 1023] + (d + off)[u >> 2];
  else
    r ^= d[j] + c[1023 - j] * 16 - c_end[-j];
  out[i] = r;
}
