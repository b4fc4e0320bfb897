/* 8- and 16-bit vectors loaded and stored under divergent branches: without AVX-512 each lane
 * of a partly active group moves its elements as one integer (lower_inst.c, narrow_packed), 3,
 * 4, 6 and 16 bytes here (the last also as an aligned short8); the lanes that do not take a
 * branch must keep their memory as it was. */
__kernel void narrow_vectors(__global const uchar *a, __global uchar *c3, __global ushort *s3,
                             __global uchar *c16, __global short *s2, __global ushort *s1,
                             __global short8 *s8) {
  int i = get_global_id(0);
  uchar x = a[i];
  if (x & 1) {
    uchar3 v = vload3(i, c3);
    vstore3(v + (uchar3)(x, 1, 2), i, c3);
    ushort3 w = vload3(i, s3);
    vstore3(w * (ushort3)(3), i, s3);
  }
  if (x & 2) {
    uchar16 v = vload16(i, c16);
    vstore16(v ^ (uchar16)(x), i, c16);
  }
  if (x % 3 == 0) {
    short2 q = vload2(i, s2);
    vstore2(q.yx, i, s2);
    s1[i] += (ushort)x;
  }
  if (x & 4) /* 16 bytes, aligned as a short8: the scatter sink must be as aligned */
    s8[i] = s8[i].s76543210;
}
