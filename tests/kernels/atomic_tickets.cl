/* Returned values of atomics that every lane applies at one address with one amount (weft does
 * those once per lane group): each lane must still get its own ticket. seen[] counts the tickets
 * handed out, in three ranges of n: atomic_inc under a varying condition, atomic_add of 5 and
 * atomic_sub of 2. Any ticket given twice, or skipped, shows up there. */
__kernel void atomic_tickets(__global const int *a, __global int *seen, __global int *count) {
  int i = get_global_id(0), n = get_global_size(0);
  if (a[i] % 3 == 0) {
    int t = atomic_inc(&count[0]);
    atomic_inc(&seen[t]);
  }
  int five = atomic_add(&count[1], 5);
  atomic_inc(&seen[n + five / 5]);
  int two = atomic_sub(&count[2], 2);
  atomic_inc(&seen[2 * n - two / 2]);
}
