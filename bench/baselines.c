/* Plain C versions of the benchmark kernels: the same per-item algorithm as the kernels of
 * bench/kernels/ (and samples/mandelbrot.cl, samples/vector_add.cl), one loop over a range of
 * items, compiled by clang-19 -O3 -march=native -ffp-contract=off (see CMakeLists.txt). The
 * bench hands the ranges to the same number of threads as weft uses (workloads.c). Where a
 * kernel's work-items share a work-group (histogram, reduce), a range is a range of
 * work-groups, and the items of a group run in the kernel's order: lane order within each trip
 * of the grid-stride loop. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "baselines.h"

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

void base_break_mod(const uint32_t *seed, uint32_t *out, uint32_t limit, size_t begin, size_t end) {
  for (size_t id = begin; id < end; id++) {
    uint32_t x = seed[id], acc = 0, mine = limit - (x & 63u), i;
    for (i = 0; i < mine; i++) {
      if (x % 48u == 0) break;
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      acc += x >> 24;
    }
    out[id] = acc + (i << 16);
  }
}

static uint32_t walk(uint32_t v, uint32_t n) {
  uint32_t h = 0;
  for (uint32_t k = 0; k < n; k++) {
    if (v & 1u) v = 3u * v + 1u;
    else v >>= 1;
    h += v;
  }
  return h;
}

void base_helper_branch(const uint32_t *in, uint32_t *out, size_t begin, size_t end) {
  for (size_t id = begin; id < end; id++) {
    uint32_t v = in[id], n = 16u + (v >> 27);
    out[id] = v & 0x100u ? walk(v, n) ^ 0x9e3779b9u : walk(v >> 1, n + 5u) * 3u;
  }
}

void base_nested_loop(const uint32_t *in, uint32_t *out, size_t begin, size_t end) {
  for (size_t id = begin; id < end; id++) {
    uint32_t q = id & 3u, a = in[id], b = a ^ 0x5bd1e995u;
    for (int i = 0; i < 64; i++) {
      if (q == 0) {
        a = a * 33u + b;
      } else if (q == 1) {
        b = (b ^ a) * 0x01000193u;
      } else {
        a ^= b >> 3;
        b += a | 1u;
      }
    }
    out[id] = a ^ b;
  }
}

static float hit(float ox, float oy, float oz, float dx, float dy, float dz, const float *s) {
  float px = ox - s[0], py = oy - s[1], pz = oz - s[2];
  float b = px * dx + py * dy + pz * dz;
  float disc = b * b - (px * px + py * py + pz * pz - s[3] * s[3]);
  if (disc < 0.0f) return -1.0f;
  float q = sqrtf(disc), t = -b - q;
  if (t < 1e-3f) t = -b + q;
  return t < 1e-3f ? -1.0f : t;
}

static float ray_pixel(const float *spheres, int nspheres, int width, int height, int px, int py) {
  float dx = (2.0f * px - width) / height, dy = (height - 2.0f * py) / height, dz = 2.0f;
  float len = sqrtf(dx * dx + dy * dy + dz * dz);
  dx /= len, dy /= len, dz /= len;
  float best = 1e30f;
  int near = -1;
  for (int i = 0; i < nspheres; i++) {
    float t = hit(0.0f, 1.0f, -4.0f, dx, dy, dz, spheres + 4 * i);
    if (t > 0.0f && t < best) best = t, near = i;
  }
  if (near < 0) return 0.0f;
  const float lx = 0.408f, ly = 0.816f, lz = -0.408f, *s = spheres + 4 * near;
  float x = dx * best, y = 1.0f + dy * best, z = -4.0f + dz * best;
  float nx = (x - s[0]) / s[3], ny = (y - s[1]) / s[3], nz = (z - s[2]) / s[3];
  float diffuse = nx * lx + ny * ly + nz * lz;
  int lit = diffuse > 0.0f;
  for (int i = 0; lit && i < nspheres; i++)
    if (hit(x, y, z, lx, ly, lz, spheres + 4 * i) > 0.0f) {
      lit = 0;
      break;
    }
  return 0.1f + (lit ? 0.9f * diffuse : 0.0f) + 0.01f * (float)near;
}

void base_ray_trace(const float *spheres, int nspheres, float *out, int width, int height,
                    size_t row0, size_t row1) {
  for (size_t y = row0; y < row1; y++)
    for (int x = 0; x < width; x++)
      out[y * width + x] = ray_pixel(spheres, nspheres, width, height, x, (int)y);
}

void base_histogram_groups(const uint8_t *data, uint32_t n, uint32_t *hist, size_t lsize,
                           size_t gsize, size_t g0, size_t g1) {
  for (size_t g = g0; g < g1; g++) {
    uint32_t bins[256] = {0};
    for (size_t base = g * lsize; base < n; base += gsize)
      for (size_t i = base; i < base + lsize && i < n; i++) bins[data[i]]++;
    for (int b = 0; b < 256; b++)
      if (bins[b]) __atomic_fetch_add(&hist[b], bins[b], __ATOMIC_RELAXED);
  }
}

void base_reduce_groups(const float *data, uint32_t n, float *partial, size_t lsize, size_t gsize,
                        size_t g0, size_t g1) {
  for (size_t g = g0; g < g1; g++) {
    float tree[256] = {0};
    for (size_t base = g * lsize; base < n; base += gsize)
      for (size_t l = 0; l < lsize && base + l < n; l++) tree[l] += data[base + l];
    for (size_t s = lsize / 2; s > 0; s >>= 1)
      for (size_t l = 0; l < s; l++) tree[l] += tree[l + s];
    partial[g] = tree[0];
  }
}

uint32_t base_fnv1a(const uint8_t *k, uint32_t len) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; i++) h = (h ^ k[i]) * 16777619u;
  return h;
}

void base_hash_lookup(const hash_table *t, const uint8_t *qkeys, const uint32_t *qlen,
                      uint32_t *out, size_t begin, size_t end) {
  for (size_t id = begin; id < end; id++) {
    const uint8_t *q = qkeys + id * 16;
    uint32_t len = qlen[id], r = 0xffffffffu, slot = base_fnv1a(q, len) & t->mask;
    while (t->klen[slot] != 0) {
      if (t->klen[slot] == len) {
        uint32_t i = 0;
        while (i < len && t->keys[slot * 16 + i] == q[i]) i++;
        if (i == len) {
          r = t->vals[slot];
          break;
        }
      }
      slot = (slot + 1) & t->mask;
    }
    out[id] = r;
  }
}

void base_bfs_level(const uint32_t *row, const uint32_t *col, int32_t *level, int32_t cur,
                    int32_t *changed, size_t begin, size_t end) {
  for (size_t v = begin; v < end; v++) {
    if (__atomic_load_n(&level[v], __ATOMIC_RELAXED) != cur) continue;
    for (uint32_t e = row[v]; e < row[v + 1]; e++) {
      uint32_t w = col[e];
      if (__atomic_load_n(&level[w], __ATOMIC_RELAXED) < 0) {
        __atomic_store_n(&level[w], cur + 1, __ATOMIC_RELAXED);
        __atomic_store_n(changed, 1, __ATOMIC_RELAXED);
      }
    }
  }
}

void base_bitonic_step(uint32_t *a, uint32_t j, uint32_t k, size_t begin, size_t end) {
  for (size_t i = begin; i < end; i++) {
    size_t p = i ^ j;
    if (p > i) {
      uint32_t x = a[i], y = a[p];
      if ((x > y) == ((i & k) == 0)) a[i] = y, a[p] = x;
    }
  }
}

/* The barriers kernel's groups of 256: each trip, all items write, then all read. */
void base_barriers_groups(uint32_t *out, uint32_t trips, size_t g0, size_t g1) {
  for (size_t g = g0; g < g1; g++) {
    uint32_t acc[256], t[256];
    for (uint32_t l = 0; l < 256; l++) acc[l] = l;
    for (uint32_t i = 0; i < trips; i++) {
      for (uint32_t l = 0; l < 256; l++) t[l] = acc[l];
      for (uint32_t l = 0; l < 256; l++) acc[l] += t[(l + 1) & 255u];
    }
    for (uint32_t l = 0; l < 256; l++) out[g * 256 + l] = acc[l];
  }
}

void base_diverge_once(uint32_t *out, size_t begin, size_t end) {
  for (size_t id = begin; id < end; id++) {
    uint32_t v = (uint32_t)id * 2654435761u;
    if (v & 0x10000u) v = (v ^ (v >> 15)) * 0x2c1b3c6du;
    else v = (v ^ (v >> 12)) * 0x297a2d39u;
    out[id] = v;
  }
}
