/* The end-to-end kernel suite's cases: for each kernel in tests/kernels/NAME.cl, its NDRange,
 * its parameters with how to fill them, and its oracle, a plain C function that computes the
 * expected buffers from the same inputs. The rows are in cases.def.
 *
 * Shared by run_kernels.c (runs each case through weft.h under many W, G, threads and
 * policies) and test_oracles.c (runs each kernel's own source compiled as C, one thread per
 * work-item, against its oracle: a check of the oracles that needs no weft). Only weft.h's
 * types are used here, nothing that links. */
#ifndef WEFT_TEST_CASES_H
#define WEFT_TEST_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weft.h"

#define KMAX_PARAMS 8

typedef enum kparam_kind {
  KP_GLOBAL,   /* a __global buffer: filled, passed, compared with the oracle's */
  KP_CONSTANT, /* a __constant buffer: likewise */
  KP_VALUE,    /* a scalar passed by value: `lo` converted to the type */
  KP_LOCAL,    /* a __local buffer of `count` elements */
} kparam_kind;

typedef enum kinit {
  KI_RAND, /* uniform in [lo, hi]: integers for integer types */
  KI_BITS, /* every bit random (integer types) */
  KI_PERM, /* a random permutation of 0 .. count-1 */
} kinit;

typedef struct kparam {
  kparam_kind kind;
  weft_type type; /* scalar or element type (float4 buffers are F32 with 4x the count) */
  size_t count;   /* buffers: elements of `type` */
  kinit init;
  double lo, hi;
} kparam;

typedef struct kcase kcase;

/* What an oracle sees: p[k] points at parameter k's buffer (already holding the inputs; the
 * oracle overwrites what the kernel would write) or at its value; NULL for __local. `warp` is
 * W for a case whose results depend on it (sub-groups), else 0. */
typedef struct kio {
  const kcase *c;
  void *p[KMAX_PARAMS];
  unsigned warp;
} kio;

typedef void oracle_fn(kio *io);

struct kcase {
  const char *name; /* kernel NAME in NAME.cl */
  unsigned dims;
  size_t global[3], local[3];
  unsigned nparams;
  kparam params[KMAX_PARAMS];
  oracle_fn *oracle;
  double tol;  /* 0: float results exact; else |got - want| <= tol * max(1, |want|) */
  bool not_c;  /* the source cannot be compiled as C (vector components) */
  bool uniform; /* no branch depends on the lane: no divergent branch, no policy call */
  bool structured; /* its divergent branches are structured (lower_region.c): with the policy
                      in code, stack and pc run it without a round trip to the runtime */
  bool divergent_barrier; /* barriers on both sides of a divergent branch: mp, mp-orec and
                             pc run them, stack reports them (run_kernels.c) */
  bool per_warp; /* the results depend on W (sub-groups are warps): the oracle gets it */
};

extern const kcase kcases[];
extern const unsigned nkcases;

/* Buffers of one case, filled deterministically (the same for a case on every run). */
typedef struct kbufs {
  void *p[KMAX_PARAMS]; /* buffers; for values, the value; NULL for __local */
  size_t bytes[KMAX_PARAMS];
} kbufs;

/* Allocates and fills; false on out of memory. */
bool kbufs_make(const kcase *c, kbufs *b);
/* A copy of b's contents in new memory. */
bool kbufs_copy(const kcase *c, const kbufs *from, kbufs *to);
void kbufs_free(const kcase *c, kbufs *b);
/* Runs the oracle on `want` (a copy of the inputs), for warps of `warp` work-items. */
void kcase_expect(const kcase *c, kbufs *want, unsigned warp);
/* Compares every buffer; on a mismatch writes the first one and the count into msg (the
 * parameter, index, got, want) and returns false. */
bool kcase_compare(const kcase *c, const kbufs *got, const kbufs *want, char *msg, size_t size);

size_t ktype_size(weft_type t);
const kcase *kcase_find(const char *name);

#endif
