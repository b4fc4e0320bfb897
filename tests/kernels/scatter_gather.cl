/* Data-dependent addresses: a scatter through a permutation and a double gather. */
__kernel void scatter_gather(__global const int *perm, __global const float *in,
                             __global float *out, __global int *gathered) {
  int i = get_global_id(0);
  out[perm[i]] = in[i] * 2.0f;
  gathered[i] = perm[perm[i]];
}
