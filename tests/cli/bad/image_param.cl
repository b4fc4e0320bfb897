__kernel void k(__global int *o, image2d_t im) {
  o[0] = 1;
}
