/* What the `weft` command does with the paths it is given: it reads the kernel file (bounded,
 * so that a directory or /dev/zero is an error, not an I/O error or a read that never ends),
 * writes every output file (--out, --stats-json, weft trace -o) through paths_write, which
 * never replaces a link or a device node, and checks that a path a kernel file names stays in
 * that file's folder.
 *
 * The functions that can fail print why ("weft: cannot write PATH: ...") and return 1, or
 * NULL. */
#ifndef WEFT_PATHS_H
#define WEFT_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* A kernel source larger than this is refused rather than read. */
#define PATHS_MAX_SOURCE ((size_t)16 << 20)

/* The whole kernel file, NUL-ended and malloc'd; NULL after saying why (it cannot be opened,
 * it is a directory, it is larger than PATHS_MAX_SOURCE). */
char *paths_read_kernel(const char *path);

/* Writes data to path, all of it or (where it can be undone) nothing:
 * - a regular file, or a missing one, is replaced atomically: a temporary file in the same
 *   folder, then rename(), with the old file's mode; a read-only file is an error;
 * - a symbolic link is followed to its final target, which is written the same way, so the
 *   link stays a link;
 * - a device, FIFO or socket, `-` (stdout), and this process's own /dev/stdout, /dev/fd/N or
 *   /proc/self/fd/N are written in place;
 * - a directory is an error.
 * 0 on success, else 1 after saying why. */
int paths_write(const char *path, const void *data, size_t size);

/* Whether `path` exists and is `folder` or inside it, once both are resolved (links, `..`);
 * a relative path is taken from the current directory, as clang and fopen take it. */
bool paths_inside(const char *folder, const char *path);

/* The folder part of path ("." when it has none), malloc'd; NULL when out of memory. */
char *paths_folder(const char *path);

#endif
