__kernel void k(__global int *o, __constant char *f) {
  int i = get_global_id(0);
  printf("%s\n", i);
}
