static int f(int n) { return n ? n * f(n - 1) : 1; }
__kernel void recursion(__global int *o) { o[0] = f(o[1]); }
