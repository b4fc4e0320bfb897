__kernel void syntax(__global int *o) {
  o[0] = 1
}
