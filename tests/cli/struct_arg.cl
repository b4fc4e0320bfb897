/* A struct passed by value, with padding after c and s; work-items write their own copy. */
typedef struct {
  char c;
  int a;
  short s;
  long b;
} params;

__kernel void struct_arg(__global int *out, params p) {
  int i = get_global_id(0);
  if (i & 1)
    p.a = -p.a;
  out[i] = p.c + p.a * i + p.s + (int)p.b;
}
