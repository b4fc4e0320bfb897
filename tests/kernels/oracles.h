/* One oracle per kernel of the suite, oracle_NAME for each row of cases.def: plain C that
 * computes, from the inputs in io, what the kernel must leave in its buffers. Written from the
 * kernel's meaning, not by running its source, and checked against the source compiled as C by
 * test_oracles. */
#ifndef WEFT_TEST_ORACLES_H
#define WEFT_TEST_ORACLES_H

#include "cases.h"

#define KERNEL(name, ...) oracle_fn oracle_##name;
#include "cases.def"
#undef KERNEL

#endif
