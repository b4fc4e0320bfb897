/* WEFT_DEBUG: what a build shows on stderr, by category, for people looking into it.
 *
 * The categories are one table, named as WEFT_DEBUG lists them (WEFT_DEBUG=lowered,time); any
 * file of the compiler asks debug_wants about one, so none calls up into the public API for it.
 * The variable is read each time, as a test may set it between builds. */
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "runtime.h"

static const struct {
  const char *name;
  const char *shows;
} categories[] = {
    [DEBUG_LOWERED] = {"lowered", "each module as lowered, before optimisation (one unit)"},
    [DEBUG_OPTIMIZED] = {"optimized", "each compile unit's module after optimisation"},
    [DEBUG_ASM] = {"asm", "each compile unit's machine code, as assembly"},
    [DEBUG_TIME] = {"time", "how long loading clang and each phase of a build took"},
    [DEBUG_CACHE] = {"cache", "what the disk cache did with each build: hit, stored, ignored"},
    [DEBUG_BLENDS] = {"blends", "the phis each loop's back edge writes whole, unblended"},
};

int debug_wants(debug_category what) {
  const char *want = getenv("WEFT_DEBUG");
  return want && strstr(want, categories[what].name);
}

void debug_dump(debug_category stage, LLVMModuleRef m) {
  if (!debug_wants(stage)) return;
  char *text = LLVMPrintModuleToString(m);
  fprintf(stderr, "; ---- weft: module %s ----\n%s", categories[stage].name, text);
  LLVMDisposeMessage(text);
}

double debug_time(const char *phase, double since) {
  double now = rt_now_ms();
  if (phase && debug_wants(DEBUG_TIME))
    fprintf(stderr, "weft: %-12s %7.2f ms\n", phase, now - since);
  return now;
}

void debug_cache(const char *what, const char *entry) {
  if (debug_wants(DEBUG_CACHE)) fprintf(stderr, "weft: cache: %s %s\n", what, entry);
}
