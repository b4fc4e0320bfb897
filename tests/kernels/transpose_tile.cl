/* A 2-D static __local tile (padded against bank conflicts, as on a GPU): transpose through
 * local memory with a barrier. Work-groups must be TILE x TILE. */
#define TILE 8

__kernel void transpose_tile(__global const float *in, __global float *out, int width,
                             int height) {
  __local float tile[TILE][TILE + 1];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  tile[ly][lx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int ox = get_group_id(1) * TILE + lx, oy = get_group_id(0) * TILE + ly;
  out[oy * height + ox] = tile[lx][ly];
}
