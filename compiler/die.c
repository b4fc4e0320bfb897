/* The one exit for internal bugs. A user's mistake is reported with a status instead. */
#include "compiler.h"

#include <stdarg.h>
#include <stdlib.h>

_Noreturn void weft_die(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "weft: internal error at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}
