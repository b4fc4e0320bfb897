/* shuffle and shuffle2 with masks known at run time (each lane its own) and constant, between
 * widths (float4 by a uint8 mask gives a float8), only the mask's low bits counting; and
 * prefetch, a hint. o gets 8 + 4 + 2 floats per work-item. */
__kernel void shuffles(__global const float *f, __global const uint *bits, __global float *o) {
  int i = get_global_id(0);
  uint b = bits[i];
  float4 x = vload4(i, f), y = vload4((i + 1) % get_global_size(0), f);
  prefetch(f + 4 * i, 4);
  uint8 m8 = (uint8)(b, b >> 4, b >> 8, b >> 12, b >> 16, b >> 20, b >> 24, b >> 28);
  vstore8(shuffle(x, m8), i, o);
  vstore4(shuffle2(x, y, (uint4)(b, b >> 3, b >> 6, b >> 9)), 0,
          o + 8 * get_global_size(0) + 4 * i);
  float2 c = shuffle2((float2)(x.x, x.y), (float2)(y.z, y.w), (uint2)(3, 0));
  vstore2(c, 0, o + 12 * get_global_size(0) + 2 * i);
}
