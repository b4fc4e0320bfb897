/* Static __local arrays written before weft's cuts and read after them: every part of the warp
 * function must place them where the others do (`weft cfg` shows the parts). Work-groups of
 * PSL_WG work-items. */
#define PSL_WG 64

__kernel void parts_static_local(__global const int *a, __global int *out) {
  __local int first[PSL_WG];
  __local int second[PSL_WG];
  int i = get_global_id(0), l = get_local_id(0);
  int x = a[i], acc = 0;
  first[l] = x;
  second[l] = 3 * x + 1;
  for (int k = 0; k < (x & 7); k++) {
    acc += k * x;
    if (acc > 500)
      acc -= 11;
  }
  int p = acc ^ (x << 2), q = (acc >> 1) + x * 5, r = p * 3 - q;
  int s = (p & 255) + (q | 3) - (r >> 3), t = s * 7 + (r ^ q);
  barrier(CLK_LOCAL_MEM_FENCE);
  int nb = first[(l + 1) % PSL_WG] + second[(l + 5) % PSL_WG];
  int m = 0;
  for (int k = 0; k < (nb & 3) + 1; k++) {
    m += (k ^ t) & 31;
    if (m & 1)
      m += 3;
  }
  int u = m * 3 + (t & 1023) - (s >> 2), v = (u ^ nb) + (p & 15) * (q & 7);
  int w = (v >> 3) + (u & 63) - r % 17;
  for (int k = 0; k < (w & 3); k++)
    w += second[(l + k) % PSL_WG] & 7;
  out[i] = w + first[l] - second[l];
}
