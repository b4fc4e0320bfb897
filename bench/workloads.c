/* The workloads of weft_bench. Each builds its kernel (bench/kernels/, or the samples for
 * mandelbrot and vector add), makes its data with a fixed seed, and runs both ways: run_c hands
 * the items to the baseline (baselines.c) on the pool's threads, run_weft launches the kernel
 * (once, or once per step for BFS and the bitonic sort, as a GPU host would). Both write an
 * output of their own (out, ref), which weft_bench compares word by word. Sizes make a weft run
 * take some 5 to 50 ms here; `quick` makes them small, for the test that runs every workload
 * under every policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "bench.h"

/* ---- helpers ---- */

static void *buffer(work *w, size_t bytes) {
  void *p = weft_buffer_alloc(bytes);
  if (!p) exit((fprintf(stderr, "weft_bench: out of memory\n"), 1));
  w->buf[w->nbufs] = p, w->bytes[w->nbufs++] = bytes;
  return p;
}

void work_release(work *w) {
  for (unsigned i = 0; i < w->nbufs; i++) weft_buffer_free(w->buf[i], w->bytes[i]);
  if (w->k) weft_kernel_release(w->k);
  if (w->prog) weft_program_release(w->prog);
}

size_t work_mismatches(const work *w) {
  const uint32_t *a = w->out, *b = w->ref;
  size_t bad = 0;
  for (size_t i = 0; i < w->out_bytes / 4; i++) bad += a[i] != b[i];
  return bad;
}

/* Builds `kernel` from `file` (a path under the source tree) and gives it `range`. */
static void build(work *w, const char *file, const char *kernel, weft_ndrange range) {
  if (weft_program_build_file(w->ctx, file, NULL, &w->prog) ||
      weft_kernel_create(w->prog, kernel, &w->k))
    exit((fprintf(stderr, "weft_bench: %s: %s\n", file, weft_last_error(w->ctx)), 1));
  w->range = range;
}

static weft_ndrange range1(size_t global, size_t local) {
  return (weft_ndrange){1, {global, 1, 1}, {local, 1, 1}};
}

static void arg_buffer(work *w, weft_type type, size_t bytes, const void *p) {
  w->args[w->nargs++] = (weft_arg){WEFT_ARG_GLOBAL, type, bytes, p};
}

/* A 32-bit value argument; it is read from w->u[i] at each launch. */
static void arg_u32(work *w, unsigned i, weft_type type, uint32_t value) {
  w->u[i] = value;
  w->args[w->nargs++] = (weft_arg){WEFT_ARG_VALUE, type, 4, &w->u[i]};
}

/* out and ref, `bytes` each. */
static void outputs(work *w, size_t bytes) {
  w->out = buffer(w, bytes), w->ref = buffer(w, bytes), w->out_bytes = bytes;
}

static uint32_t xorshift(uint32_t *s) {
  *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
  return *s;
}

static uint32_t *random_words(work *w, size_t n, uint32_t seed) {
  uint32_t *p = buffer(w, n * 4);
  for (size_t i = 0; i < n; i++) p[i] = xorshift(&seed);
  return p;
}

static void add_stats(weft_stats *sum, const weft_stats *s) {
  sum->time_ms += s->time_ms;
  sum->warps += s->warps, sum->block_execs += s->block_execs;
  sum->instr_execs += s->instr_execs, sum->lane_instrs += s->lane_instrs;
  sum->divergent_branches += s->divergent_branches, sum->policy_calls += s->policy_calls;
  sum->barriers += s->barriers, sum->round_trips += s->round_trips;
}

static void launch(work *w) {
  weft_stats s;
  if (weft_kernel_launch(w->k, &w->range, w->nargs, w->args, w->counting ? &s : NULL))
    exit((fprintf(stderr, "weft_bench: launch failed: %s\n", weft_last_error(w->ctx)), 1));
  if (w->counting) add_stats(&w->stats, &s);
  w->launches++;
}

/* run_weft of a workload that is one launch. */
static void launch_once(work *w) { launch(w); }

static size_t size(const work *w, size_t full, size_t quick) { return w->quick ? quick : full; }

/* A count for a title, as "%zu%s": 64K, 16M. */
#define KM(n) (size_t)((n) >= 1 << 20 ? (n) >> 20 : (n) >> 10), ((n) >= 1 << 20 ? "M" : "K")

/* ---- mandelbrot (samples/mandelbrot.cl): an escape-time loop ---- */

static void mandel_rows(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_mandelbrot_rows(w->ref, (int)w->u[0], (int)w->u[1], (int)w->u[2], (int)b, (int)e);
}

static void mandel_setup(work *w) {
  uint32_t W = size(w, 1024, 128), H = size(w, 768, 96), iters = size(w, 256, 64);
  build(w, WEFT_SAMPLES "/mandelbrot.cl", "mandelbrot", (weft_ndrange){2, {W, H, 1}, {32, 8, 1}});
  outputs(w, (size_t)W * H * 4);
  arg_buffer(w, WEFT_U32, w->out_bytes, w->out);
  arg_u32(w, 0, WEFT_I32, W), arg_u32(w, 1, WEFT_I32, H), arg_u32(w, 2, WEFT_I32, iters);
  snprintf(w->title, sizeof w->title, "mandelbrot %ux%ux%u", W, H, iters);
}

static void mandel_c(work *w) { cpool_for(w->pool, w->u[1], 4, mandel_rows, w); }

/* ---- break_mod: a loop left by `break` when x % 48 == 0, or at a per-item limit ---- */

static void break_mod_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_break_mod(w->in[0], w->ref, w->u[0], b, e);
}

static void break_mod_setup(work *w) {
  w->n = size(w, 128 << 10, 4096);
  build(w, WEFT_BENCH_KERNELS "/break_mod.cl", "break_mod", range1(w->n, 256));
  w->in[0] = random_words(w, w->n, 1);
  outputs(w, w->n * 4);
  arg_buffer(w, WEFT_U32, w->n * 4, w->in[0]), arg_buffer(w, WEFT_U32, w->n * 4, w->out);
  arg_u32(w, 0, WEFT_U32, 256);
  snprintf(w->title, sizeof w->title, "break at x%%48==0, %zu%s", KM(w->n));
}

static void break_mod_c(work *w) { cpool_for(w->pool, w->n, 4096, break_mod_items, w); }

/* ---- helper_branch: a helper with a divergent loop, called from both sides of a branch ---- */

static void helper_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_helper_branch(w->in[0], w->ref, b, e);
}

/* The setup of a kernel (in, out) over n items of 32-bit words from seed 2. */
static void in_out_setup(work *w, const char *file, const char *kernel, size_t n) {
  w->n = n;
  build(w, file, kernel, range1(n, 256));
  w->in[0] = random_words(w, n, 2);
  outputs(w, n * 4);
  arg_buffer(w, WEFT_U32, n * 4, w->in[0]), arg_buffer(w, WEFT_U32, n * 4, w->out);
}

static void helper_setup(work *w) {
  in_out_setup(w, WEFT_BENCH_KERNELS "/helper_branch.cl", "helper_branch",
               size(w, 128 << 10, 4096));
  snprintf(w->title, sizeof w->title, "helper both sides, %zu%s", KM(w->n));
}

static void helper_c(work *w) { cpool_for(w->pool, w->n, 4096, helper_items, w); }

/* ---- nested_loop: nested if/else in a uniform loop, three live paths per 4 lanes ---- */

static void nested_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_nested_loop(w->in[0], w->ref, b, e);
}

static void nested_setup(work *w) {
  in_out_setup(w, WEFT_BENCH_KERNELS "/nested_loop.cl", "nested_loop", size(w, 256 << 10, 4096));
  snprintf(w->title, sizeof w->title, "nested if/else x64, %zu%s", KM(w->n));
}

static void nested_c(work *w) { cpool_for(w->pool, w->n, 4096, nested_items, w); }

/* ---- ray_trace: nearest hit over spheres, a shadow loop with `break` ---- */

enum { SPHERES = 25 };

static void ray_rows(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_ray_trace(w->in[0], SPHERES, w->ref, (int)w->u[1], (int)w->u[2], b, e);
}

/* SPHERES - 1 spheres of radius 0.3 to 0.9 in front of the camera, on a floor: a sphere of
 * radius 100 whose top is at y = 0. */
static float *spheres(work *w) {
  float *s = buffer(w, SPHERES * 16);
  uint32_t seed = 3;
  for (int i = 0; i < SPHERES - 1; i++) {
    float r[4];
    for (int c = 0; c < 4; c++) r[c] = (float)(xorshift(&seed) >> 8) / 16777216.0f;
    s[4 * i] = -4.0f + 8.0f * r[0], s[4 * i + 1] = 0.3f + 2.0f * r[1];
    s[4 * i + 2] = 1.0f + 8.0f * r[2], s[4 * i + 3] = 0.3f + 0.6f * r[3];
  }
  float *floor = s + 4 * (SPHERES - 1);
  floor[0] = 0.0f, floor[1] = -100.0f, floor[2] = 4.0f, floor[3] = 100.0f;
  return s;
}

static void ray_setup(work *w) {
  uint32_t W = size(w, 1024, 128), H = size(w, 512, 64);
  build(w, WEFT_BENCH_KERNELS "/ray_trace.cl", "ray_trace",
        (weft_ndrange){2, {W, H, 1}, {32, 8, 1}});
  w->in[0] = spheres(w);
  outputs(w, (size_t)W * H * 4);
  arg_buffer(w, WEFT_F32, SPHERES * 16, w->in[0]);
  arg_u32(w, 0, WEFT_I32, SPHERES);
  arg_buffer(w, WEFT_F32, w->out_bytes, w->out);
  arg_u32(w, 1, WEFT_I32, W), arg_u32(w, 2, WEFT_I32, H);
  snprintf(w->title, sizeof w->title, "ray tracer %ux%u, %d spheres", W, H, SPHERES);
}

static void ray_c(work *w) { cpool_for(w->pool, w->u[2], 4, ray_rows, w); }

/* ---- histogram and reduce: grid-stride loops over 64 work-groups of 256 ---- */

enum { GROUPS = 64, LOCAL = 256 };

static void histogram_groups(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_histogram_groups(w->in[0], w->u[0], w->ref, LOCAL, GROUPS * LOCAL, b, e);
}

/* A kernel (data, n, out) over GROUPS work-groups: data is w->in[0], n items of `type`, and
 * out holds out_bytes of `out_type`. */
static void grid_stride_setup(work *w, const char *file, const char *kernel, weft_type type,
                              size_t item_bytes, weft_type out_type, size_t out_bytes) {
  build(w, file, kernel, range1(GROUPS * LOCAL, LOCAL));
  outputs(w, out_bytes);
  arg_buffer(w, type, w->n * item_bytes, w->in[0]);
  arg_u32(w, 0, WEFT_U32, (uint32_t)w->n);
  arg_buffer(w, out_type, out_bytes, w->out);
}

static void histogram_setup(work *w) {
  w->n = size(w, 4 << 20, 64 << 10);
  w->in[0] = random_words(w, w->n / 4, 4);
  grid_stride_setup(w, WEFT_BENCH_KERNELS "/histogram.cl", "histogram", WEFT_U8, 1, WEFT_U32,
                    256 * 4);
  snprintf(w->title, sizeof w->title, "local histogram, %zu%s bytes", KM(w->n));
}

static void histogram_c(work *w) { cpool_for(w->pool, GROUPS, 1, histogram_groups, w); }

static void zero_output(work *w, void *dst) { memset(dst, 0, w->out_bytes); }

static void reduce_groups(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_reduce_groups(w->in[0], w->u[0], w->ref, LOCAL, GROUPS * LOCAL, b, e);
}

static void reduce_setup(work *w) {
  w->n = size(w, 8 << 20, 64 << 10);
  float *data = buffer(w, w->n * 4);
  uint32_t seed = 5;
  for (size_t i = 0; i < w->n; i++) data[i] = (float)(xorshift(&seed) & 1023) / 64.0f;
  w->in[0] = data;
  grid_stride_setup(w, WEFT_BENCH_KERNELS "/reduce.cl", "reduce", WEFT_F32, 4, WEFT_F32,
                    GROUPS * 4);
  snprintf(w->title, sizeof w->title, "reduction, %zu%s floats", KM(w->n));
}

static void reduce_c(work *w) { cpool_for(w->pool, GROUPS, 1, reduce_groups, w); }

/* ---- hash_lookup: hash loop, linear probing, byte compare with early exit ---- */

/* A key of 4 to 16 bytes from 'a' to 'h', so that keys often share their first bytes. */
static uint32_t random_key(uint8_t *k, uint32_t *seed) {
  uint32_t len = 4 + xorshift(seed) % 13;
  for (uint32_t i = 0; i < len; i++) k[i] = (uint8_t)('a' + xorshift(seed) % 8);
  return len;
}

/* Puts key k with value v into the table unless it is there. */
static void hash_insert(uint8_t *keys, uint32_t *klen, uint32_t *vals, uint32_t mask,
                        const uint8_t *k, uint32_t len, uint32_t v) {
  uint32_t slot = base_fnv1a(k, len) & mask;
  for (; klen[slot]; slot = (slot + 1) & mask)
    if (klen[slot] == len && !memcmp(keys + slot * 16, k, len)) return;
  memcpy(keys + slot * 16, k, len), klen[slot] = len, vals[slot] = v;
}

static void hash_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  hash_table t = {w->in[0], w->in[1], w->in[2], w->u[0]};
  base_hash_lookup(&t, w->in[3], w->in[4], w->ref, b, e);
}

/* A table of 5/8 as many keys as slots; queries: every other one a key of the table, the rest
 * random keys, most of them missing. */
static void hash_setup(work *w) {
  size_t slots = size(w, 1 << 20, 1 << 12), nkeys = slots * 5 / 8;
  w->n = size(w, 128 << 10, 4096);
  build(w, WEFT_BENCH_KERNELS "/hash_lookup.cl", "hash_lookup", range1(w->n, 256));
  uint8_t *keys = buffer(w, slots * 16), *qkeys = buffer(w, w->n * 16);
  uint32_t *klen = buffer(w, slots * 4), *vals = buffer(w, slots * 4), seed = 6;
  uint8_t *made = buffer(w, nkeys * 16);
  uint32_t *made_len = buffer(w, nkeys * 4);
  for (uint32_t i = 0; i < nkeys; i++) {
    made_len[i] = random_key(made + i * 16, &seed);
    hash_insert(keys, klen, vals, (uint32_t)slots - 1, made + i * 16, made_len[i], i);
  }
  outputs(w, w->n * 4);
  uint32_t *qlen = buffer(w, w->n * 4);
  for (size_t q = 0; q < w->n; q++) {
    uint32_t pick = xorshift(&seed) % nkeys;
    if (q % 2) qlen[q] = random_key(qkeys + q * 16, &seed);
    else memcpy(qkeys + q * 16, made + pick * 16, 16), qlen[q] = made_len[pick];
  }
  w->in[0] = keys, w->in[1] = klen, w->in[2] = vals, w->in[3] = qkeys, w->in[4] = qlen;
  arg_buffer(w, WEFT_U8, slots * 16, keys), arg_buffer(w, WEFT_U32, slots * 4, klen);
  arg_buffer(w, WEFT_U32, slots * 4, vals), arg_u32(w, 0, WEFT_U32, (uint32_t)slots - 1);
  arg_buffer(w, WEFT_U8, w->n * 16, qkeys), arg_buffer(w, WEFT_U32, w->n * 4, qlen);
  arg_buffer(w, WEFT_U32, w->out_bytes, w->out);
  snprintf(w->title, sizeof w->title, "hash lookups, %zu%s in %zu%s slots", KM(w->n), KM(slots));
}

static void hash_c(work *w) { cpool_for(w->pool, w->n, 1024, hash_items, w); }

/* ---- bfs: level-synchronous breadth-first search, one launch per level ---- */

/* Edges of a side x side grid (each node to its right and lower neighbour) and, from one node
 * in 16, a shortcut to a random node, which keeps the levels to a few dozen. */
static size_t graph_edges(uint32_t side, uint32_t (*edge)[2], size_t cap) {
  uint32_t n = side * side, seed = 7;
  size_t m = 0;
  for (uint32_t v = 0; v < n; v++) {
    if (v % side + 1 < side && m < cap) edge[m][0] = v, edge[m++][1] = v + 1;
    if (v + side < n && m < cap) edge[m][0] = v, edge[m++][1] = v + side;
    if (xorshift(&seed) % 16 == 0 && m < cap) edge[m][0] = v, edge[m++][1] = xorshift(&seed) % n;
  }
  return m;
}

/* The graph in CSR form, both directions of every edge: row (n + 1 offsets) and col. */
static void csr(work *w, uint32_t n, uint32_t (*edge)[2], size_t m) {
  uint32_t *row = buffer(w, (n + 1) * 4), *col = buffer(w, 2 * m * 4);
  for (size_t e = 0; e < m; e++) row[edge[e][0] + 1]++, row[edge[e][1] + 1]++;
  for (uint32_t v = 0; v < n; v++) row[v + 1] += row[v];
  uint32_t *fill = calloc(n, 4);
  for (size_t e = 0; e < m; e++) {
    uint32_t a = edge[e][0], b = edge[e][1];
    col[row[a] + fill[a]++] = b, col[row[b] + fill[b]++] = a;
  }
  free(fill);
  w->in[0] = row, w->in[1] = col;
}

static void bfs_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_bfs_level(w->in[0], w->in[1], w->ref, (int32_t)w->u[1], w->in[2], b, e);
}

static void bfs_setup(work *w) {
  uint32_t side = size(w, 512, 128);
  w->n = (size_t)side * side;
  build(w, WEFT_BENCH_KERNELS "/bfs.cl", "bfs_level", range1(w->n, 256));
  size_t cap = 3 * w->n;
  uint32_t(*edge)[2] = malloc(cap * sizeof *edge);
  size_t m = graph_edges(side, edge, cap);
  csr(w, (uint32_t)w->n, edge, m);
  free(edge);
  outputs(w, w->n * 4);
  w->in[2] = buffer(w, 4), w->in[3] = buffer(w, 4); /* changed: the baseline's, weft's */
  arg_buffer(w, WEFT_U32, (w->n + 1) * 4, w->in[0]), arg_buffer(w, WEFT_U32, 2 * m * 4, w->in[1]);
  arg_buffer(w, WEFT_I32, w->out_bytes, w->out);
  arg_u32(w, 0, WEFT_I32, 0), arg_buffer(w, WEFT_I32, 4, w->in[3]);
}

/* Level 0 at node 0, -1 (unvisited) elsewhere. */
static void bfs_reset(work *w, void *dst) {
  memset(dst, 0xff, w->out_bytes);
  *(int32_t *)dst = 0;
}

static void bfs_c(work *w) {
  int32_t *changed = w->in[2];
  for (w->u[1] = 0, *changed = 1; *changed; w->u[1]++) {
    *changed = 0;
    cpool_for(w->pool, w->n, 4096, bfs_items, w);
  }
}

/* The setup, and the title with the number of levels, which one run of the baseline finds. */
static void bfs_setup_title(work *w) {
  bfs_setup(w);
  bfs_reset(w, w->ref);
  bfs_c(w);
  snprintf(w->title, sizeof w->title, "BFS, %zu%s nodes, %u levels", KM(w->n), w->u[1]);
}

static void bfs_weft(work *w) {
  int32_t *changed = w->in[3];
  for (w->u[0] = 0, *changed = 1; *changed; w->u[0]++) {
    *changed = 0;
    launch(w);
  }
}

/* ---- bitonic: a bitonic sort of n words, one launch per step ---- */

static void bitonic_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_bitonic_step(w->ref, w->u[2], w->u[3], b, e);
}

static void bitonic_setup(work *w) {
  w->n = size(w, 128 << 10, 4096);
  build(w, WEFT_BENCH_KERNELS "/bitonic.cl", "bitonic_step", range1(w->n, 256));
  w->in[0] = random_words(w, w->n, 8);
  outputs(w, w->n * 4);
  arg_buffer(w, WEFT_U32, w->out_bytes, w->out);
  arg_u32(w, 0, WEFT_U32, 0), arg_u32(w, 1, WEFT_U32, 0);
  unsigned log = 0;
  while ((size_t)1 << log < w->n) log++;
  snprintf(w->title, sizeof w->title, "bitonic sort, %zu%s, %u steps", KM(w->n),
           log * (log + 1) / 2);
}

static void copy_input(work *w, void *dst) { memcpy(dst, w->in[0], w->out_bytes); }

static void bitonic_c(work *w) {
  for (w->u[3] = 2; w->u[3] <= w->n; w->u[3] *= 2)
    for (w->u[2] = w->u[3] / 2; w->u[2] > 0; w->u[2] /= 2)
      cpool_for(w->pool, w->n, 16384, bitonic_items, w);
}

static void bitonic_weft(work *w) {
  for (w->u[1] = 2; w->u[1] <= w->n; w->u[1] *= 2)
    for (w->u[0] = w->u[1] / 2; w->u[0] > 0; w->u[0] /= 2) launch(w);
}

/* ---- vector_add (samples/vector_add.cl): streaming ---- */

static void vadd_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_vector_add(w->in[0], w->in[1], w->ref, b, e);
}

/* n floats (`count` in the title) in work-groups of `local`: 256, and 1000, which is no
 * multiple of G (a work-group of one row keeps its accesses packed all the same). */
static void vadd_setup(work *w, size_t n, size_t local, const char *count) {
  w->n = n;
  build(w, WEFT_SAMPLES "/vector_add.cl", "vector_add", range1(n, local));
  float *a = buffer(w, n * 4), *b = buffer(w, n * 4);
  for (size_t i = 0; i < n; i++) a[i] = (float)(i % 1000), b[i] = (float)(i % 7) * 0.5f;
  w->in[0] = a, w->in[1] = b;
  outputs(w, n * 4);
  arg_buffer(w, WEFT_F32, n * 4, a), arg_buffer(w, WEFT_F32, n * 4, b);
  arg_buffer(w, WEFT_F32, n * 4, w->out);
  snprintf(w->title, sizeof w->title, "vector add %s, groups of %zu", count, local);
}

static void vadd256_setup(work *w) {
  vadd_setup(w, size(w, 16 << 20, 64 << 10), 256, w->quick ? "2^16" : "2^24");
}

static void vadd1000_setup(work *w) {
  vadd_setup(w, size(w, 16000000, 64000), 1000, w->quick ? "64e3" : "16e6");
}
static void vadd_c(work *w) { cpool_for(w->pool, w->n, 1 << 16, vadd_items, w); }

/* ---- diverge_once: one divergent if/else per warp ---- */

static void diverge_items(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_diverge_once(w->ref, b, e);
}

/* The kernel `name`, which writes diverge_once's output: with its branch, or with a select. */
static void once_setup(work *w, const char *name, const char *what) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.cl", WEFT_BENCH_KERNELS, name);
  w->n = size(w, 4 << 20, 64 << 10);
  build(w, path, name, range1(w->n, 256));
  outputs(w, w->n * 4);
  arg_buffer(w, WEFT_U32, w->out_bytes, w->out);
  snprintf(w->title, sizeof w->title, "%s, %zu%s", what, KM(w->n));
}

/* ---- barriers: 2 per trip, 64 trips, in 256 groups of 256 ---- */

static void barriers_groups(void *ctx, size_t b, size_t e) {
  work *w = ctx;
  base_barriers_groups(w->ref, w->u[0], b, e);
}

static void barriers_setup(work *w) {
  w->n = 256 * (size_t)(w->quick ? 16 : 256);
  build(w, WEFT_BENCH_KERNELS "/barriers.cl", "barriers", range1(w->n, 256));
  outputs(w, w->n * 4);
  arg_buffer(w, WEFT_U32, w->out_bytes, w->out);
  arg_u32(w, 0, WEFT_U32, 64); /* trips */
  snprintf(w->title, sizeof w->title, "barriers, 128 per item, %zu%s", KM(w->n));
}

static void barriers_c(work *w) { cpool_for(w->pool, w->n / 256, 1, barriers_groups, w); }

static void diverge_setup(work *w) { once_setup(w, "diverge_once", "one if/else per warp"); }
static void select_setup(work *w) { once_setup(w, "select_once", "the same as a select"); }

static void diverge_c(work *w) { cpool_for(w->pool, w->n, 1 << 16, diverge_items, w); }

/* ---- the table, in the order weft_bench runs them ---- */

const workload workloads[] = {
    {"mandelbrot", mandel_setup, mandel_c, launch_once, NULL},
    {"break_mod", break_mod_setup, break_mod_c, launch_once, NULL},
    {"helper_branch", helper_setup, helper_c, launch_once, NULL},
    {"nested_loop", nested_setup, nested_c, launch_once, NULL},
    {"ray_trace", ray_setup, ray_c, launch_once, NULL},
    {"histogram", histogram_setup, histogram_c, launch_once, zero_output},
    {"reduce", reduce_setup, reduce_c, launch_once, NULL},
    {"hash_lookup", hash_setup, hash_c, launch_once, NULL},
    {"bfs", bfs_setup_title, bfs_c, bfs_weft, bfs_reset},
    {"bitonic", bitonic_setup, bitonic_c, bitonic_weft, copy_input},
    {"vector_add", vadd256_setup, vadd_c, launch_once, NULL},
    {"vector_add", vadd1000_setup, vadd_c, launch_once, NULL},
    {"diverge_once", diverge_setup, diverge_c, launch_once, NULL},
    {"select_once", select_setup, diverge_c, launch_once, NULL},
    {"barriers", barriers_setup, barriers_c, launch_once, NULL},
};
const unsigned num_workloads = sizeof workloads / sizeof workloads[0];
