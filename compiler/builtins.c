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
    {"get_global_id", BI_GLOBAL_ID}, {"get_local_id", BI_LOCAL_ID},
    {"get_group_id", BI_GROUP_ID}, {"get_local_size", BI_LOCAL_SIZE},
    {"get_enqueued_local_size", BI_LOCAL_SIZE}, {"get_global_size", BI_GLOBAL_SIZE},
    {"get_num_groups", BI_NUM_GROUPS}, {"get_global_offset", BI_GLOBAL_OFFSET},
    {"get_work_dim", BI_WORK_DIM}, {"barrier", BI_BARRIER}, {"work_group_barrier", BI_BARRIER},
    {"mem_fence", BI_FENCE}, {"read_mem_fence", BI_FENCE}, {"write_mem_fence", BI_FENCE},
    {"isnan", BI_RELATIONAL}, {"isinf", BI_RELATIONAL}, {"isfinite", BI_RELATIONAL},
    {"signbit", BI_RELATIONAL},
};

static const char *const math_names[] = {
    "sqrt", "rsqrt", "fabs", "floor", "ceil", "trunc", "round", "rint", "fmin", "fmax", "fma",
    "mad", "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "pow", "powr", "cbrt", "hypot", "erf", "erfc",
    "expm1", "log1p", "copysign", "mix", "step", "sign", "degrees", "radians", "fdim", "fmod",
    "native_sqrt", "native_rsqrt", "native_exp", "native_log", "native_sin", "native_cos",
    "native_powr", "native_divide", "native_recip", "native_exp2", "native_log2", "half_sqrt",
    "half_exp", "half_log", "half_sin", "half_cos", "dot", "length", "distance", "normalize",
    "cross", "fast_length", "fast_distance", "fast_normalize", NULL};

static const char *const integer_names[] = {"abs", "min", "max", "clamp", "mul24", "mad24",
                                            "popcount", "clz", "abs_diff", "mul_hi", NULL};

static int in_list(const char *const *list, const char *name) {
  for (; *list; list++)
    if (!strcmp(*list, name)) return 1;
  return 0;
}

/* The scalar type code of a mangled parameter list's first parameter, looking through
 * pointers, qualifiers and vector types ("PU3AS1Vi" -> 'i', "Dv4_f" -> 'f'). Address spaces are
 * vendor qualifiers, U<length><name>: clang writes U3AS1 for some builtins and U8CLglobal or
 * U7CLlocal for others (the atomics). */
static char first_scalar(const char *p) {
  for (;;) {
    if (*p == 'P' || *p == 'V' || *p == 'K') p++;
    else if (*p == 'U' && *(p + 1) >= '0' && *(p + 1) <= '9') {
      char *name;
      unsigned long n = strtoul(p + 1, &name, 10);
      p = name + strnlen(name, n);
    } else if (!strncmp(p, "Dv", 2)) {
      p += 2;
      while (*p >= '0' && *p <= '9') p++;
      if (*p == '_') p++;
    } else return *p;
  }
}

static builtin_kind classify(const char *name, char arg0) {
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (!strcmp(exact[i].name, name)) return exact[i].kind;
  int fp = arg0 == 'f' || arg0 == 'd';
  if (in_list(math_names, name)) return BI_MATH;
  if (in_list(integer_names, name)) return fp ? BI_MATH : BI_INTEGER;
  if (!strncmp(name, "atomic_", 7) || !strncmp(name, "atom_", 5)) return BI_ATOMIC;
  if (!strncmp(name, "convert_", 8)) return BI_CONVERT;
  return BI_UNSUPPORTED;
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
