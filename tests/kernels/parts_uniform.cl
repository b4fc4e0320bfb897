/* Long enough to be cut into parts, with no branch that depends on the lane: every warp ends in
 * its first call, in the last part, and the next warp of its work-group starts from there (a
 * tail call into the first part; kernel.h). */
__kernel void parts_uniform(__global const int *a, __global int *out, int n) {
  int i = get_global_id(0);
  int x = a[i], acc = 0;
  for (int k = 0; k < n; k++)
    acc += (x ^ k) * 3;
  int p = acc ^ (x << 2), q = (acc >> 1) + x * 5, r = p * 3 - q;
  int s = (p & 255) + (q | 3) - (r >> 3), t = s * 7 + (r ^ q);
  int u = (t ^ s) * 5 + (r & 1023), v = (u >> 2) + (t & 63) * (s & 7);
  int w = (v >> 3) + (u & 63) - r % 17, y = w * 9 + (v ^ (w >> 1));
  for (int k = 0; k < n + 1; k++)
    y += (u ^ k) & 15;
  int z = (y ^ p) + (q & t) * 3 - (s | w), e = (z >> 4) + (y & 255) - (x % 13);
  int f = e * 11 + (z ^ (e >> 2)) - (u & 7) * (v & 3), g = (f >> 1) + (e & 31) * (r & 15);
  out[i] = g + (p & q) - (s | t) + f % 29;
}
