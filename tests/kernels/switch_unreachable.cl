/* A switch whose default can never run: `x & 2u` is 0 or 2, so clang makes the default
 * `unreachable`. The lanes of the two cases must still meet before the barrier: a path into
 * `unreachable` is no way out of the switch (postdom.c), or the `case 0` lanes would reach the
 * barrier while the `case 2` lanes loop. */
__kernel void switch_unreachable(__global const uint *in, __global uint *out,
                                 __local uint *tmp) {
  uint lid = get_local_id(0), n = get_local_size(0), x = in[get_global_id(0)], r = 0;
  switch (x & 2u) {
  case 2:
    for (uint k = 0; k < (x & 7u); k++)
      r += k ^ x;
    break;
  case 0:
    r = x * 3u;
    break;
  }
  tmp[lid] = r;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tmp[(lid + 1) % n];
}
