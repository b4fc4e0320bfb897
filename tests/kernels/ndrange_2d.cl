/* A 2-D NDRange: every work-item function per dimension, a varying branch on x + y. */
__kernel void ndrange_2d(__global int *out, __global int *info) {
  int x = get_global_id(0), y = get_global_id(1);
  int w = get_global_size(0);
  int v = x * 3 + y * 1000;
  if ((x + y) % 3 == 0)
    v = -v;
  out[y * w + x] = v + get_local_id(0) * 10 + get_local_id(1) * 100000 + get_group_id(0) +
                   get_group_id(1) * 7;
  if (x == 0 && y == 0) {
    info[0] = get_work_dim();
    info[1] = get_num_groups(0);
    info[2] = get_num_groups(1);
    info[3] = get_local_size(1);
  }
}
