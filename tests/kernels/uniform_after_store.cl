/* A uniform value loaded after a store in the same block, and uniform arithmetic on it: the
 * arithmetic cannot move to the top of the block with the other uniform work, as it needs the
 * load (at the top of the loop's block it would see the slot before this iteration's store).
 * Every work-item of a group stores the same value at a[3g + k] (through an address weft cannot
 * tell is uniform, so the load stays), then reads it back. Each iteration has its own slot, so
 * the kernel has no race when its work-items run as threads (the oracle test does). */
__kernel void uniform_after_store(__global int *a, __global int *out, int n, int zero) {
  int i = get_global_id(0), g = get_group_id(0), acc = 0;
  for (int k = 0; k < 3; k++) {
    a[(i & zero) + 3 * g + k] = n + g + k;
    int v = a[3 * g + k];
    acc += v * 3 + 1;
  }
  out[i] = acc;
}
