// weft-run: -g 1048576 -l 256 --stats
// weft-run: --arg f32[1048576]=rand:1 --arg f32[1048576]=rand:2 --arg f32[1048576]=zero
/* Vector add: c = a + b, one element per work-item. No branch depends on the lane, so no warp
 * ever splits: SIMD efficiency is 100% and the kernel makes no policy calls. Consecutive
 * work-items touch consecutive elements (lane-affine), so the accesses are packed vector loads
 * and stores. Try `weft run samples/vector_add.cl --out 2=c.bin` to get the sums. */
__kernel void vector_add(__global const float *a, __global const float *b, __global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
