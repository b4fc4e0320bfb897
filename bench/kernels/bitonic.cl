/* One step of a bitonic sort (ascending): work-item i compares a[i] with a[i ^ j] when
 * i ^ j > i and swaps them into the order of its block of size k. The host launches it for
 * every (k, j): log2(n) (log2(n) + 1) / 2 launches. */
__kernel void bitonic_step(__global uint *a, uint j, uint k) {
  uint i = get_global_id(0), p = i ^ j;
  if (p > i) {
    uint x = a[i], y = a[p];
    if ((x > y) == ((i & k) == 0)) {
      a[i] = y;
      a[p] = x;
    }
  }
}
