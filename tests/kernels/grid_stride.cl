/* A grid-stride loop: every work-item sums in[gid], in[gid + gs], ... below n, which is no
 * multiple of the global size, so the loop's exit diverges. Its index phi is lane-affine (the
 * loads packed: test_cfg_kernels checks that with `weft cfg --divergence`). j's phi merges a
 * uniform start with a lane-affine step, so it is varying, and must be computed per lane. */
__kernel void grid_stride(__global const float *in, __global float *out, __global const int *b,
                          __global int *out2, uint n) {
  uint gid = get_global_id(0), gs = get_global_size(0);
  float s = 0.0f;
  for (uint i = gid; i < n; i += gs) s += in[i];
  out[gid] = s;
  int acc = 0;
  uint j = 0;
  for (uint k = 0; k < 8; k++) {
    acc += b[j % 512u];
    j += gid;
  }
  out2[gid] = acc;
}
