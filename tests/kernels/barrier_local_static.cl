/* A tree reduction in a static __local array: a barrier inside a uniform loop, after a varying
 * if that has reconverged. The work-group size must be WG. */
#define WG 64

__kernel void barrier_local_static(__global const int *in, __global int *sums) {
  __local int tmp[WG];
  int lid = get_local_id(0);
  tmp[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = WG / 2; s > 0; s /= 2) {
    if (lid < s)
      tmp[lid] += tmp[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    sums[get_group_id(0)] = tmp[0];
}
