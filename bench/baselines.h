/* The plain C baselines (baselines.c): each runs a kernel's per-item algorithm over the items
 * [begin, end) (or rows, or work-groups, as named). */
#ifndef WEFT_BENCH_BASELINES_H
#define WEFT_BENCH_BASELINES_H

#include <stddef.h>
#include <stdint.h>

/* An open-addressing table of keys of 1 to 16 bytes in 16-byte rows; klen 0: an empty slot. */
typedef struct hash_table {
  const uint8_t *keys;
  const uint32_t *klen, *vals;
  uint32_t mask; /* slots - 1, slots a power of two */
} hash_table;

void base_mandelbrot_rows(uint32_t *out, int width, int height, int max_iter, int y0, int y1);
void base_vector_add(const float *a, const float *b, float *c, size_t begin, size_t end);
void base_break_mod(const uint32_t *seed, uint32_t *out, uint32_t limit, size_t begin, size_t end);
void base_helper_branch(const uint32_t *in, uint32_t *out, size_t begin, size_t end);
void base_nested_loop(const uint32_t *in, uint32_t *out, size_t begin, size_t end);
void base_ray_trace(const float *spheres, int nspheres, float *out, int width, int height,
                    size_t row0, size_t row1);
void base_histogram_groups(const uint8_t *data, uint32_t n, uint32_t *hist, size_t lsize,
                           size_t gsize, size_t g0, size_t g1);
void base_reduce_groups(const float *data, uint32_t n, float *partial, size_t lsize, size_t gsize,
                        size_t g0, size_t g1);
uint32_t base_fnv1a(const uint8_t *k, uint32_t len);
void base_hash_lookup(const hash_table *t, const uint8_t *qkeys, const uint32_t *qlen,
                      uint32_t *out, size_t begin, size_t end);
void base_bfs_level(const uint32_t *row, const uint32_t *col, int32_t *level, int32_t cur,
                    int32_t *changed, size_t begin, size_t end);
void base_bitonic_step(uint32_t *a, uint32_t j, uint32_t k, size_t begin, size_t end);
void base_diverge_once(uint32_t *out, size_t begin, size_t end);
void base_barriers_groups(uint32_t *out, uint32_t trips, size_t g0, size_t g1);

#endif
