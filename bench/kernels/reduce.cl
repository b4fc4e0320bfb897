/* A float sum: each work-item adds its grid-stride share of the data, then each work-group
 * adds its work-items' sums in a __local tree, a barrier after every level of the loop, and
 * writes one partial sum. The local size is a power of two, at most 256. */
__kernel void reduce(__global const float *data, uint n, __global float *partial) {
  __local float tree[256];
  uint lid = get_local_id(0), lsize = get_local_size(0);
  float acc = 0.0f;
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    acc += data[i];
  tree[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = lsize / 2; s > 0; s >>= 1) {
    if (lid < s)
      tree[lid] += tree[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = tree[0];
}
