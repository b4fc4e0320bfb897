/* Conversions (compiler/expand_convert.c): convert_<type> with _sat and each rounding mode,
 * float to int and long (NaN, infinities, ties, values out of range), int, uint and long to
 * narrower and other-signed integers, int, uint, long and double to float, on scalars and on
 * vectors (float2 and uchar4, which the calling convention passes as a double and an int);
 * upsample and mad_sat on int, uint and long; and the half stores in each rounding mode (from
 * float and double, overflowing too) with the half loads that read them back (vloada_half3
 * takes the room of 4). r gets 20 ints per work-item, q 4 longs, g 8 floats, h 8 halves. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void conversions(__global const float *f, __global const double *d,
                          __global const int *x, __global const long *l, __global int *r,
                          __global long *q, __global float *g, __global half *h) {
  int i = get_global_id(0), k = i & 7;
  float a = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -INFINITY : k == 3 ? 2.5f
            : k == 4 ? -3.5f : f[i];
  float fin = f[i] * 1e-6f; /* finite, within +-3000: in range for the plain conversions */
  double e = k == 7 ? d[i] * 1e34 : d[i];
  int xi = x[i];
  uint ui = (uint)xi;
  long li = l[i];
  __global int *ri = r + 20 * i;
  ri[0] = convert_int_sat(a);
  ri[1] = convert_int_sat_rte(a);
  ri[2] = convert_int_sat_rtp(a);
  ri[3] = convert_int_sat_rtn(a);
  ri[4] = (int)convert_uint_sat_rtz(a);
  ri[5] = convert_char_sat(a * 1e-7f) + 1000 * convert_uchar_sat_rte(a * 1e-7f);
  ri[6] = convert_int(fin);
  ri[7] = convert_int_rte(fin);
  ri[8] = convert_int_rtp(fin);
  ri[9] = convert_int_rtn(fin);
  ri[10] = convert_short_sat(xi);
  ri[11] = convert_uchar_sat(xi) ^ convert_char_sat(xi) * 256 ^ convert_ushort_sat(xi) << 12;
  ri[12] = convert_int_sat(ui);
  ri[13] = (int)convert_uint_sat(xi);
  ri[14] = convert_int_sat(li);
  ri[15] = upsample((short)xi, (ushort)(xi >> 16));
  int2 c2 = convert_int2_sat_rte((float2)(a, -fin));
  ri[16] = c2.x;
  ri[17] = c2.y;
  uchar4 c4 = convert_uchar4_sat((int4)(xi, xi >> 8, xi >> 16, xi >> 24));
  ri[18] = (int)((uint)c4.x | (uint)c4.y << 8 | (uint)c4.z << 16 | (uint)c4.w << 24);
  ri[19] = mad_sat(xi, xi >> (k * 3), xi) ^ (int)mad_sat(ui, ui >> (k * 4), ui);
  q[4 * i] = convert_long_sat(a);
  q[4 * i + 1] = (long)convert_ulong_sat(li);
  q[4 * i + 2] = mad_sat(li, (long)(xi >> (k * 4)), li);
  q[4 * i + 3] = upsample(xi, ui);
  __global float *gi = g + 8 * i;
  gi[0] = convert_float_rtz(xi);
  gi[1] = convert_float_rtp(li);
  gi[2] = convert_float_rtn(ui);
  gi[3] = convert_float_rtz(e);
  gi[4] = convert_float_rtp(e);
  gi[5] = convert_float_rtn(e);
  gi[6] = convert_float(e) + convert_float_rte(xi);
  vstore_half(fin, 8 * i, h);
  vstore_half_rtp(e, 8 * i + 1, h);
  vstore_half_rtn(fin * 30.0f, 8 * i + 2, h);
  vstore_half_rtz(fin * -30.0f, 8 * i + 3, h);
  vstore_half2_rtz((float2)(fin * 7.0f, e), 4 * i + 2, h);
  vstore_half2((float2)(fin * 0.001f, -fin), 4 * i + 3, h);
  gi[7] = vload_half(8 * i + 1, h) + vloada_half3(2 * i + 1, h).z + vload_half2(4 * i, h).y;
}
