/* Plain C versions of the benchmark kernels: the same per-item algorithm, one loop over the
 * items, compiled by clang-19 -O3 -march=native -ffp-contract=off (see CMakeLists.txt). The
 * bench splits the items over the same number of threads as weft uses. */
#include <stddef.h>
#include <stdint.h>

void base_mandelbrot_rows(uint32_t *out, int width, int height, int max_iter, int y0, int y1) {
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < width; x++) {
      float cr = -2.25f + 3.0f * (float)x / (float)width;
      float ci = -1.125f + 2.25f * (float)y / (float)height;
      float zr = 0.0f, zi = 0.0f;
      int i = 0;
      while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
      }
      out[y * width + x] = (uint32_t)i;
    }
}

void base_vector_add(const float *a, const float *b, float *c, size_t begin, size_t end) {
  for (size_t i = begin; i < end; i++) c[i] = a[i] + b[i];
}
