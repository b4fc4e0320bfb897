/* abs_diff, mul_hi and mad_hi on int, uint and long, on random bits so that the differences overflow
 * the signed type and the products need all of twice the width; mul_hi on int also under a
 * varying branch. */
__kernel void int_mul_hi(__global const int *a, __global const uint *b, __global const long *c,
                         __global uint *diff, __global int *hi, __global uint *uhi,
                         __global long *lhi) {
  int i = get_global_id(0), j = i ^ 1;
  diff[2 * i] = abs_diff(a[i], a[j]);
  diff[2 * i + 1] = abs_diff(b[i], b[j]);
  hi[i] = a[i] & 1 ? mul_hi(a[i], a[j]) : -mul_hi(a[j], 3);
  uhi[i] = mul_hi(b[i], b[j]) ^ mad_hi(b[j], b[i], (uint)i);
  lhi[i] = mul_hi(c[i], c[j]);
}
