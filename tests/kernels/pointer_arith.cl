/* Pointer increments and compares in a loop, negative indexing, a pointer chosen by a varying
 * condition. */
__kernel void pointer_arith(__global const int *a, __global int *out, int stride) {
  int i = get_global_id(0);
  __global const int *p = a + i * stride;
  __global const int *end = p + stride;
  int s = 0, k = 0;
  while (p < end)
    s += *p++ * ++k;
  __global int *q = out + i;
  *q = s - p[-1];
  __global const int *sel = (s & 1) ? a : a + 1;
  *q += sel[i];
}
