/* exp log sin cos pow on float (x in [0.1, 4], y in [-3, 3]). */
__kernel void math_transcendental(__global const float *a, __global const float *b,
                                  __global float *out) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  out[i] = exp(y) + log(x) + sin(y) * cos(x) + pow(x, y * 0.5f);
}
