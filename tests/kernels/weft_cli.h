/* Running the `weft` command from a cmocka test: stdout and stderr captured apart, and the exit
 * code. Shared by the CLI golden tests (tests/kernels/cfg, tests/kernels/trace). */
#ifndef WEFT_TEST_CLI_H
#define WEFT_TEST_CLI_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run {
  int status; /* exit code, -1 if it did not exit */
  char *out, *err;
} run;

static char *slurp(FILE *f) {
  size_t n = 0, cap = 4096;
  char *buf = malloc(cap);
  assert_non_null(buf);
  for (size_t r; (r = fread(buf + n, 1, cap - n - 1, f)) > 0;)
    if ((n += r) + 1 >= cap) assert_non_null(buf = realloc(buf, cap *= 2));
  buf[n] = 0;
  return buf;
}

/* Runs `WEFT SUBCOMMAND ARGS` (ARGS already shell-quoted). */
static run weft_cli(const char *weft, const char *subcommand, const char *args) {
  char errpath[] = "/tmp/weft-test-stderr-XXXXXX", cmd[4096];
  int fd = mkstemp(errpath);
  assert_true(fd >= 0);
  close(fd);
  snprintf(cmd, sizeof cmd, "'%s' %s %s 2>'%s'", weft, subcommand, args, errpath);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  run r = {.out = slurp(p)};
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  FILE *e = fopen(errpath, "r");
  assert_non_null(e);
  r.err = slurp(e);
  fclose(e);
  unlink(errpath);
  return r;
}

static void run_free(run *r) { free(r->out), free(r->err); }

/* Where the value of "key" starts in weft's JSON (after the colon and blanks). */
static const char *after_key(const char *s, const char *key) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\":", key);
  const char *p = strstr(s, quoted);
  if (!p) fail_msg("no \"%s\" in weft's JSON: %.300s", key, s);
  for (p += strlen(quoted); *p == ' '; p++) {}
  return p;
}

#endif
