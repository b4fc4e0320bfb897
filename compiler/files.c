/* Files, memfds and build options: what the front end hands to clang and reads back from it.
 *
 * Both ways of running clang (its cc1 in this process, cc1.c, or a clang-19 process,
 * frontend.c) read their output from a file descriptor to its end, hand a kernel's source over
 * in a memfd and split the build options the same way, so these helpers are here, below both. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compiler.h"

char *file_read_fd(int fd, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (ssize_t r; buf; n += (size_t)r) {
    if (n + 1 >= cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) break;
      buf = grown;
    }
    r = read(fd, buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR) {
      r = 0;
      continue;
    }
    if (r <= 0) {
      *len = n;
      buf[n] = 0;
      return buf;
    }
  }
  free(buf);
  return NULL;
}

char *file_read_back(int fd, size_t *len) {
  return lseek(fd, 0, SEEK_SET) == 0 ? file_read_fd(fd, len) : NULL;
}

char *file_read(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  char *text = fd >= 0 ? file_read_fd(fd, len) : NULL;
  if (fd >= 0) close(fd);
  return text;
}

int file_text_fd(const char *text) {
  int fd = memfd_create("kernel-source", MFD_CLOEXEC);
  size_t n = strlen(text);
  if (fd >= 0 && (write(fd, text, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0))
    close(fd), fd = -1;
  return fd;
}

int file_split_options(char *options, const char **argv, int max) {
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(options, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
    if (n == max) return -1;
    /* clang's driver passes OpenCL's option on for GPU targets only; this is what it becomes
     * there, the kernel's functions marked to flush (lower_warp.c, launch.c) */
    argv[n++] = strcmp(t, "-cl-denorms-are-zero") ? t : "-fdenormal-fp-math=preserve-sign";
  }
  return n;
}

/* Prefixes of the options that change what clang writes or where (-o, -E, -M..., -S,
 * -emit-..., -save-temps, records and reports written to files), load code (-fplugin,
 * -fpass-plugin, -B), pass options on unchecked (-X..., -mllvm, @FILE, --config) or change the
 * driver. */
static const char refused[] =
    "-o --o -E -M -S -emit- -save- --save- -fplugin -fpass-plugin -B -X -mllvm @ --config -ccc- "
    "--driver-mode -### -fsyntax-only --analyze -ftime-trace -fsave-optimization-record "
    "-foptimization-record- -fstack-usage -fproc-stat-report -serialize-diagnostics "
    "--serialize-diagnostics -fcrash-diagnostics -gen-reproducer -fprofile- -dependency- "
    "-fmodules-cache";

static int refused_prefix(const char *option) {
  for (const char *p = refused; *p; p += strspn(p, " ")) {
    size_t n = strcspn(p, " ");
    if (!strncmp(option, p, n)) return 1;
    p += n;
  }
  return 0;
}

int file_refused_option(const char *options, char *opt, size_t n) {
  for (const char *t = options ? options : ""; *(t += strspn(t, " \t")); t += strcspn(t, " \t"))
    if (refused_prefix(t)) return snprintf(opt, n, "%.*s", (int)strcspn(t, " \t"), t), 1;
  return 0;
}
