/* Shared by the kernel suite (run_kernels.c) and the fuzzer (tests/fuzz): a folder of the
 * run's own for the files it makes, removed at its end. */
#ifndef WEFT_SCRATCH_DIR_H
#define WEFT_SCRATCH_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* A new folder named PREFIX.XXXXXX in $TMPDIR (in /tmp when that is unset or too long for
 * `size` bytes), in dir; false if it cannot be made. */
bool scratch_dir_make(char *dir, size_t size, const char *prefix);
/* Removes dir and the files in it (it holds no folders). */
void scratch_dir_remove(const char *dir);

#endif
