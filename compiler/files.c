/* Files, memfds and build options: what the front end hands to clang and reads back from it.
 *
 * Both ways of running clang (its cc1 in this process, cc1.c, or a clang-19 process,
 * frontend.c) read their output from a file descriptor to its end, hand a kernel's source over
 * in a memfd and split the build options the same way, so these helpers are here, below both. */
#include <errno.h>
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
    argv[n++] = t;
  }
  return n;
}
