__kernel void early(__global int *o, __local int *t) {
  int i = get_local_id(0);
  if (i == 3) return;
  t[i] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  o[i] = t[(i + 1) % 8];
}
