/* argspec: `weft run`'s --arg specs, -g/-l sizes, --out requests and // weft-run: lines.
 * Linked with argspec.c and the runtime (for weft_type_name and weft_type_size): none of this
 * needs the compiler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "argspec.h"

static char err[512];

static argspec parse_ok(const char *text) {
  argspec s;
  int rc = argspec_parse(text, &s, err, sizeof err);
  if (rc) fail_msg("'%s' did not parse: %s", text, err);
  return s;
}

/* Parsing fails and the reason contains `why`. */
static void parse_bad(const char *text, const char *why) {
  argspec s;
  if (!argspec_parse(text, &s, err, sizeof err)) fail_msg("'%s' parsed", text);
  if (!strstr(err, why)) fail_msg("'%s': message '%s' lacks '%s'", text, err, why);
}

static void test_types(void **state) {
  (void)state;
  const char *names[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"};
  const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  for (int t = WEFT_I8; t <= WEFT_F64; t++) {
    weft_type got;
    assert_true(argspec_type_parse(names[t], strlen(names[t]), &got));
    assert_int_equal(got, t);
    assert_string_equal(weft_type_name((weft_type)t), names[t]);
    assert_int_equal(weft_type_size((weft_type)t), sizes[t]);
  }
  assert_string_equal(weft_type_name(WEFT_OTHER), "other");
  assert_string_equal(weft_type_name((weft_type)(WEFT_OTHER + 1)), "invalid type");
  assert_string_equal(weft_type_name((weft_type)-1), "invalid type");
  assert_int_equal(weft_type_size(WEFT_OTHER), 0);
  assert_int_equal(weft_type_size((weft_type)(WEFT_OTHER + 1)), 0);
  assert_int_equal(weft_type_size((weft_type)-1), 0);
  weft_type t;
  assert_false(argspec_type_parse("int", 3, &t));
  assert_false(argspec_type_parse("i3", 2, &t));
  assert_false(argspec_type_parse("i32", 2, &t)); /* only len bytes count: "i3" */
}

static void test_kind_names(void **state) {
  (void)state;
  assert_string_equal(weft_arg_kind_name(WEFT_ARG_VALUE), "a value");
  assert_string_equal(weft_arg_kind_name(WEFT_ARG_GLOBAL), "a __global buffer");
  assert_string_equal(weft_arg_kind_name(WEFT_ARG_CONSTANT), "a __constant buffer");
  assert_string_equal(weft_arg_kind_name(WEFT_ARG_LOCAL), "a __local buffer");
  assert_string_equal(weft_arg_kind_name((weft_arg_kind)(WEFT_ARG_LOCAL + 1)), "an invalid kind");
}

static void test_scalars(void **state) {
  (void)state;
  argspec s = parse_ok("i32:-5");
  int32_t i;
  memcpy(&i, s.value, 4);
  assert_int_equal(s.kind, ARGSPEC_SCALAR);
  assert_int_equal(s.type, WEFT_I32);
  assert_int_equal(s.nvalues, 1);
  assert_int_equal(i, -5);
  assert_int_equal(argspec_bytes(&s), 4);

  s = parse_ok("u8:255");
  assert_int_equal(s.value[0], 255);
  s = parse_ok("i8:-128");
  assert_int_equal((int8_t)s.value[0], -128);
  s = parse_ok("u16:0x1234");
  uint16_t h;
  memcpy(&h, s.value, 2);
  assert_int_equal(h, 0x1234);
  s = parse_ok("u64:18446744073709551615");
  uint64_t u;
  memcpy(&u, s.value, 8);
  assert_true(u == UINT64_MAX);
  s = parse_ok("i64:-9223372036854775808");
  int64_t l;
  memcpy(&l, s.value, 8);
  assert_true(l == INT64_MIN);

  s = parse_ok("f32:0.1");
  float f;
  memcpy(&f, s.value, 4);
  assert_true(f == 0.1f); /* rounded once, straight to float */
  s = parse_ok("f64:-2.5e-3");
  double d;
  memcpy(&d, s.value, 8);
  assert_true(d == -2.5e-3);
  s = parse_ok("f32:1e-45"); /* underflows to a subnormal: fine */
  assert_int_equal(argspec_bytes(&s), 4);
}

static void test_scalar_errors(void **state) {
  (void)state;
  parse_bad("u8:256", "out of range for u8");
  parse_bad("i8:128", "out of range for i8");
  parse_bad("i8:-129", "out of range for i8");
  parse_bad("u32:-1", "out of range for u32");
  parse_bad("u32:4294967296", "out of range for u32");
  parse_bad("i64:9223372036854775808", "out of range for i64");
  parse_bad("u64:18446744073709551616", "out of range for u64");
  parse_bad("f32:1e39", "out of range for f32");
  parse_bad("f64:1e309", "out of range for f64");
  parse_bad("i32:12x", "not an integer");
  parse_bad("i32:1.5", "not an integer");
  parse_bad("i32: 1", "not an integer");
  parse_bad("f32:abc", "not a number");
  parse_bad("i32:", "missing value");
  parse_bad("int:5", "unknown type 'int' (one of i8 u8 i16 u16 i32 u32 i64 u64 f32 f64)");
  parse_bad("int:5", "i8 u8 i16");
  parse_bad(":5", "missing type");
  parse_bad("5", "expected TYPE:VALUE");
  parse_bad("", "expected TYPE:VALUE");
}

static void test_vectors(void **state) {
  (void)state;
  argspec s = parse_ok("f32:1,2,3,4");
  float v[4];
  memcpy(v, s.value, sizeof v);
  assert_int_equal(s.nvalues, 4);
  assert_int_equal(argspec_bytes(&s), 16);
  assert_true(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
  s = parse_ok("f64:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16");
  assert_int_equal(argspec_bytes(&s), 128);
  parse_bad("f32:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 values");
  parse_bad("f32:1,,3", "missing value");
  parse_bad("f32:1,", "missing value");
}

static void test_buffers(void **state) {
  (void)state;
  argspec s = parse_ok("f32[1024]=zero");
  assert_int_equal(s.kind, ARGSPEC_BUFFER);
  assert_int_equal(s.type, WEFT_F32);
  assert_int_equal(s.count, 1024);
  assert_int_equal(s.init, ARGSPEC_ZERO);
  assert_int_equal(argspec_bytes(&s), 4096);
  assert_int_equal(parse_ok("u8[3]=iota").init, ARGSPEC_IOTA);
  s = parse_ok("i16[7]=fill:-3");
  assert_int_equal(s.init, ARGSPEC_FILL);
  int16_t v;
  memcpy(&v, s.value, 2);
  assert_int_equal(v, -3);
  s = parse_ok("u32[5]=rand:42");
  assert_int_equal(s.init, ARGSPEC_RAND);
  assert_true(s.seed == 42);
  s = parse_ok("f64[2]=file:data/in[1].bin"); /* brackets in the path are the path's */
  assert_int_equal(s.init, ARGSPEC_FILE);
  assert_string_equal(s.path, "data/in[1].bin");
  s = parse_ok("local:i32[256]");
  assert_int_equal(s.kind, ARGSPEC_LOCAL);
  assert_int_equal(s.type, WEFT_I32);
  assert_int_equal(argspec_bytes(&s), 1024);
  /* 16 GiB exactly is allowed; a byte more is not. */
  assert_int_equal(argspec_bytes(&(argspec){0}), 0);
  s = parse_ok("u64[2147483648]=zero");
  assert_true(argspec_bytes(&s) == ARGSPEC_MAX_BYTES);
}

static void test_buffer_errors(void **state) {
  (void)state;
  parse_bad("f32[0]=zero", "at least 1 element");
  parse_bad("f32[-1]=zero", "not a decimal number");
  parse_bad("f32[1e3]=zero", "not a decimal number");
  parse_bad("f32[]=zero", "missing element count");
  parse_bad("f32[10=zero", "missing ']'");
  parse_bad("f32[10]", "expected '=INIT'");
  parse_bad("f32[10]zero", "expected '=INIT'");
  parse_bad("f32[10]=ones", "unknown initialiser 'ones'");
  parse_bad("f32[10]=fill", "unknown initialiser");
  parse_bad("f32[10]=fill:x", "not a number");
  parse_bad("u8[10]=fill:300", "out of range for u8");
  parse_bad("f32[10]=rand:-1", "seed '-1' is not a decimal number");
  parse_bad("f32[10]=rand:", "missing seed");
  parse_bad("f32[10]=file:", "missing path");
  parse_bad("float[10]=zero", "unknown type 'float'");
  parse_bad("u32[4294967297]=zero", "larger than the 16 GiB limit");
  parse_bad("u8[99999999999999999999999]=zero", "too large");
  parse_bad("u64[2147483649]=zero", "16 GiB");
  parse_bad("local:i32", "expected TYPE[N]");
  parse_bad("local:i32[4]=zero", "unexpected '=zero'");
  parse_bad("local:int[4]", "unknown type 'int'");
  parse_bad("local:i32[0]", "at least 1 element");
}

static argspec filled(const char *text, void *buf) {
  argspec s = parse_ok(text);
  if (argspec_fill(&s, buf, err, sizeof err)) fail_msg("fill '%s': %s", text, err);
  return s;
}

static void test_fill(void **state) {
  (void)state;
  int32_t i[6];
  uint8_t b[300];
  float f[1000];
  double d[1000];
  filled("i32[6]=iota", i);
  for (int k = 0; k < 6; k++) assert_int_equal(i[k], k);
  filled("u8[300]=iota", b); /* integers wrap */
  assert_int_equal(b[255], 255);
  assert_int_equal(b[256], 0);
  assert_int_equal(b[299], 43);
  filled("f32[6]=iota", f);
  assert_true(f[5] == 5.0f);
  filled("i32[6]=fill:-7", i);
  for (int k = 0; k < 6; k++) assert_int_equal(i[k], -7);
  memset(i, 0xff, sizeof i);
  filled("i32[6]=zero", i);
  for (int k = 0; k < 6; k++) assert_int_equal(i[k], 0);
  filled("f64[1000]=fill:0.25", d);
  assert_true(d[999] == 0.25);
}

static void test_rand(void **state) {
  (void)state;
  float f[1000], g[1000];
  double d[1000];
  int32_t i[1000];
  int64_t l[1000];
  filled("f32[1000]=rand:1", f);
  filled("f32[1000]=rand:1", g);
  assert_memory_equal(f, g, sizeof f); /* deterministic */
  filled("f32[1000]=rand:2", g);
  assert_memory_not_equal(f, g, sizeof f);
  float lo = 1, hi = 0;
  for (int k = 0; k < 1000; k++) {
    assert_true(f[k] >= 0 && f[k] < 1);
    lo = f[k] < lo ? f[k] : lo, hi = f[k] > hi ? f[k] : hi;
  }
  assert_true(lo < 0.05f && hi > 0.95f); /* spread over [0, 1) */
  filled("f64[1000]=rand:3", d);
  for (int k = 0; k < 1000; k++) assert_true(d[k] >= 0 && d[k] < 1);
  filled("i32[1000]=rand:4", i);
  int seen[ARGSPEC_RAND_INTS] = {0};
  for (int k = 0; k < 1000; k++) {
    assert_true(i[k] >= 0 && i[k] < ARGSPEC_RAND_INTS);
    seen[i[k]] = 1;
  }
  int distinct = 0;
  for (int k = 0; k < ARGSPEC_RAND_INTS; k++) distinct += seen[k];
  assert_true(distinct > 90);
  filled("i64[1000]=rand:4", l);
  for (int k = 0; k < 1000; k++) assert_true(l[k] == i[k]); /* same stream, any int type */
  /* A prefix does not depend on N: element k is the k-th number of the seed's stream. */
  filled("i32[10]=rand:4", i + 500);
  assert_memory_equal(i, i + 500, 10 * sizeof *i);
}

static void test_fill_file(void **state) {
  (void)state;
  char path[] = "/tmp/weft_argspec_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  uint16_t data[5] = {1, 2, 3, 0xfffe, 5}, got[5];
  assert_int_equal(write(fd, data, sizeof data), sizeof data);
  close(fd);
  char text[128];
  snprintf(text, sizeof text, "u16[5]=file:%s", path);
  filled(text, got);
  assert_memory_equal(got, data, sizeof data);

  argspec s;
  char buf[64];
  snprintf(text, sizeof text, "u16[4]=file:%s", path);
  s = parse_ok(text);
  assert_int_equal(argspec_fill(&s, buf, err, sizeof err), -1);
  assert_non_null(strstr(err, "has 10 bytes but u16[4] needs 8"));
  snprintf(text, sizeof text, "u32[3]=file:%s", path);
  s = parse_ok(text);
  assert_int_equal(argspec_fill(&s, buf, err, sizeof err), -1);
  assert_non_null(strstr(err, "needs 12"));
  unlink(path);
  s = parse_ok("u8[1]=file:/nonexistent/weft");
  assert_int_equal(argspec_fill(&s, buf, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot open '/nonexistent/weft'"));
  s = parse_ok("u8[1]=file:/tmp"); /* not "has 9223372036854775807 bytes" */
  assert_int_equal(argspec_fill(&s, buf, err, sizeof err), -1);
  assert_non_null(strstr(err, "'/tmp' is a directory"));
}

static weft_arg_info info(weft_arg_kind kind, weft_type type, unsigned width, size_t size) {
  return (weft_arg_info){.name = "x",
                         .type_name = "T",
                         .kind = kind,
                         .type = type,
                         .vector_width = width,
                         .size = size};
}

static int check(const char *text, weft_arg_info in) {
  argspec s = parse_ok(text);
  return argspec_check(&s, 3, &in, err, sizeof err);
}

static void test_check(void **state) {
  (void)state;
  assert_int_equal(check("i32:1", info(WEFT_ARG_VALUE, WEFT_I32, 1, 4)), 0);
  assert_int_equal(check("f32:1,2,3,4", info(WEFT_ARG_VALUE, WEFT_F32, 4, 16)), 0);
  assert_int_equal(check("f32[8]=zero", info(WEFT_ARG_GLOBAL, WEFT_F32, 1, 4)), 0);
  assert_int_equal(check("f32[8]=zero", info(WEFT_ARG_CONSTANT, WEFT_F32, 1, 4)), 0);
  assert_int_equal(check("f32[8]=zero", info(WEFT_ARG_GLOBAL, WEFT_F32, 4, 16)), 0);
  assert_int_equal(check("u8[8]=zero", info(WEFT_ARG_GLOBAL, WEFT_OTHER, 1, 0)), 0);
  assert_int_equal(check("local:i32[8]", info(WEFT_ARG_LOCAL, WEFT_I32, 1, 4)), 0);

  assert_int_equal(check("i32:1", info(WEFT_ARG_GLOBAL, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "gives a value (TYPE:VALUE) but parameter 3 'x' (T) is a __global"));
  assert_int_equal(check("i32[4]=zero", info(WEFT_ARG_VALUE, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "is a value"));
  assert_int_equal(check("i32[4]=zero", info(WEFT_ARG_LOCAL, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "is a __local buffer"));
  assert_int_equal(check("local:i32[4]", info(WEFT_ARG_GLOBAL, WEFT_I32, 1, 4)), -1);
  assert_int_equal(check("u32:1", info(WEFT_ARG_VALUE, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "gives u32 but parameter 3 'x' (T) has i32"));
  assert_int_equal(check("f64[4]=zero", info(WEFT_ARG_GLOBAL, WEFT_F32, 1, 4)), -1);
  assert_int_equal(check("f32:1", info(WEFT_ARG_VALUE, WEFT_F32, 4, 16)), -1);
  assert_non_null(strstr(err, "gives 1 value but parameter 3 'x' (T) needs 4"));
  assert_int_equal(check("f32[6]=zero", info(WEFT_ARG_GLOBAL, WEFT_F32, 4, 16)), -1);
  assert_non_null(strstr(err, "24 bytes are not a whole number"));
  assert_int_equal(check("i32:1", info(WEFT_ARG_VALUE, WEFT_OTHER, 1, 8)), -1);
  assert_non_null(strstr(err, "parameter 3 'x' (T) is a struct: give its fields"));
  assert_int_equal(check("{i32:1,f32:2}", info(WEFT_ARG_VALUE, WEFT_OTHER, 1, 8)), 0);
  assert_int_equal(check("{i32:1}", info(WEFT_ARG_VALUE, WEFT_OTHER, 1, 8)), -1);
  assert_non_null(strstr(err, "gives a struct of 4 bytes but parameter 3 'x' (T) has 8"));
  assert_int_equal(check("{i32:1}", info(WEFT_ARG_VALUE, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "gives a struct but parameter 3 'x' (T) is not one"));
  assert_int_equal(check("{i32:1}", info(WEFT_ARG_GLOBAL, WEFT_I32, 1, 4)), -1);
  assert_non_null(strstr(err, "gives a struct ({TYPE:VALUE,...}) but"));
}

/* A struct's fields go where C puts them: each at a multiple of its size, the whole padded to
 * a multiple of its largest field. */
static void test_structs(void **state) {
  (void)state;
  struct {
    int8_t a;
    int32_t b;
    int8_t c;
  } s3 = {-1, 70000, 3}, got3;
  argspec s = parse_ok("{i8:-1,i32:70000,i8:3}");
  assert_int_equal(s.kind, ARGSPEC_STRUCT);
  assert_int_equal(s.nvalues, 3);
  assert_int_equal(argspec_bytes(&s), sizeof s3);
  memset(&got3, 0, sizeof got3);
  memcpy(&got3, s.value, sizeof got3);
  assert_true(got3.a == s3.a && got3.b == s3.b && got3.c == s3.c);
  struct {
    float f;
    double d;
    uint16_t u;
  } s2 = {0.5f, -2.25, 65535}, got2;
  s = parse_ok("{f32:0.5,f64:-2.25,u16:65535}");
  assert_int_equal(argspec_bytes(&s), sizeof s2);
  memcpy(&got2, s.value, sizeof got2);
  assert_true(got2.f == s2.f && got2.d == s2.d && got2.u == s2.u);
  parse_bad("{i32:1", "missing '}'");
  parse_bad("{}", "at least one field");
  parse_bad("{i32}", "field 0 'i32' is not TYPE:VALUE");
  parse_bad("{i32:1,,}", "field 1 '' is not TYPE:VALUE");
  parse_bad("{u8:256}", "out of range for u8");
  parse_bad("{x32:1}", "unknown type 'x32'");
  char big[1024] = "{";
  for (int i = 0; i < 33; i++) strcat(big, i ? ",f64:1" : "f64:1");
  parse_bad(strcat(big, "}"), "more than 256 bytes");
}

static void test_dims(void **state) {
  (void)state;
  size_t v[3];
  unsigned dims;
  assert_int_equal(argspec_parse_dims("1024", v, &dims, err, sizeof err), 0);
  assert_int_equal(dims, 1);
  assert_true(v[0] == 1024 && v[1] == 1 && v[2] == 1);
  assert_int_equal(argspec_parse_dims("1024,768", v, &dims, err, sizeof err), 0);
  assert_true(dims == 2 && v[0] == 1024 && v[1] == 768 && v[2] == 1);
  assert_int_equal(argspec_parse_dims("2,3,4", v, &dims, err, sizeof err), 0);
  assert_true(dims == 3 && v[0] == 2 && v[1] == 3 && v[2] == 4);
  const struct {
    const char *text, *why;
  } bad[] = {
      {"", "missing size"},        {"0", "size of 0"},      {"4,0", "size of 0"},
      {"1,2,3,4", "more than 3"},  {"4,", "missing size"},  {",4", "missing size"},
      {"x", "not a decimal"},      {"-4", "not a decimal"}, {"4x4", "not a decimal"},
      {"8589934592", "too large"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (!argspec_parse_dims(bad[i].text, v, &dims, err, sizeof err))
      fail_msg("'%s' parsed", bad[i].text);
    if (!strstr(err, bad[i].why)) fail_msg("'%s': '%s' lacks '%s'", bad[i].text, err, bad[i].why);
  }
}

static void test_out(void **state) {
  (void)state;
  unsigned i;
  const char *path;
  assert_int_equal(argspec_parse_out("2=out/a=b.bin", &i, &path, err, sizeof err), 0);
  assert_int_equal(i, 2);
  assert_string_equal(path, "out/a=b.bin");
  assert_int_equal(argspec_parse_out("out.bin", &i, &path, err, sizeof err), -1);
  assert_non_null(strstr(err, "expected I=PATH"));
  assert_int_equal(argspec_parse_out("1=", &i, &path, err, sizeof err), -1);
  assert_non_null(strstr(err, "missing path"));
  assert_int_equal(argspec_parse_out("=x", &i, &path, err, sizeof err), -1);
  assert_int_equal(argspec_parse_out("a=x", &i, &path, err, sizeof err), -1);
  assert_non_null(strstr(err, "not a decimal"));
}

static void test_defaults(void **state) {
  (void)state;
  unsigned *lines = NULL;
  char *d = argspec_defaults("__kernel void k() {}\n", &lines);
  assert_null(d);
  assert_null(lines);
  d = argspec_defaults("// weft-run: -g 16 --stats\n"
                       "/* weft-run: not this */\n"
                       "   // weft-run:--arg i32[16]=zero\n"
                       "// weft-runs: nor this\n"
                       "x // weft-run: nor this\n"
                       "\t// weft-run: -l 4", /* no final newline */
                       &lines);
  assert_non_null(d);
  assert_string_equal(d, " -g 16 --stats\n--arg i32[16]=zero\n -l 4");
  assert_int_equal(lines[0], 1); /* the line numbers, for messages */
  assert_int_equal(lines[1], 3);
  assert_int_equal(lines[2], 6);
  free(lines);
  char *words[8];
  int n = argspec_split(d, words, 8);
  assert_int_equal(n, 7);
  const char *want[] = {"-g", "16", "--stats", "--arg", "i32[16]=zero", "-l", "4"};
  for (int k = 0; k < n; k++) assert_string_equal(words[k], want[k]);
  free(d);

  d = argspec_defaults("// weft-run: -g 1\r\n", NULL);
  n = argspec_split(d, words, 8); /* a CRLF file: the \r is a blank, not part of "1" */
  assert_int_equal(n, 2);
  assert_string_equal(words[1], "1");
  free(d);
}

static void test_split(void **state) {
  (void)state;
  char line[] = "  a\tbb  c  ", none[] = " \t ", over[] = "a b c";
  char *w[3];
  assert_int_equal(argspec_split(line, w, 3), 3);
  assert_string_equal(w[0], "a");
  assert_string_equal(w[1], "bb");
  assert_string_equal(w[2], "c");
  assert_int_equal(argspec_split(none, w, 3), 0);
  assert_int_equal(argspec_split(over, w, 2), -1);
  char quoted[] = "--build-options \"-DA=1 -DB=2\"";
  assert_int_equal(argspec_split(quoted, w, 3), 3); /* no quoting: documented */
  assert_string_equal(w[1], "\"-DA=1");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_types),         cmocka_unit_test(test_kind_names),
      cmocka_unit_test(test_scalars),       cmocka_unit_test(test_scalar_errors),
      cmocka_unit_test(test_vectors),       cmocka_unit_test(test_buffers),
      cmocka_unit_test(test_buffer_errors), cmocka_unit_test(test_fill),
      cmocka_unit_test(test_rand),          cmocka_unit_test(test_fill_file),
      cmocka_unit_test(test_check),         cmocka_unit_test(test_structs),
      cmocka_unit_test(test_dims),          cmocka_unit_test(test_out),
      cmocka_unit_test(test_defaults),      cmocka_unit_test(test_split),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
