/* Stores below the start of a buffer: 8 KiB below the __local buffer (where the scheduler's own
 * state lay next to it), or 16 KiB below the __global one (past its first page). Each must stop
 * with a memory fault, not corrupt what lies there. */
__kernel void underrun(__global int *out, __local int *tmp, int global_one) {
  int i = get_local_id(0);
  tmp[i] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (global_one)
    out[i - 4096] = -1;
  else
    tmp[i - 2048] = -1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = tmp[i];
}
