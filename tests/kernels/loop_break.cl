/* Two breaks out of one loop: the first position from i on where a[] exceeds the threshold,
 * -1 if none within 64 elements or before the end. */
__kernel void loop_break(__global const int *a, int threshold, int n, __global int *out) {
  int i = get_global_id(0);
  int found = -1;
  for (int j = i; j < i + 64; j++) {
    if (j >= n)
      break;
    if (a[j] > threshold) {
      found = j;
      break;
    }
  }
  out[i] = found;
}
