/* The async copies (expand_async.c): a work-group's share of a global float4 array into __local
 * memory, a strided gather of ints into __local memory, and a strided scatter back out, each
 * waited for with wait_group_events; out gets the float4s reversed within the group. */
__kernel void async_copy(__global const float4 *src, __global const int *ints,
                         __global float4 *out, __global int *strided, __local float4 *l4,
                         __local int *li) {
  size_t g = get_group_id(0), n = get_local_size(0), lid = get_local_id(0);
  size_t groups = get_num_groups(0);
  event_t e = async_work_group_copy(l4, src + g * n, n, 0);
  event_t e2 = async_work_group_strided_copy(li, ints + g, n, groups, 0);
  wait_group_events(1, &e);
  wait_group_events(1, &e2);
  out[g * n + lid] = l4[n - 1 - lid] * 2.0f + (float)li[lid];
  barrier(CLK_LOCAL_MEM_FENCE);
  li[lid] = li[lid] * 3 + (int)lid;
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e3 = async_work_group_strided_copy(strided + g, li, n, groups, 0);
  wait_group_events(1, &e3);
}
