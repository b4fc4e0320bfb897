/* Shared by the kernel suite (run_kernels.c) and the fuzzer (tests/fuzz): what must agree
 * between a launch whose policy decisions the generated code takes and one that hands them to
 * the runtime (weft_options.policy_in_runtime). */
#ifndef WEFT_STATS_DIFFER_H
#define WEFT_STATS_DIFFER_H

#include "weft.h"

/* The stats that must not depend on the path a policy decision takes: all but the time and
 * the round trips. NULL when they agree, else the name of the first that differs. */
const char *stats_differ(const weft_stats *a, const weft_stats *b);

#endif
