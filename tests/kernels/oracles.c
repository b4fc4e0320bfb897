/* Oracles of the kernel suite: each computes what its kernel must leave in the buffers, as
 * plain sequential C. Where the kernel's result has a direct form (a closed-form sum, a sieve,
 * a transpose, a group's total) the oracle uses it instead of repeating the kernel's steps, so
 * the two are independent; test_oracles checks each against its kernel's source run as C. */
#include "oracles.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IN(T, k) ((const T *)io->p[k])
#define OUT(T, k) ((T *)io->p[k])
#define VAL(T, k) (*(const T *)io->p[k])
#define N(io) ((io)->c->global[0])
#define LSIZE(io) ((io)->c->local[0])

/* ---- control flow ---- */

void oracle_if_else(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    OUT(int32_t, 1)[i] = x > 0 ? 2 * x : 1 - x;
  }
}

void oracle_nested_if(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], r;
    if (x > 50) r = (i & 1) ? x - 50 : x + 50;
    else if (x > 0) r = 3 * x;
    else if (x < -50) r = -x;
    else r = x == 0 ? 7 : x * x;
    OUT(int32_t, 1)[i] = r;
  }
}

void oracle_if_no_else(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    if (x % 5 == 0) OUT(int32_t, 1)[i] = x % 3 == 0 ? 5 * x : x;
  }
}

/* Σ_{j<n} (j² + i) = (n-1)n(2n-1)/6 + n·i */
void oracle_loop_divergent_trip(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    long n = IN(int32_t, 0)[i];
    OUT(int32_t, 1)[i] = (int32_t)((n - 1) * n * (2 * n - 1) / 6 + n * (long)i);
  }
}

void oracle_loop_break(kio *io) {
  const int32_t *a = IN(int32_t, 0);
  int threshold = VAL(int32_t, 1), n = VAL(int32_t, 2);
  for (int i = 0; i < (int)N(io); i++) {
    int end = i + 64 < n ? i + 64 : n, found = -1;
    for (int j = end - 1; j >= i; j--) /* the last match scanning down is the first one */
      if (a[j] > threshold) found = j;
    OUT(int32_t, 3)[i] = found;
  }
}

void oracle_probe_compare(kio *io) {
  const uint8_t *table = IN(uint8_t, 0), *q = IN(uint8_t, 1);
  for (size_t id = 0; id < N(io); id++) {
    int found = -1;
    for (int n = 0, slot = (int)(id * 7) & 63; n < 64 && table[slot * 4];
         n++, slot = (slot + 1) & 63)
      if (!memcmp(table + slot * 4, q + id * 4, 3)) {
        found = slot * 4 + table[slot * 4 + 3];
        break;
      }
    OUT(int32_t, 2)[id] = found;
  }
}

/* Sums in the kernel's order, so that the floats agree exactly; j = k * i before step k. */
void oracle_grid_stride(kio *io) {
  uint32_t n = VAL(uint32_t, 4);
  for (size_t i = 0; i < N(io); i++) {
    float s = 0.0f;
    for (size_t x = i; x < n; x += N(io)) s += IN(float, 0)[x];
    OUT(float, 1)[i] = s;
    int acc = 0;
    for (uint32_t k = 0; k < 8; k++) acc += IN(int32_t, 2)[(k * (uint32_t)i) % 512u];
    OUT(int32_t, 3)[i] = acc;
  }
}

/* The linear congruential sequence x' = 1664525 x + 1013904223 from a[i] until (x >> 8) is a
 * multiple of 48, at most `limit` steps: the sum of x >> 16 and the steps before the last. */
void oracle_loop_break_carried(kio *io) {
  uint32_t limit = VAL(uint32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], s = 0, k = 0;
    for (; k < limit; k++) {
      x = x * 1664525u + 1013904223u, s += x >> 16;
      if ((x >> 8) % 48 == 0) break;
    }
    OUT(uint32_t, 1)[2 * i] = s, OUT(uint32_t, 1)[2 * i + 1] = k;
  }
}

void oracle_loop_side_waits(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint32_t v = IN(uint32_t, 0)[i], acc = 0;
    for (int k = 0; k < 50; k++) {
      if (v & 1) {
        v = v * 3 + 1;
        if (v % 7 == 0) break;
      } else {
        acc += v, v >>= 1;
      }
    }
    OUT(uint32_t, 1)[i] = acc ^ v;
  }
}

void oracle_loop_continue(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], sum = 0;
    for (int j = 0; j < 32; j++)
      if (!((x >> (j % 8)) & 1) && j % 3 != 0) sum += j + x;
    OUT(int32_t, 1)[i] = sum;
  }
}

void oracle_early_return(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    int32_t *o = &OUT(int32_t, 1)[i];
    if (x < 0) continue;
    if (x > 50) *o = x + 1;
    else if (x % 2) *o = x + 101;
    else *o = 2 * (x + 101);
  }
}

void oracle_packed_after_return(kio *io) {
  int off = VAL(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    int v = IN(int32_t, 0)[i];
    if (v >= 0) OUT(int32_t, 1)[i + (size_t)off] = v % 2 ? 3 * v : v + 7;
  }
}

void oracle_int_indexes(kio *io) {
  const int32_t *a = IN(int32_t, 0);
  for (size_t i = 0; i < N(io); i++) {
    OUT(int32_t, 1)[i] = a[i] * 2 + 3;
    OUT(int32_t, 2)[i] = a[i + 1] + 1;
  }
}

void oracle_switch_fallthrough(kio *io) {
  static const int by_case[8] = {11, 10, 1100, 1100, 1000, 0, -1, 0};
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], m = x % 8;
    OUT(int32_t, 1)[i] = m == 5 || m == 7 ? x : by_case[m];
  }
}

void oracle_uniform_branch(kio *io) {
  int mode = VAL(int32_t, 1);
  for (size_t i = 0; i < N(io); i++) {
    int r = IN(int32_t, 0)[i] + (mode == 1 ? 1 : -1);
    if ((i / LSIZE(io)) % 2 == 0) r *= 2;
    OUT(int32_t, 2)[i] = r + (mode + 2) * (mode + 1) / 2;
  }
}

void oracle_varying_branch(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int lid = (int)(i % LSIZE(io));
    int r = lid % 2 ? -lid : lid;
    OUT(int32_t, 0)[i] = r + (lid < 5 ? 1000 : 0) + ((i / 3) % 2 ? 7 : 0);
  }
}

void oracle_loop_in_divergent(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], r = 0;
    if (x % 2) {
      for (int j = 0; j < x % 17; j++) r += x ^ j;
    } else {
      for (unsigned k = (unsigned)x; k > 1; k >>= 1) r++; /* floor(log2 x) */
    }
    OUT(int32_t, 1)[i] = r;
  }
}

void oracle_gcd_while(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint32_t a = IN(uint32_t, 0)[i], b = IN(uint32_t, 1)[i];
    while (b) {
      uint32_t t = a % b;
      a = b, b = t;
    }
    OUT(uint32_t, 2)[i] = a;
  }
}

/* The number of primes up to a[i], from a sieve. */
void oracle_nested_loops_break(kio *io) {
  enum { MAX = 1000 };
  static int primes_upto[MAX + 1];
  char composite[MAX + 1] = {0};
  for (int k = 2, count = 0; k <= MAX; k++) {
    if (!composite[k]) {
      count++;
      for (int m = 2 * k; m <= MAX; m += k) composite[m] = 1;
    }
    primes_upto[k] = count;
  }
  for (size_t i = 0; i < N(io); i++) {
    int n = IN(int32_t, 0)[i];
    OUT(int32_t, 1)[i] = n < 2 ? 0 : primes_upto[n];
  }
}

static int classify(int x) {
  if (x < 0) return -1;
  if (x == 0) return 0;
  if (x >= 80) return 9;
  return x / 20 + 1;
}

void oracle_function_calls(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], c = classify(x);
    OUT(int32_t, 1)[i] = c > 2 ? c + classify(x - 50) : c;
  }
}

/* Steps of the 3x+1 walk from v to 1, at most limit. */
static int collatz_steps(int64_t v, int limit) {
  int n = 0;
  for (; v != 1 && n < limit; n++) v = v % 2 ? 3 * v + 1 : v / 2;
  return n;
}

void oracle_helper_both_sides(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    OUT(int32_t, 1)
    [i] = x % 3 == 0 ? 2 * collatz_steps(x / 3 + 1, 60) + x / 3
                     : 2 * x + (int)i - collatz_steps(x, 40 + x % 7);
  }
}

void oracle_select_regions(kio *io) {
  int flag = VAL(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], acc = 0;
    float y = IN(float, 1)[i], s = 0.0f;
    for (uint32_t k = 0; k < 20; k++) {
      if ((x + k) & 1u) {
        acc += x * 3u + k;
        if (x > k * 100000u) acc ^= k;
      } else {
        acc = flag ? acc - k : acc + 2u * k;
        s += (float)(int)(y * 100.0f);
      }
      x = (x * 1103515245u + 12345u) & 0x7fffffffu;
    }
    OUT(uint32_t, 3)[i] = acc;
    OUT(float, 4)[i] = s;
  }
}

void oracle_select_builtins(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    float y = IN(float, 0)[i], s = 0.0f, w = 0.0f, ip = 0.0f;
    for (uint32_t k = 0; k < 16; k++) {
      float d = y - 0.0625f * (float)k;
      s += d >= 0.0f ? sqrtf(d) : -expf(-40.0f * d) * 1e-20f;
      if ((i + k) % 3u == 0u) {
        float x = y * (float)(k + 3);
        ip = floorf(x);
        s += fminf(x - ip, 0x1.fffffep-1f);
      }
      w += ip;
    }
    OUT(float, 1)[i] = s;
    OUT(float, 2)[i] = w;
  }
}

void oracle_select_uniform_join(kio *io) {
  uint32_t flag = VAL(uint32_t, 1);
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], y = x >> 3;
    if (x & 1u) y = (flag ? y + 7u : y) ^ 0x55u;
    OUT(uint32_t, 2)[i] = y;
  }
}

void oracle_select_empty_group(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], y = x;
    if ((i & 63u) < 16u)
      for (uint32_t k = 0; k < 8u; k++) y = (x + k) & 1u ? y * 3u + k : y ^ y >> 3;
    OUT(uint32_t, 1)[i] = y;
  }
}

void oracle_loop_exit_meets_split(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], r = x;
    if ((x & 3u) == 3u) {
      OUT(uint32_t, 1)[i] = x;
      continue;
    }
    if (x & 1u)
      for (uint32_t k = 0; k < (x >> 2 & 7u); k++) r = r * 3u + k;
    OUT(uint32_t, 1)[i] = r ^ 0x5bd1e995u;
  }
}

void oracle_early_return_in_loop(kio *io) {
  int n = VAL(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    int k = 0, x = IN(int32_t, 0)[i];
    while (k < n && !(x >= IN(int32_t, 1)[k] && (x - IN(int32_t, 1)[k]) / 2 > 40)) k++;
    OUT(int32_t, 3)[i] = k;
  }
}

void oracle_uniform_loop_divergent_body(kio *io) {
  int n = VAL(int32_t, 1);
  for (size_t i = 0; i < N(io); i++) {
    int acc = 0;
    for (int j = 0; j < n; j++) {
      int v = IN(int32_t, 0)[(i + (size_t)j) % N(io)];
      acc += v & 1 ? v : -j;
    }
    OUT(int32_t, 2)[i] = acc;
  }
}

void oracle_loop_ulong(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint64_t n = IN(uint64_t, 0)[i];
    uint32_t k = 0;
    for (; n > 1 && k < 500; k++) n = n % 2 ? 3 * n + 1 : n / 2;
    OUT(uint32_t, 1)[i] = k;
  }
}

void oracle_short_circuit(kio *io) {
  int calls = 0;
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    int r = x > 10 && (x % 3 == 0 || x % 5 == 0);
    if (x >= 0) calls++;
    OUT(int32_t, 1)[i] = r + (x < 0 ? 2 : 0);
  }
  OUT(int32_t, 2)[0] += calls;
}

void oracle_odd_local_size(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int lid = (int)(i % LSIZE(io)), g = (int)(i / LSIZE(io)), r = IN(int32_t, 0)[i];
    if (lid % 3 == 0) r += g * 1000;
    else if (r > 50) r = lid * (int)LSIZE(io);
    OUT(int32_t, 1)[i] = r;
  }
}

/* ---- __local memory, barriers, atomics ---- */

void oracle_barrier_local_static(kio *io) {
  for (size_t g = 0; g < N(io) / LSIZE(io); g++) {
    int sum = 0;
    for (size_t l = 0; l < LSIZE(io); l++) sum += IN(int32_t, 0)[g * LSIZE(io) + l];
    OUT(int32_t, 1)[g] = sum;
  }
}

void oracle_barrier_local_arg(kio *io) {
  size_t n = LSIZE(io);
  for (size_t i = 0; i < N(io); i++) {
    size_t base = i - i % n, lid = i % n;
    OUT(int32_t, 1)[i] = IN(int32_t, 0)[base + n - 1 - lid] + IN(int32_t, 0)[base + (lid + 1) % n];
  }
}

void oracle_switch_unreachable(kio *io) {
  size_t n = LSIZE(io);
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i - i % n + (i % n + 1) % n], r = 0;
    if (x & 2u)
      for (uint32_t k = 0; k < (x & 7u); k++) r += k ^ x;
    else r = x * 3u;
    OUT(uint32_t, 1)[i] = r;
  }
}

void oracle_address_after_barrier(kio *io) {
  int32_t u = IN(int32_t, 0)[0];
  for (size_t i = 0; i < N(io); i++) OUT(int32_t, 1)[(size_t)u + i] = 3 * (int32_t)i;
}

/* barrier_then_diverge.cl, a work-group at a time: each barrier's phase for all its items. */
void oracle_barrier_then_diverge(kio *io) {
  const int32_t *in = IN(int32_t, 0);
  size_t n = LSIZE(io);
  int32_t s[1024];
  for (size_t g = 0; g < N(io); g += n) {
    const int32_t *t = in + g;
    for (size_t l = 0; l < n; l++) {
      int y = t[(l + 1) % n], trips = g / n & 1 ? y & 15 : 5;
      s[l] = 0;
      for (int k = 0; k < trips; k++) s[l] += (k & 1) ? t[(l + (size_t)k) % n] : -k;
    }
    for (size_t l = 0; l < n; l++) OUT(int32_t, 1)[g + l] = s[l] + s[(l + n - 1) % n];
  }
}

/* parts_uniform.cl, one work-item at a time. */
void oracle_parts_uniform(kio *io) {
  int n = VAL(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], acc = 0;
    for (int k = 0; k < n; k++) acc += (x ^ k) * 3;
    int p = acc ^ (x << 2), q = (acc >> 1) + x * 5, r = p * 3 - q;
    int s = (p & 255) + (q | 3) - (r >> 3), t = s * 7 + (r ^ q);
    int u = (t ^ s) * 5 + (r & 1023), v = (u >> 2) + (t & 63) * (s & 7);
    int w = (v >> 3) + (u & 63) - r % 17, y = w * 9 + (v ^ (w >> 1));
    for (int k = 0; k < n + 1; k++) y += (u ^ k) & 15;
    int z = (y ^ p) + (q & t) * 3 - (s | w), e = (z >> 4) + (y & 255) - (x % 13);
    int f = e * 11 + (z ^ (e >> 2)) - (u & 7) * (v & 3), g = (f >> 1) + (e & 31) * (r & 15);
    OUT(int32_t, 1)[i] = g + (p & q) - (s | t) + f % 29;
  }
}

/* parts_static_local.cl: the static arrays hold, per work-group, a and 3a + 1. */
void oracle_parts_static_local(kio *io) {
  const int32_t *a = IN(int32_t, 0);
  size_t n = LSIZE(io);
  for (size_t i = 0; i < N(io); i++) {
    const int32_t *group = a + (i - i % n);
    size_t l = i % n;
    int x = a[i], acc = 0;
    for (int k = 0; k < (x & 7); k++) {
      acc += k * x;
      if (acc > 500) acc -= 11;
    }
    int p = acc ^ (x << 2), q = (acc >> 1) + x * 5, r = p * 3 - q;
    int s = (p & 255) + (q | 3) - (r >> 3), t = s * 7 + (r ^ q);
    int nb = group[(l + 1) % n] + 3 * group[(l + 5) % n] + 1, m = 0;
    for (int k = 0; k < (nb & 3) + 1; k++) {
      m += (k ^ t) & 31;
      if (m & 1) m += 3;
    }
    int u = m * 3 + (t & 1023) - (s >> 2), v = (u ^ nb) + (p & 15) * (q & 7);
    int w = (v >> 3) + (u & 63) - r % 17;
    for (int k = 0; k < (w & 3); k++) w += (3 * group[(l + (size_t)k) % n] + 1) & 7;
    OUT(int32_t, 1)[i] = w + x - (3 * x + 1);
  }
}

/* parts.cl, one work-item at a time; loop 1 runs first for the whole work-group (the barrier) */
static int parts_loop1(int x, float *y) {
  int acc = 0;
  for (int k = 0; k < (x & 7); k++) {
    acc += k * x;
    if (acc > 100) acc -= 7;
    else *y = *y * 0.5f + 1.0f;
  }
  return acc;
}

void oracle_parts(kio *io) {
  size_t n = LSIZE(io);
  const int32_t *a = IN(int32_t, 0);
  for (size_t i = 0; i < N(io); i++) {
    size_t next = i - i % n + (i % n + 1) % n;
    int x = a[i], u = (int)n * 3 + 1;
    float y = (float)x * 0.25f, unused = 0;
    int acc = parts_loop1(x, &y), nb = parts_loop1(a[next], &unused);
    if (x % 5 == 0) {
      OUT(int32_t, 1)[i] = acc + nb, OUT(float, 2)[i] = y;
      continue;
    }
    int m = 0;
    for (int k = 0; k < (nb & 3) + u % 4; k++) {
      m += (k ^ x) & 15;
      if (m & 1) y += 1.5f;
    }
    int t = m * u;
    if ((x & 3) == 0) t += acc;
    else if ((x & 3) == 1) t -= nb;
    else t ^= x;
    while (t > 1000) t /= 3;
    for (int k = 0; k < (t & 7); k++) {
      y = y * 0.5f + (float)(k & 1);
      if (y > 100.0f) m -= 1;
    }
    OUT(int32_t, 1)[i] = t + m, OUT(float, 2)[i] = y * 2.0f - (float)t;
  }
}

void oracle_barrier_divergent(kio *io) {
  size_t n = LSIZE(io);
  for (size_t i = 0; i < N(io); i++) {
    size_t base = i - i % n, lid = i % n;
    OUT(int32_t, 1)
    [i] = lid & 1 ? 5 * IN(int32_t, 0)[base + (lid + 1) % n] + 1
                  : 3 * IN(int32_t, 0)[base + (lid + n - 1) % n] - 1;
  }
}

void oracle_prefix_sum(kio *io) {
  int run = 0;
  for (size_t i = 0; i < N(io); i++) {
    if (i % LSIZE(io) == 0) run = 0;
    OUT(int32_t, 1)[i] = run += IN(int32_t, 0)[i];
  }
}

void oracle_atomics_global(kio *io) {
  int32_t *hist = OUT(int32_t, 1), *st = OUT(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    hist[x & 15] += x;
    st[0] = x > st[0] ? x : st[0];
    st[1] = x < st[1] ? x : st[1];
    st[2] |= (int32_t)(1u << (x & 31));
    st[3] ^= x;
    st[4] -= x % 7 == 0;
    st[5] -= x > 900 ? x : 0;
  }
  OUT(uint32_t, 3)[0] += (uint32_t)N(io);
}

void oracle_atomics_unsigned(kio *io) {
  uint32_t *st = OUT(uint32_t, 1);
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], *group = st + 2 + 2 * (i / LSIZE(io));
    if (i % LSIZE(io) == 0) group[0] = 0, group[1] = UINT32_MAX;
    st[0] = x > st[0] ? x : st[0], st[1] = x < st[1] ? x : st[1];
    group[0] = x > group[0] ? x : group[0], group[1] = x < group[1] ? x : group[1];
  }
}

void oracle_atomic_tickets(kio *io) {
  int32_t *seen = OUT(int32_t, 1), *count = OUT(int32_t, 2);
  size_t n = N(io);
  for (size_t i = 0; i < n; i++) {
    if (IN(int32_t, 0)[i] % 3 == 0) seen[count[0]++]++;
    seen[n + i]++, seen[2 * n + i]++;
  }
  count[1] += 5 * (int32_t)n, count[2] -= 2 * (int32_t)n;
}

void oracle_atomics_local(kio *io) {
  int32_t *hist = OUT(int32_t, 1);
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i];
    hist[x % 32]++;
    if (x & 1) hist[(x >> 1) % 32] += 2;
    if (x > 50 && x > hist[32]) hist[32] = x;
  }
}

/* Every ticket once (a count of 1 each), then per work-group the totals that any order of the
 * atomics gives. */
void oracle_atomics_local_lanes(kio *io) {
  int32_t *out = OUT(int32_t, 1);
  size_t n = N(io), ls = LSIZE(io);
  for (size_t i = 0; i < 4 * n; i++) out[i] = 1;
  for (size_t g = 0; g < n / ls; g++) {
    int32_t *t = out + 4 * n + 10 * g, sum = 0, lo = 1 << 30, hi = -(1 << 30), or = 0, and = -1,
            xor = 0;
    for (size_t i = g * ls; i < (g + 1) * ls; i++) {
      int32_t x = IN(int32_t, 0)[i];
      sum += x + (x & 2 ? -3 : 1), or |= (int32_t)(1u << (x & 31)), and &= ~(1 << (x & 15)),
          xor ^= x;
      if (x & 1) lo = x < lo ? x : lo;
      else hi = x > hi ? x : hi;
    }
    int32_t xchg = sum; /* the values exchanged: x, without the -3s and +1s */
    for (size_t i = g * ls; i < (g + 1) * ls; i++) xchg -= IN(int32_t, 0)[i] & 2 ? -3 : 1;
    int32_t want[10] = {(int32_t)ls, 0, sum, lo, hi, or, and, xor, xchg, (int32_t)ls};
    memcpy(t, want, sizeof want);
  }
}

void oracle_transpose_tile(kio *io) {
  int w = VAL(int32_t, 2), h = VAL(int32_t, 3);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) OUT(float, 1)[x * h + y] = IN(float, 0)[y * w + x];
}

/* ---- types ---- */

void oracle_types_char(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int8_t x = IN(int8_t, 0)[i];
    uint8_t y = IN(uint8_t, 1)[i];
    OUT(int8_t, 2)[i] = (int8_t)(x * 3 + y);
    OUT(uint8_t, 3)[i] = (uint8_t)((y / 3 + (uint8_t)x) ^ (x < 0 ? 0x80 : 0));
  }
}

void oracle_struct_copies(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], m = x & 1023, k = (x & 0xffff) % 24, j = abs(x % 3);
    int odd = x & 1, a = odd ? 2 * m : m, b = m / (odd ? 1 : 2); /* (int) of m * 0.5 or m */
    int c2 = m % 5 == 2 ? 3 : 0, c0 = (m % 5 == 0 ? 3 : 0) + (odd ? 0 : 7);
    int other = ((x + 5) & 0xffff) % 24 == k ? x : 0;
    OUT(int32_t, 1)[i] = a + b + c2 + c0 + x + other + (j == 1 ? a : 0);
  }
}

void oracle_narrow_gather(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int j = IN(int32_t, 0)[i], off = VAL(int32_t, 6);
    const int8_t *a = IN(int8_t, 1);
    const uint8_t *b = IN(uint8_t, 2);
    const int16_t *c = IN(int16_t, 3);
    const uint16_t *d = IN(uint16_t, 4);
    int r = a[j] * 3 + b[1023 - j] + a[j] * 5 + b[off + (j >> 1)];
    if (j & 1) r += c[j] - d[(j * 7) & 1023] + d[off + (j >> 2)];
    else r ^= d[j] + c[1023 - j] * 16 - c[1023 - j];
    OUT(int32_t, 5)[i] = r;
  }
}

void oracle_types_short(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int16_t x = IN(int16_t, 0)[i];
    uint16_t y = IN(uint16_t, 1)[i];
    OUT(int16_t, 2)[i] = (int16_t)(x / 7 - (y >> 3) + (x > y));
    OUT(uint16_t, 3)[i] = (uint16_t)(y * 31u + (uint16_t)x);
  }
}

void oracle_types_long(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int64_t x = IN(int64_t, 0)[i];
    uint64_t y = IN(uint64_t, 1)[i];
    int64_t c = x * 1000003 / 7 - (int64_t)(y >> 40);
    uint64_t d = y * 0x9e3779b97f4a7c15u + (uint64_t)x;
    OUT(int64_t, 2)[i] = x < 0 && (y & 1) ? -c : c;
    OUT(uint64_t, 3)[i] = d ^ (d >> 29);
  }
}

void oracle_types_uint(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    uint32_t x = IN(uint32_t, 0)[i], y = IN(uint32_t, 1)[i] | 1u;
    uint32_t rot = x << 7 | x >> 25;
    uint32_t r = (x / y + x % y + (x > y ? x - y : y - x)) ^ rot;
    OUT(uint32_t, 2)[i] = r + (x >> 31);
  }
}

void oracle_types_float(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    float x = IN(float, 0)[i], y = IN(float, 1)[i];
    float r = x * y - x / (y + 2.5f);
    if (r < 0.0f) r = -r * 0.5f;
    OUT(float, 2)[i] = r + (float)(int)(x * 10.0f);
  }
}

void oracle_types_double(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    double x = IN(double, 0)[i], y = IN(double, 1)[i];
    double r = x * y + x / (fabs(y) + 1.0);
    if (x > y) r = sqrt(fabs(r));
    OUT(double, 2)[i] = r;
    OUT(float, 3)[i] = (float)r;
  }
}

static uint32_t rotl32(uint32_t v, uint32_t by) {
  return by % 32 ? v << by % 32 | v >> (32 - by % 32) : v;
}
static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static int32_t sat32(int64_t v) { return (int32_t)clamp64(v, INT32_MIN, INT32_MAX); }
static uint32_t usat32(int64_t v) { return (uint32_t)clamp64(v, 0, UINT32_MAX); }

/* The ordered and unordered comparisons as bits, in common_builtins.cl's order. */
static int32_t compare_bits(float a, float b) {
  int un = isnan(a) || isnan(b);
  return (a == b) + 2 * !(a == b) + 4 * (a > b) + 8 * (a >= b) + 16 * (a < b) + 32 * (a <= b) +
         64 * (a < b || a > b) + 128 * !un + 256 * un;
}

void oracle_common_builtins(kio *io) {
  size_t n = N(io);
  const float *f = IN(float, 0);
  float *vo = OUT(float, 3);
  int32_t *r = OUT(int32_t, 4);
  for (size_t i = 0; i < n; i++) {
    int32_t xi = IN(int32_t, 1)[i], xj = IN(int32_t, 1)[i ^ 1], sel[4] = {1, 2, 3, 4}, s = 0;
    uint32_t ui = IN(uint32_t, 2)[i], uj = IN(uint32_t, 2)[i ^ 1];
    const float *v = f + 4 * i, *w = f + 2 * (size_t)(xi & 63), *t = f + 3 * i;
    float wv[4] = {fmaxf(w[0], v[2]), fmaxf(w[1], -v[2]), w[1], w[0]};
    for (int k = 0; k < 4; k++) vo[4 * i + k] = v[k] * 2.0f + wv[k];
    for (int k = 0; k < 3; k++) vo[4 * n + 3 * i + k] = xi & 1 ? t[k] - 1.0f : t[k] * t[k];
    r[8 * i] = (xi & 1 ? -xi : xi) + (xi & 2 ? 2 : 1);
    int32_t c[4] = {xi, -xi, xi >> 1, ~xi};
    for (int k = 0; k < 4; k++) s += c[k] < 0 ? 10 * sel[k] : sel[k];
    r[8 * i + 1] = s;
    uint32_t bits[4] = {ui, ui << 1, ui << 2, ui << 3};
    int any = 0, all = 1;
    for (int k = 0; k < 4; k++) any |= (int)(bits[k] >> 31), all &= (int)(bits[k] >> 31);
    r[8 * i + 2] = any + 2 * all;
    r[8 * i + 3] = compare_bits(v[0], xi % 5 == 0 ? NAN : v[1]);
    float e[8];
    for (int k = 0; k < 8; k++) vo[7 * n + 8 * i + k] = e[k] = fmaxf(f[8 * (i >> 1) + k], v[3]);
    r[8 * i + 4] = -((v[0] < 0.5f) + 2 * (v[1] < 0.5f) + 4 * (v[2] < 0.5f) + 8 * (v[3] < 0.5f)) +
                   16 * (e[3] > e[6]);
    r[8 * i + 5] = (int32_t)(rotl32((uint32_t)xi, (uint32_t)i) ^ rotl32(ui, (uint32_t)(7 * i)));
    r[8 * i + 6] = sat32(2 * (int64_t)xi) ^ sat32(2 * (int64_t)xi) ^
                   (int32_t)usat32(2 * (int64_t)ui) ^ (int32_t)usat32((int64_t)ui - (ui << 1));
    if (i & 1)
      r[8 * i + 7] = (int32_t)(((int64_t)xi + xj) >> 1) ^ (int32_t)(((uint64_t)ui + uj + 1) >> 1);
    else
      r[8 * i + 7] = (int32_t)(((int64_t)xi - xi + 1) >> 1) ^ (int32_t)(((uint64_t)ui + ~ui) >> 1);
  }
}

/* builtin_edges: the edge cases spelled out; mad_sat in 128 bits. */
static float edge_value(size_t i, uint32_t bits) {
  static const uint32_t fixed[5] = {0, 0x80000000u, 0x7f800000u, 0xff800000u,
                                    0x7fffffffu}; /* OpenCL's NAN, as_float(INT_MAX) */
  if (i % 16 < 5) bits = fixed[i % 16];
  if (i % 16 == 5) bits &= 0x807fffffu;
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

static float not_nan(float v) { return isnan(v) ? -7.0f : v; }

static int64_t sat64(__int128 v) {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

void oracle_builtin_edges(kio *io) {
  const uint16_t *s = IN(uint16_t, 0);
  const uint8_t *c = IN(uint8_t, 1);
  const int32_t *n = IN(int32_t, 2);
  uint16_t *o16 = OUT(uint16_t, 3);
  uint8_t *o8 = OUT(uint8_t, 4);
  float *f = OUT(float, 5);
  int64_t *r = OUT(int64_t, 6);
  for (size_t i = 0; i < N(io); i++) {
    const uint8_t *b = c + 3 * i;
    int k = n[i], m = (int)i;
    for (int e = 0; e < 3; e++) { /* the fourth element of each keeps its 7 and 9 */
      o16[4 * i + e] = (uint16_t)(s[3 * i + e] + e + 1);
      o8[4 * i + e] = i & 1 ? b[e] ^ 0x5a : b[e];
    }
    float x = m % 5 == 0 ? NAN : (float)(m % 7) - 3.0f,
          y = m % 3 == 0 ? NAN : (float)(m % 4) - 1.5f;
    f[9 * i] = (float)(b[0] + 2 * b[1] + 4 * b[2]);
    f[9 * i + 1] = (float)(b[0] - b[1] + b[2]);
    f[9 * i + 2] = isnan(x) ? 0.0f : x > 0 ? 1.0f : x < 0 ? -1.0f : x;
    f[9 * i + 3] = isnan(fdimf(x, y)) ? -7.0f : fdimf(x, y);
    f[9 * i + 4] = k & 1 ? -1.0f : 1.0f;
    f[9 * i + 5] = (k & 1 ? -1.0f : 1.0f) * (float)(1 << (k & 7));
    float hx = (float)(m % 9) * 0.25f - 1.0f, hy = (float)(m % 7) * 0.5f - 1.5f; /* exact */
    f[9 * i + 6] = hx > hy ? hx : hy;
    f[9 * i + 7] = hx < hy ? hx : hy;
    f[9 * i + 8] = hx < -0.5f ? -0.5f : hx > 0.5f ? 0.5f : hx;
    int16_t ux = (int16_t)((uint16_t)((uint8_t)(m - 100) << 8) | (uint8_t)(3 * m));
    int16_t uy = (int16_t)((uint16_t)((uint8_t)m << 8) | (uint8_t)~m);
    r[4 * i] = ux + 65536LL * uy;
    unsigned __int128 u = (unsigned __int128)(UINT64_MAX - i % 4) * (i % 3) + i % 5;
    r[4 * i + 1] = (int64_t)(u > UINT64_MAX ? UINT64_MAX : (uint64_t)u);
    r[4 * i + 2] = sat64((__int128)(INT64_MAX - m % 4) * (m % 3 - 1) + (m % 5 - 2));
    r[4 * i + 3] = sat64((__int128)(INT64_MIN + m % 4) * (m % 3) - m % 5);
  }
}

/* float_parts: C's own frexpf, logbf, modff, ldexpf and ilogbf (but OpenCL's INT_MAX for NaN
 * and inf, which glibc gives otherwise). */
void oracle_float_parts(kio *io) {
  float *g = OUT(float, 2);
  int32_t *ex3 = OUT(int32_t, 3);
  for (size_t i = 0; i < N(io); i++) {
    float z = edge_value(i, IN(uint32_t, 0)[i]), whole;
    int ex;
    g[5 * i] = not_nan(frexpf(z, &ex));
    ex3[3 * i] = ex;
    g[5 * i + 1] = not_nan(logbf(z));
    g[5 * i + 2] = not_nan(modff(z, &whole));
    g[5 * i + 3] = not_nan(whole);
    g[5 * i + 4] = not_nan(ldexpf(z, IN(int32_t, 1)[i] % 300));
    ex3[3 * i + 1] = isnan(z) || isinf(z) ? INT32_MAX : z == 0 ? INT32_MIN : ilogbf(z);
    uint32_t zb, nb;
    float minus = -z;
    memcpy(&zb, &z, 4), memcpy(&nb, &minus, 4);
    ex3[3 * i + 2] = (int32_t)((zb & 0x7fffffffu) | (nb & 0x80000000u)) ^
                     (fpclassify(z) == FP_NORMAL);
  }
}

/* async_copy: each group's float4s reversed, doubled, plus the group's strided int; the ints
 * back in place, tripled plus their local id. */
void oracle_async_copy(kio *io) {
  const float *src = IN(float, 0);
  const int32_t *ints = IN(int32_t, 1);
  float *out = OUT(float, 2);
  int32_t *strided = OUT(int32_t, 3);
  size_t n = LSIZE(io), groups = N(io) / n;
  for (size_t g = 0; g < groups; g++)
    for (size_t lid = 0; lid < n; lid++) {
      int32_t v = ints[g + lid * groups];
      for (int c = 0; c < 4; c++)
        out[4 * (g * n + lid) + c] = src[4 * (g * n + n - 1 - lid) + c] * 2.0f + (float)v;
      strided[g + lid * groups] = v * 3 + (int32_t)lid;
    }
}

/* shuffles: each element picked by the mask's low bits, spelled out. */
void oracle_shuffles(kio *io) {
  const float *f = IN(float, 0);
  const uint32_t *bits = IN(uint32_t, 1);
  float *o = OUT(float, 2);
  size_t n = N(io);
  for (size_t i = 0; i < n; i++) {
    const float *x = f + 4 * i, *y = f + 4 * ((i + 1) % n);
    uint32_t b = bits[i];
    for (int k = 0; k < 8; k++) o[8 * i + k] = x[(b >> (4 * k)) & 3];
    for (int k = 0; k < 4; k++) {
      uint32_t idx = (b >> (3 * k)) & 7;
      o[8 * n + 4 * i + k] = idx < 4 ? x[idx] : y[idx - 4];
    }
    o[12 * n + 2 * i] = y[3]; /* (x.x, x.y, y.z, y.w)[3] */
    o[12 * n + 2 * i + 1] = x[0];
  }
}

/* ---- conversions: rounding by hand, and C's own conversions under fesetround. The source and
 * the result pass through volatiles: GCC would move the conversion across the fesetround call
 * otherwise, even with -frounding-math. ---- */

enum { RTZ, RTE, RTP, RTN };

static double rounded(double v, int mode) {
  return mode == RTZ ? trunc(v) : mode == RTE ? rint(v) : mode == RTP ? ceil(v) : floor(v);
}

/* convert_<bits-bit integer>_sat_<mode>(v): NaN is 0, the rest clamps. */
static int64_t fp_to_int_sat(double v, int mode, int bits, int is_unsigned) {
  if (isnan(v)) return 0;
  double lo = is_unsigned ? 0 : -ldexp(1, bits - 1), hi = ldexp(1, is_unsigned ? bits : bits - 1);
  uint64_t max = is_unsigned ? UINT64_MAX >> (64 - bits) : UINT64_MAX >> (65 - bits);
  v = rounded(v, mode);
  return v >= hi ? (int64_t)max : v < lo ? (int64_t)lo : (int64_t)v;
}

static const int fe_modes[] = {FE_TOWARDZERO, FE_TONEAREST, FE_UPWARD, FE_DOWNWARD};

/* (float)i or (float)d (is_int: i) rounded in `mode`. */
static float float_in_mode(int64_t i, double d, int is_int, int mode) {
  volatile int64_t vi = i;
  volatile double vd = d;
  fesetround(fe_modes[mode]);
  volatile float r = is_int ? (float)vi : (float)vd;
  fesetround(FE_TONEAREST);
  return r;
}
static float float_of_int(int64_t v, int mode) { return float_in_mode(v, 0, 1, mode); }
static float float_of_double(double v, int mode) { return float_in_mode(0, v, 0, mode); }

/* The IEEE half nearest to finite v in `mode`, as bits: v's magnitude in units of the half's
 * quantum at v (2^-24 below the normal range) is rounded to an integer, then encoded. */
static uint16_t half_bits(double v, int mode) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isinf(v)) return sign | 0x7c00;
  int e;
  frexp(a, &e);
  int q = e - 11 < -24 ? -24 : e - 11;
  int up = mode == RTP ? !sign : mode == RTN ? sign : 0; /* the magnitude rounds up */
  double n = mode == RTE ? rint(ldexp(a, -q)) : up ? ceil(ldexp(a, -q)) : trunc(ldexp(a, -q));
  double r = ldexp(n, q);
  if (r > 65504) return sign | (mode == RTE || up ? 0x7c00 : 0x7bff);
  if (r < ldexp(1, -14)) return sign | (uint16_t)ldexp(r, 24);
  frexp(r, &e);
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(ldexp(r, 1 - e) * 1024 - 1024);
}

static float half_value(uint16_t h) {
  int e = h >> 10 & 31;
  double m = h & 1023;
  double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
  return (float)(h & 0x8000 ? -v : v);
}

static void conversions_ints(int32_t *ri, float a, float fin, int32_t xi, int64_t li, int k) {
  uint32_t ui = (uint32_t)xi;
  static const int modes[] = {RTZ, RTE, RTP, RTN};
  for (int m = 0; m < 4; m++) ri[m] = (int32_t)fp_to_int_sat(a, modes[m], 32, 0);
  ri[4] = (int32_t)fp_to_int_sat(a, RTZ, 32, 1);
  ri[5] = (int32_t)(fp_to_int_sat(a * 1e-7f, RTZ, 8, 0) +
                    1000 * fp_to_int_sat(a * 1e-7f, RTE, 8, 1));
  for (int m = 0; m < 4; m++) ri[6 + m] = (int32_t)rounded(fin, modes[m]);
  ri[10] = (int32_t)clamp64(xi, INT16_MIN, INT16_MAX);
  ri[11] = (int32_t)(clamp64(xi, 0, 255) ^ clamp64(xi, -128, 127) * 256 ^
                     clamp64(xi, 0, 65535) << 12);
  ri[12] = (int32_t)clamp64(ui, 0, INT32_MAX);
  ri[13] = xi < 0 ? 0 : xi;
  ri[14] = (int32_t)clamp64(li, INT32_MIN, INT32_MAX);
  ri[15] = (int32_t)((uint32_t)(uint16_t)(int16_t)xi << 16 | (uint16_t)(xi >> 16));
  ri[16] = (int32_t)fp_to_int_sat(a, RTE, 32, 0);
  ri[17] = (int32_t)fp_to_int_sat(-fin, RTE, 32, 0);
  uint32_t c4 = 0;
  for (int b = 0; b < 4; b++) c4 |= (uint32_t)clamp64(xi >> (8 * b), 0, 255) << (8 * b);
  ri[18] = (int32_t)c4;
  uint64_t umad = (uint64_t)ui * (ui >> (k * 4)) + ui;
  ri[19] = (int32_t)clamp64((int64_t)xi * (xi >> (k * 3)) + xi, INT32_MIN, INT32_MAX) ^
           (int32_t)(umad > UINT32_MAX ? UINT32_MAX : umad);
}

void oracle_conversions(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int k = (int)(i & 7);
    float fi = IN(float, 0)[i], fin = fi * 1e-6f;
    float a = k == 0   ? NAN
              : k == 1 ? INFINITY
              : k == 2 ? -INFINITY
              : k == 3 ? 2.5f
              : k == 4 ? -3.5f
                       : fi;
    double e = k == 7 ? IN(double, 1)[i] * 1e34 : IN(double, 1)[i];
    int32_t xi = IN(int32_t, 2)[i];
    uint32_t ui = (uint32_t)xi;
    int64_t li = IN(int64_t, 3)[i];
    conversions_ints(OUT(int32_t, 4) + 20 * i, a, fin, xi, li, k);
    int64_t *q = OUT(int64_t, 5) + 4 * i;
    __int128 lmad = (__int128)li * (xi >> (k * 4)) + li;
    q[0] = fp_to_int_sat(a, RTZ, 64, 0);
    q[1] = li < 0 ? 0 : li;
    q[2] = lmad > INT64_MAX ? INT64_MAX : lmad < INT64_MIN ? INT64_MIN : (int64_t)lmad;
    q[3] = (int64_t)((uint64_t)ui << 32 | ui);
    float *g = OUT(float, 6) + 8 * i;
    g[0] = float_of_int(xi, RTZ);
    g[1] = float_of_int(li, RTP);
    g[2] = float_of_int(ui, RTN);
    for (int m = 0; m < 3; m++) g[3 + m] = float_of_double(e, (int[]){RTZ, RTP, RTN}[m]);
    g[6] = (float)e + (float)xi;
    uint16_t *h = OUT(uint16_t, 7) + 8 * i;
    h[0] = half_bits(fin, RTE);
    h[1] = half_bits(e, RTP);
    h[2] = half_bits(fin * 30.0f, RTN);
    h[3] = half_bits(fin * -30.0f, RTZ);
    h[4] = half_bits(fin * 7.0f, RTZ);
    h[5] = half_bits((float)e, RTZ); /* a float2's element */
    h[6] = half_bits(fin * 0.001f, RTE);
    h[7] = half_bits(-fin, RTE);
    g[7] = half_value(h[1]) + half_value(h[6]) + half_value(h[1]);
  }
}

/* C's / and % truncate towards zero, as OpenCL's do. Work-items with a divisor of 0 or a
 * dividend of INT_MIN (i & 3 == 1, i & 7 == 2, b[i] made 3 if 0) write -5s. */
void oracle_div_rem(kio *io) {
  int32_t s = VAL(int32_t, 2), m1 = VAL(int32_t, 4);
  uint32_t u = VAL(uint32_t, 3);
  for (size_t i = 0; i < N(io); i++) {
    int32_t x = IN(int32_t, 0)[i], d = IN(int32_t, 1)[i] ? IN(int32_t, 1)[i] : 3,
            *o = OUT(int32_t, 5) + 28 * i;
    if ((i & 3) == 1 || (i & 7) == 2 || x == INT32_MIN) {
      for (int k = 0; k < 28; k++) o[k] = -5;
      continue;
    }
    int32_t y = (i & 7) == 3 ? INT32_MIN : x, g = (int32_t)(i / LSIZE(io)) * 3 - 4;
    uint32_t ux = (uint32_t)x, ug = (uint32_t)(i / LSIZE(io)) + 1;
    int64_t lx = (int64_t)x * 3, ly = y;
    int32_t want[28] = {(int32_t)(ux % 48),
                        (int32_t)(ux / 48),
                        x / 7,
                        x % 7,
                        x / -7,
                        x % -6,
                        x / 16,
                        x % -16 + (int32_t)(ux & 1023),
                        x / -1,
                        (int32_t)(ly / 7 + ly % -8 + (uint32_t)y / 3),
                        x / s,
                        x % s,
                        (int32_t)(ux / u),
                        (int32_t)(ux % u),
                        x / m1,
                        x % m1 + y / s,
                        x / g,
                        x % g,
                        (int32_t)(ux / ug),
                        (int32_t)(ux % ug),
                        x / d,
                        x % d,
                        (int32_t)(ux / (uint32_t)d + ux % (uint32_t)d),
                        (int32_t)(lx / 1000003),
                        (int32_t)(lx % s + lx / m1),
                        (int32_t)((uint64_t)lx / u),
                        (int32_t)(lx / d),
                        (int32_t)((uint64_t)lx % ug)};
    memcpy(o, want, sizeof want);
  }
}

/* Division as the README defines it for a zero divisor and MIN / -1, at any width: the
 * results are truncated to the width, so -1 and all ones are one value. */
static int64_t sdiv0(int64_t x, int64_t d) {
  return d == 0 ? -1 : d == -1 ? (int64_t)(0 - (uint64_t)x) : x / d;
}
static int64_t srem0(int64_t x, int64_t d) { return d == 0 ? x : d == -1 ? 0 : x % d; }
static uint64_t udiv0(uint64_t x, uint64_t d) { return d ? x / d : UINT64_MAX; }
static uint64_t urem0(uint64_t x, uint64_t d) { return d ? x % d : x; }

void oracle_div_by_zero(kio *io) {
  int32_t zero = VAL(int32_t, 2), m1 = VAL(int32_t, 3);
  for (size_t i = 0; i < N(io); i++) {
    int32_t x = (i & 3) == 1 ? INT32_MIN : IN(int32_t, 0)[i], d = IN(int32_t, 1)[i],
            g = (int32_t)(i / LSIZE(io) % 3) - 1, *o = OUT(int32_t, 4) + 32 * i;
    uint32_t ux = (uint32_t)x, ud = (uint32_t)d;
    int64_t lx = (i & 3) == 1 ? INT64_MIN : (int64_t)IN(int32_t, 0)[i] * 5;
    int32_t c0 = (int8_t)sdiv0((int8_t)x, (int8_t)d), c1 = (int8_t)sdiv0(-128, (int8_t)m1);
    int32_t s0 = (int16_t)srem0((int16_t)x, (int16_t)zero), s1 = (int16_t)srem0(-32768, m1);
    int64_t want[32] = {sdiv0(x, d),
                        srem0(x, d),
                        (int32_t)udiv0(ux, ud),
                        (int32_t)urem0(ux, ud),
                        sdiv0(x, zero),
                        srem0(x, zero),
                        (int32_t)udiv0(ux, (uint32_t)zero),
                        (int32_t)urem0(ux, (uint32_t)zero),
                        sdiv0(x, m1),
                        srem0(x, m1),
                        sdiv0(x, g),
                        srem0(x, g),
                        (int32_t)sdiv0(lx, d),
                        (int32_t)srem0(lx, d),
                        sdiv0(lx, m1) >> 32,
                        (int32_t)udiv0((uint64_t)lx, (uint64_t)(int64_t)zero) +
                            (int32_t)urem0((uint64_t)lx, (uint64_t)(int64_t)zero),
                        sdiv0(INT32_MIN + zero, m1),
                        srem0(INT32_MIN + zero, m1),
                        sdiv0(m1, zero),
                        srem0(m1, zero),
                        sdiv0(x, d),
                        sdiv0(INT32_MIN, m1),
                        sdiv0(7, zero),
                        sdiv0(x, g),
                        srem0(x, d),
                        srem0(INT32_MIN, m1),
                        srem0(7, zero),
                        srem0(x, g),
                        c0 + 1000 * c1,
                        s0 + 100000 * s1,
                        x & 1 ? sdiv0(x, d) : (int32_t)udiv0(ux, ud),
                        x & 1 ? (int32_t)urem0(ux, ud) : srem0(x, d)};
    for (int k = 0; k < 32; k++) o[k] = (int32_t)want[k];
  }
}

void oracle_int_mul_hi(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    size_t j = i ^ 1;
    int64_t x = IN(int32_t, 0)[i], y = IN(int32_t, 0)[j];
    uint64_t u = IN(uint32_t, 1)[i], v = IN(uint32_t, 1)[j];
    __int128 l = IN(int64_t, 2)[i], m = IN(int64_t, 2)[j];
    OUT(uint32_t, 3)[2 * i] = (uint32_t)(x > y ? x - y : y - x);
    OUT(uint32_t, 3)[2 * i + 1] = (uint32_t)(u > v ? u - v : v - u);
    OUT(int32_t, 4)[i] = (int32_t)(x & 1 ? (x * y) >> 32 : -((y * 3) >> 32));
    OUT(uint32_t, 5)[i] = (uint32_t)((u * v) >> 32) ^ ((uint32_t)((v * u) >> 32) + (uint32_t)i);
    OUT(int64_t, 6)[i] = (int64_t)((l * m) >> 64);
  }
}

void oracle_int_builtins(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    int x = IN(int32_t, 0)[i], y = IN(int32_t, 1)[i];
    int lo = x < y ? x : y, hi = x < y ? y : x;
    int cl = x < -10 ? -10 : x > 10 ? 10 : x;
    OUT(int32_t, 2)[i] = 2 * lo + hi + cl + (hi - lo);
  }
}

/* ---- memory ---- */

void oracle_uniform_after_store(kio *io) {
  int n = VAL(int32_t, 2);
  for (size_t i = 0; i < N(io); i++) {
    int g = (int)(i / LSIZE(io));
    for (int k = 0; k < 3; k++) OUT(int32_t, 0)[3 * g + k] = n + g + k;
    OUT(int32_t, 1)[i] = 3 * ((n + g) * 3 + 1) + 9; /* k = 0, 1, 2 add 0, 3, 6 */
  }
}

void oracle_pointer_arith(kio *io) {
  int stride = VAL(int32_t, 2);
  const int32_t *a = IN(int32_t, 0);
  for (size_t i = 0; i < N(io); i++) {
    const int32_t *row = a + i * (size_t)stride;
    int s = 0;
    for (int k = 0; k < stride; k++) s += row[k] * (k + 1);
    OUT(int32_t, 1)[i] = s - row[stride - 1] + a[i + !(s & 1)];
  }
}

void oracle_wrapped_index(kio *io) {
  const int32_t *in = IN(int32_t, 0);
  for (size_t i = 0; i < N(io); i++) {
    size_t l = i % LSIZE(io), from = (l - 6) & 63; /* the work-item that stored t[(l + 1) & 63] */
    int32_t v = in[from] + (int32_t)from + in[(i + 3) & 15] * 2;
    if (i % 3) OUT(int32_t, 2)[(i + 5) & 1023] = v;
    OUT(int32_t, 1)[i] = v;
  }
}

void oracle_scatter_gather(kio *io) {
  const int32_t *perm = IN(int32_t, 0);
  for (size_t i = 0; i < N(io); i++) {
    OUT(float, 2)[perm[i]] = IN(float, 1)[i] * 2.0f;
    OUT(int32_t, 3)[i] = perm[perm[i]];
  }
}

/* ---- float4 and math ---- */

void oracle_float4_arith(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    const float *x = IN(float, 0) + 4 * i, *y = IN(float, 1) + 4 * i;
    float dot = 0;
    for (int e = 0; e < 4; e++) {
      float r = x[e] * y[e] + x[e] - y[e] / (y[e] * y[e] + 1.0f);
      OUT(float, 2)[4 * i + e] = r * 0.5f;
      dot += x[e] * y[e];
    }
    OUT(float, 3)[i] = dot;
  }
}

void oracle_float4_swizzle(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    const float *v = IN(float, 0) + 4 * i;
    float w[4] = {v[3] + 1.0f, v[2] + 2.0f, v[1] + 3.0f, v[0] + 4.0f};
    if (v[0] > 0.0f) {
      float t = w[0];
      w[0] = w[1], w[1] = t;
    }
    w[2] = fmaxf(w[2], v[1]);
    for (int e = 0; e < 4; e++) OUT(float, 1)[4 * i + e] = w[e] * v[0];
  }
}

void oracle_math_basic(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    float x = IN(float, 0)[i], y = IN(float, 1)[i];
    float r = fminf(sqrtf(fabsf(x)) + floorf(y * 3.0f), 4.0f) + fmaxf(x, y);
    r = fminf(fmaxf(r, -1.5f), 3.5f);
    OUT(float, 2)[i] = r * x + y;
  }
}

/* math_pi: in double, from the definitions. */
static double smooth(double e0, double e1, double x) {
  double t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0);
  return t * t * (3.0 - 2.0 * t);
}

void oracle_math_pi(kio *io) {
  float *o = OUT(float, 3);
  for (size_t i = 0; i < N(io); i++) {
    double x = IN(float, 0)[i], y = IN(float, 1)[i], pi = 3.14159265358979323846;
    int k = IN(int32_t, 2)[i] % 7 - 3;
    double r = k == 0 || (x < 0 && k % 2 == 0) ? NAN : copysign(pow(fabs(x), 1.0 / k), x);
    double v[16] = {sin(pi * x),
                    cos(pi * x),
                    tan(pi * (double)(float)(y * 0.45f)),
                    2.0,
                    2.0,
                    asin(y) / pi,
                    acos(y) / pi,
                    atan(x) / pi,
                    atan2(y, x) / pi,
                    smooth(-0.5, 0.75, y),
                    smooth(-0.5, 0.75, (float)(y * 0.5f)),
                    smooth(-0.5, 0.75, -y),
                    smooth(-0.5, 0.75, 0.25),
                    r,
                    tan(y) + exp2(y) + 1.0 / sqrt((double)(float)(y * y + 1.0f)),
                    log10((double)(float)(fabs(x) + 1.0)) + pow(10.0, y) + y / 3.0};
    for (int c = 0; c < 16; c++) o[16 * i + c] = (float)v[c];
  }
}

/* OpenCL's remquo: the C library's remainder, and seven bits of the quotient (glibc's remquo
 * gives three) with the sign of x / y. x - r is exact in double, a multiple of y. */
static float remquo7f(float x, float y, int *quo) {
  float r = remainderf(x, y);
  long k = lrint(((double)x - r) / y);
  *quo = (int)(labs(k) & 127) * (k < 0 ? -1 : 1);
  return r;
}

/* math_libm: the C library's lgamma, lgamma_r and tgamma of double, rounded to float for the
 * float ones (glibc's float variants are up to 2 ulps off where weft's are within 0.5: the
 * case's tolerance, 4 ulps, allows for that rounding), remquo's quotient as OpenCL asks: what is
 * checked is that each lane and element gets its own value and its own int back. */
void oracle_math_libm(kio *io) {
  const float *a = IN(float, 0);
  float *o = OUT(float, 1);
  int32_t *q = OUT(int32_t, 2);
  size_t n = N(io);
  for (size_t i = 0; i < n; i++) {
    float x = a[i], y = a[(i + 3) % n];
    int quo, sign, dsign = 0, qx, qy;
    o[7 * i] = remainderf(x, y);
    o[7 * i + 1] = remquo7f(x, y, &quo);
    o[7 * i + 2] = (float)(i % 3 ? lgamma(fabsf(x) + 0.5f) : tgamma(fabsf(y) * 0.1f + 0.25f));
    o[7 * i + 3] = (float)lgamma_r(x, &sign);
    o[7 * i + 4] = remquo7f(x, 1.5f, &qx);
    float ry = remquo7f(y, -2.5f, &qy);
    o[7 * i + 5] = remquo7f(y, x, &q[4 * i + 3]) + ry;
    if (i % 5 == 0)
      o[7 * i + 6] = (float)(lgamma_r((double)x * 1.5, &dsign) + tgamma((double)y * 0.1 + 0.25));
    else o[7 * i + 6] = (float)lgamma((double)y);
    q[4 * i] = quo;
    q[4 * i + 1] = sign ^ (int32_t)((uint32_t)dsign << 4);
    q[4 * i + 2] = qx ^ (int32_t)((uint32_t)qy << 8);
  }
}

void oracle_narrow_vectors(kio *io) {
  const uint8_t *a = IN(uint8_t, 0);
  uint8_t *c3 = OUT(uint8_t, 1), *c16 = OUT(uint8_t, 3);
  uint16_t *s3 = OUT(uint16_t, 2), *s1 = OUT(uint16_t, 5);
  int16_t *s2 = OUT(int16_t, 4), *s8 = OUT(int16_t, 6);
  for (size_t i = 0; i < N(io); i++) {
    uint8_t x = a[i];
    if (x & 1)
      for (int k = 0; k < 3; k++) {
        c3[3 * i + k] = (uint8_t)(c3[3 * i + k] + (k == 0 ? x : k));
        s3[3 * i + k] = (uint16_t)(s3[3 * i + k] * 3);
      }
    if (x & 2)
      for (int k = 0; k < 16; k++) c16[16 * i + k] ^= x;
    if (x % 3 == 0) {
      int16_t t = s2[2 * i];
      s2[2 * i] = s2[2 * i + 1], s2[2 * i + 1] = t;
      s1[i] = (uint16_t)(s1[i] + x);
    }
    if (x & 4)
      for (int k = 0; k < 4; k++) {
        int16_t t = s8[8 * i + k];
        s8[8 * i + k] = s8[8 * i + 7 - k], s8[8 * i + 7 - k] = t;
      }
  }
}

void oracle_math_transcendental(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    double x = IN(float, 0)[i], y = IN(float, 1)[i]; /* in double: the exact answer */
    OUT(float, 2)[i] = (float)(exp(y) + log(x) + sin(y) * cos(x) + pow(x, y * 0.5));
  }
}

/* ---- NDRanges ---- */

/* maxmag and minmag by their definition: the argument of the greater (smaller) magnitude,
 * else fmax (fmin). */
static float magnitude(int max, float x, float y) {
  float ax = fabsf(x), ay = fabsf(y);
  if (ax != ay && !isnan(ax) && !isnan(ay)) return (ax > ay) == max ? x : y;
  return max ? fmaxf(x, y) : fminf(x, y);
}

/* OpenCL's fract by its definition, fmin(x - floor(x), 0x1.fffffep-1f), and its edge cases:
 * ±0 and NaN give themselves, ±inf +0. */
static float fract_ref(float x) {
  if (x == 0 || isnan(x)) return x;
  if (isinf(x)) return 0.0f;
  return fminf(x - floorf(x), 0x1.fffffep-1f);
}

static int32_t bits_of(float f) {
  int32_t b;
  memcpy(&b, &f, 4);
  return b;
}

void oracle_math_more(kio *io) {
  for (size_t i = 0; i < N(io); i++) {
    double x = IN(float, 0)[i], y = IN(float, 1)[i]; /* in double: the exact answer */
    int n = IN(int32_t, 2)[i];
    float *out = OUT(float, 3) + 4 * i, *out4 = OUT(float, 5) + 12 * i;
    int32_t *bits = OUT(int32_t, 4) + 8 * i;
    out[0] = (float)(asinh(x) + acosh(fabs(y) + 1.0));
    out[1] = (float)atanh((float)x * 0.2f);
    out[2] = (float)pow(x, n);
    out[3] = (float)(sin(y) + (double)(float)cos(y) * 2.0);
    static const float edge[5] = {-0x1p-30f, -0.0f, INFINITY, -INFINITY, NAN};
    float x3 = i < 5 ? edge[i] : (float)x * 3.0f, whole = floorf(x3);
    bits[0] = bits_of(magnitude(1, (float)x, (float)y));
    bits[1] = bits_of(magnitude(0, (float)x, (float)y));
    bits[2] = bits_of(fract_ref(x3));
    int32_t *classes = OUT(int32_t, 6) + 6 * i;
    classes[0] = !!isnan(x3) + 2 * !!isinf(x3) + 4 * !!isfinite(x3) + 8 * !!signbit(x3);
    float c4[4] = {x3, -x3, x3 - x3, 1.0f / x3};
    for (int e = 0; e < 4; e++) classes[1 + e] = -!!isnan(c4[e]) - 2 * !!isinf(c4[e]);
    classes[5] = !!signbit((double)x3) + 2 * !!isinf((double)x3) + 4 * !!signbit(x3 - x3);
    bits[3] = bits_of(whole);
    bits[4] = bits_of(nextafterf((float)x, (float)y));
    bits[5] = bits_of(nextafterf(0.0f, (float)y));
    float v[4] = {(float)x, (float)y, (float)x + (float)y, (float)x - (float)y};
    bits[6] = bits_of(nextafterf(v[2], 0.0f));
    bits[7] = bits_of(nextafterf(v[3], 0.0f));
    int powers[4] = {1, 2, 3, n};
    for (int e = 0; e < 4; e++) {
      out4[e] = (float)sin(v[e]);
      out4[4 + e] = (float)cos(v[e]);
      out4[8 + e] = (float)pow(v[e], powers[e]);
    }
  }
}

/* One warp of the sub_groups kernel: work-items start .. end-1 of the work-group at g0. */
static void sub_group_warp(kio *io, size_t g0, size_t start, size_t end) {
  const size_t L = LSIZE(io), W = io->warp;
  const int32_t *a = IN(int32_t, 0);
  const float *f = IN(float, 1);
  int sum = 0, lo = INT32_MAX, hi = INT32_MIN, pos = 0, any = 0, all = 1, hi3 = INT32_MIN;
  uint32_t uhi = 0;
  float fsum = 0.0f; /* in lane order */
  for (size_t k = start; k < end; k++) {
    sum += a[k], lo = a[k] < lo ? a[k] : lo, hi = a[k] > hi ? a[k] : hi;
    uhi = (uint32_t)a[k] > uhi ? (uint32_t)a[k] : uhi;
    pos += a[k] > 0 ? a[k] : 0, any |= a[k] > 90, all &= a[k] > -95;
    hi3 = a[k] % 3 == 0 && 2 * a[k] + 1 > hi3 ? 2 * a[k] + 1 : hi3;
    fsum += f[k];
  }
  int incl = 0, emax = INT32_MIN, emin = INT32_MAX;
  float fmin_ = INFINITY;
  for (size_t k = start; k < end; k++) {
    int32_t *o = OUT(int32_t, 2) + 13 * k;
    incl += a[k], fmin_ = fminf(fmin_, f[k]);
    o[0] = (int)((end - start) * 1000 + W);
    o[1] = (int)((L + W - 1) / W * 1000 + (start - g0) / W);
    o[2] = (int)(k - start);
    o[3] = sum, o[4] = lo * 1000 + hi, o[5] = incl, o[6] = emax, o[7] = emin;
    o[8] = a[end - 1], o[9] = (int)uhi, o[10] = any + 2 * all, o[11] = a[k] > 0 ? pos : -1;
    o[12] = a[k] % 3 == 0 ? hi3 : -1;
    float *fo = OUT(float, 3) + 3 * k;
    fo[0] = fsum, fo[1] = fmin_, fo[2] = (float)(incl - a[k]);
    emax = a[k] > emax ? a[k] : emax, emin = a[k] < emin ? a[k] : emin;
  }
}

/* Sub-groups: the W consecutive work-items of each warp, the last one of a work-group short. */
void oracle_sub_groups(kio *io) {
  const size_t L = LSIZE(io), W = io->warp;
  for (size_t g0 = 0; g0 < N(io); g0 += L)
    for (size_t start = g0; start < g0 + L; start += W)
      sub_group_warp(io, g0, start, start + W < g0 + L ? start + W : g0 + L);
}

/* The lanes of a warp as a 64-bit ballot, lane k - start as bit k - start. */
static uint64_t lanes_where(const int32_t *a, size_t start, size_t end,
                            int (*holds)(int32_t, size_t)) {
  uint64_t bits = 0;
  for (size_t k = start; k < end; k++)
    if (holds(a[k], k - start)) bits |= 1ull << (k - start);
  return bits;
}
static int positive_or_first(int32_t x, size_t lane) { return x > 0 || lane == 0; }
static int multiple_of_3(int32_t x, size_t lane) { return (void)lane, x % 3 == 0; }
static uint64_t below_lane(size_t lane) { return lane ? ~0ull >> (64 - lane) : 0; }

static void sub_group_lanes_warp(kio *io, size_t start, size_t end) {
  const int32_t *a = IN(int32_t, 0);
  const size_t n = end - start;
  const uint64_t group = below_lane(n), b = lanes_where(a, start, end, positive_or_first);
  const uint64_t d = lanes_where(a, start, end, multiple_of_3);
  int all = 1, any = 0, same = 1;
  for (size_t k = start; k < end; k++)
    all &= a[k] > -95, any |= a[k] > 95, same &= a[k] == a[start];
  for (size_t k = start; k < end; k++) {
    size_t l = k - start;
    int32_t *o = OUT(int32_t, 1) + 16 * k;
    uint64_t lt = below_lane(l), self = 1ull << l, ge = group & ~lt, le = lt | self;
    uint64_t gt = ge & ~self;
    o[0] = (int32_t)(uint32_t)b;
    o[1] = (int32_t)(uint32_t)(b >> 32);
    o[2] = __builtin_popcountll(b);
    o[3] = __builtin_popcountll(b & le) * 100 + __builtin_popcountll(b & lt);
    o[4] = __builtin_ctzll(b) * 100 + 63 - __builtin_clzll(b);
    o[5] = (int)(b >> l & 1) + 2 * (int)(b >> (l + 1) % n & 1);
    o[6] = (int32_t)((uint32_t)lt ^ ((uint32_t)ge << 1) ^ ((uint32_t)(le >> 32) * 3) ^
                     ((uint32_t)(gt >> 32) * 5) ^ (uint32_t)self ^ ((uint32_t)(self >> 32) << 2));
    o[7] = a[start + (l * 5 + 3) % n];
    o[8] = a[end - 1] + a[start + 1];
    o[9] = a[start + (l ^ 1)] * 1000 + a[start + (l ^ 2)];
    o[10] = l >= 1 ? a[k - 1] : 0;
    o[11] = l + 2 < n ? a[k + 2] : 0;
    o[12] = (l == 0) + 2 * all + 4 * any + 8 + 16 * same + 32;
    o[13] = a[start] * 2;
    if (a[k] % 3 == 0) {
      uint64_t below = d & lt;
      o[14] = (int32_t)((uint32_t)d ^ (uint32_t)(d >> 32)) + (below == 0) * 7 +
              a[start + (size_t)__builtin_ctzll(d)] * 11 + 13;
    } else {
      o[14] = -1;
    }
    o[15] = a[start + (l + 1) % n];
  }
}

/* cl_khr_subgroup_ballot, _non_uniform_vote, _shuffle and _shuffle_relative per warp. */
void oracle_sub_group_lanes(kio *io) {
  const size_t L = LSIZE(io), W = io->warp;
  for (size_t g0 = 0; g0 < N(io); g0 += L)
    for (size_t start = g0; start < g0 + L; start += W)
      sub_group_lanes_warp(io, start, start + W < g0 + L ? start + W : g0 + L);
}

/* The lanes of warp [start, end) in lane k's cluster of c lanes (from a multiple of c). */
static void cluster_of(size_t start, size_t end, size_t k, size_t c, size_t *from, size_t *to) {
  *from = start + (k - start) / c * c;
  *to = *from + c < end ? *from + c : end;
}

static void sub_group_arith_warp(kio *io, size_t start, size_t end) {
  const int32_t *a = IN(int32_t, 0);
  uint32_t mul = 1;
  int32_t and = -1, or = 0, xor = 0, sum = 0, hi = INT32_MIN, lo3 = INT32_MAX;
  int land = 1, lor = 0, lxor = 0;
  for (size_t k = start; k < end; k++) {
    mul *= (uint32_t)(a[k] & 1) + 1u, and &= a[k], or |= a[k], xor ^= a[k], sum += a[k];
    hi = a[k] > hi ? a[k] : hi, land &= a[k] > -90, lor |= a[k] > 90, lxor ^= a[k] > 0;
    if (a[k] % 3 == 0) lo3 = a[k] < lo3 ? a[k] : lo3;
  }
  int32_t sxor = 0, sor = 0;
  uint32_t smul = 1;
  for (size_t k = start; k < end; k++) {
    int32_t *o = OUT(int32_t, 1) + 12 * k;
    sxor ^= a[k], sor |= a[k] > 80;
    o[0] = (int32_t)mul, o[1] = and, o[2] = or, o[3] = xor, o[4] = land + 2 * lor + 4 * lxor;
    o[5] = sum * 1000 + hi, o[6] = sxor, o[7] = (int32_t)smul, o[8] = sor;
    smul *= (uint32_t)(a[k] & 1) + 1u;
    size_t from, to;
    cluster_of(start, end, k, 4, &from, &to);
    int32_t csum = 0, cmin = INT32_MAX, ccount = 0;
    for (size_t j = from; j < to; j++)
      csum += a[j], cmin = a[j] < cmin ? a[j] : cmin, ccount += a[j] % 3 == 0;
    o[9] = csum;
    cluster_of(start, end, k, 2, &from, &to);
    int32_t cxor = 0;
    for (size_t j = from; j < to; j++) cxor ^= a[j];
    o[10] = cxor * 1000 + cmin;
    o[11] = a[k] % 3 == 0 ? lo3 * 1000 + ccount : -1;
  }
}

/* cl_khr_subgroup_non_uniform_arithmetic and _clustered_reduce per warp. */
void oracle_sub_group_arith(kio *io) {
  const size_t L = LSIZE(io), W = io->warp;
  for (size_t g0 = 0; g0 < N(io); g0 += L)
    for (size_t start = g0; start < g0 + L; start += W)
      sub_group_arith_warp(io, start, start + W < g0 + L ? start + W : g0 + L);
}

void oracle_ndrange_2d(kio *io) {
  const kcase *c = io->c;
  size_t w = c->global[0];
  for (size_t y = 0; y < c->global[1]; y++)
    for (size_t x = 0; x < w; x++) {
      int v = (int)(x * 3 + y * 1000);
      if ((x + y) % 3 == 0) v = -v;
      v += (int)(x % c->local[0] * 10 + y % c->local[1] * 100000 + x / c->local[0] +
                 y / c->local[1] * 7);
      OUT(int32_t, 0)[y * w + x] = v;
    }
  int32_t *info = OUT(int32_t, 1);
  info[0] = 2;
  info[1] = (int)(c->global[0] / c->local[0]);
  info[2] = (int)(c->global[1] / c->local[1]);
  info[3] = (int)c->local[1];
}

void oracle_ndrange_3d(kio *io) {
  const size_t *g = io->c->global, *l = io->c->local;
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        int lid = (int)(x % l[0] + l[0] * (y % l[1] + l[1] * (z % l[2])));
        int v = (int)(x + 10 * y + 100 * z) + (lid % 3 == 1 ? 100000 * (int)(z / l[2]) : 0);
        OUT(int32_t, 0)[(z * g[1] + y) * g[0] + x] = 2 * v + lid;
      }
}

/* The work-item queries of dimension d for one work-item of a 3-D NDRange; past the last
 * dimension ids are 0 and sizes 1. */
typedef struct item_3d {
  const size_t *global, *local;
  size_t id[3];
} item_3d;

static uint64_t global_id(const item_3d *w, unsigned d) { return d < 3 ? w->id[d] : 0; }
static uint64_t local_id(const item_3d *w, unsigned d) {
  return d < 3 ? w->id[d] % w->local[d] : 0;
}
static uint64_t local_size(const item_3d *w, unsigned d) { return d < 3 ? w->local[d] : 1; }
static uint64_t global_size(const item_3d *w, unsigned d) { return d < 3 ? w->global[d] : 1; }

void oracle_dynamic_index(kio *io) {
  const size_t *g = io->c->global;
  int k = VAL(int32_t, 6);
  for (size_t i = 0; i < g[0] * g[1] * g[2]; i++) {
    item_3d w = {g, io->c->local, {i % g[0], i / g[0] % g[1], i / (g[0] * g[1])}};
    int s = IN(int32_t, 2)[i];
    float *v = OUT(float, 3) + 4 * i;
    int32_t *iv = OUT(int32_t, 4) + 8 * i;
    memcpy(v, IN(float, 0) + 4 * i, 16);
    memcpy(iv, IN(int32_t, 1) + 8 * i, 32);
    v[(s >> 2) & 3] = v[s & 3] * 2.0f;
    if (s & 16) v[k & 3] += 1.0f;
    iv[(s >> 3) & 7] = iv[k & 7] + iv[s & 7];
    uint64_t acc = 0;
    for (unsigned d = 0; d <= 3; d++)
      acc += global_id(&w, d) * (d + 1) + local_size(&w, d) * 100 +
             global_id(&w, d) / local_size(&w, d) * 7 + global_size(&w, d) / local_size(&w, d) * 3 +
             global_size(&w, d) * 5 + local_id(&w, d) * 11;
    acc += local_id(&w, (unsigned)s & 3) * 1000 + global_size(&w, (unsigned)(s >> 2) & 3) * 10000;
    OUT(int32_t, 5)[i] = (int32_t)(uint32_t)acc;
  }
}
