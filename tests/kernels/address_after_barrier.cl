/* An address made before a barrier from a loaded value and the id, used after it: the warp
 * resumes after the barrier with the address in its frame, but not the loaded value, so the
 * packed store must take the address itself, not compute it again from the loaded value. */
__kernel void address_after_barrier(__global const int *offs, __global int *out) {
  int u = offs[0];
  __global int *q = out + u + get_global_id(0);
  barrier(CLK_GLOBAL_MEM_FENCE);
  *q = (int)get_global_id(0) * 3;
}
