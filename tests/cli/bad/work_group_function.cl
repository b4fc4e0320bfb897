__kernel void wgf(__global int *o) {
  o[get_global_id(0)] = 1;
  o[0] += work_group_reduce_add(o[get_global_id(0)]);
}
