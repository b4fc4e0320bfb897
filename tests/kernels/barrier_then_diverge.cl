/* Warps that reach their barriers with all their lanes and diverge only after them: the
 * scheduler takes such a warp past a barrier without its policy, which starts where the warp
 * first diverges, at a PC other than 0. A __local exchange, a loop after it (divergent in odd
 * work-groups, whose warps then end under their policy; uniform in even ones, whose warps end
 * without it), a barrier after the loop, another exchange, and a barrier before the end. */
__kernel void barrier_then_diverge(__global const int *in, __global int *out, __local int *t) {
  int l = get_local_id(0), n = get_local_size(0), i = get_global_id(0);
  t[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  int y = t[(l + 1) % n], s = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int trips = get_group_id(0) & 1 ? y & 15 : 5;
  for (int k = 0; k < trips; k++)
    s += (k & 1) ? t[(l + k) % n] : -k;
  barrier(CLK_LOCAL_MEM_FENCE);
  t[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = s + t[(l + n - 1) % n];
  barrier(CLK_LOCAL_MEM_FENCE);
}
