/* Indexes as people write them: an int or a uint taken from get_global_id(0). instcombine turns
 * (long)(int)id into `ashr (shl id, 32), 32` and (ulong)(uint)id into `and id, 0xffffffff`;
 * both must stay lane-affine, so that the accesses are packed loads and stores, not gathers. */
__kernel void int_index(__global const float *a, __global float *b, __global float *c) {
  int i = get_global_id(0);
  uint u = get_global_id(0);
  b[i] = a[u] * 2.0f;
  c[u] = a[i] + 1.0f;
}
