/* Argument specs and the other plain-text pieces of `weft run`'s command line.
 *
 * A spec is parsed left to right into an argspec that already holds its values encoded in the
 * host's (little-endian) byte order, so the driver only copies bytes. Numbers are parsed with
 * strtoll/strtoull/strtod and then range-checked against the exact type, so `u8:256`, `i8:-129`
 * and `u32:-1` are errors instead of silent wrap-arounds. The random fill is splitmix64: tiny,
 * good enough for test inputs, and the same on every machine, so `rand:SEED` is reproducible. */
#include "argspec.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int error(char *err, size_t errsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errsize, fmt, ap);
  va_end(ap);
  return -1;
}

bool argspec_type_parse(const char *name, size_t len, weft_type *out) {
  for (int t = WEFT_I8; t <= WEFT_F64; t++) {
    const char *n = weft_type_name((weft_type)t);
    if (strlen(n) == len && !memcmp(n, name, len)) return *out = (weft_type)t, true;
  }
  return false;
}

static bool is_float(weft_type t) { return t == WEFT_F32 || t == WEFT_F64; }
static bool is_signed(weft_type t) {
  return t == WEFT_I8 || t == WEFT_I16 || t == WEFT_I32 || t == WEFT_I64;
}

static int parse_type(const char *s, size_t len, weft_type *t, char *err, size_t errsize) {
  if (argspec_type_parse(s, len, t)) return 0;
  char list[64] = ""; /* "i8 u8 ... f64" */
  for (int i = WEFT_I8; i <= WEFT_F64; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "",
             weft_type_name((weft_type)i));
  if (!len) return error(err, errsize, "missing type (one of %s)", list);
  return error(err, errsize, "unknown type '%.*s' (one of %s)", (int)len, s, list);
}

/* ---- numbers ---- */

/* Stores the low weft_type_size(t) bytes of v: little-endian hosts only, as weft is x86. */
static void store_int(weft_type t, uint64_t v, void *out) { memcpy(out, &v, weft_type_size(t)); }

static int parse_int(const char *s, weft_type t, void *out, char *err, size_t errsize) {
  unsigned bits = 8 * (unsigned)weft_type_size(t);
  char *end;
  errno = 0;
  if (is_signed(t)) {
    long long v = strtoll(s, &end, 0);
    long long lim = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
    if (end == s || *end || isspace((unsigned char)*s)) goto bad;
    if (errno == ERANGE || v > lim || v < -lim - 1) goto range;
    store_int(t, (uint64_t)v, out);
  } else {
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end || isspace((unsigned char)*s)) goto bad;
    if (*s == '-' || errno == ERANGE || (bits < 64 && v >> bits)) goto range;
    store_int(t, v, out);
  }
  return 0;
bad:
  return error(err, errsize, "'%s' is not an integer", s);
range:
  return error(err, errsize, "%s is out of range for %s", s, weft_type_name(t));
}

static int parse_float(const char *s, weft_type t, void *out, char *err, size_t errsize) {
  char *end;
  errno = 0;
  double d = t == WEFT_F32 ? strtof(s, &end) : strtod(s, &end);
  if (end == s || *end || isspace((unsigned char)*s))
    return error(err, errsize, "'%s' is not a number", s);
  /* ERANGE also flags underflow to a subnormal or 0, which is a fine value. */
  if (errno == ERANGE && isinf(d))
    return error(err, errsize, "%s is out of range for %s", s, weft_type_name(t));
  if (t == WEFT_F32) {
    float f = (float)d;
    memcpy(out, &f, sizeof f);
  } else {
    memcpy(out, &d, sizeof d);
  }
  return 0;
}

/* One value of type t from s[0..len) (copied, since strto* want a terminated string). */
static int parse_value(const char *s, size_t len, weft_type t, void *out, char *err,
                       size_t errsize) {
  char buf[128];
  if (!len) return error(err, errsize, "missing value");
  if (len >= sizeof buf) return error(err, errsize, "value '%.20s...' is too long", s);
  memcpy(buf, s, len);
  buf[len] = 0;
  return is_float(t) ? parse_float(buf, t, out, err, errsize)
                     : parse_int(buf, t, out, err, errsize);
}

/* A decimal count or seed: digits only, so "-1" and "1e3" are rejected, not misread. */
static int parse_u64(const char *s, size_t len, uint64_t *v, const char *what, char *err,
                     size_t errsize) {
  char buf[32];
  if (!len) return error(err, errsize, "missing %s", what);
  if (len >= sizeof buf) return error(err, errsize, "%s '%.*s' is too large", what, (int)len, s);
  memcpy(buf, s, len);
  buf[len] = 0;
  for (size_t i = 0; i < len; i++)
    if (!isdigit((unsigned char)buf[i]))
      return error(err, errsize, "%s '%s' is not a decimal number", what, buf);
  errno = 0;
  *v = strtoull(buf, NULL, 10);
  if (errno == ERANGE) return error(err, errsize, "%s '%s' is too large", what, buf);
  return 0;
}

/* ---- specs ---- */

/* "TYPE[N]" at s: type and count; *rest is what follows the ']'. */
static int parse_array(const char *s, argspec *spec, const char **rest, char *err, size_t errsize) {
  const char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;
  if (!open) return error(err, errsize, "expected TYPE[N]");
  if (!close) return error(err, errsize, "missing ']' after the element count");
  if (parse_type(s, (size_t)(open - s), &spec->type, err, errsize)) return -1;
  uint64_t n;
  if (parse_u64(open + 1, (size_t)(close - open - 1), &n, "element count", err, errsize)) return -1;
  if (n == 0) return error(err, errsize, "a buffer needs at least 1 element");
  size_t size = weft_type_size(spec->type);
  if (n > ARGSPEC_MAX_BYTES / size)
    return error(err, errsize, "%s[%llu] is larger than the %zu GiB limit",
                 weft_type_name(spec->type), (unsigned long long)n, ARGSPEC_MAX_BYTES >> 30);
  spec->count = (size_t)n;
  *rest = close + 1;
  return 0;
}

static int parse_init(const char *s, argspec *spec, char *err, size_t errsize) {
  const char *colon = strchr(s, ':');
  size_t head = colon ? (size_t)(colon - s) : strlen(s);
  const char *arg = colon ? colon + 1 : NULL;
  if (!colon && !strcmp(s, "zero")) return spec->init = ARGSPEC_ZERO, 0;
  if (!colon && !strcmp(s, "iota")) return spec->init = ARGSPEC_IOTA, 0;
  if (arg && head == 4 && !memcmp(s, "fill", 4)) {
    spec->init = ARGSPEC_FILL;
    spec->nvalues = 1;
    return parse_value(arg, strlen(arg), spec->type, spec->value, err, errsize);
  }
  if (arg && head == 4 && !memcmp(s, "rand", 4)) {
    spec->init = ARGSPEC_RAND;
    return parse_u64(arg, strlen(arg), &spec->seed, "seed", err, errsize);
  }
  if (arg && head == 4 && !memcmp(s, "file", 4)) {
    spec->init = ARGSPEC_FILE;
    spec->path = arg;
    return *arg ? 0 : error(err, errsize, "missing path after 'file:'");
  }
  return error(err, errsize,
               "unknown initialiser '%s' (zero, iota, fill:V, rand:SEED or "
               "file:PATH)",
               s);
}

static int parse_buffer(const char *text, argspec *spec, char *err, size_t errsize) {
  const char *rest;
  spec->kind = ARGSPEC_BUFFER;
  if (parse_array(text, spec, &rest, err, errsize)) return -1;
  if (*rest != '=')
    return error(err, errsize,
                 "expected '=INIT' after ']' (zero, iota, fill:V, rand:SEED or "
                 "file:PATH)");
  return parse_init(rest + 1, spec, err, errsize);
}

/* "TYPE:V[,V...]": several values are a vector (float4: f32:1,2,3,4). */
static int parse_scalar(const char *text, const char *colon, argspec *spec, char *err,
                        size_t errsize) {
  spec->kind = ARGSPEC_SCALAR;
  if (parse_type(text, (size_t)(colon - text), &spec->type, err, errsize)) return -1;
  size_t size = weft_type_size(spec->type);
  const char *s = colon + 1;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (spec->nvalues == ARGSPEC_MAX_VALUES)
      return error(err, errsize, "more than %d values", ARGSPEC_MAX_VALUES);
    if (parse_value(s, len, spec->type, spec->value + size * spec->nvalues, err, errsize))
      return -1;
    spec->nvalues++;
    if (!comma) return 0;
    s = comma + 1;
  }
}

/* "{TYPE:V,TYPE:V,...}": each field at the next multiple of its own size, and the whole padded
 * to a multiple of its largest field, as C lays out a struct of such scalars. spec->type is
 * WEFT_OTHER. */
static int parse_struct(const char *text, argspec *spec, char *err, size_t errsize) {
  size_t n = strlen(text), at = 0, align = 1;
  if (n < 2 || text[n - 1] != '}') return error(err, errsize, "missing '}' after the fields");
  spec->kind = ARGSPEC_STRUCT, spec->type = WEFT_OTHER;
  for (const char *s = text + 1, *end = text + n - 1; s < end;) {
    const char *comma = memchr(s, ',', (size_t)(end - s)), *stop = comma ? comma : end;
    const char *colon = memchr(s, ':', (size_t)(stop - s));
    weft_type t = WEFT_OTHER;
    if (!colon)
      return error(err, errsize, "field %u '%.*s' is not TYPE:VALUE", spec->nvalues,
                   (int)(stop - s), s);
    if (parse_type(s, (size_t)(colon - s), &t, err, errsize)) return -1;
    size_t size = weft_type_size(t);
    at = (at + size - 1) / size * size;
    if (at + size > ARGSPEC_MAX_STRUCT)
      return error(err, errsize, "a struct of more than %d bytes", ARGSPEC_MAX_STRUCT);
    if (parse_value(colon + 1, (size_t)(stop - colon - 1), t, spec->value + at, err, errsize))
      return -1;
    at += size, align = size > align ? size : align, spec->nvalues++;
    s = comma ? comma + 1 : end;
  }
  if (!spec->nvalues) return error(err, errsize, "a struct needs at least one field");
  spec->count = (at + align - 1) / align * align;
  return 0;
}

int argspec_parse(const char *text, argspec *spec, char *err, size_t errsize) {
  memset(spec, 0, sizeof *spec);
  if (*text == '{') return parse_struct(text, spec, err, errsize);
  if (!strncmp(text, "local:", 6)) {
    const char *rest;
    spec->kind = ARGSPEC_LOCAL;
    if (parse_array(text + 6, spec, &rest, err, errsize)) return -1;
    return *rest ? error(err, errsize, "unexpected '%s' after local:TYPE[N]", rest) : 0;
  }
  const char *colon = strchr(text, ':'), *open = strchr(text, '[');
  if (open && (!colon || open < colon)) return parse_buffer(text, spec, err, errsize);
  if (colon) return parse_scalar(text, colon, spec, err, errsize);
  return error(err, errsize,
               "expected TYPE:VALUE, TYPE[N]=INIT, local:TYPE[N] or "
               "{TYPE:VALUE,...}");
}

size_t argspec_bytes(const argspec *spec) {
  if (spec->kind == ARGSPEC_STRUCT) return spec->count;
  size_t n = spec->kind == ARGSPEC_SCALAR ? spec->nvalues : spec->count;
  return n * weft_type_size(spec->type);
}

/* ---- filling buffers ---- */

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Element i of an iota or rand buffer; `x` is i, or the next random number. */
static void store_element(const argspec *spec, uint64_t x, bool random, unsigned char *out) {
  if (spec->type == WEFT_F32) {
    float f = random ? (float)(x >> 40) * 0x1p-24f : (float)x;
    memcpy(out, &f, sizeof f);
  } else if (spec->type == WEFT_F64) {
    double d = random ? (double)(x >> 11) * 0x1p-53 : (double)x;
    memcpy(out, &d, sizeof d);
  } else {
    store_int(spec->type, random ? x % ARGSPEC_RAND_INTS : x, out);
  }
}

static int fill_file(const argspec *spec, void *buf, char *err, size_t errsize) {
  FILE *f = fopen(spec->path, "rb");
  if (!f) return error(err, errsize, "cannot open '%s': %s", spec->path, strerror(errno));
  size_t want = argspec_bytes(spec);
  int rc = 0;
  struct stat st;
  /* A directory opens and "seeks" to a huge end; a device or FIFO has no size to compare. */
  if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
    rc = error(err, errsize, "'%s' is %s", spec->path,
               S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
  } else if (fseeko(f, 0, SEEK_END) || ftello(f) < 0) {
    rc = error(err, errsize, "cannot read '%s': %s", spec->path, strerror(errno));
  } else if ((size_t)ftello(f) != want) {
    rc = error(err, errsize, "'%s' has %lld bytes but %s[%zu] needs %zu", spec->path,
               (long long)ftello(f), weft_type_name(spec->type), spec->count, want);
  } else if (fseeko(f, 0, SEEK_SET) || fread(buf, 1, want, f) != want) {
    rc = error(err, errsize, "cannot read '%s': %s", spec->path,
               ferror(f) ? strerror(errno) : "file shrank");
  }
  fclose(f);
  return rc;
}

int argspec_fill(const argspec *spec, void *buf, char *err, size_t errsize) {
  size_t size = weft_type_size(spec->type);
  unsigned char *p = buf;
  uint64_t state = spec->seed;
  switch (spec->init) {
  case ARGSPEC_ZERO: memset(buf, 0, argspec_bytes(spec)); return 0;
  case ARGSPEC_FILE: return fill_file(spec, buf, err, errsize);
  case ARGSPEC_FILL:
    for (size_t i = 0; i < spec->count; i++) memcpy(p + i * size, spec->value, size);
    return 0;
  case ARGSPEC_IOTA:
  case ARGSPEC_RAND:
    for (size_t i = 0; i < spec->count; i++) {
      bool rnd = spec->init == ARGSPEC_RAND;
      store_element(spec, rnd ? splitmix64(&state) : i, rnd, p + i * size);
    }
    return 0;
  }
  return error(err, errsize, "bad initialiser");
}

/* ---- checking against the kernel's signature ---- */

static bool kinds_match(argspec_kind s, weft_arg_kind k) {
  if (s == ARGSPEC_SCALAR || s == ARGSPEC_STRUCT) return k == WEFT_ARG_VALUE;
  if (s == ARGSPEC_LOCAL) return k == WEFT_ARG_LOCAL;
  return k == WEFT_ARG_GLOBAL || k == WEFT_ARG_CONSTANT;
}

static const char *spec_kind_name(argspec_kind s) {
  return s == ARGSPEC_SCALAR   ? "a value (TYPE:VALUE)"
         : s == ARGSPEC_STRUCT ? "a struct ({TYPE:VALUE,...})"
         : s == ARGSPEC_LOCAL  ? "a __local buffer (local:TYPE[N])"
                               : "a buffer (TYPE[N]=INIT)";
}

/* A struct passed by value takes {TYPE:VALUE,...} with its fields, so many bytes in all. */
static int check_struct(const argspec *spec, const char *param, const weft_arg_info *info,
                        char *err, size_t errsize) {
  if (info->type != WEFT_OTHER)
    return error(err, errsize, "gives a struct but %s is not one", param);
  if (spec->kind != ARGSPEC_STRUCT)
    return error(err, errsize, "%s is a struct: give its fields, {TYPE:VALUE,...}", param);
  if (spec->count != info->size)
    return error(err, errsize, "gives a struct of %zu bytes but %s has %zu", spec->count, param,
                 info->size);
  return 0;
}

int argspec_check(const argspec *spec, unsigned index, const weft_arg_info *info, char *err,
                  size_t errsize) {
  char param[256];
  snprintf(param, sizeof param, "parameter %u '%s' (%s)", index, info->name, info->type_name);
  if (!kinds_match(spec->kind, info->kind))
    return error(err, errsize, "gives %s but %s is %s", spec_kind_name(spec->kind), param,
                 weft_arg_kind_name(info->kind));
  if (spec->kind == ARGSPEC_STRUCT || (spec->kind == ARGSPEC_SCALAR && info->type == WEFT_OTHER))
    return check_struct(spec, param, info, err, errsize);
  if (info->type != WEFT_OTHER && spec->type != info->type)
    return error(err, errsize, "gives %s but %s has %s elements", weft_type_name(spec->type), param,
                 weft_type_name(info->type));
  if (spec->kind == ARGSPEC_SCALAR && spec->nvalues != info->vector_width)
    return error(err, errsize, "gives %u value%s but %s needs %u", spec->nvalues,
                 spec->nvalues == 1 ? "" : "s", param, info->vector_width);
  if (spec->kind != ARGSPEC_SCALAR && info->size && argspec_bytes(spec) % info->size)
    return error(err, errsize, "%zu bytes are not a whole number of %s's %zu-byte elements",
                 argspec_bytes(spec), param, info->size);
  return 0;
}

/* ---- -g, -l, --out ---- */

int argspec_parse_dims(const char *text, size_t v[3], unsigned *dims, char *err, size_t errsize) {
  const char *s = text;
  *dims = 0;
  v[0] = v[1] = v[2] = 1;
  for (;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    uint64_t n;
    if (*dims == 3) return error(err, errsize, "'%s' has more than 3 dimensions", text);
    if (parse_u64(s, len, &n, "size", err, errsize)) return -1;
    if (n == 0) return error(err, errsize, "a size of 0 in '%s'", text);
    if (n > UINT32_MAX) return error(err, errsize, "size %llu is too large", (unsigned long long)n);
    v[(*dims)++] = (size_t)n;
    if (!comma) return 0;
    s = comma + 1;
  }
}

int argspec_parse_out(const char *text, unsigned *index, const char **path, char *err,
                      size_t errsize) {
  const char *eq = strchr(text, '=');
  uint64_t i;
  if (!eq) return error(err, errsize, "expected I=PATH, with I the parameter's position");
  if (parse_u64(text, (size_t)(eq - text), &i, "parameter position", err, errsize)) return -1;
  if (i > UINT32_MAX)
    return error(err, errsize, "parameter position %.*s is too large", (int)(eq - text), text);
  if (!eq[1]) return error(err, errsize, "missing path after '='");
  *index = (unsigned)i;
  *path = eq + 1;
  return 0;
}

/* ---- // weft-run: ---- */

static const char marker[] = "// weft-run:";

/* Appends the `add` bytes at s to the result being built in *out (length *len), after a
 * newline if it is not the first; the line number to *lines (count *n) when wanted. */
static bool add_line(char **out, size_t *len, const char *s, size_t add, unsigned **lines,
                     unsigned *n, unsigned lineno) {
  char *grown = realloc(*out, *len + add + 2);
  if (!grown) return false;
  *out = grown;
  if (*len) grown[(*len)++] = '\n';
  memcpy(grown + *len, s, add);
  grown[ *len += add] = 0;
  if (!lines) return true;
  if (!(*n & (*n - 1))) { /* full when n is 0 or a power of 2: double */
    unsigned *more = realloc(*lines, (*n ? 2 * (size_t)*n : 1) * sizeof **lines);
    if (!more) return false;
    *lines = more;
  }
  (*lines)[(*n)++] = lineno;
  return true;
}

char *argspec_defaults(const char *source, unsigned **lines) {
  char *out = NULL;
  size_t len = 0;
  unsigned n = 0, lineno = 1;
  if (lines) *lines = NULL;
  for (const char *line = source; line && *line; lineno++) {
    const char *end = strchr(line, '\n'), *s = line;
    size_t size = end ? (size_t)(end - line) : strlen(line);
    while (s < line + size && (*s == ' ' || *s == '\t')) s++;
    if ((size_t)(line + size - s) >= sizeof marker - 1 && !memcmp(s, marker, sizeof marker - 1)) {
      s += sizeof marker - 1;
      if (!add_line(&out, &len, s, (size_t)(line + size - s), lines, &n, lineno)) {
        free(out);
        if (lines) free(*lines), *lines = NULL;
        return NULL;
      }
    }
    line = end ? end + 1 : NULL;
  }
  return out;
}

int argspec_split(char *line, char **words, int max) {
  int n = 0;
  for (char *s = line;;) {
    while (*s && isspace((unsigned char)*s)) *s++ = 0;
    if (!*s) return n;
    if (n == max) return -1;
    words[n++] = s;
    while (*s && !isspace((unsigned char)*s)) s++;
  }
}
