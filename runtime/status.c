/* The library's version, names for statuses, types and argument kinds, the sizes of types (the
 * one table of them), masks as text, and the one way the runtime writes an error message: a
 * single line into the caller's buffer, never to stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"

/* Compiled in, so that a program can tell which libweft it runs with from the weft.h it was
 * built against (WEFT_VERSION). */
const char *weft_version(void) { return WEFT_VERSION; }

const char *weft_status_name(weft_status status) {
  switch (status) {
  case WEFT_SUCCESS: return "WEFT_SUCCESS";
  case WEFT_ERROR_INVALID_VALUE: return "WEFT_ERROR_INVALID_VALUE";
  case WEFT_ERROR_OUT_OF_MEMORY: return "WEFT_ERROR_OUT_OF_MEMORY";
  case WEFT_ERROR_IO: return "WEFT_ERROR_IO";
  case WEFT_ERROR_TOOLCHAIN: return "WEFT_ERROR_TOOLCHAIN";
  case WEFT_ERROR_BUILD: return "WEFT_ERROR_BUILD";
  case WEFT_ERROR_UNSUPPORTED: return "WEFT_ERROR_UNSUPPORTED";
  case WEFT_ERROR_KERNEL_NOT_FOUND: return "WEFT_ERROR_KERNEL_NOT_FOUND";
  case WEFT_ERROR_ARGUMENT: return "WEFT_ERROR_ARGUMENT";
  case WEFT_ERROR_NDRANGE: return "WEFT_ERROR_NDRANGE";
  case WEFT_ERROR_DIVERGENT_BARRIER: return "WEFT_ERROR_DIVERGENT_BARRIER";
  case WEFT_ERROR_BARRIER_DEADLOCK: return "WEFT_ERROR_BARRIER_DEADLOCK";
  case WEFT_ERROR_JIT: return "WEFT_ERROR_JIT";
  case WEFT_ERROR_TIMEOUT: return "WEFT_ERROR_TIMEOUT";
  case WEFT_ERROR_STOPPED: return "WEFT_ERROR_STOPPED";
  }
  return "WEFT_ERROR_UNKNOWN";
}

weft_status rt_error(char *err, size_t errlen, weft_status status, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return status;
}

_Static_assert(WEFT_MASK_CHARS == WEFT_MAX_WARP + 1, "a digit per lane of the widest warp");

char *weft_mask_string(char buf[WEFT_MASK_CHARS], uint64_t mask, unsigned width) {
  if (!buf) return NULL;
  if (width > WEFT_MASK_CHARS - 1) width = WEFT_MASK_CHARS - 1;
  for (unsigned i = 0; i < width; i++) buf[width - 1 - i] = (mask >> i & 1) ? '1' : '0';
  buf[width] = 0;
  return buf;
}

void rt_json_mask(FILE *f, const char *key, uint64_t mask, unsigned width) {
  char m[WEFT_MASK_CHARS];
  fprintf(f, ", \"%s\": \"%s\"", key, weft_mask_string(m, mask, width));
}

void rt_json_index(FILE *f, const char *key, uint32_t x, uint32_t none) {
  fprintf(f, ", \"%s\": ", key);
  if (x == none) fputs("null", f);
  else fprintf(f, "%u", x);
}

static const struct {
  const char *name;
  size_t size;
} types[] = {
    [WEFT_I8] = {"i8", 1},   [WEFT_U8] = {"u8", 1},       [WEFT_I16] = {"i16", 2},
    [WEFT_U16] = {"u16", 2}, [WEFT_I32] = {"i32", 4},     [WEFT_U32] = {"u32", 4},
    [WEFT_I64] = {"i64", 8}, [WEFT_U64] = {"u64", 8},     [WEFT_F32] = {"f32", 4},
    [WEFT_F64] = {"f64", 8}, [WEFT_OTHER] = {"other", 0},
};

size_t weft_type_size(weft_type type) {
  return (unsigned)type <= WEFT_OTHER ? types[type].size : 0;
}

const char *weft_type_name(weft_type type) {
  return (unsigned)type <= WEFT_OTHER ? types[type].name : "invalid type";
}

const char *weft_arg_kind_name(weft_arg_kind kind) {
  switch (kind) {
  case WEFT_ARG_VALUE: return "a value";
  case WEFT_ARG_GLOBAL: return "a __global buffer";
  case WEFT_ARG_CONSTANT: return "a __constant buffer";
  case WEFT_ARG_LOCAL: return "a __local buffer";
  }
  return "an invalid kind";
}
