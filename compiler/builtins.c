/* Recognises calls to OpenCL builtins. clang leaves every builtin as a call to an external,
 * Itanium-mangled function (`_Z13get_global_idj`, `_Z3expf`, `_Z10atomic_addPU3AS1Vii`); this
 * file reads the name and the first parameter's scalar type out of the mangling, so the lowering
 * can turn each call into vector code. */
#include "compiler.h"

#include <stdlib.h>
#include <string.h>

typedef struct name_kind {
  const char *name;
  builtin_kind kind;
} name_kind;

static const name_kind exact[] = {
    {"get_global_id", BI_GLOBAL_ID},
    {"get_local_id", BI_LOCAL_ID},
    {"get_group_id", BI_GROUP_ID},
    {"get_local_size", BI_LOCAL_SIZE},
    {"get_enqueued_local_size", BI_LOCAL_SIZE},
    {"get_global_size", BI_GLOBAL_SIZE},
    {"get_num_groups", BI_NUM_GROUPS},
    {"get_global_offset", BI_GLOBAL_OFFSET},
    {"get_work_dim", BI_WORK_DIM},
    {"barrier", BI_BARRIER},
    {"work_group_barrier", BI_BARRIER},
    {"mem_fence", BI_FENCE},
    {"read_mem_fence", BI_FENCE},
    {"write_mem_fence", BI_FENCE},
    {"sub_group_barrier", BI_FENCE}, /* a fence that ends a segment (lw_runs_alone) */
};

static const char *const math_names[] = {
    "sqrt",         "rsqrt",        "fabs",          "floor",
    "ceil",         "trunc",        "round",         "rint",
    "fmin",         "fmax",         "fma",           "mad",
    "exp",          "exp2",         "exp10",         "log",
    "log2",         "log10",        "sin",           "cos",
    "tan",          "asin",         "acos",          "atan",
    "atan2",        "sinh",         "cosh",          "tanh",
    "pow",          "powr",         "cbrt",          "hypot",
    "erf",          "erfc",         "expm1",         "log1p",
    "copysign",     "mix",          "step",          "sign",
    "degrees",      "radians",      "fdim",          "fmod",
    "native_sqrt",  "native_rsqrt", "native_exp",    "native_log",
    "native_sin",   "native_cos",   "native_powr",   "native_divide",
    "native_recip", "native_exp2",  "native_log2",   "half_sqrt",
    "half_exp",     "half_log",     "half_sin",      "half_cos",
    "dot",          "length",       "distance",      "normalize",
    "cross",        "fast_length",  "fast_distance", "fast_normalize",
    "asinh",        "acosh",        "atanh",         "maxmag",
    "minmag",       "pown",         "rootn",         "smoothstep",
    "sinpi",        "cospi",        "tanpi",         "asinpi",
    "acospi",       "atanpi",       "atan2pi",       "native_tan",
    "native_log10", "native_exp10", "half_tan",      "half_exp2",
    "half_exp10",   "half_log2",    "half_log10",    "half_powr",
    "half_rsqrt",   "half_recip",   "half_divide",   NULL};

/* Math of float and half only: a double's is the C library's (expand_builtins.c, libm_each). */
static const char *const float_math_names[] = {"lgamma", "tgamma", NULL};

static const char *const integer_names[] = {"abs",      "min",    "max",      "clamp",
                                            "mul24",    "mad24",  "popcount", "clz",
                                            "abs_diff", "mul_hi", "mad_hi",   NULL};

static const char *const sub_group_names[] = {"get_sub_group_size",
                                              "get_max_sub_group_size",
                                              "get_num_sub_groups",
                                              "get_enqueued_num_sub_groups",
                                              "get_sub_group_id",
                                              "get_sub_group_local_id",
                                              NULL};

static int in_list(const char *const *list, const char *name) {
  for (; *list; list++)
    if (!strcmp(*list, name)) return 1;
  return 0;
}

/* ---- parameter types from the mangled name ---- */

enum { MAX_SUBS = 16 };
typedef struct type_parser {
  const char *p;
  cl_type subs[MAX_SUBS]; /* the substitution candidates so far, S_ = subs[0], S0_ = subs[1] */
  int nsubs;
} type_parser;

static void add_sub(type_parser *tp, cl_type t) {
  if (tp->nsubs < MAX_SUBS) tp->subs[tp->nsubs++] = t;
}

/* One type of an Itanium parameter list, as far as OpenCL builtins use them: builtin types
 * (half, Dh, as 'D'), vectors (Dv4_f), pointers with qualifiers, and substitutions. Address
 * spaces are vendor qualifiers, U<length><name>: clang writes U3AS1 for some builtins and
 * U8CLglobal or U7CLlocal for others (the atomics). 0 when it is none of these. */
static int parse_type(type_parser *tp, cl_type *t) {
  const char *p = tp->p;
  *t = (cl_type){0, 0, 0};
  if (*p == 'P') {
    int qualified = 0;
    for (p++;; qualified = 1) {
      if (*p == 'K' || *p == 'V' || *p == 'r') p++;
      else if (*p == 'U' && p[1] >= '0' && p[1] <= '9') {
        char *name;
        unsigned long n = strtoul(p + 1, &name, 10);
        p = name + strnlen(name, n);
      } else break;
    }
    tp->p = p;
    if (!parse_type(tp, t)) return 0;
    if (qualified) add_sub(tp, *t);
    t->pointer = 1;
    add_sub(tp, *t);
    return 1;
  }
  if (!strncmp(p, "Dh", 2)) { /* half: code 'D' */
    t->code = 'D';
    tp->p = p + 2;
    return 1;
  }
  if (!strncmp(p, "Dv", 2)) {
    char *end;
    unsigned long n = strtoul(p + 2, &end, 10);
    if (*end != '_' || n < 2 || n > 16 || !end[1] || !strchr("cahstijlmfd", end[1])) return 0;
    *t = (cl_type){end[1], (unsigned)n, 0};
    tp->p = end + 2;
    add_sub(tp, *t);
    return 1;
  }
  if (*p == 'S') {
    char *end;
    unsigned long i = p[1] == '_' ? 0 : strtoul(p + 1, &end, 36) + 1;
    end = (char *)(p[1] == '_' ? p + 1 : end);
    if (*end != '_' || i >= (unsigned long)tp->nsubs) return 0;
    *t = tp->subs[i];
    tp->p = end + 1;
    return 1;
  }
  if (*p >= '1' && *p <= '9') { /* a source name, as clang mangles ocl_event: code 'o' */
    char *name;
    unsigned long n = strtoul(p, &name, 10);
    if (strnlen(name, n) < n) return 0;
    t->code = 'o';
    tp->p = name + n;
    add_sub(tp, *t);
    return 1;
  }
  if (!*p || !strchr("vbcahstijlmfd", *p)) return 0;
  t->code = *p;
  tp->p = p + 1;
  return 1;
}

int builtin_param_types(LLVMValueRef fn, cl_type *out, int max) {
  size_t len;
  const char *m = LLVMGetValueName2(fn, &len);
  char *name;
  long n = strncmp(m, "_Z", 2) ? 0 : strtol(m + 2, &name, 10);
  if (n <= 0 || (size_t)(name - m) + (size_t)n > len) return -1;
  type_parser tp = {.p = name + n};
  int count = 0;
  for (cl_type t; *tp.p && count < max; out[count++] = t)
    if (!parse_type(&tp, &t)) return -1;
  return *tp.p ? -1 : count;
}

/* The scalar type code of a mangled parameter list's first parameter, looking through
 * pointers and vector types ("PU3AS1Vi" -> 'i', "Dv4_f" -> 'f'); 0 when it cannot be read. */
static char first_scalar(const char *p) {
  type_parser tp = {.p = p};
  cl_type t;
  return parse_type(&tp, &t) ? t.code : 0;
}

static builtin_kind classify(const char *name, char arg0) {
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (!strcmp(exact[i].name, name)) return exact[i].kind;
  int fp = arg0 == 'f' || arg0 == 'd' || arg0 == 'D'; /* D: half */
  if (in_list(math_names, name)) return BI_MATH;
  if (in_list(float_math_names, name) && arg0 != 'd') return BI_MATH;
  if (in_list(integer_names, name)) return fp ? BI_MATH : BI_INTEGER;
  if (!strncmp(name, "atomic_", 7) || !strncmp(name, "atom_", 5)) return BI_ATOMIC;
  if (in_list(sub_group_names, name) || !strncmp(name, "sub_group_", 10)) return BI_SUB_GROUP;
  return BI_UNSUPPORTED;
}

int builtin_sub_group_per_lane(const char *name) {
  return !strncmp(name, "sub_group_scan_", 15) || !strncmp(name, "sub_group_shuffle", 17) ||
         !strcmp(name, "sub_group_elect") || !strncmp(name, "sub_group_non_uniform_scan_", 27) ||
         !strncmp(name, "sub_group_clustered_reduce_", 27);
}

int builtin_unsigned(const builtin *b) {
  return b->arg0 == 'h' || b->arg0 == 't' || b->arg0 == 'j' || b->arg0 == 'm';
}

builtin builtin_of_call(LLVMValueRef call) {
  builtin b = {BI_NONE, "", 0};
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!callee || !LLVMIsAFunction(callee)) return b;
  size_t len;
  const char *m = LLVMGetValueName2(callee, &len);
  if (LLVMGetIntrinsicID(callee)) return b;
  if (!LLVMIsDeclaration(callee)) return b;
  b.kind = BI_UNSUPPORTED;
  if (strncmp(m, "_Z", 2) != 0) {
    snprintf(b.name, sizeof b.name, "%s", m);
    if (!strcmp(m, "printf")) b.kind = BI_PRINTF; /* C linkage, as OpenCL declares it */
    if (!strncmp(m, "weft.libm.", 10)) b.kind = BI_LIBM;
    return b;
  }
  char *end;
  long n = strtol(m + 2, &end, 10);
  if (n <= 0 || n >= (long)sizeof b.name || (size_t)(end - m) + (size_t)n > len) return b;
  memcpy(b.name, end, (size_t)n);
  b.name[n] = 0;
  b.arg0 = first_scalar(end + n);
  b.kind = classify(b.name, b.arg0);
  return b;
}
