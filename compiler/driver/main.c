/* weft — the compiler driver: dispatches to one subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "weft.h"

static const char usage[] =
    "usage: weft COMMAND [ARGS]\n"
    "       weft --version     (prints `weft` and the version of weft, such as `weft 0.1.0`)\n"
    "\n"
    "weft compiles OpenCL C kernels and runs them on x86 CPUs with GPU (SIMT) semantics.\n"
    "\n"
    "commands:\n"
    "  cfg FILE.cl [-k KERNEL] [--dot|--json] [--divergence]\n"
    "      show each kernel's control-flow graph: blocks in PC order with their source lines,\n"
    "      successors, and the immediate post-dominator (reconvergence point) of every branch\n"
    "  run FILE.cl [-k KERNEL] [-g X[,Y[,Z]]] [-l X[,Y[,Z]]] [--arg SPEC]... [--out I=PATH]...\n"
    "      [--policy NAME] [--split-order lowest-pc|rr] [--max-splits N] [--warp W]\n"
    "      [--lanes G] [--threads N] [--repeat N] [--stats] [--stats-json PATH]\n"
    "      [--build-options OPTS] [--no-defaults] [--policy-in-runtime] [--timeout S]\n"
    "      run a kernel over an NDRange as warps, with its arguments from the command line\n"
    "      or from the file's `// weft-run:` line; write output buffers and stats\n"
    "  trace FILE.cl [the options of run but --repeat] [--format text|json|svg] [-o PATH]\n"
    "      [--group N] [--warp-id N] [--max-steps N]\n"
    "      run a kernel and show, step by step, which lanes of a warp run which block, how\n"
    "      they diverge and reconverge, and the policy's state (the first work-group's warps)\n"
    "\n"
    "Run `weft COMMAND --help` for a command's options.\n";

int fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("weft: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

int main(int argc, char **argv) {
  if (argc < 2) return fputs(usage, stderr), 2;
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help"))
    return fputs(usage, stdout), 0;
  if (!strcmp(cmd, "--version")) return printf("weft %s\n", weft_version()), 0;
  if (!strcmp(cmd, "cfg")) return cmd_cfg(argc - 1, argv + 1);
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "trace")) return cmd_trace(argc - 1, argv + 1);
  return fail(2, "unknown command '%s' (try `weft --help`)", cmd);
}
