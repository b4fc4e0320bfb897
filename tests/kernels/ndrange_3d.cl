/* A 3-D NDRange; a branch on the local linear id. */
__kernel void ndrange_3d(__global int *out) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t w = get_global_size(0), h = get_global_size(1);
  int v = (int)(x + 10 * y + 100 * z);
  int lid = (int)(get_local_id(0) +
                  get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)));
  if (lid % 3 == 1)
    v += 100000 * (int)get_group_id(2);
  out[(z * h + y) * w + x] = v * 2 + lid;
}
