__kernel void sgb(__global int *o) {
  o[get_global_id(0)] = 1;
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
}
