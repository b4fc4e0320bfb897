/* Long enough that weft cuts its warp function into three parts (`weft cfg` shows where) and
 * compiles them on several threads: values of every shape live across the cuts, a barrier and
 * divergent loops sit on each side, and lanes that returned early leave a partial warp to cross
 * the later cuts. */
__kernel void parts(__global const int *a, __global int *out, __global float *f, __local int *tmp) {
  int i = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
  int x = a[i], acc = 0;
  float y = (float)x * 0.25f;
  for (int k = 0; k < (x & 7); k++) {
    acc += k * x;
    if (acc > 100)
      acc -= 7;
    else
      y = y * 0.5f + 1.0f;
  }
  int u = n * 3 + 1;
  tmp[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  int nb = tmp[(l + 1) % n];
  if (x % 5 == 0) {
    out[i] = acc + nb;
    f[i] = y;
    return;
  }
  int m = 0;
  for (int k = 0; k < (nb & 3) + u % 4; k++) {
    m += (k ^ x) & 15;
    if (m & 1)
      y += 1.5f;
  }
  int t = m * u;
  switch (x & 3) {
  case 0: t += acc; break;
  case 1: t -= nb; break;
  default: t ^= x;
  }
  while (t > 1000)
    t /= 3;
  int r = t & 7;
  for (int k = 0; k < r; k++) {
    y = y * 0.5f + (float)(k & 1);
    if (y > 100.0f)
      m -= 1;
  }
  out[i] = t + m;
  f[i] = y * 2.0f - (float)t;
}
