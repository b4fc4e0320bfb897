/* A do/while with a varying exit: Euclid's gcd (b[] is never 0). */
__kernel void gcd_while(__global const uint *a, __global const uint *b, __global uint *out) {
  int i = get_global_id(0);
  uint x = a[i], y = b[i];
  do {
    uint t = y;
    y = x % y;
    x = t;
  } while (y != 0);
  out[i] = x;
}
