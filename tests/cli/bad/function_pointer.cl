__kernel void k(__global int *o) {
  int (*f)(int) = 0;
  o[0] = 1;
}
