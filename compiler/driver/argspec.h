/* The parts of `weft run`'s command line that need no compiler: kernel argument specs (--arg),
 * NDRange sizes (-g, -l), output requests (--out) and a kernel file's `// weft-run:` default
 * options. Everything here is plain C over weft.h's types, so it is unit-tested on its own
 * (tests/unit/test_argspec.c) and links without LLVM: of the runtime it needs only the names
 * and sizes of types (weft_type_name, weft_type_size).
 *
 * Fallible functions return 0, or -1 after writing one line saying why into err[errsize]
 * (without the option's name: the caller knows which --arg it was and says so). */
#ifndef WEFT_ARGSPEC_H
#define WEFT_ARGSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weft.h"

/* No one buffer, and no launch's buffers together, may exceed this. */
#define ARGSPEC_MAX_BYTES ((size_t)16 << 30)
/* A by-value vector argument has at most 16 elements (float16, double16); a struct's fields
 * take at most 256 bytes. */
#define ARGSPEC_MAX_VALUES 16
#define ARGSPEC_MAX_STRUCT 256

typedef enum argspec_kind {
  ARGSPEC_SCALAR, /* TYPE:VALUE[,VALUE...]: passed by value */
  ARGSPEC_BUFFER, /* TYPE[N]=INIT: a __global or __constant buffer of N elements */
  ARGSPEC_LOCAL,  /* local:TYPE[N]: a __local buffer of N elements */
  ARGSPEC_STRUCT, /* {TYPE:VALUE,...}: a struct passed by value, its fields laid out as C does */
} argspec_kind;

typedef enum argspec_init {
  ARGSPEC_ZERO, /* all bits 0 */
  ARGSPEC_IOTA, /* element i is i, converted to the type (integers wrap) */
  ARGSPEC_FILL, /* every element is value[] */
  ARGSPEC_RAND, /* splitmix64 from seed: floats in [0, 1), integers in [0, ARGSPEC_RAND_INTS) */
  ARGSPEC_FILE, /* the raw little-endian contents of path, exactly N elements */
} argspec_init;

#define ARGSPEC_RAND_INTS 100

/* One parsed --arg. `path` points into the text that was parsed, which must outlive it. */
typedef struct argspec {
  argspec_kind kind;
  weft_type type;     /* the scalar or element type; WEFT_OTHER for a STRUCT only */
  unsigned nvalues;   /* SCALAR: values given (1, or a vector's width); FILL: 1; STRUCT: fields */
  size_t count;       /* BUFFER, LOCAL: elements; STRUCT: bytes, with the padding at the end */
  argspec_init init;  /* BUFFER */
  uint64_t seed;      /* RAND */
  const char *path;   /* FILE */
  _Alignas(8) unsigned char value[ARGSPEC_MAX_STRUCT]; /* SCALAR, FILL, STRUCT: encoded */
} argspec;

/* ---- types ---- */
/* "i8" ... "f64" (weft_type_name) to a weft_type; false for anything else. `len` bytes of
 * `name` are read. */
bool argspec_type_parse(const char *name, size_t len, weft_type *out);

/* ---- --arg ---- */
int argspec_parse(const char *text, argspec *spec, char *err, size_t errsize);
/* Bytes the argument takes: a SCALAR's values, a BUFFER's or LOCAL's elements, a STRUCT. */
size_t argspec_bytes(const argspec *spec);
/* Fills a BUFFER's argspec_bytes(spec) bytes at buf from its INIT (reads the file for FILE). */
int argspec_fill(const argspec *spec, void *buf, char *err, size_t errsize);
/* Whether the spec fits kernel parameter `index` described by `info`: kind (value, global or
 * constant buffer, local buffer), element type, a vector's width, whole elements. The message
 * names the parameter. */
int argspec_check(const argspec *spec, unsigned index, const weft_arg_info *info, char *err,
                  size_t errsize);

/* ---- -g, -l, --out ---- */
/* "X[,Y[,Z]]", each at least 1: sizes into v[0..dims), 1 into the rest. */
int argspec_parse_dims(const char *text, size_t v[3], unsigned *dims, char *err, size_t errsize);
/* "I=PATH": *path points into text. */
int argspec_parse_out(const char *text, unsigned *index, const char **path, char *err,
                      size_t errsize);

/* ---- // weft-run: ---- */
/* The options of every line of `source` that starts (after blanks) with "// weft-run:", one
 * line each, joined by newlines in file order; a malloc'd string, or NULL when there is no such
 * line. When `lines` is not NULL, *lines gets a malloc'd array of their line numbers in source
 * (from 1): line k of the result is line (*lines)[k] of source, for messages. */
char *argspec_defaults(const char *source, unsigned **lines);
/* Splits `line` in place at blanks (no quoting, no escapes), storing at most max words; returns
 * the number of words, or -1 if there were more than max. */
int argspec_split(char *line, char **words, int max);

#endif
