/* clang's child processes: each compile's, waited for until the build's time limit, and its end
 * told.
 *
 * Both ways of running clang give a compile a process of its own: a child forked with cc1
 * loaded (cc1.c) or a clang-19 process (frontend.c). Either may crash (an internal error, a
 * stack overflow on deeply nested code, memory running out) or run for minutes (code that makes
 * clang slow), and only the child goes down or is stopped: the host waits for it until the
 * limit, kills it then, and the build fails with a message that names the kernel's file. */
#include "compiler.h"
#include "runtime.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum child_end {
  CHILD_EXITED,  /* by itself (or reaped by the host, which ignores SIGCHLD: status 0) */
  CHILD_KILLED,  /* by a signal: it crashed */
  CHILD_STOPPED, /* at the time limit, by weft */
} child_end;

/* Sleeps until pid ends or `ms` pass: on its pidfd, which becomes readable when it ends, or in
 * steps of a millisecond where there is none (a kernel before 5.3). */
static void wait_a_while(int pidfd, double ms) {
  if (pidfd >= 0) poll(&(struct pollfd){.fd = pidfd, .events = POLLIN}, 1, (int)ms + 1);
  else nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* Waits for the child pid until deadline_ms (rt_now_ms's clock), kills it then; *status is its
 * wait status. */
static child_end child_wait(pid_t pid, double deadline_ms, int *status) {
  int pidfd = pidfd_open(pid, 0);
  child_end end = CHILD_EXITED;
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      *status = 0; /* a host that ignores SIGCHLD has its children reaped: the output tells */
      break;
    }
    double left = deadline_ms - rt_now_ms();
    if (left <= 0) {
      kill(pid, SIGKILL);
      while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
      end = CHILD_STOPPED;
      break;
    }
    wait_a_while(pidfd, left < 1000 ? left : 1000);
  }
  if (pidfd >= 0) close(pidfd);
  if (end == CHILD_EXITED && WIFSIGNALED(*status)) end = CHILD_KILLED;
  return end;
}

/* clang aborts where an allocation fails (std::bad_alloc, or LLVM's own report). */
static int ran_out_of_memory(int sig, const char *log) {
  return sig == SIGABRT && log && (strstr(log, "out of memory") || strstr(log, "bad_alloc"));
}

/* What a signal that ended clang probably means. */
static const char *signal_hint(int sig, const char *log) {
  if (sig == SIGSEGV || sig == SIGBUS)
    return ": deeply nested code (thousands of nested `if`s, or a long `else if` chain) can "
           "overflow its stack";
  if (ran_out_of_memory(sig, log)) return ": it ran out of memory";
  if (sig == SIGKILL) return ": by the system, perhaps when memory ran out";
  return "";
}

/* For a child that crashed or was stopped, appends to *log (clang's diagnostics, malloc'd or
 * NULL) a line that says so, with the kernel's file and, for a stop, the limit. */
static void child_report(char **log, child_end end, int status, const char *file, double limit_s) {
  char *line = NULL;
  int sig = end == CHILD_KILLED ? WTERMSIG(status) : 0;
  const char *abbrev = sig ? sigabbrev_np(sig) : NULL;
  if (end == CHILD_STOPPED &&
      asprintf(&line,
               "weft: clang ran longer than the build time limit of %g s compiling %s, and was "
               "stopped (weft_options.build_timeout_s or WEFT_BUILD_TIMEOUT sets the limit)",
               limit_s, file) < 0)
    line = NULL;
  if (sig && asprintf(&line, "weft: clang %s (SIG%s) compiling %s%s",
                      sig == SIGKILL || sig == SIGTERM || sig == SIGINT ? "was killed" : "crashed",
                      abbrev ? abbrev : "?", file, signal_hint(sig, *log)) < 0)
    line = NULL;
  if (!line) return;
  const char *before = *log ? *log : "";
  size_t n = strlen(before);
  char *both;
  if (asprintf(&both, "%s%s%s", before, n && before[n - 1] != '\n' ? "\n" : "", line) >= 0)
    free(*log), *log = both;
  free(line);
}

int child_finish(pid_t pid, double since_ms, const frontend_run *run, const char *file, int out,
                 int err, char **bitcode, size_t *len, char **log) {
  double limit_s = run && run->timeout_s > 0 ? run->timeout_s : WEFT_DEFAULT_BUILD_TIMEOUT_S;
  if (run && run->idle) run->idle(run->arg);
  int status;
  child_end end = child_wait(pid, since_ms + limit_s * 1e3, &status);
  int code = end == CHILD_EXITED && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  size_t loglen;
  *bitcode = code == 0 ? file_read_back(out, len) : NULL;
  if (*bitcode && *len == 0) free(*bitcode), *bitcode = NULL;
  *log = file_read_back(err, &loglen);
  if (end == CHILD_KILLED && ran_out_of_memory(WTERMSIG(status), *log)) code = CHILD_NO_MEMORY;
  child_report(log, end, status, file, limit_s);
  return code;
}
