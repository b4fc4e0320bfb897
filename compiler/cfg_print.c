/* Printers of the CFG with PCs and reconvergence points: a table for people, Graphviz, and one
 * JSON object per kernel for tools and tests. The IPDOM is shown for branches only (conditional
 * branches and switches), since only a branch can split a warp; the virtual exit prints as
 * `exit` in text and DOT and as null in JSON. Text and JSON also show where the warp function
 * is cut into parts (parts.c): JSON as the first PC of each part. */
#include "compiler.h"

static void print_lines(FILE *f, const cfg_block *b) {
  if (!b->first_line) fprintf(f, "%-9s", "-");
  else fprintf(f, "%4d-%-4d", b->first_line, b->last_line);
}

static void print_pc(FILE *f, const cfg *g, int pc) {
  if (pc == g->nblocks) fprintf(f, " exit");
  else fprintf(f, " B%d", pc);
}

void cfg_print_text(FILE *f, const cfg *g, const char *kernel) {
  fprintf(f, "kernel %s: %d blocks\n", kernel, g->nblocks);
  fprintf(f, "  %-5s %-9s %-20s %s\n", "pc", "lines", "succs", "ipdom (reconvergence)");
  for (int pc = 0; pc < g->nblocks; pc++) {
    const cfg_block *b = &g->blocks[pc];
    fprintf(f, "  B%-4d ", pc);
    print_lines(f, b);
    int width = 0;
    for (int s = 0; s < b->nsuccs; s++) width += fprintf(f, " B%d", b->succs[s]);
    if (b->nsuccs == 0) width += fprintf(f, " exit");
    fprintf(f, "%*s", width < 21 ? 21 - width : 1, "");
    if (cfg_is_branch(b)) print_pc(f, g, b->ipdom);
    fputc('\n', f);
  }
  if (g->nparts < 2) return;
  fprintf(f, "  parts:");
  for (int p = 0; p < g->nparts; p++)
    fprintf(f, " B%d-B%d", g->part_first[p], g->part_first[p + 1] - 1);
  fprintf(f, " (compiled as %d functions, on several threads)\n", g->nparts);
}

void cfg_print_dot(FILE *f, const cfg *g, const char *kernel) {
  fprintf(f, "digraph \"%s\" {\n  node [shape=box, fontname=\"monospace\"];\n", kernel);
  int uses_exit = 0;
  for (int pc = 0; pc < g->nblocks; pc++) {
    const cfg_block *b = &g->blocks[pc];
    fprintf(f, "  B%d [label=\"B%d\\nlines %d-%d\"];\n", pc, pc, b->first_line, b->last_line);
    for (int s = 0; s < b->nsuccs; s++) fprintf(f, "  B%d -> B%d;\n", pc, b->succs[s]);
    if (b->nsuccs == 0) fprintf(f, "  B%d -> exit;\n", pc), uses_exit = 1;
    if (!cfg_is_branch(b)) continue;
    if (b->ipdom == g->nblocks) uses_exit = 1;
    fprintf(f, "  B%d ->", pc);
    print_pc(f, g, b->ipdom);
    fprintf(f, " [style=dashed, color=red, constraint=false, label=\"ipdom\"];\n");
  }
  if (uses_exit) fprintf(f, "  exit [shape=doublecircle, label=\"exit\"];\n");
  fprintf(f, "}\n");
}

static void json_line(FILE *f, int line) {
  if (line) fprintf(f, "%d", line);
  else fprintf(f, "null");
}

void cfg_print_json(FILE *f, const cfg *g, const char *kernel) {
  fprintf(f, "{\"kernel\": \"%s\", \"blocks\": [", kernel);
  for (int pc = 0; pc < g->nblocks; pc++) {
    const cfg_block *b = &g->blocks[pc];
    fprintf(f, "%s{\"pc\": %d, \"first_line\": ", pc ? ", " : "", pc);
    json_line(f, b->first_line);
    fprintf(f, ", \"last_line\": ");
    json_line(f, b->last_line);
    fprintf(f, ", \"succs\": [");
    for (int s = 0; s < b->nsuccs; s++) fprintf(f, "%s%d", s ? ", " : "", b->succs[s]);
    fprintf(f, "], \"ipdom\": ");
    if (cfg_is_branch(b) && b->ipdom < g->nblocks) fprintf(f, "%d}", b->ipdom);
    else fprintf(f, "null}");
  }
  fprintf(f, "], \"parts\": [");
  for (int p = 0; p < g->nparts; p++) fprintf(f, "%s%d", p ? ", " : "", g->part_first[p]);
  fprintf(f, "]}\n");
}
