#include "scratch_dir.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool scratch_dir_make(char *dir, size_t size, const char *prefix) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp || strlen(tmp) + strlen(prefix) + 9 > size) tmp = "/tmp";
  int n = snprintf(dir, size, "%s/%s.XXXXXX", tmp, prefix);
  return n > 0 && (size_t)n < size && mkdtemp(dir);
}

void scratch_dir_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char path[PATH_MAX];
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < PATH_MAX)
      unlink(path);
  closedir(d);
  rmdir(dir);
}
