/* A lane-affine store by the lanes of a group whose first lanes have returned. i is computed
 * after the return, so a lane that had left never stored its copy of i in the warp's frame; when
 * the frame is restored at the join of the divergent branch, the packed store must take its
 * address from a lane that is still running, not from lane 0. */
__kernel void packed_after_return(__global const int *a, __global int *out, int off) {
  int v = a[get_global_id(0)];
  if (v < 0)
    return;
  size_t i = get_global_id(0) + off;
  if (v & 1)
    v = 3 * v;
  else
    v = v + 7;
  out[i] = v;
}
