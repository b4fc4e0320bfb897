/* char4 loaded and stored packed: without AVX-512 a partly active lane group moves each lane's
 * four bytes as one 32-bit integer, not element by element behind a branch each. */
__kernel void narrow_packed(__global char4 *o, __global const char4 *a) {
  size_t i = get_global_id(0);
  o[i] = clamp(a[i], (char4)(-3), (char4)(5));
}
