/* Reading the kernel file and writing outputs (paths.h).
 *
 * An output path is resolved link by link (lstat, readlink) rather than with realpath(), for
 * two reasons: a link whose target does not exist yet must still be followed (the target is
 * created, the link stays), and a link in /proc is not a path at all: /dev/stdout is
 * /proc/self/fd/1, whose text may be "pipe:[1234]", or the name of a file the shell opened
 * with `>>`. Such a link is written in place, through the descriptor itself when it is one of
 * ours, so that the output lands where the shell and the rest of weft's stdout put it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "driver.h"
#include "paths.h"

/* Links followed before giving up, as the kernel does (its MAXSYMLINKS). */
#define MAX_LINKS 40

/* ---- reading the kernel file ---- */

/* Reads fd to its end into a NUL-ended malloc'd buffer; NULL with errno set, EFBIG when there
 * is more than PATHS_MAX_SOURCE (a device such as /dev/zero never ends). */
static char *read_bounded(int fd) {
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  for (ssize_t r; buf; n += (size_t)r) {
    if (n > PATHS_MAX_SOURCE) return free(buf), errno = EFBIG, NULL;
    if (n + 1 == cap) {
      char *grown = realloc(buf, cap *= 2);
      if (!grown) return free(buf), errno = ENOMEM, NULL;
      buf = grown;
    }
    while ((r = read(fd, buf + n, cap - n - 1)) < 0 && errno == EINTR) {}
    if (r < 0) return free(buf), NULL;
    if (r == 0) return buf[n] = 0, buf;
  }
  return NULL; /* malloc set errno */
}

char *paths_read_kernel(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(1, "cannot read %s: %s", path, strerror(errno)), NULL;
  struct stat st = {0};
  bool dir = !fstat(fd, &st) && S_ISDIR(st.st_mode);
  /* A regular file says its size; anything else (/dev/zero, a FIFO) is read up to the limit. */
  bool large = !dir && S_ISREG(st.st_mode) && (size_t)st.st_size > PATHS_MAX_SOURCE;
  char *text = dir || large ? NULL : read_bounded(fd);
  int err = errno;
  close(fd);
  if (dir) fail(1, "cannot read %s: it is a directory, not a kernel file", path);
  else if (large || (!text && err == EFBIG))
    fail(1, "cannot read %s: kernel source too large (more than %zu MiB)", path,
         PATHS_MAX_SOURCE >> 20);
  else if (!text) fail(1, "cannot read %s: %s", path, strerror(err));
  return text;
}

/* ---- paths ---- */

char *paths_folder(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

bool paths_inside(const char *folder, const char *path) {
  char *dir = realpath(folder, NULL), *p = realpath(path, NULL);
  size_t n = dir ? strlen(dir) : 0;
  bool inside = dir && p && !strncmp(dir, p, n) && (p[n] == 0 || p[n] == '/' || n == 1);
  free(dir), free(p);
  return inside;
}

/* ---- where an output goes ---- */

typedef enum out_kind {
  OUT_FAILED,   /* said why */
  OUT_NEW,      /* nothing there: create it */
  OUT_REGULAR,  /* a regular file: replace it */
  OUT_IN_PLACE, /* a device, FIFO, socket or /proc link: open and write it */
} out_kind;

/* What the link at `link` points to, as a path (a relative target is taken from the link's
 * folder); NULL with errno set. */
static char *link_target(const char *link) {
  char text[PATH_MAX];
  ssize_t n = readlink(link, text, sizeof text);
  if (n < 0) return NULL;
  if ((size_t)n == sizeof text) return errno = ENAMETOOLONG, NULL;
  text[n] = 0;
  const char *slash = strrchr(link, '/');
  if (text[0] == '/' || !slash) return strdup(text);
  char *joined = NULL;
  if (asprintf(&joined, "%.*s/%s", (int)(slash - link), link, text) < 0) joined = NULL;
  return joined;
}

/* The descriptor N when `link` is N in this process's /proc/PID/fd (what /dev/stdout,
 * /dev/fd/N and /proc/self/fd/N are), else -1. */
static int own_fd(const char *link) {
  char *folder = paths_folder(link);
  const char *base = strrchr(link, '/');
  struct stat a, b;
  bool ours = folder && base && !stat(folder, &a) && !stat("/proc/self/fd", &b) &&
              a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  free(folder);
  char *end;
  long fd = ours ? strtol(base + 1, &end, 10) : -1;
  return ours && *end == 0 && fd >= 0 && fd <= INT_MAX ? (int)fd : -1;
}

/* Whether the link at `link` is in /proc, where links name open files, not paths. */
static bool in_proc(const char *link) {
  char *folder = paths_folder(link);
  struct statfs fs;
  bool proc = folder && !statfs(folder, &fs) && fs.f_type == PROC_SUPER_MAGIC;
  free(folder);
  return proc;
}

/* Follows path's links one at a time to what they finally name: *target (malloc'd, NULL on
 * failure) and, unless it is OUT_NEW, its lstat in *st. */
static out_kind resolve(const char *path, char **target, struct stat *st) {
  char *cur = strdup(path);
  for (int links = 0; cur; links++) {
    if (lstat(cur, st)) break;
    if (!S_ISLNK(st->st_mode) || in_proc(cur)) {
      *target = cur;
      if (S_ISDIR(st->st_mode))
        return fail(1, "cannot write %s: it is a directory", path), OUT_FAILED;
      return S_ISREG(st->st_mode) ? OUT_REGULAR : OUT_IN_PLACE;
    }
    char *next = links == MAX_LINKS ? (errno = ELOOP, NULL) : link_target(cur);
    free(cur);
    cur = next;
  }
  if (cur && errno == ENOENT) return *target = cur, OUT_NEW; /* created where the links lead */
  fail(1, "cannot write %s: %s", path, strerror(errno));
  free(cur);
  return *target = NULL, OUT_FAILED;
}

/* ---- writing ---- */

static int write_all(int fd, const char *path, const char *p, size_t size) {
  while (size) {
    ssize_t w = write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return fail(1, "cannot write %s: %s", path, strerror(errno));
    p += w, size -= (size_t)w;
  }
  return 0;
}

/* A device, FIFO, socket or /proc link: renaming a file over it would replace the node (as
 * root, /dev/stdout itself), so it is opened and written as `>` would. One of our own
 * descriptors is written directly, after what stdio holds for it, so that the output keeps
 * its place among weft's other output and a file opened with `>>` is appended to. */
static int write_in_place(const char *path, const char *target, const void *data, size_t size) {
  int fd = own_fd(target);
  if (fd >= 0) {
    fflush(NULL);
    return write_all(fd, path, data, size);
  }
  fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return fail(1, "cannot write %s: %s", path, strerror(errno));
  int rc = write_all(fd, path, data, size);
  if (close(fd) && !rc) rc = fail(1, "cannot write %s: %s", path, strerror(errno));
  return rc;
}

/* ".NAME.XXXXXX" beside target, for mkstemp: hidden, and NAME cut so that the whole fits in
 * NAME_MAX (a 250-character NAME with ".XXXXXX" after it would not). */
static char *temp_name(const char *target) {
  const char *slash = strrchr(target, '/');
  size_t dir = slash ? (size_t)(slash - target) + 1 : 0, base = strlen(target + dir);
  if (base > NAME_MAX - 8) base = NAME_MAX - 8;
  char *tmp = malloc(dir + base + 9);
  if (tmp) sprintf(tmp, "%.*s.%.*s.XXXXXX", (int)dir, target, (int)base, target + dir);
  return tmp;
}

/* Writes a temporary file beside target and renames it over target: a reader sees the old
 * file or the whole new one, and a failure leaves the old one. `old` is target's lstat, or
 * NULL when there is none. */
static int replace(const char *path, const char *target, const struct stat *old, const void *data,
                   size_t size) {
  /* Root may write any file: the mode bits, not access(), say that its owner wants it kept. */
  if (old && (!(old->st_mode & 0222) || access(target, W_OK)))
    return fail(1, "cannot write %s: %s%s is read-only (weft does not replace it)", path,
                strcmp(path, target) ? "its target " : "it", strcmp(path, target) ? target : "");
  char *tmp = temp_name(target);
  int fd = tmp ? mkstemp(tmp) : -1, rc = 0;
  if (fd < 0) {
    rc = fail(1, "cannot write %s: %s", path, strerror(tmp ? errno : ENOMEM));
    free(tmp);
    return rc;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, old ? old->st_mode & 0777 : 0666 & ~mask); /* not mkstemp's 0600 */
  rc = write_all(fd, path, data, size);
  if (!rc && fsync(fd)) rc = fail(1, "cannot write %s: %s", path, strerror(errno));
  if (close(fd) && !rc) rc = fail(1, "cannot write %s: %s", path, strerror(errno));
  if (!rc && rename(tmp, target)) rc = fail(1, "cannot write %s: %s", path, strerror(errno));
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}

int paths_write(const char *path, const void *data, size_t size) {
  if (!strcmp(path, "-")) {
    fflush(stdout);
    return write_all(STDOUT_FILENO, "stdout", data, size);
  }
  char *target;
  struct stat st;
  out_kind kind = resolve(path, &target, &st);
  int rc = kind == OUT_FAILED     ? 1
           : kind == OUT_IN_PLACE ? write_in_place(path, target, data, size)
                                  : replace(path, target, kind == OUT_NEW ? NULL : &st, data, size);
  free(target);
  return rc;
}
