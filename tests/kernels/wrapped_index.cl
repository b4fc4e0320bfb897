/* Lane-affine indices wrapped by a power-of-two mask (a ring buffer, a periodic neighbour): a
 * lane group whose indices stay within one period of the mask reads and writes them packed,
 * one where a lane wraps (every 16th work-item's in[(i + 3) & 15], the last lanes of the
 * __local ring) gathers and scatters, and so does a group that is not full (the ring store
 * skips every third work-item). */
__kernel void wrapped_index(__global const int *in, __global int *out, __global int *ring) {
  __local int t[64];
  int i = get_global_id(0);
  uint l = get_local_id(0);
  t[(l + 7) & 63] = in[i & 63] + (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = t[(l + 1) & 63] + in[(i + 3) & 15] * 2;
  if (i % 3)
    ring[(i + 5) & 1023] = v;
  out[i] = v;
}
