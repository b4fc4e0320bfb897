/* Lanes return at three different points; the rest go on with fewer lanes. */
__kernel void early_return(__global const int *a, __global int *out) {
  int i = get_global_id(0);
  int x = a[i];
  if (x < 0)
    return;
  out[i] = x + 1;
  if (x > 50)
    return;
  out[i] += 100;
  if (x % 2)
    return;
  out[i] *= 2;
}
