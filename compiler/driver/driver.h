/* The `weft` command: one file per subcommand, each `int cmd_NAME(int argc, char **argv)`
 * returning the process exit code (0 ok, 1 failure, 2 usage error). */
#ifndef WEFT_DRIVER_H
#define WEFT_DRIVER_H

int cmd_cfg(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_trace(int argc, char **argv);

/* Prints "weft: " and the message to stderr; returns `code` so callers can `return fail(...)`. */
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
