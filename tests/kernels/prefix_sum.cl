/* An inclusive scan per work-group (Hillis-Steele): two barriers inside a uniform loop, a
 * varying read before the first one. */
__kernel void prefix_sum(__global const int *in, __global int *out, __local int *tmp) {
  int lid = get_local_id(0), n = get_local_size(0);
  tmp[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < n; off *= 2) {
    int v = lid >= off ? tmp[lid - off] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[lid] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = tmp[lid];
}
