/* mandelbrot_host: the host API from start to end. Builds samples/mandelbrot.cl, runs it over a
 * 1024x768 NDRange with 256 iterations, and writes the iteration counts as a greyscale PGM image
 * (mandelbrot.pgm), which any image viewer opens.
 *
 *     mandelbrot_host [KERNEL.cl [OUT.pgm]]
 *
 * The steps are the ones every weft host program takes: a context (threads, policy, W, G), a
 * program built from a file (clang's diagnostics in weft_last_error on failure), a kernel, and
 * a launch with one weft_arg per kernel parameter; the launch's stats come back with it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "weft.h"

#ifndef WEFT_SAMPLES_DIR
#define WEFT_SAMPLES_DIR "samples"
#endif

enum { WIDTH = 1024, HEIGHT = 768, MAX_ITER = 256 };

/* Points inside the set (max_iter) are black; outside, brighter the longer they took to escape,
 * on a log scale so the thin filaments near the set stay visible. */
static int write_pgm(const char *path, const uint32_t *counts) {
  FILE *f = fopen(path, "wb");
  if (!f) return perror(path), 1;
  fprintf(f, "P5\n%d %d\n255\n", WIDTH, HEIGHT);
  for (size_t i = 0; i < (size_t)WIDTH * HEIGHT; i++) {
    double t = counts[i] >= MAX_ITER ? 0 : log1p(counts[i]) / log1p(MAX_ITER);
    fputc((int)(255 * t), f);
  }
  return fclose(f) ? perror(path), 1 : 0;
}

static int run(weft_context *ctx, const char *source, uint32_t *counts, weft_stats *stats) {
  weft_program *program = NULL;
  weft_kernel *kernel = NULL;
  int width = WIDTH, height = HEIGHT, max_iter = MAX_ITER;
  weft_status st = weft_program_build_file(ctx, source, NULL, &program);
  if (!st) st = weft_kernel_create(program, "mandelbrot", &kernel);
  if (!st) {
    weft_arg args[] = {
        {WEFT_ARG_GLOBAL, WEFT_U32, sizeof *counts * WIDTH * HEIGHT, counts},
        {WEFT_ARG_VALUE, WEFT_I32, sizeof width, &width},
        {WEFT_ARG_VALUE, WEFT_I32, sizeof height, &height},
        {WEFT_ARG_VALUE, WEFT_I32, sizeof max_iter, &max_iter},
    };
    weft_ndrange range = {2, {WIDTH, HEIGHT, 1}, {32, 8, 1}};
    st = weft_kernel_launch(kernel, &range, 4, args, stats);
  }
  if (st) fprintf(stderr, "mandelbrot_host: %s: %s\n", weft_status_name(st), weft_last_error(ctx));
  if (kernel) weft_kernel_release(kernel);
  if (program) weft_program_release(program);
  return st ? 1 : 0;
}

int main(int argc, char **argv) {
  const char *source = argc > 1 ? argv[1] : WEFT_SAMPLES_DIR "/mandelbrot.cl";
  const char *out = argc > 2 ? argv[2] : "mandelbrot.pgm";
  weft_options options = {0}; /* every worker thread, policy stack, W 32, G from the CPU */
  weft_context *ctx;
  weft_status st = weft_context_create(&options, &ctx);
  if (st) return fprintf(stderr, "mandelbrot_host: %s\n", weft_status_name(st)), 1;
  uint32_t *counts = malloc(sizeof *counts * WIDTH * HEIGHT);
  weft_stats stats;
  int rc = counts ? run(ctx, source, counts, &stats) : 1;
  if (!rc) rc = write_pgm(out, counts);
  if (!rc) {
    weft_options o = weft_context_options(ctx);
    printf("%s: %dx%d, %d iterations in %.2f ms (W %u, G %u, %u threads), SIMD efficiency "
           "%.1f%%\n",
           out, WIDTH, HEIGHT, MAX_ITER, stats.time_ms, o.warp, o.lanes, o.threads,
           100 * stats.simd_efficiency);
  }
  free(counts);
  weft_context_release(ctx);
  return rc;
}
