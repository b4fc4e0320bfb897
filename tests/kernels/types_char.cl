/* char and uchar: promotion to int, wrap-around on the way back, signed compare. */
__kernel void types_char(__global const char *a, __global const uchar *b, __global char *c,
                         __global uchar *d) {
  int i = get_global_id(0);
  char x = a[i];
  uchar y = b[i];
  c[i] = (char)(x * 3 + y);
  d[i] = (uchar)(y / 3 + (uchar)x);
  if (x < 0)
    d[i] ^= 0x80;
}
