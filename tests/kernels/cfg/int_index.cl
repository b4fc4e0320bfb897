/* Indexes as people write them, from int and uint ids. instcombine turns (long)(int)id into
 * `ashr (shl id, 32), 32`, (long)(int)(id + 1) into `ashr (add (shl id, 32), 1 << 32), 30` for a
 * byte offset, and (ulong)(uint)id into `and id, 0xffffffff`; every address here must stay
 * lane-affine with the element's size as stride, so that the accesses are packed loads and
 * stores, not gathers. */
__kernel void int_index(__global const float *a, __global float *b, __global float *c) {
  int i = get_global_id(0), l = get_local_id(0);
  uint u = get_global_id(0);
  b[i] = a[u] * 2.0f;
  c[u] = a[i + 1] + 1.0f;
  b[get_group_id(0) * get_local_size(0) + l] += 1.0f;
}
