/* sqrt fabs floor fmin fmax clamp mad on float. */
__kernel void math_basic(__global const float *a, __global const float *b, __global float *out) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  float r = sqrt(fabs(x)) + floor(y * 3.0f);
  r = fmin(r, 4.0f) + fmax(x, y);
  r = clamp(r, -1.5f, 3.5f);
  out[i] = mad(r, x, y);
}
