/* Just enough OpenCL C, as C macros and functions, to compile the suite's kernels as plain C
 * and run them one thread per work-item (test_oracles.c): a second, independent reading of each
 * kernel's source to check the oracles against. Kernels that use vector components (.x,
 * swizzles, vector literals) are not C and are marked not_c in cases.def; the generated
 * kernels_as_c.c makes __local mean static around the ones with static __local arrays. Kernel
 * sources use only the __-prefixed address-space words, which are defined away here. */
#ifndef WEFT_CL_AS_C_H
#define WEFT_CL_AS_C_H

#include <stddef.h>
#include <stdint.h>
#include <tgmath.h> /* sqrt(float) is sqrtf, as in OpenCL */

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef float float4 __attribute__((vector_size(16)));

#define __kernel static /* kernels_as_c.c's table is the only way to them */
#define __global
#define __constant const
#define __local
#define __private

/* Work-item functions and barrier(): kernels_as_c.h declares them, test_oracles.c defines
 * them, per thread. */
#include "kernels_as_c.h"
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

/* fract: x - floor(x), below 1, and the whole part through ip. */
static inline float fract(float x, float *ip) {
  *ip = floorf(x);
  return fminf(x - *ip, 0x1.fffffep-1f);
}

/* Atomics: the old value, like OpenCL's. */
#define atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_sub(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define atomic_inc(p) __atomic_fetch_add((p), 1, __ATOMIC_SEQ_CST)
#define atomic_dec(p) __atomic_fetch_sub((p), 1, __ATOMIC_SEQ_CST)
#define atomic_and(p, v) __atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)
#define atomic_or(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xor(p, v) __atomic_fetch_xor((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

#define CL_AS_C_ATOMIC_MINMAX(name, T, better)                                               \
  static inline T name(T *p, T v) {                                                          \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                            \
    while (better(v, old) &&                                                                 \
           !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
    return old;                                                                              \
  }
#define CL_AS_C_GT(a, b) ((a) > (b))
#define CL_AS_C_LT(a, b) ((a) < (b))
CL_AS_C_ATOMIC_MINMAX(cl_atomic_max_i, int, CL_AS_C_GT)
CL_AS_C_ATOMIC_MINMAX(cl_atomic_max_u, uint, CL_AS_C_GT)
CL_AS_C_ATOMIC_MINMAX(cl_atomic_min_i, int, CL_AS_C_LT)
CL_AS_C_ATOMIC_MINMAX(cl_atomic_min_u, uint, CL_AS_C_LT)
#define atomic_max(p, v) _Generic((p), int *: cl_atomic_max_i, uint *: cl_atomic_max_u)(p, v)
#define atomic_min(p, v) _Generic((p), int *: cl_atomic_min_i, uint *: cl_atomic_min_u)(p, v)
static inline int cl_atomic_cmpxchg(int *p, int cmp, int v) {
  __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
#define atomic_cmpxchg(p, cmp, v) cl_atomic_cmpxchg(p, cmp, v)

/* Integer and common builtins (arguments without side effects in the suite). */
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define clamp(x, lo, hi) min(max((x), (lo)), (hi))
#define mad(a, b, c) ((a) * (b) + (c))
static inline uint cl_abs_diff_i(int x, int y) {
  return x > y ? (uint)x - (uint)y : (uint)y - (uint)x;
}
static inline uint cl_abs_diff_u(uint x, uint y) { return x > y ? x - y : y - x; }
#define abs_diff(x, y) _Generic((x), int: cl_abs_diff_i, uint: cl_abs_diff_u)(x, y)
static inline int cl_mul_hi_i(int x, int y) { return (int)(((long)x * y) >> 32); }
static inline uint cl_mul_hi_u(uint x, uint y) { return (uint)(((ulong)x * y) >> 32); }
static inline long cl_mul_hi_l(long x, long y) { return (long)(((__int128)x * y) >> 64); }
#define mul_hi(x, y) _Generic((x), int: cl_mul_hi_i, uint: cl_mul_hi_u, long: cl_mul_hi_l)(x, y)
#define mad_hi(x, y, z) (mul_hi(x, y) + (z))

static inline float dot(float4 a, float4 b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

#endif
