/* A uniform value loaded after a store in the same block, and uniform arithmetic on it: the
 * arithmetic cannot move to the top of the block with the other uniform work, as it needs the
 * load (at the top of the loop's block it would see the last iteration's value). Every
 * work-item of a group stores the same value at a[g] (through an address weft cannot tell is
 * uniform, so the load stays), then reads it back. */
__kernel void uniform_after_store(__global int *a, __global int *out, int n, int zero) {
  int i = get_global_id(0), g = get_group_id(0), acc = 0;
  for (int k = 0; k < 3; k++) {
    a[(i & zero) + g] = n + g + k;
    int v = a[g];
    acc += v * 3 + 1;
  }
  out[i] = acc;
}
