/* Golden tests of `weft trace`: the papers' examples (samples/teaching) traced with the papers'
 * warp sizes, step by step, against what the papers' figures show.
 *
 * usage: test_trace_kernels WEFT TEACHING_DIR {stack|mp|mp-orec|pc|bcc}
 *
 * Each test runs `weft trace --format json` and turns every step into the papers' notation: the
 * block as the paper's letter (a table per kernel maps weft's PCs to letters, as `weft cfg`
 * numbers the blocks; tests/kernels/cfg checks that layout), the mask with thread 0 rightmost,
 * the event, and the policy's state after the step:
 *   stack    the entries top first, each BLOCK MASK > RPC, e.g. "B0101>D C1010>D D1111>$"
 *   mp       "ST slot:BLOCK MASK > RPC ... | RT slot:PC RECONV/PENDING > RPC ...", valid
 *            entries in slot order, as the MP paper's Figures 5, 6(b) and 11 draw the tables
 *   pc       every lane's PC, lane 0 first as in Collange's Table 2, e.g. "BBCC"
 * where $ is the kernel's end. The expectations are the figures' steps; where weft's schedule
 * differs from the one the paper chose (MP IPDOM allows any), the comment says how. That
 * tracing changes neither results nor stats is tests/unit/test_trace_api.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../weft_cli.h"

static const char *weft, *teaching_dir; /* from the command line */

/* --- one step of weft's JSON, in the papers' notation --- */

#define MAX_STEPS 64
typedef struct step {
  char block[16];  /* "A", or "C..A" for a step that jumped back inline */
  char mask[65];
  char event[32];
  char state[512];
  unsigned pc, groups_run, groups_skipped;
} step;

typedef struct trace {
  const char *letters; /* the paper's letter of PC i; lower case: a block the paper has not */
  int n;
  step s[MAX_STEPS];
} trace;

static unsigned int_at(const char *s, const char *key) {
  return (unsigned)strtoul(after_key(s, key), NULL, 10);
}

/* A string value (no escapes in weft's masks and event names). */
static void str_at(const char *s, const char *key, char *buf, size_t n) {
  const char *p = after_key(s, key) + 1, *end = strchr(p, '"');
  assert_non_null(end);
  snprintf(buf, n, "%.*s", (int)(end - p), p);
}

static char letter(const trace *t, const char *obj, const char *key) {
  const char *p = after_key(obj, key);
  if (!strncmp(p, "null", 4)) return '-';
  unsigned pc = (unsigned)strtoul(p, NULL, 10);
  return pc < strlen(t->letters) ? t->letters[pc] : '$';
}

/* obj: each flat object of the JSON array after `key` in s. */
#define FOR_OBJECTS(s, key, obj)                                                                 \
  for (const char *obj = strchr(after_key(s, key), '{'), *end_ = strchr(after_key(s, key), ']'); \
       obj && obj < end_; obj = strchr(obj + 1, '{'))

static void put(char *buf, size_t n, const char *fmt, ...) {
  size_t len = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, n - len, fmt, ap);
  va_end(ap);
}

static void stack_state(const trace *t, const char *st, char *out, size_t n) {
  char m[65];
  FOR_OBJECTS(st, "entries", e) {
    str_at(e, "mask", m, sizeof m);
    put(out, n, "%s%c%s>%c", *out ? " " : "", letter(t, e, "pc"), m, letter(t, e, "rpc"));
  }
}

static void mp_state(const trace *t, const char *st, char *out, size_t n) {
  char m[65], p[65];
  put(out, n, "ST");
  FOR_OBJECTS(st, "split_table", e) {
    str_at(e, "mask", m, sizeof m);
    put(out, n, " %u:%c%s>%c", int_at(e, "slot"), letter(t, e, "pc"), m, letter(t, e, "rpc"));
  }
  put(out, n, " | RT");
  FOR_OBJECTS(st, "reconvergence_table", e) {
    str_at(e, "reconv", m, sizeof m);
    str_at(e, "pending", p, sizeof p);
    put(out, n, " %u:%c%s/%s>%c", int_at(e, "slot"), letter(t, e, "pc"), m, p, letter(t, e, "rpc"));
  }
}

static void pc_state(const trace *t, const char *st, char *out, size_t n) {
  const char *p = after_key(st, "lane_pc") + 1;
  for (char *end; *p && *p != ']'; p = end + (*end == ',' ? 2 : 0)) {
    unsigned pc = (unsigned)strtoul(p, &end, 10);
    put(out, n, "%c", pc < strlen(t->letters) ? t->letters[pc] : '$');
  }
}

static void parse_step(trace *t, const char *line, step *s) {
  unsigned pc = int_at(line, "pc"), end = int_at(line, "end_pc");
  s->pc = pc;
  if (pc == end) snprintf(s->block, sizeof s->block, "%c", t->letters[pc]);
  else snprintf(s->block, sizeof s->block, "%c..%c", t->letters[pc], t->letters[end]);
  str_at(line, "mask", s->mask, sizeof s->mask);
  str_at(line, "event", s->event, sizeof s->event);
  s->groups_run = int_at(line, "groups_run");
  s->groups_skipped = int_at(line, "groups_skipped");
  const char *st = after_key(line, "state");
  s->state[0] = 0;
  if (strstr(st, "\"entries\"")) stack_state(t, st, s->state, sizeof s->state);
  else if (strstr(st, "\"split_table\"")) mp_state(t, st, s->state, sizeof s->state);
  else pc_state(t, st, s->state, sizeof s->state);
}

/* `weft trace FILE --format json ARGS` on a teaching kernel. */
static void run_trace(trace *t, const char *file, const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s/%s' --format json %s", teaching_dir, file, args);
  run r = weft_cli(weft, "trace", cmd);
  if (r.status != 0) fail_msg("weft trace %s: exit %d: %s", cmd, r.status, r.err);
  t->n = 0;
  for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "{\"step\"", 7)) continue;
    assert_true(t->n < MAX_STEPS);
    parse_step(t, line, &t->s[t->n++]);
  }
  run_free(&r);
}

/* --- expectations --- */

typedef struct expect {
  const char *block, *mask, *event, *state;
} expect;

static void check(const trace *t, const expect *e, int n) {
  for (int i = 0; i < n && i < t->n; i++) {
    const step *s = &t->s[i];
    if (strcmp(s->block, e[i].block) || strcmp(s->mask, e[i].mask) ||
        strcmp(s->event, e[i].event) || strcmp(s->state, e[i].state))
      fail_msg("step %d: weft has\n  %s %s %s | %s\nthe paper\n  %s %s %s | %s", i, s->block,
               s->mask, s->event, s->state, e[i].block, e[i].mask, e[i].event, e[i].state);
  }
  assert_int_equal(t->n, n);
}

#define W4 "--warp 4 --lanes 4 --threads 1"

/* MP paper, Figure 3 (the code of Figure 2) under the single-path stack: A1111 diverges, the
 * diverged entry's PC becomes the RPC D and C1010 and B0101 are pushed (2); B0101 on top runs
 * and pops at D (3); then C1010 (4); D1111 runs reconverged. */
static void mp_fig3_stack(void **state) {
  (void)state;
  trace t = {.letters = "ABCD"}; /* PCs 0-3; 4 is the end */
  static const expect e[] = {
      {"A", "1111", "diverge", "B0101>D C1010>D D1111>$"}, /* (2) */
      {"B", "0101", "execute", "C1010>D D1111>$"},         /* (3) B pops at D */
      {"C", "1010", "reconverge", "D1111>$"},              /* (4) C pops: D1111 */
      {"D", "1111", "exit", ""},
  };
  run_trace(&t, "mp_fig2.cl", "--policy stack " W4);
  check(&t, e, 4);
}

/* MP paper, Figure 5 (the code of Figure 2) under MP IPDOM. (1) A1111 alone in the ST; (2) A
 * moves to the RT at its RPC D with reconvergence and pending mask 1111, B0101 and C1010 enter
 * the ST. The paper's B reaches D first (3) and C second (4), which empties the pending mask, so
 * D1111 moves back to the ST (5). Under --split-order rr weft runs the ready splits round robin
 * from the slot after the one that ran, so C (slot 1) runs before B: its step shows the paper's (3) with B and C
 * swapped, and B's step the paper's (4)-(5). */
static void mp_fig5_mp(void **state) {
  (void)state;
  trace t = {.letters = "ABCD"};
  static const expect e[] = {
      {"A", "1111", "diverge", "ST 0:B0101>D 1:C1010>D | RT 0:D1111/1111>$"}, /* (2) */
      {"C", "1010", "execute", "ST 0:B0101>D | RT 0:D1111/0101>$"},           /* (3), swapped */
      {"B", "0101", "reconverge", "ST 0:D1111>$ | RT"},                       /* (4), (5) */
      {"D", "1111", "exit", "ST | RT"},
  };
  run_trace(&t, "mp_fig2.cl", "--policy mp --split-order rr " W4);
  check(&t, e, 4);
}

/* Figure 5 again in the default order, lowest-pc: B (the lower PC) reaches D first, as the paper
 * draws it, so every step is the figure's: (3) B arrives, D pending 1010; (4)-(5) C arrives,
 * D1111 moves back to the ST. */
static void mp_fig5_mp_lowest_pc(void **state) {
  (void)state;
  trace t = {.letters = "ABCD"};
  static const expect e[] = {
      {"A", "1111", "diverge", "ST 0:B0101>D 1:C1010>D | RT 0:D1111/1111>$"}, /* (2) */
      {"B", "0101", "execute", "ST 1:C1010>D | RT 0:D1111/1010>$"},           /* (3) */
      {"C", "1010", "reconverge", "ST 0:D1111>$ | RT"},                       /* (4), (5) */
      {"D", "1111", "exit", "ST | RT"},
  };
  run_trace(&t, "mp_fig2.cl", "--policy mp " W4);
  check(&t, e, 4);
}

/* MP paper, Figure 6(b): nested divergence under MP IPDOM. (2) as in Figure 5 with RPC G;
 * (3) C1010 diverges: it moves to the RT at F, D0010 and E1000 take the first free ST slots,
 * three parallel paths. The paper then has B reach G (4), E reach F (5), D reach F (6), which
 * moves F1010 to the ST (7), and F reach G (8), which moves G1111 to the ST (9). weft's round
 * robin (--split-order rr) runs E (the slot after C's) before B, so after E's step F is pending 0010 while G is
 * still pending 1111, a state the figure does not draw; after B's step the tables are the
 * figure's (5), after D's (7), after F's (9). */
static void mp_fig6_mp(void **state) {
  (void)state;
  trace t = {.letters = "ABCDEFG"};
  static const expect e[] = {
      {"A", "1111", "diverge", "ST 0:B0101>G 1:C1010>G | RT 0:G1111/1111>$"},   /* (2) */
      {"C", "1010", "diverge",
       "ST 0:B0101>G 1:D0010>F 2:E1000>F | RT 0:G1111/1111>$ 1:F1010/1010>G"},   /* (3) */
      {"E", "1000", "execute", "ST 0:B0101>G 1:D0010>F | RT 0:G1111/1111>$ 1:F1010/0010>G"},
      {"B", "0101", "execute", "ST 1:D0010>F | RT 0:G1111/1010>$ 1:F1010/0010>G"}, /* (5) */
      {"D", "0010", "reconverge", "ST 0:F1010>G | RT 0:G1111/1010>$"},            /* (6), (7) */
      {"F", "1010", "reconverge", "ST 0:G1111>$ | RT"},                           /* (8), (9) */
      {"G", "1111", "exit", "ST | RT"},
  };
  run_trace(&t, "mp_fig6.cl", "--policy mp --split-order rr " W4);
  check(&t, e, 7);
}

/* MP paper, Figure 11 (the loop of Figure 10) under mp-orec. A1111 diverges into B1010 and
 * C0101, both with RPC D (the figure's (1)). The C split loops back to A (one step: C..A, the
 * back edge stays inline) and goes on to B, where B1010 still waits: mp-orec published B as the
 * C split's guard, so the generated code returns there and the policy merges the two splits at
 * the same PC with the same RPC into B1111, an early reconvergence (the figure's (2)-(4), at
 * block granularity: no B_R entry appears in the RT). B then runs once for the whole warp and
 * reaches D. Block 'e' is the code before the loop, 'x' the loop's exit edge. Round robin
 * (--split-order rr) runs C first; the lowest PC would run B to D before C comes round. */
static void mp_fig11_orec(void **state) {
  (void)state;
  trace t = {.letters = "eABCxD"};
  static const expect e[] = {
      {"e", "1111", "execute", "ST 0:e1111>$ | RT"},
      {"A", "1111", "diverge", "ST 0:B1010>D 1:C0101>D | RT 0:D1111/1111>$"}, /* (1) */
      {"C..A", "0101", "early reconvergence", "ST 0:B1111>D | RT 0:D1111/1111>$"}, /* (2)-(4) */
      {"B", "1111", "reconverge", "ST 0:D1111>$ | RT"},
      {"D", "1111", "exit", "ST | RT"},
  };
  run_trace(&t, "mp_fig10.cl", "--policy mp-orec --split-order rr " W4);
  check(&t, e, 5);
}

/* The same loop under plain mp: no early reconvergence, B runs twice (B1010 and B0101). */
static void mp_fig10_mp(void **state) {
  (void)state;
  trace t = {.letters = "eABCxD"};
  run_trace(&t, "mp_fig10.cl", "--policy mp --split-order rr " W4);
  int b = 0;
  for (int i = 0; i < t.n; i++) {
    assert_string_not_equal(t.s[i].event, "early reconvergence");
    b += !strcmp(t.s[i].block, "B");
  }
  assert_int_equal(b, 2);
}

/* Collange, Table 2: the if-then-else of Figure 1 by PC arbitration. The paper traces it per
 * instruction; weft's steps are blocks, so each step covers the paper's rows of one block (A and
 * its branch, B and its jump, C, D), and the PCs after a step are the paper's NPC_i of the
 * block's last row, lane 0 first: 3355 after the branch (B B C C), 6655 after B's jump (D D C C),
 * 6666 after C, 7777 (the end) after D. Threads 0 and 1 run B, so B's mask is 0011. */
static void collange_table2_pc(void **state) {
  (void)state;
  trace t = {.letters = "ABCD"};
  static const expect e[] = {
      {"A", "1111", "diverge", "BBCC"},
      {"B", "0011", "execute", "DDCC"},
      {"C", "1100", "reconverge", "DDDD"},
      {"D", "1111", "exit", "$$$$"},
  };
  run_trace(&t, "collange_table2.cl", "--policy pc " W4);
  check(&t, e, 4);
}

/* --- lane groups (BCC), Vaidya et al. --- */

/* Percentage of the lane-group executions of blocks lo..hi that BCC skipped. */
static double bcc_savings(const trace *t, unsigned lo, unsigned hi) {
  unsigned long ran = 0, skipped = 0;
  for (int i = 0; i < t->n; i++)
    if (t->s[i].pc >= lo && t->s[i].pc <= hi)
      ran += t->s[i].groups_run, skipped += t->s[i].groups_skipped;
  assert_true(ran + skipped > 0);
  return 100.0 * (double)skipped / (double)(ran + skipped);
}

#define W16 "--warp 16 --lanes 4 --threads 1"

/* Figure 4(a): the `if` block runs on 4 of 16 lanes (one group of four run, three skipped), the
 * `else` block on 12 (three run, one skipped): half of the 8 group executions are saved. */
static void vaidya_fig4_bcc(void **state) {
  (void)state;
  trace t = {.letters = "ABCD"};
  run_trace(&t, "vaidya_fig4.cl", "-k vaidya_fig4 --policy stack " W16);
  assert_int_equal(t.n, 4);
  assert_string_equal(t.s[1].block, "B");
  assert_string_equal(t.s[1].mask, "0000000000001111");
  assert_int_equal(t.s[1].groups_run, 1);
  assert_int_equal(t.s[1].groups_skipped, 3);
  assert_string_equal(t.s[2].block, "C");
  assert_int_equal(t.s[2].groups_run, 3);
  assert_int_equal(t.s[2].groups_skipped, 1);
  assert_true(bcc_savings(&t, 1, 2) == 50.0);
}

/* Table 2: the branch paths of nesting levels L1-L4 (blocks 1-16 are the switch's paths). BCC
 * saves 0% at L1 (5555, AAAA) and L2 (1111, 2222, 4444, 8888), 50% at L3 (0101 ... 8080) and
 * 75% at L4 (one lane each): the table's 25% for BCC plus the 50% of the Ivy Bridge halving,
 * which BCC includes. Each level runs every one of its 2^L paths once. */
static void vaidya_table2_levels(void **state) {
  (void)state;
  static const double savings[] = {0, 0, 50, 75};
  for (int level = 1; level <= 4; level++) {
    trace t = {.letters = "SabcdefghijklmnopJ"}; /* S: the switch, a-p: paths, J: after it */
    char args[256];
    snprintf(args, sizeof args, "-k vaidya_levels --arg 'i32[16]=zero' --arg i32:%d " W16, level);
    run_trace(&t, "vaidya_fig4.cl", args);
    int paths = 0;
    for (int i = 0; i < t.n; i++) paths += t.s[i].pc >= 1 && t.s[i].pc <= 16;
    assert_int_equal(paths, 1 << level);
    double got = bcc_savings(&t, 1, 16);
    if (got != savings[level - 1])
      fail_msg("level %d: BCC saves %.1f%% of the paths' lane groups, the paper %.0f%%", level, got,
               savings[level - 1]);
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s WEFT TEACHING_DIR {stack|mp|mp-orec|pc|bcc}\n", argv[0]);
    return 2;
  }
  weft = argv[1], teaching_dir = argv[2];
  const char *group = argv[3];
  const struct CMUnitTest stack[] = {cmocka_unit_test(mp_fig3_stack)};
  const struct CMUnitTest mp[] = {cmocka_unit_test(mp_fig5_mp),
                                  cmocka_unit_test(mp_fig5_mp_lowest_pc),
                                  cmocka_unit_test(mp_fig6_mp), cmocka_unit_test(mp_fig10_mp)};
  const struct CMUnitTest orec[] = {cmocka_unit_test(mp_fig11_orec)};
  const struct CMUnitTest pc[] = {cmocka_unit_test(collange_table2_pc)};
  const struct CMUnitTest bcc[] = {cmocka_unit_test(vaidya_fig4_bcc),
                                   cmocka_unit_test(vaidya_table2_levels)};
#define RUN(g) cmocka_run_group_tests_name(#g, g, NULL, NULL)
  if (!strcmp(group, "stack")) return RUN(stack);
  if (!strcmp(group, "mp")) return RUN(mp);
  if (!strcmp(group, "mp-orec")) return RUN(orec);
  if (!strcmp(group, "pc")) return RUN(pc);
  if (!strcmp(group, "bcc")) return RUN(bcc);
  fprintf(stderr, "unknown test group '%s'\n", group);
  return 2;
}
