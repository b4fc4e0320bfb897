// weft-run: -g 1024,768 -l 32,8 --stats
// weft-run: --arg u32[786432]=zero --arg i32:1024 --arg i32:768 --arg i32:256
/* Mandelbrot: each work-item iterates z = z^2 + c for one pixel until |z| > 2 or max_iter
 * iterations, and stores the count. Neighbouring pixels of a warp stop after different
 * numbers of iterations, so the loop's exit branch diverges: the lanes that have escaped wait
 * (inactive) until the last lane of the warp leaves the loop, which is what the SIMD efficiency
 * in the stats measures. The view is [-2.25, 0.75] x [-1.125, 1.125], 4:3 like 1024x768.
 *
 * The counts are a 32-bit image: `weft run samples/mandelbrot.cl --out 0=m.raw`, or build the
 * sample host program (mandelbrot_host) that writes mandelbrot.pgm, which any image viewer
 * opens. FP_CONTRACT OFF keeps the arithmetic the same as plain C with -ffp-contract=off. */
#pragma OPENCL FP_CONTRACT OFF

__kernel void mandelbrot(__global uint *out, int width, int height, int max_iter) {
  int x = get_global_id(0), y = get_global_id(1);
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
  out[y * width + x] = (uint)i;
}
