/* Chosen at run time: vector elements (read and written, by a varying and by a uniform index,
 * under a varying branch) and the dimension of work-item queries (uniform in a loop that goes
 * one past the last dimension, and varying). */
#pragma OPENCL FP_CONTRACT OFF

__kernel void dynamic_index(__global const float4 *in, __global const int8 *ints,
                            __global const int *sel, __global float4 *out, __global int8 *iout,
                            __global int *dims, int k) {
  int i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) +
          get_global_id(0);
  int s = sel[i];
  float4 v = in[i];
  float picked = v[s & 3];
  v[(s >> 2) & 3] = picked * 2.0f;
  if (s & 16)
    v[k & 3] += 1.0f;
  out[i] = v;
  int8 w = ints[i];
  w[(s >> 3) & 7] = w[k & 7] + w[s & 7];
  iout[i] = w;
  int acc = 0;
  for (uint d = 0; d <= get_work_dim(); d++)
    acc += (int)(get_global_id(d) * (d + 1) + get_local_size(d) * 100 + get_group_id(d) * 7 +
                 get_num_groups(d) * 3 + get_global_size(d) * 5 + get_local_id(d) * 11 +
                 get_global_offset(d));
  acc += (int)get_local_id(s & 3) * 1000 + (int)get_global_size((s >> 2) & 3) * 10000;
  dims[i] = acc;
}
