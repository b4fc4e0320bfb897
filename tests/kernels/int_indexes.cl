/* Addresses from int and uint indexes of ids, as people write them: each is a packed access
 * (tests/kernels/cfg/int_index.cl checks the analysis) that must touch the elements a gather
 * would. a has one element more than the work-items. */
__kernel void int_indexes(__global const int *a, __global int *b, __global int *c) {
  int i = get_global_id(0), l = get_local_id(0);
  uint u = get_global_id(0);
  b[i] = a[u] * 2;
  c[u] = a[i + 1] + 1;
  b[get_group_id(0) * get_local_size(0) + l] += 3;
}
