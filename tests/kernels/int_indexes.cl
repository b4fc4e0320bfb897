/* Addresses from int and uint indexes of ids, as people write them. instcombine turns
 * (long)(int)id into `ashr (shl id, 32), 32`, (long)(int)(id + 1) into `ashr (add (shl id, 32),
 * 1 << 32), 30` for a byte offset, and (ulong)(uint)id into `and id, 0xffffffff`; every address
 * must stay lane-affine with the element's size as stride (test_cfg_kernels checks that with
 * `weft cfg --divergence`), so that the accesses are packed, and touch the elements a gather
 * would. a has one element more than the work-items. */
__kernel void int_indexes(__global const int *a, __global int *b, __global int *c) {
  int i = get_global_id(0), l = get_local_id(0);
  uint u = get_global_id(0);
  b[i] = a[u] * 2;
  c[u] = a[i + 1] + 1;
  b[get_group_id(0) * get_local_size(0) + l] += 3;
}
