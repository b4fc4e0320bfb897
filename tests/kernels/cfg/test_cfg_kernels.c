/* Kernel tests of `weft cfg`: the reconvergence points of the papers' examples, and the command's
 * errors.
 *
 * usage: test_cfg_kernels WEFT TEACHING_DIR CFG_DIR {ipdom|order|errors|divergence|parts}
 *
 * Each teaching kernel marks where the paper's blocks start with comments like `/ * B * /`. The
 * test runs `weft cfg --json`, finds the block of each marker (the narrowest block whose
 * first_line..last_line contains the marker's line; on a tie the one that starts there) and checks
 * the IPDOM of each branch against the paper: `ipdom` checks the IPDOMs and that no other block is
 * a branch; `order` checks the source-like PC layout (the `then` side before the `else` side, the
 * reconvergence point after the branch); `errors` checks exit codes and messages; `parts` checks
 * where long warp functions are cut (never inside a loop). */
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../weft_cli.h"

static const char *weft, *teaching_dir, *cfg_dir; /* from the command line */

/* --- running weft --- */

static run weft_cfg(const char *args) { return weft_cli(weft, "cfg", args); }

/* --- the JSON of one kernel, parsed just enough --- */

#define MAX_BLOCKS 64
typedef struct block {
  int first_line, last_line; /* 0: null */
  int ipdom;                 /* -1: null */
  int succs[32], nsuccs;
} block;

static int int_or_null(const char *p, int null) {
  return strncmp(p, "null", 4) == 0 ? null : (int)strtol(p, NULL, 10);
}

static int parse_blocks(const char *json, block *b) {
  int n = 0;
  for (const char *p = strstr(json, "{\"pc\":"); p; p = strstr(p + 1, "{\"pc\":"), n++) {
    assert_true(n < MAX_BLOCKS);
    assert_int_equal(int_or_null(after_key(p, "pc"), -1), n);
    b[n].first_line = int_or_null(after_key(p, "first_line"), 0);
    b[n].last_line = int_or_null(after_key(p, "last_line"), 0);
    b[n].ipdom = int_or_null(after_key(p, "ipdom"), -1);
    b[n].nsuccs = 0;
    for (const char *q = after_key(p, "succs") + 1; *q != ']'; q++)
      if (isdigit((unsigned char)*q)) {
        assert_true(b[n].nsuccs < 32);
        b[n].succs[b[n].nsuccs++] = (int)strtol(q, (char **)&q, 10), q--;
      }
  }
  return n;
}

/* The first PC of each part, from "parts": [...]; returns how many. */
static int parse_parts(const char *json, int *first, int max) {
  int n = 0;
  for (const char *q = after_key(json, "parts") + 1; *q != ']'; q++)
    if (isdigit((unsigned char)*q)) {
      assert_true(n < max);
      first[n++] = (int)strtol(q, (char **)&q, 10), q--;
    }
  return n;
}

/* --- markers in the source --- */

typedef struct kernel_cfg {
  int nblocks;
  block blocks[MAX_BLOCKS];
  int marker_line[26]; /* by letter; 0: no such marker */
} kernel_cfg;

static void read_markers(const char *path, kernel_cfg *k) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open %s", path);
  char line[512];
  for (int no = 1; fgets(line, sizeof line, f); no++)
    for (char *p = strstr(line, "/* "); p; p = strstr(p + 1, "/* "))
      if (isupper((unsigned char)p[3]) && strncmp(p + 4, " */", 3) == 0) {
        assert_int_equal(k->marker_line[p[3] - 'A'], 0); /* each letter once */
        k->marker_line[p[3] - 'A'] = no;
      }
  fclose(f);
}

/* `weft cfg --json` on dir/file, which must succeed. */
static run cfg_json(const char *dir, const char *file) {
  char args[1200];
  snprintf(args, sizeof args, "'%s/%s' --json", dir, file);
  run r = weft_cfg(args);
  if (r.status != 0) fail_msg("weft cfg %s/%s exited with %d: %s", dir, file, r.status, r.err);
  return r;
}

static void load(const char *dir, const char *file, kernel_cfg *k) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  memset(k, 0, sizeof *k);
  run r = cfg_json(dir, file);
  k->nblocks = parse_blocks(r.out, k->blocks);
  assert_true(k->nblocks > 0);
  run_free(&r);
  read_markers(path, k);
}

/* How well block b matches a marker on `line`: narrower first, then starting on the line. */
static int match_rank(const block *b, int line) {
  return 2 * (b->last_line - b->first_line) + (b->first_line != line);
}

/* PC of the block that marker `letter` names. */
static int pc_of(const kernel_cfg *k, char letter) {
  int line = k->marker_line[letter - 'A'], best = -1, ties = 0;
  if (!line) fail_msg("no /* %c */ marker", letter);
  for (int pc = 0; pc < k->nblocks; pc++) {
    const block *b = &k->blocks[pc];
    if (!b->first_line || line < b->first_line || line > b->last_line) continue;
    int rank = match_rank(b, line), best_rank = best < 0 ? -1 : match_rank(&k->blocks[best], line);
    if (best >= 0 && rank == best_rank) ties++;
    if (best < 0 || rank < best_rank) best = pc, ties = 0;
  }
  if (best < 0) fail_msg("no block contains marker %c (line %d)", letter, line);
  if (ties) fail_msg("marker %c (line %d) is in several blocks alike", letter, line);
  return best;
}

/* --- the papers' reconvergence points --- */

typedef struct paper_kernel {
  const char *file;
  const char *markers;    /* every paper block, each must be a block of its own */
  const char *ipdoms[4];  /* "XY": the branch ending block X reconverges at Y */
  const char *then_else[4]; /* "XYZ": X branches to Y (then) and Z (else) */
} paper_kernel;

static const paper_kernel papers[] = {
    {"mp_fig2.cl", "ABCD", {"AD"}, {"ABC"}},
    {"mp_fig6.cl", "ABCDEFG", {"AG", "CF"}, {"ABC", "CDE"}},
    {"mp_fig10.cl", "ABCD", {"AD", "CD"}, {"ABC", "CAD"}},
    {"collange_table2.cl", "ABCD", {"AD"}, {"ABC"}},
    /* weft rotates loops (a guard, then the body with the test at its end), so f's loop test F
     * is the guard ending B's block (to L or R) and the end of L's block (back to L or on to R) */
    {"collange_listing1.cl", "ABCLR", {"AC", "BR", "LR"}, {"ABC", "BLR", "LLR"}},
};

static void check_distinct(const kernel_cfg *k, const char *markers) {
  for (const char *x = markers; *x; x++)
    for (const char *y = x + 1; *y; y++)
      if (pc_of(k, *x) == pc_of(k, *y)) fail_msg("blocks %c and %c are one block", *x, *y);
}

static void check_ipdoms(const paper_kernel *p) {
  kernel_cfg k;
  load(teaching_dir, p->file, &k);
  check_distinct(&k, p->markers);
  int nbranches = 0;
  for (int pc = 0; pc < k.nblocks; pc++) nbranches += k.blocks[pc].ipdom >= 0;
  int n = 0;
  for (; n < 4 && p->ipdoms[n]; n++) {
    const char *e = p->ipdoms[n];
    int got = k.blocks[pc_of(&k, e[0])].ipdom;
    if (got != pc_of(&k, e[1]))
      fail_msg("%s: branch %c (B%d) reconverges at B%d, the paper says %c (B%d)", p->file, e[0],
               pc_of(&k, e[0]), got, e[1], pc_of(&k, e[1]));
  }
  if (nbranches != n) fail_msg("%s: %d branches, the paper has %d", p->file, nbranches, n);
}

static void check_order(const paper_kernel *p) {
  kernel_cfg k;
  load(teaching_dir, p->file, &k);
  for (int i = 0; i < 4 && p->then_else[i]; i++) {
    const char *e = p->then_else[i];
    int br = pc_of(&k, e[0]), then = pc_of(&k, e[1]), els = pc_of(&k, e[2]);
    if (then > br && then >= els) /* a `then` that loops back (CAD) is a back edge: skip it */
      fail_msg("%s: `then` side %c (B%d) is laid out after `else` side %c (B%d)", p->file, e[1],
               then, e[2], els);
    assert_true(k.blocks[br].ipdom > br);
  }
}

static void mp_fig2(void **s) { (void)s, check_ipdoms(&papers[0]); }
static void mp_fig6(void **s) { (void)s, check_ipdoms(&papers[1]); }
static void mp_fig10(void **s) { (void)s, check_ipdoms(&papers[2]); }
static void collange_table2(void **s) { (void)s, check_ipdoms(&papers[3]); }
static void collange_listing1(void **s) { (void)s, check_ipdoms(&papers[4]); }

static void order_mp_fig2(void **s) { (void)s, check_order(&papers[0]); }
static void order_mp_fig6(void **s) { (void)s, check_order(&papers[1]); }
static void order_mp_fig10(void **s) { (void)s, check_order(&papers[2]); }
static void order_collange_table2(void **s) { (void)s, check_order(&papers[3]); }
static void order_collange_listing1(void **s) { (void)s, check_order(&papers[4]); }

/* if (id != 1), if (x >= 3), if (x & 1): conditions that LLVM's instcombine likes to invert. */
static void order_inverted_conditions(void **s) {
  (void)s;
  kernel_cfg k;
  load(cfg_dir, "then_before_else.cl", &k);
  static const char *const branches[] = {"ABC", "DEF", "GHI"};
  for (int i = 0; i < 3; i++) {
    int then = pc_of(&k, branches[i][1]), els = pc_of(&k, branches[i][2]);
    if (then >= els)
      fail_msg("then_before_else.cl: `then` side %c (B%d) is laid out after `else` side %c (B%d)",
               branches[i][1], then, branches[i][2], els);
  }
}

/* --- divergence --- */

/* `weft cfg --divergence` of ../FILE, a kernel of the suite. */
static run divergence_of_kernel(const char *file) {
  char args[1200];
  snprintf(args, sizeof args, "'%s/../%s' --divergence", cfg_dir, file);
  run r = weft_cfg(args);
  assert_int_equal(r.status, 0);
  return r;
}

/* Of the lines of out that contain `what`, how many there are (*n) and how many of those have
 * the divergence fact `fact` ("  affine (+4) "). */
static int lines_with(const char *out, const char *what, const char *fact, int *n) {
  int with = 0;
  *n = 0;
  for (const char *line = out; *line;) {
    const char *eol = strchr(line, '\n');
    int len = eol ? (int)(eol - line) : (int)strlen(line);
    if (memmem(line, (size_t)len, what, strlen(what)))
      ++*n, with += !strncmp(line, fact, strlen(fact));
    line += len + (eol != NULL);
  }
  return with;
}

/* ../int_indexes.cl: every address from an int or uint index of an id is lane-affine with the
 * element's size as stride (a uniform base aside), which is what makes its accesses packed. */
static void int_and_uint_indexes_are_affine(void **s) {
  (void)s;
  run r = divergence_of_kernel("int_indexes.cl");
  int geps, uniform = lines_with(r.out, "getelementptr", "  uniform ", &geps);
  int affine = lines_with(r.out, "getelementptr", "  affine (+4) ", &geps);
  if (geps - uniform != 5 || affine != 5)
    fail_msg("%d of %d addresses not uniform, %d lane-affine by 4 bytes; 5 expected:\n%s",
             geps - uniform, geps, affine, r.out);
  run_free(&r);
}

/* ../grid_stride.cl: the index phi of a grid-stride loop (i = gid; i += gs) is lane-affine, and
 * so is the address of in[i]: its loads are packed, not gathered. j's phi, which starts uniform
 * and steps by gid, is varying. */
static void grid_stride_index_is_affine(void **s) {
  (void)s;
  run r = divergence_of_kernel("grid_stride.cl");
  int phis, affine = lines_with(r.out, "= phi i32", "  affine (+1) ", &phis);
  assert_int_equal(phis, 5); /* i, k, j, acc and acc after its loop */
  assert_int_equal(affine, 1);
  assert_non_null(strstr(r.out, "  affine (+4) %"));
  run_free(&r);
}

/* ../loop_break_carried.cl: the loop's counter k is uniform inside the loop, which lanes leave
 * at different trips (a varying break), so its test at the latch is a uniform branch; the phi
 * after the loop that holds each lane's k as it left is varying. */
static void loop_counter_is_uniform_until_the_exit(void **s) {
  (void)s;
  run r = divergence_of_kernel("loop_break_carried.cl");
  int phis, uniform = lines_with(r.out, "= phi i32", "  uniform ", &phis);
  if (phis != 5 || uniform != 1) /* k, s, x in the loop; s and k after it */
    fail_msg("%d of %d phis uniform; only k's in the loop expected:\n%s", uniform, phis, r.out);
  const char *latch = strstr(r.out, "\nB2");
  assert_non_null(latch);
  assert_true(!strncmp(latch, "\nB2\n", 4)); /* not "B2  (varying branch)" */
  run_free(&r);
}

/* --- parts of the warp function --- */

/* The cuts of one kernel's JSON object: none inside a loop (no back edge spans one). Returns
 * the number of parts. */
static int check_kernel_cuts(const char *file, char *json) {
  block b[MAX_BLOCKS];
  int first[8] = {0}, n = parse_blocks(json, b), nparts = parse_parts(json, first, 8);
  assert_true(nparts >= 1);
  assert_int_equal(first[0], 0);
  for (int p = 1; p < nparts; p++) {
    assert_true(first[p] > first[p - 1] && first[p] < n);
    for (int u = 0; u < n; u++)
      for (int s = 0; s < b[u].nsuccs; s++)
        if (b[u].succs[s] <= u && b[u].succs[s] < first[p] && first[p] <= u)
          fail_msg("%s: the cut before B%d is inside the loop B%d..B%d", file, first[p],
                   b[u].succs[s], u);
  }
  return nparts;
}

/* `weft cfg --json` on dir/file, one object per kernel: the largest number of parts. */
static int check_cuts(const char *dir, const char *file) {
  run r = cfg_json(dir, file);
  int most = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    int n = check_kernel_cuts(file, line);
    most = n > most ? n : most;
  }
  run_free(&r);
  return most;
}

/* ../parts.cl, a kernel of the suite written to be cut: three parts, the cuts between its loops. */
static void long_kernel_is_cut_between_loops(void **s) {
  (void)s;
  assert_int_equal(check_cuts(cfg_dir, "../parts.cl"), 3);
}

/* ../parts_static_local.cl and ../parts_uniform.cl are cut too: static __local arrays live
 * across the cut; warps that never diverge end in the last part and chain back to the first. */
static void static_locals_and_chains_cross_a_cut(void **s) {
  (void)s;
  assert_int_equal(check_cuts(cfg_dir, "../parts_static_local.cl"), 2);
  assert_int_equal(check_cuts(cfg_dir, "../parts_uniform.cl"), 2);
}

static void small_kernel_is_one_part(void **s) {
  (void)s;
  assert_int_equal(check_cuts(teaching_dir, "mp_fig2.cl"), 1);
}

/* ../helper_both_sides.cl calls a helper with a loop on both sides of a branch: fused into one
 * call (fuse_calls.c), the kernel holds the loop once, not once per side. */
static void calls_on_both_sides_are_fused(void **s) {
  (void)s;
  run r = cfg_json(cfg_dir, "../helper_both_sides.cl");
  block b[MAX_BLOCKS];
  int n = parse_blocks(r.out, b), back_edges = 0;
  for (int pc = 0; pc < n; pc++)
    for (int k = 0; k < b[pc].nsuccs; k++) back_edges += b[pc].succs[k] <= pc;
  run_free(&r);
  assert_int_equal(back_edges, 1);
}

/* ../early_return_in_loop.cl: the branch of a helper's early return (marker H), inlined into a
 * loop that the caller leaves on the helper's result, reconverges inside the loop (some back
 * edge u -> v spans its IPDOM), not at the loop's exit: no jump is threaded past the helper's
 * end (frontend.c). */
static void helper_return_reconverges_in_loop(void **s) {
  (void)s;
  kernel_cfg k;
  load(cfg_dir, "../early_return_in_loop.cl", &k);
  int r = k.blocks[pc_of(&k, 'H')].ipdom, inside = 0;
  for (int u = 0; u < k.nblocks; u++)
    for (int j = 0; j < k.blocks[u].nsuccs; j++) inside |= k.blocks[u].succs[j] <= r && r <= u;
  assert_true(r >= 0 && inside);
}

/* The kernels of the `pc` bug in tests/fuzz/found (README.md): a helper inlined after a loop
 * brings the earlier lines of its definition, and lines alone numbered the loop's exit before
 * its body, so `pc` ran lanes that had left the loop on before the others. A loop's header
 * branch must reconverge after the loop's last block (the source of its back edge). */
static void loop_exits_come_after_the_loop(void **s) {
  (void)s;
  const char *files[] = {"../../fuzz/found/seed-256.cl", "../../fuzz/found/seed-170.cl"};
  for (int f = 0; f < 2; f++) {
    kernel_cfg k;
    load(cfg_dir, files[f], &k);
    int loops = 0;
    for (int u = 0; u < k.nblocks; u++)
      for (int j = 0; j < k.blocks[u].nsuccs; j++) {
        int v = k.blocks[u].succs[j];
        if (v > u || k.blocks[v].ipdom < 0) continue;
        loops++;
        if (k.blocks[v].ipdom <= u)
          fail_msg("%s: the loop B%d..B%d is left at B%d, inside it", files[f], v, u,
                   k.blocks[v].ipdom);
      }
    assert_true(loops >= 1);
  }
}

/* Every kernel of the suite and every sample. */
static void no_cut_is_inside_a_loop(void **s) {
  (void)s;
  char samples[1100], suite[1100];
  snprintf(samples, sizeof samples, "%s/..", teaching_dir);
  snprintf(suite, sizeof suite, "%s/..", cfg_dir);
  const char *dirs[] = {samples, suite, teaching_dir};
  int kernels = 0, cut = 0;
  for (int d = 0; d < 3; d++) {
    DIR *dir = opendir(dirs[d]);
    assert_non_null(dir);
    for (struct dirent *e; (e = readdir(dir));) {
      size_t len = strlen(e->d_name);
      if (len > 3 && !strcmp(e->d_name + len - 3, ".cl"))
        kernels++, cut += check_cuts(dirs[d], e->d_name) > 1;
    }
    closedir(dir);
  }
  assert_true(kernels >= 40);
  assert_true(cut >= 2);
}

/* --- errors --- */

static void syntax_error(void **s) {
  (void)s;
  char args[1200];
  snprintf(args, sizeof args, "'%s/syntax_error.cl'", cfg_dir);
  run r = weft_cfg(args);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "");
  const char *p = strstr(r.err, "syntax_error.cl:3:");
  if (!p) fail_msg("no syntax_error.cl:3:COL in: %s", r.err);
  p += strlen("syntax_error.cl:3:");
  assert_true(isdigit((unsigned char)*p));
  while (isdigit((unsigned char)*p)) p++;
  assert_true(strncmp(p, ": error", 7) == 0);
  run_free(&r);
}

static void missing_file(void **s) {
  (void)s;
  run r = weft_cfg("/nonexistent/weft-test.cl");
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "");
  assert_non_null(strstr(r.err, "/nonexistent/weft-test.cl"));
  char *nl = strchr(r.err, '\n');
  if (!nl || nl[1]) fail_msg("not one line: '%s'", r.err);
  run_free(&r);
}

static void no_such_kernel(void **s) {
  (void)s;
  char args[1200];
  snprintf(args, sizeof args, "'%s/mp_fig2.cl' -k nosuch", teaching_dir);
  run r = weft_cfg(args);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "");
  assert_non_null(strstr(r.err, "nosuch"));
  run_free(&r);
}

/* -k selects one kernel; the JSON is one object per kernel. */
static void select_kernel(void **s) {
  (void)s;
  char args[1200];
  snprintf(args, sizeof args, "'%s/mp_fig6.cl' -k mp_fig6 --json", teaching_dir);
  run r = weft_cfg(args);
  assert_int_equal(r.status, 0);
  assert_true(strncmp(r.out, "{\"kernel\": \"mp_fig6\"", 20) == 0);
  assert_string_equal(r.err, "");
  run_free(&r);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s WEFT TEACHING_DIR CFG_DIR {ipdom|order|errors|divergence|parts}\n",
            argv[0]);
    return 2;
  }
  weft = argv[1], teaching_dir = argv[2], cfg_dir = argv[3];
  const struct CMUnitTest ipdom[] = {
      cmocka_unit_test(mp_fig2),           cmocka_unit_test(mp_fig6),
      cmocka_unit_test(mp_fig10),          cmocka_unit_test(collange_table2),
      cmocka_unit_test(collange_listing1),
  };
  const struct CMUnitTest order[] = {
      cmocka_unit_test(order_mp_fig2),
      cmocka_unit_test(order_mp_fig6),
      cmocka_unit_test(order_mp_fig10),
      cmocka_unit_test(order_collange_table2),
      cmocka_unit_test(loop_exits_come_after_the_loop),
      cmocka_unit_test(order_collange_listing1),
      cmocka_unit_test(order_inverted_conditions),
  };
  const struct CMUnitTest divergence[] = {cmocka_unit_test(int_and_uint_indexes_are_affine),
                                          cmocka_unit_test(loop_counter_is_uniform_until_the_exit),
                                          cmocka_unit_test(grid_stride_index_is_affine),
                                          cmocka_unit_test(calls_on_both_sides_are_fused),
                                          cmocka_unit_test(helper_return_reconverges_in_loop)};
  const struct CMUnitTest parts[] = {
      cmocka_unit_test(long_kernel_is_cut_between_loops),
      cmocka_unit_test(static_locals_and_chains_cross_a_cut),
      cmocka_unit_test(small_kernel_is_one_part),
      cmocka_unit_test(no_cut_is_inside_a_loop),
  };
  const struct CMUnitTest errors[] = {
      cmocka_unit_test(syntax_error),
      cmocka_unit_test(missing_file),
      cmocka_unit_test(no_such_kernel),
      cmocka_unit_test(select_kernel),
  };
  if (!strcmp(argv[4], "ipdom")) return cmocka_run_group_tests_name("ipdom", ipdom, NULL, NULL);
  if (!strcmp(argv[4], "order")) return cmocka_run_group_tests_name("order", order, NULL, NULL);
  if (!strcmp(argv[4], "errors")) return cmocka_run_group_tests_name("errors", errors, NULL, NULL);
  if (!strcmp(argv[4], "parts")) return cmocka_run_group_tests_name("parts", parts, NULL, NULL);
  if (!strcmp(argv[4], "divergence"))
    return cmocka_run_group_tests_name("divergence", divergence, NULL, NULL);
  fprintf(stderr, "%s: unknown group '%s'\n", argv[0], argv[4]);
  return 2;
}
