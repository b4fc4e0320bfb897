/* Names for statuses and types, masks as text, and the one way the runtime writes an error
 * message: a single line into the caller's buffer, never to stderr. */
#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"

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

const char *rt_type_name(weft_type type) {
  static const char *const names[] = {"i8", "u8", "i16", "u16", "i32",
                                      "u32", "i64", "u64", "f32", "f64", "other"};
  return (unsigned)type <= WEFT_OTHER ? names[type] : "invalid type";
}
