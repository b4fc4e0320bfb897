/* A __local pointer argument: each work-item reads what two others wrote before the barrier. */
__kernel void barrier_local_arg(__global const int *in, __global int *out, __local int *tmp) {
  int lid = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
  tmp[lid] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = tmp[n - 1 - lid] + tmp[(lid + 1) % n];
}
