/* Builtins at the edges where weft once got them wrong: vload3 and vstore3 of 8- and 16-bit
 * elements (clang passes such a 3-vector as a scalar with a 4-vector's bits: the fourth element
 * in memory must stay as it was), convert_float3 and convert_int3 of a uchar3, upsample of
 * char2, mad_sat of ulong and long at their limits, sign and fdim of NaN, pown by odd
 * exponents above 2^24 (as floats they are even), and max, min and clamp of half. o16 and o8
 * have 4 elements per work-item, of which the kernel writes 3; f gets 9 floats and r 4 longs
 * per work-item. */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void builtin_edges(__global const ushort *s, __global const uchar *c,
                            __global const int *n, __global ushort *o16, __global uchar *o8,
                            __global float *f, __global long *r) {
  int i = get_global_id(0), k = n[i];
  vstore3(vload3(i, s) + (ushort3)(1, 2, 3), 0, o16 + 4 * i);
  uchar3 b = vload3(i, c);
  if (i & 1)
    vstore3(b ^ (uchar3)(0x5a), 0, o8 + 4 * i);
  else
    vstore3(b, 0, o8 + 4 * i);
  float3 bf = convert_float3(b);
  int3 bi = convert_int3(b);
  float x = i % 5 == 0 ? NAN : (float)(i % 7) - 3.0f, y = i % 3 == 0 ? NAN : (float)(i % 4) - 1.5f;
  f[9 * i] = bf.x + bf.y * 2.0f + bf.z * 4.0f;
  f[9 * i + 1] = (float)(bi.x - bi.y + bi.z);
  f[9 * i + 2] = sign(x);
  float d = fdim(x, y);
  f[9 * i + 3] = isnan(d) ? -7.0f : d; /* NaN's bits are the CPU's: only NaN-ness counts */
  f[9 * i + 4] = pown(-1.0f, k);
  f[9 * i + 5] = pown(-2.0f, k & 7);
  half hx = (half)((float)(i % 9) * 0.25f - 1.0f), hy = (half)((float)(i % 7) * 0.5f - 1.5f);
  f[9 * i + 6] = (float)max(hx, hy);
  f[9 * i + 7] = (float)min(hx, hy);
  f[9 * i + 8] = (float)clamp(hx, (half)-0.5f, (half)0.5f);
  short2 u = upsample((char2)((char)(i - 100), (char)i), (uchar2)((uchar)(3 * i), (uchar)~i));
  r[4 * i] = u.x + 65536L * u.y;
  r[4 * i + 1] = (long)mad_sat((ulong)-1 - (ulong)(i % 4), (ulong)(i % 3), (ulong)(i % 5));
  r[4 * i + 2] = mad_sat(0x7fffffffffffffffL - i % 4, (long)(i % 3) - 1, (long)(i % 5) - 2);
  r[4 * i + 3] = mad_sat((long)(-0x7fffffffffffffffL - 1) + i % 4, (long)(i % 3), -(long)(i % 5));
}
