/* The disk cache's size: after each entry it writes, the folder is brought back under its
 * budget (WEFT_CACHE_SIZE: bytes, or a number and K, M or G; 512M unless set) by deleting the
 * entries used longest ago. A hit marks its entry used (cache.c sets its time), so a program
 * built often stays. The entry just written is kept, even alone over the budget, and a
 * temporary file that a process left when it died writing is deleted once an hour old.
 *
 * Deleting is always safe: another process that reads an entry holds it open (its bytes stay
 * until it closes it), and one that finds none builds and writes it again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compiler.h"

#define DEFAULT_BUDGET (512ull << 20)
#define STALE_TEMP_S 3600
#define ENTRY_SUFFIX ".weftc"

typedef struct entry_file {
  char name[64];
  uint64_t bytes;
  struct timespec used; /* its modification time: when it was written or last hit */
} entry_file;

static atomic_flag warned = ATOMIC_FLAG_INIT;

/* WEFT_CACHE_SIZE's budget in bytes; a bad value is said once and the default taken. */
static uint64_t budget(void) {
  const char *s = getenv("WEFT_CACHE_SIZE");
  if (!s || !*s) return DEFAULT_BUDGET;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
  end += shift != 0;
  if (errno || end == s || *end || *s < '0' || *s > '9' || v > (UINT64_MAX >> shift)) {
    if (!atomic_flag_test_and_set(&warned))
      fprintf(stderr,
              "weft: WEFT_CACHE_SIZE '%s' is not a size (bytes, or a number and K, M or G): "
              "the cache keeps 512M\n",
              s);
    return DEFAULT_BUDGET;
  }
  return (uint64_t)v << shift;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

/* A temporary entry (NAME.weftc.XXXXXX, cache.c) older than an hour: its writer died. */
static int stale_temp(const char *name, const struct stat *st) {
  const char *dot = strstr(name, ENTRY_SUFFIX ".");
  return dot && strlen(dot) == strlen(ENTRY_SUFFIX) + 7 && time(NULL) - st->st_mtime > STALE_TEMP_S;
}

static int older(const void *a, const void *b) {
  const struct timespec *x = &((const entry_file *)a)->used, *y = &((const entry_file *)b)->used;
  return x->tv_sec != y->tv_sec ? (x->tv_sec > y->tv_sec) - (x->tv_sec < y->tv_sec)
                                : (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

void cache_trim(const char *dir, const char *kept) {
  uint64_t limit = budget(), total = 0;
  DIR *d = opendir(dir);
  if (!d) return;
  entry_file *e = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *de; (de = readdir(d));) {
    struct stat st;
    size_t len = strlen(de->d_name);
    if (len >= sizeof e->name || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
        !S_ISREG(st.st_mode) || st.st_uid != geteuid())
      continue;
    if (stale_temp(de->d_name, &st)) unlinkat(dirfd(d), de->d_name, 0);
    if (!ends_with(de->d_name, ENTRY_SUFFIX)) continue;
    if (n == cap) {
      entry_file *more = realloc(e, (cap = cap ? 2 * cap : 64) * sizeof *e);
      if (!more) break;
      e = more;
    }
    memcpy(e[n].name, de->d_name, len + 1);
    e[n].bytes = (uint64_t)st.st_size, e[n].used = st.st_mtim;
    total += e[n++].bytes;
  }
  if (n) qsort(e, n, sizeof *e, older); /* e is NULL when there is none */
  for (size_t i = 0; i < n && total > limit; i++)
    if (strcmp(e[i].name, kept) && !unlinkat(dirfd(d), e[i].name, 0)) {
      total -= e[i].bytes;
      debug_cache("deleted, to keep the folder under WEFT_CACHE_SIZE,", e[i].name);
    }
  free(e);
  closedir(d);
}
