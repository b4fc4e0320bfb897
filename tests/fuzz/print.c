/* A kernel tree as source: OpenCL C for weft, or C for the oracle (the same text after a
 * prelude that defines OpenCL's words for one work-item at a time, fuzz.h's struct fz_env).
 * The guards that keep any tree free of undefined behaviour are printed here, so that what the
 * reducer leaves stays valid: indexes masked, shift counts masked, divisors odd, loop bounds
 * small, the kernel's digest stored before every return. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef struct printer {
  FILE *f;
  const fz_kernel *k;
  fz_dialect d;
  bool helper; /* printing a helper: its variables are a, b, r */
  int phase;   /* the kernel's phase: la is writable in even ones, lb in odd ones */
  int indent;
} printer;

#define STR(...) #__VA_ARGS__
#define XSTR(...) STR(__VA_ARGS__)

/* OpenCL C's words as C, for one work-item at a time (oracle.c switches between them at
 * barriers). Sub-group functions meet in fz_env->slots between two barriers: they stand at the
 * top level of the kernel, where the whole work-group arrives. */
static const char prelude[] =
    "typedef unsigned int uint;\n"
    "typedef __SIZE_TYPE__ size_t;\n"
    "#define __kernel\n#define __global\n#define __local\n"
    "#define CLK_LOCAL_MEM_FENCE 1\n" XSTR(
        FZ_ENV_STRUCT) ";\n"
                       "struct fz_env *fz_env;\n"
                       "static size_t get_local_id(uint d) { return d ? 0 : fz_env->lid; }\n"
                       "static size_t get_global_id(uint d) { return d ? 0 : fz_env->gid; }\n"
                       "static size_t get_group_id(uint d) { return d ? 0 : fz_env->grp; }\n"
                       "static size_t get_local_size(uint d) { return d ? 1 : fz_env->local_size; "
                       "}\n"
                       "static uint get_sub_group_local_id(void) { return fz_env->lid % "
                       "fz_env->warp; }\n"
                       "static uint get_sub_group_id(void) { return fz_env->lid / fz_env->warp; }\n"
                       "static uint get_sub_group_size(void) {\n"
                       "  uint first = fz_env->lid / fz_env->warp * fz_env->warp, n = "
                       "fz_env->local_size - first;\n"
                       "  return n < fz_env->warp ? n : fz_env->warp;\n}\n"
                       "static void barrier(int flags) { (void)flags; fz_env->barrier(); }\n"
                       "static uint min(uint a, uint b) { return a < b ? a : b; }\n"
                       "static uint max(uint a, uint b) { return a > b ? a : b; }\n"
                       "static uint popcount(uint x) { return (uint)__builtin_popcount(x); }\n"
                       "static uint clz(uint x) { return x ? (uint)__builtin_clz(x) : 32u; }\n"
                       "#define FZ_ATOMIC(name, expr) \\\n"
                       "  static uint name(volatile uint *p, uint v) { uint o = *p; *p = (expr); "
                       "return o; }\n"
                       "FZ_ATOMIC(atomic_add, o + v) FZ_ATOMIC(atomic_sub, o - v) "
                       "FZ_ATOMIC(atomic_xor, o ^ v)\n"
                       "FZ_ATOMIC(atomic_or, o | v) FZ_ATOMIC(atomic_max, o > v ? o : v)\n"
                       "static uint atomic_inc(volatile uint *p) { return atomic_add(p, 1u); }\n"
                       "static uint fz_sg(uint x, int op, uint lane) {\n"
                       "  uint lid = fz_env->lid, size = get_sub_group_size(), first = lid - lid % "
                       "fz_env->warp;\n"
                       "  uint *s = fz_env->slots, end = first + size, r = op == 1 || op == 6 ? "
                       "~0u : 0u;\n"
                       "  s[lid] = x;\n"
                       "  fz_env->barrier();\n"
                       "  if (op >= 3 && op <= 6) end = lid + (op == 3 || op == 5);\n"
                       "  for (uint i = first; i < end; i++) {\n"
                       "    uint v = s[i];\n"
                       "    if (op == 0 || op == 3 || op == 4) r += v;\n"
                       "    else if (op == 1 || op == 6) r = v < r ? v : r;\n"
                       "    else if (op == 2 || op == 5) r = v > r ? v : r;\n"
                       "  }\n"
                       "  if (op == 7) r = s[first + lane % size];\n"
                       "  if (op >= 8) {\n"
                       "    r = op == 8;\n"
                       "    for (uint i = first; i < first + size; i++) r = op == 8 ? r && s[i] : "
                       "r || s[i];\n"
                       "  }\n"
                       "  fz_env->barrier();\n"
                       "  return r;\n}\n"
                       "#define sub_group_reduce_add(x) fz_sg(x, 0, 0)\n"
                       "#define sub_group_reduce_min(x) fz_sg(x, 1, 0)\n"
                       "#define sub_group_reduce_max(x) fz_sg(x, 2, 0)\n"
                       "#define sub_group_scan_inclusive_add(x) fz_sg(x, 3, 0)\n"
                       "#define sub_group_scan_exclusive_add(x) fz_sg(x, 4, 0)\n"
                       "#define sub_group_scan_inclusive_max(x) fz_sg(x, 5, 0)\n"
                       "#define sub_group_scan_exclusive_min(x) fz_sg(x, 6, 0)\n"
                       "#define sub_group_broadcast(x, lane) fz_sg(x, 7, lane)\n"
                       "#define sub_group_all(p) fz_sg((uint)(p), 8, 0)\n"
                       "#define sub_group_any(p) fz_sg((uint)(p), 9, 0)\n\n";

static const char *const sg_names[] = {"sub_group_reduce_add",
                                       "sub_group_reduce_min",
                                       "sub_group_reduce_max",
                                       "sub_group_scan_inclusive_add",
                                       "sub_group_scan_exclusive_add",
                                       "sub_group_scan_inclusive_max",
                                       "sub_group_scan_exclusive_min",
                                       "sub_group_broadcast",
                                       "sub_group_all",
                                       "sub_group_any"};

static void expr(printer *p, int i);

static void var(printer *p, int v) {
  if (p->helper) fputs((const char *[]){"a", "b", "r"}[v], p->f);
  else fprintf(p->f, "v%d", v);
}

static const char *writable(const printer *p) { return p->phase % 2 ? "lb" : "la"; }
static const char *readable(const printer *p) { return p->phase % 2 ? "la" : "lb"; }

static void bin(printer *p, const fz_node *n) {
  static const char *const ops[] = {"+", "-", "*", "&", "|", "^"};
  FILE *f = p->f;
  fputc('(', f);
  if (n->op < 6) {
    expr(p, n->kids[0]);
    fprintf(f, " %s ", ops[n->op]);
    expr(p, n->kids[1]);
  } else if (n->op <= 10) { /* the right operand guarded: shift counts < 32, odd divisors */
    fputs(n->op == 8 ? "(uint)((int)" : "", f); /* an arithmetic shift */
    expr(p, n->kids[0]);
    fputs((const char *[]){" << (", " >> (", " >> (", " / (", " % ("}[n->op - 6], f);
    expr(p, n->kids[1]);
    fputs(n->op <= 7 ? " & 31u)" : n->op == 8 ? " & 31u))" : " | 1u)", f);
  } else {
    fputs((const char *[]){"min(", "max(", "popcount(", "clz("}[n->op - 11], f);
    expr(p, n->kids[0]);
    if (n->op <= 12) fputs(", ", f), expr(p, n->kids[1]);
    fputc(')', f);
  }
  fputc(')', f);
}

static void cmp(printer *p, const fz_node *n) {
  static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
  const char *cast = n->a ? "(int)" : "";
  fprintf(p->f, "(uint)(%s", cast);
  expr(p, n->kids[0]);
  fprintf(p->f, " %s %s", ops[n->op], cast);
  expr(p, n->kids[1]);
  fputc(')', p->f);
}

static void call(printer *p, const fz_node *n) {
  fprintf(p->f, "h%d(", n->b);
  expr(p, n->kids[0]);
  fputs(", ", p->f);
  expr(p, n->kids[1]);
  fputs(", in, gc)", p->f);
}

static void workitem(printer *p, int op) {
  static const char *const names[] = {"(uint)get_local_id(0)",  "(uint)get_global_id(0)",
                                      "(uint)get_group_id(0)",  "get_sub_group_local_id()",
                                      "get_sub_group_id()",     "get_sub_group_size()",
                                      "(uint)get_local_size(0)"};
  fputs(names[op], p->f);
}

static void expr(printer *p, int i) {
  const fz_node *n = &p->k->nodes[i];
  FILE *f = p->f;
  if (n->pick) { /* what the reducer left: an operand, or 0 */
    if (n->pick > 0) expr(p, n->kids[n->pick - 1]);
    else fputs("0u", f);
    return;
  }
  switch (n->kind) {
  case E_CONST: fprintf(f, "%uu", (unsigned)n->a); break;
  case E_VAR: var(p, n->a); break;
  case E_COUNTER: fprintf(f, "c%d", n->a); break;
  case E_WORKITEM: workitem(p, n->op); break;
  case E_BIN: bin(p, n); break;
  case E_CMP: cmp(p, n); break;
  case E_NOT: fputs("(uint)!", f), expr(p, n->kids[0]); break;
  case E_AND:
  case E_OR:
    fputs("(uint)(", f), expr(p, n->kids[0]), fputs(n->kind == E_AND ? " && " : " || ", f);
    expr(p, n->kids[1]), fputc(')', f);
    break;
  case E_COND:
    fputc('(', f), expr(p, n->kids[0]), fputs(" ? ", f), expr(p, n->kids[1]);
    fputs(" : ", f), expr(p, n->kids[2]), fputc(')', f);
    break;
  case E_IN: fputs("in[", f), expr(p, n->kids[0]), fprintf(f, " & %uu]", FZ_NIN - 1); break;
  case E_LREAD:
    if (n->op) fprintf(f, "%s[lid]", writable(p));
    else
      fprintf(f, "%s[", readable(p)), expr(p, n->kids[0]), fprintf(f, " %% %uu]", p->k->local_size);
    break;
  case E_CALLX: call(p, n); break;
  default: abort();
  }
}

/* ---- statements ---- */

static void stmt(printer *p, int i);

static void line(printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(printer *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(p->f, "%*s", 2 * p->indent, "");
  vfprintf(p->f, fmt, ap);
  va_end(ap);
}

/* A block's statements between braces, after `first` and before `last` when they are given. */
static void block(printer *p, int i, const char *first, const char *last) {
  const fz_node *n = &p->k->nodes[i];
  fputs("{\n", p->f);
  p->indent++;
  if (first) line(p, "%s\n", first);
  for (int s = 0; s < n->nlist; s++) stmt(p, n->list[s]);
  if (last) line(p, "%s\n", last);
  p->indent--;
  line(p, "}");
}

/* The variables' digest, stored at every way out of the kernel so that they are compared. */
static void digest(printer *p) {
  line(p, "out[gid * %uu + %uu] = v0", FZ_NOUT, FZ_NOUT - 1);
  for (int v = 1; v < FZ_NVARS; v++) fprintf(p->f, " ^ (v%d * %du)", v, 2 * v + 1);
  fputs(";\n", p->f);
}

/* Counter k's operation is fixed (add, xor, max or or), so that the counter's final value
 * does not depend on the order of the work-items; counter 0 also subtracts and increments. */
static void atomic(printer *p, const fz_node *n, const char *array) {
  static const char *const ops[] = {"add", "xor", "max", "or"};
  const char *op = n->a ? ops[n->a] : (const char *[]){"add", "sub", "inc"}[n->op];
  line(p, "atomic_%s(&%s[%d]", op, array, n->a);
  if (strcmp(op, "inc")) fputs(", ", p->f), expr(p, n->kids[0]);
  fputs(");\n", p->f);
}

static void assign(printer *p, const fz_node *n, const char *target) {
  line(p, "%s %s ", target, (const char *[]){"=", "+=", "^="}[n->op]);
  expr(p, n->kids[0]);
  fputs(";\n", p->f);
}

static void loop(printer *p, const fz_node *n, int i) {
  char count[32];
  snprintf(count, sizeof count, "c%d++;", i);
  if (n->kind == S_FOR) {
    line(p, "for (uint c%d = 0u; c%d < (", i, i);
    expr(p, n->kids[0]);
    fputs(" & 7u); c", p->f);
    fprintf(p->f, "%d++) ", i);
    block(p, n->kids[1], NULL, NULL);
    fputc('\n', p->f);
    return;
  }
  /* The counter first in the body, so that `continue` counts too. */
  line(p, "{\n");
  p->indent++;
  line(p, "uint c%d = 0u;\n", i);
  if (n->kind == S_WHILE) {
    line(p, "while (c%d < %du && ", i, n->a), expr(p, n->kids[0]), fputs(") ", p->f);
    block(p, n->kids[1], count, NULL);
    fputc('\n', p->f);
  } else {
    line(p, "do ");
    block(p, n->kids[1], count, NULL);
    fprintf(p->f, " while (c%d < %du && ", i, n->a), expr(p, n->kids[0]), fputs(");\n", p->f);
  }
  p->indent--;
  line(p, "}\n");
}

static void switch_(printer *p, const fz_node *n) {
  const fz_node *cases = &p->k->nodes[n->kids[1]];
  line(p, "switch ("), expr(p, n->kids[0]), fputs(" & 7u) {\n", p->f);
  for (int c = 0; c < cases->nlist; c++) {
    const fz_node *cs = &p->k->nodes[cases->list[c]];
    if (cs->off) continue;
    if (cs->a < 0) line(p, "default: ");
    else line(p, "case %d: ", cs->a);
    block(p, cs->kids[0], NULL, NULL);
    fputs(cs->op ? " break;\n" : "\n", p->f);
  }
  line(p, "}\n");
}

static void if_(printer *p, const fz_node *n) {
  if (n->pick > 0) { /* the reducer kept one branch */
    line(p, "%s", "");
    block(p, n->kids[n->pick - 1], NULL, NULL);
    fputc('\n', p->f);
    return;
  }
  line(p, "if (");
  expr(p, n->kids[0]);
  fputs(") ", p->f);
  block(p, n->kids[1], NULL, NULL);
  if (n->nkids == 3 && !p->k->nodes[n->kids[2]].off)
    fputs(" else ", p->f), block(p, n->kids[2], NULL, NULL);
  fputc('\n', p->f);
}

static void subgroup(printer *p, const fz_node *n) {
  line(p, "v%d = ", n->a);
  if (n->op >= 8) fprintf(p->f, "(uint)(%s((int)", sg_names[n->op]);
  else fprintf(p->f, "%s(", sg_names[n->op]);
  expr(p, n->kids[0]);
  if (n->op == 7) fprintf(p->f, ", %du %% get_sub_group_size()", n->b);
  fputs(n->op >= 8 ? ") != 0);\n" : ");\n", p->f);
}

static void var_name(const printer *p, int v, char *buf, size_t n) {
  if (p->helper) snprintf(buf, n, "%c", "abr"[v]);
  else snprintf(buf, n, "v%d", v);
}

static void jump(printer *p, const fz_node *n) {
  if (n->kind != S_RETURN) line(p, n->kind == S_BREAK ? "break;\n" : "continue;\n");
  else if (p->helper) line(p, "return "), expr(p, n->kids[0]), fputs(";\n", p->f);
  else {
    line(p, "{\n");
    p->indent++;
    digest(p);
    line(p, "return;\n");
    p->indent--;
    line(p, "}\n");
  }
}

static void stmt(printer *p, int i) {
  const fz_node *n = &p->k->nodes[i];
  char target[64];
  if (n->off) return;
  switch (n->kind) {
  case S_BLOCK: line(p, "%s", ""), block(p, i, NULL, NULL), fputc('\n', p->f); break;
  case S_ASSIGN: var_name(p, n->a, target, sizeof target), assign(p, n, target); break;
  case S_OUT:
    snprintf(target, sizeof target, "out[gid * %uu + %du]", FZ_NOUT, n->a);
    assign(p, n, target);
    break;
  case S_GATOMIC: atomic(p, n, "gc"); break;
  case S_LATOMIC: atomic(p, n, "lc"); break;
  case S_LSTORE: line(p, "%s[lid] = ", writable(p)), expr(p, n->kids[0]), fputs(";\n", p->f); break;
  case S_IF: if_(p, n); break;
  case S_FOR:
  case S_WHILE:
  case S_DO: loop(p, n, i); break;
  case S_SWITCH: switch_(p, n); break;
  case S_BREAK:
  case S_CONTINUE:
  case S_RETURN: jump(p, n); break;
  case S_BARRIER: line(p, "barrier(CLK_LOCAL_MEM_FENCE);\n"); break;
  case S_SUBGROUP: subgroup(p, n); break;
  case S_SGIF:
    line(p, "if (%s((int)", sg_names[n->op ? 9 : 8]), expr(p, n->kids[0]), fputs(")) ", p->f);
    block(p, n->kids[1], NULL, NULL);
    fputc('\n', p->f);
    break;
  case S_CALL:
    var_name(p, n->a, target, sizeof target);
    line(p, "%s = ", target), call(p, n), fputs(";\n", p->f);
    break;
  default: abort();
  }
}

/* ---- functions ---- */

/* Which helpers the live part of node i calls (helpers call only helpers before them, so one
 * pass from the last helper down finds every one needed). */
static void mark_calls(const fz_kernel *k, int i, bool used[FZ_HELPERS]) {
  const fz_node *n = &k->nodes[i];
  if (n->off) return;
  if (n->pick) {
    if (n->pick > 0) mark_calls(k, n->kids[n->pick - 1], used);
    return;
  }
  if (n->kind == S_CALL || n->kind == E_CALLX) used[n->b] = true;
  for (int c = 0; c < n->nkids; c++) mark_calls(k, n->kids[c], used);
  for (int s = 0; s < n->nlist; s++) mark_calls(k, n->list[s], used);
}

static void helper(printer *p, unsigned h) {
  p->helper = true;
  fprintf(p->f, "static uint h%u(uint a, uint b, __global const uint *in, __global uint *gc) ", h);
  block(p, p->k->helper[h].body, "uint r = a ^ (b * 2654435761u);", "return r + b;");
  fputs("\n\n", p->f);
  p->helper = false;
}

static void signature(printer *p) {
  const fz_kernel *k = p->k;
  fputs("__kernel void fz(__global const uint *in, __global uint *out, __global uint *gc,\n"
        "                 __global uint *lout",
        p->f);
  if (k->local_params || p->d == FZ_C)
    fputs(", __local uint *la, __local uint *lb, __local uint *lc", p->f);
  fputs(") {\n", p->f);
  if (!k->local_params && p->d == FZ_OPENCL)
    fprintf(p->f, "  __local uint la[%u], lb[%u], lc[%u];\n", k->local_size, k->local_size, FZ_NLC);
}

/* Every variable and __local word set, then the first barrier: phase 0 may read lb. */
static void prologue(printer *p) {
  line(p, "const uint lid = (uint)get_local_id(0), gid = (uint)get_global_id(0);\n");
  line(p, "uint v0 = gid, v1 = in[gid & %uu], v2 = lid * 2654435761u;\n", FZ_NIN - 1);
  line(p, "uint v3 = (uint)get_group_id(0), v4 = in[(gid * 7u) & %uu], v5 = 1u;\n", FZ_NIN - 1);
  line(p, "la[lid] = v1 ^ 0x5bd1e995u;\n");
  line(p, "lb[lid] = v4 + lid;\n");
  line(p, "if (lid < %uu) lc[lid] = 0u;\n", FZ_NLC);
  line(p, "barrier(CLK_LOCAL_MEM_FENCE);\n");
}

/* The __local counters are final once the last phase begins (it has no atomics on them). */
static void copy_out(printer *p) {
  line(p, "if (lid < %uu) lout[(uint)get_group_id(0) * %uu + lid] = lc[lid];\n", FZ_NLC, FZ_NLC);
}

static void kernel(printer *p) {
  const fz_kernel *k = p->k;
  const fz_node *body = &k->nodes[k->body];
  signature(p);
  p->indent = 1;
  prologue(p);
  if (k->nphases == 1) copy_out(p);
  for (int s = 0; s < body->nlist; s++) {
    const fz_node *n = &k->nodes[body->list[s]];
    p->phase = n->phase;
    stmt(p, body->list[s]);
    if (n->kind == S_BARRIER && n->phase + 2 == (int)k->nphases) copy_out(p);
  }
  digest(p);
  p->indent = 0;
  fputs("}\n", p->f);
}

void fz_print(FILE *f, const fz_kernel *k, fz_dialect d) {
  printer p = {.f = f, .k = k, .d = d};
  bool used[FZ_HELPERS] = {false};
  if (d == FZ_C) fputs(prelude, f);
  fprintf(f, "/* weft_fuzz --seed %llu: %u work-group(s) of %u */\n", (unsigned long long)k->seed,
          k->groups, k->local_size);
  mark_calls(k, k->body, used);
  for (unsigned h = k->nhelpers; h-- > 0;)
    if (used[h]) mark_calls(k, k->helper[h].body, used);
  for (unsigned h = 0; h < k->nhelpers; h++)
    if (used[h]) helper(&p, h);
  kernel(&p);
}

char *fz_source(const fz_kernel *k, fz_dialect d) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f) abort();
  fz_print(f, k, d);
  fclose(f);
  return text;
}
