/* weft_fuzz: random OpenCL C kernels run by weft and by an independent oracle (the same source
 * compiled as plain C, each work-item run alone), compared exactly.
 *
 * A kernel is a tree of nodes (statements and uint expressions) generated from a seed
 * (gen.c), printed as OpenCL C for weft or as C for the oracle (print.c). The oracle
 * (oracle.c) compiles the C with the system compiler and runs the work-items of a work-group
 * one after another, each on a stack of its own, switching at barriers. check.c launches the
 * OpenCL C under every policy, W and G and compares; reduce.c shrinks a failing kernel by
 * switching nodes off while the failure persists.
 *
 * Every kernel is valid by construction, so that any difference is weft's: loops are bounded
 * by counters, arithmetic is unsigned (divisors are odd, shift counts masked), barriers and
 * sub-group functions sit only at the top level of the kernel before any `return`, work-items
 * write __local memory only at their own slot in one of two arrays and read the other (the
 * two swap at each barrier), atomics' old values are not used (their order is not defined). */
#ifndef WEFT_FUZZ_H
#define WEFT_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The kernel's fixed shape: buffer sizes the generator indexes within. */
#define FZ_NVARS 6   /* private uint variables v0..v5 */
#define FZ_NOUT 4    /* out[] words per work-item; the last one holds the variables' digest */
#define FZ_NIN 64    /* in[] words (a power of two: indexes are masked) */
#define FZ_NGC 4     /* global atomic counters */
#define FZ_NLC 4     /* __local atomic counters, copied out per work-group */
#define FZ_HELPERS 3 /* at most this many helper functions */

typedef enum fz_kind {
  /* statements */
  S_BLOCK,    /* kids: the statements */
  S_ASSIGN,   /* var a (op: 0 =, 1 +=, 2 ^=) = kid 0 */
  S_OUT,      /* out[gid * FZ_NOUT + a] (op as S_ASSIGN) kid 0 */
  S_GATOMIC,  /* atomic op on gc[a] with kid 0 */
  S_LATOMIC,  /* atomic op on lc[a] with kid 0 */
  S_LSTORE,   /* the writable __local array's own slot = kid 0 */
  S_IF,       /* kid 0 condition, kid 1 then, kid 2 else (optional) */
  S_FOR,      /* counter from 0 while < kid 0 (a bound), kid 1 body */
  S_WHILE,    /* while (counter < a && kid 0) kid 1 */
  S_DO,       /* do kid 1 while (counter < a && kid 0) */
  S_SWITCH,   /* switch (kid 0) over the S_CASE kids */
  S_CASE,     /* case a (a < 0: default); kid 0 body; op 1: ends with break */
  S_BREAK,
  S_CONTINUE,
  S_RETURN,   /* kernel: store the digest and return; helper: return kid 0 */
  S_BARRIER,  /* top level only: ends a phase */
  S_SUBGROUP, /* var a = sub-group function op of kid 0 */
  S_SGIF,     /* if (sub_group_any/all (op) kid 0) kid 1: a branch uniform per warp */
  S_CALL,     /* var a = helper b (kid 0, kid 1) */
  /* expressions, all uint */
  E_CONST,    /* a as uint */
  E_VAR,      /* variable a of the function */
  E_COUNTER,  /* the counter of the loop node a */
  E_WORKITEM, /* a work-item value, op (see print.c) */
  E_BIN,      /* kid 0 op kid 1 */
  E_CMP,      /* comparison op, signed when a */
  E_NOT,      /* !kid 0 */
  E_AND,      /* kid 0 && kid 1 */
  E_OR,       /* kid 0 || kid 1 */
  E_COND,     /* kid 0 ? kid 1 : kid 2 */
  E_IN,       /* in[kid 0 & (FZ_NIN - 1)] */
  E_LREAD,    /* the readable __local array at kid 0 % local size (op 1: own slot) */
  E_CALLX,    /* helper b (kid 0, kid 1) */
} fz_kind;

#define FZ_MAX_KIDS 3

typedef struct fz_node {
  fz_kind kind;
  int op, a, b;
  int nkids;
  int kids[FZ_MAX_KIDS]; /* node indexes; an S_BLOCK's statements go in `list` */
  int *list, nlist;
  int phase; /* kernel statements: the phase they run in (which __local array is writable) */
  /* What the reducer changed: an `off` statement is not printed; `pick` > 0 prints kid
   * pick - 1 in place of the node (an if as one of its branches, an expression as one of
   * its operands); pick < 0 prints an expression as the constant 0. */
  bool off;
  int pick;
} fz_node;

typedef struct fz_func {
  int body; /* an S_BLOCK */
} fz_func;

typedef struct fz_kernel {
  uint64_t seed;
  unsigned local_size, groups; /* the NDRange: groups x local_size work-items, 1-D */
  bool local_params;           /* __local arrays as kernel parameters (else declared inside) */
  unsigned nhelpers;
  fz_func helper[FZ_HELPERS];
  int body;     /* the kernel's statements (top level: phases ended by S_BARRIER) */
  unsigned nphases;
  fz_node *nodes;
  int nnodes, cap;
  uint32_t in[FZ_NIN];
} fz_kernel;

/* What the oracle's C (print.c's prelude) knows of the running work-item: the oracle sets it
 * before it switches to the work-item; barrier() switches back. */
#define FZ_ENV_STRUCT                                                                    \
  struct fz_env {                                                                        \
    unsigned lid, gid, grp, local_size, warp;                                            \
    void (*barrier)(void);                                                               \
    unsigned *slots; /* one per work-item of the group: sub-group functions meet here */ \
  }
FZ_ENV_STRUCT;

/* gen.c */
void fz_generate(fz_kernel *k, uint64_t seed);
void fz_free(fz_kernel *k);
int fz_new_node(fz_kernel *k, fz_kind kind);

/* print.c: the kernel as OpenCL C (for weft) or as C (for the oracle: the prelude declares
 * what OpenCL gives). */
typedef enum fz_dialect { FZ_OPENCL, FZ_C } fz_dialect;
void fz_print(FILE *f, const fz_kernel *k, fz_dialect d);
char *fz_source(const fz_kernel *k, fz_dialect d); /* malloc'd */

/* The buffers a run leaves: what is compared. */
typedef struct fz_result {
  uint32_t *out;  /* groups * local_size * FZ_NOUT */
  uint32_t *gc;   /* FZ_NGC */
  uint32_t *lout; /* groups * FZ_NLC: the __local counters */
  unsigned nout, nlout;
} fz_result;
void fz_result_alloc(fz_result *r, const fz_kernel *k);
void fz_result_free(fz_result *r);
/* NULL when equal, else a description of the first difference (static storage). */
const char *fz_result_diff(const fz_result *want, const fz_result *got);

/* oracle.c: the kernel's C compiled by the system compiler ($CC, else cc) into a shared
 * object in a directory of fz_oracle_init's (removed by fz_oracle_cleanup). */
bool fz_oracle_init(void);
void fz_oracle_cleanup(void);
typedef struct fz_oracle fz_oracle;
fz_oracle *fz_oracle_build(const fz_kernel *k, char *why, size_t n); /* NULL: see why */
/* What the kernel must leave, for warp width W (sub-group functions depend on it). False with
 * why when the work-items do not meet at the same barriers (a generator bug). */
bool fz_oracle_run(fz_oracle *o, const fz_kernel *k, unsigned warp, fz_result *r, char *why,
                   size_t n);
void fz_oracle_release(fz_oracle *o);

/* What went wrong with a kernel: the reducer keeps a change while the failure stays the same. */
typedef enum fz_failure {
  FZ_OK,
  FZ_WRONG,   /* weft's buffers differ from the oracle's */
  FZ_STATS,   /* stats differ between the policy in the generated code and in the runtime */
  FZ_LAUNCH,  /* weft refused or failed a launch */
  FZ_BUILD,   /* weft could not build the kernel */
  FZ_ORACLE,  /* the oracle could not build or run it: a bug of the generator */
  FZ_CRASH,   /* the process died by a signal */
  FZ_TIMEOUT, /* the process ran out of time */
} fz_failure;
const char *fz_failure_name(fz_failure f);

/* check.c: weft under every policy, in both modes, for each W and G. */
typedef struct fz_config {
  unsigned warp, lanes;
} fz_config;
typedef struct fz_checker fz_checker;
/* NULL with why when a context could not be made. */
fz_checker *fz_checker_create(const fz_config *configs, unsigned n, unsigned threads, char *why,
                              size_t nwhy);
void fz_checker_release(fz_checker *c);
/* Runs k under configuration `only` (-1: every one) and compares with the oracle; *config
 * follows the configuration being run (so that it tells where a crash happened); on a
 * failure, what failed and where in why (n bytes). */
fz_failure fz_check(fz_checker *c, const fz_kernel *k, int only, unsigned *config, char *why,
                    size_t n);

/* reduce.c: switches nodes of k off while `fails` still says true. */
typedef bool (*fz_fails_fn)(void *user, const fz_kernel *k);
unsigned fz_reduce(fz_kernel *k, fz_fails_fn fails, void *user);

#endif
