/* `weft trace --format svg`: the warp over time as a picture, for a browser.
 *
 * Lanes run down (lane 0 on top, one band of W rows per traced warp), steps run across. The
 * cell of a lane at a step is filled with the colour of the block the step ran when the lane
 * was active in it, and left blank otherwise; a red triangle above a column marks a
 * reconvergence (orange: an early one), a blue bar a divergence. A legend maps colours to
 * blocks and their source lines; every cell has a tooltip (its step, block, lines and event).
 * Plain SVG text, no script. */
#include <stdlib.h>

#include "runtime.h"
#include "trace_out.h"

enum { CELL = 14, LEFT = 90, TOP = 56, GAP = 28, LEGEND_ROW = 18 };

/* A fixed palette, distinct enough side by side; blocks past it reuse it. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                                      "#76b7b2", "#edc948", "#e15759", "#9c755f",
                                      "#bab0ac", "#86bcb6", "#d37295", "#a0cbe8"};
#define NCOLOURS (sizeof palette / sizeof *palette)

/* The bands: warp w of the work-group is band band[w], in the order warps first appear. */
typedef struct layout {
  unsigned nbands, maxwarp;
  int *band;
} layout;

static int make_layout(const trace_rec *r, layout *l) {
  l->maxwarp = 0, l->nbands = 0;
  for (size_t i = 0; i < r->n; i++)
    if (r->rows[i].s.warp > l->maxwarp) l->maxwarp = r->rows[i].s.warp;
  l->band = malloc((l->maxwarp + 1) * sizeof *l->band);
  if (!l->band) return -1;
  for (unsigned w = 0; w <= l->maxwarp; w++) l->band[w] = -1;
  for (size_t i = 0; i < r->n; i++)
    if (l->band[r->rows[i].s.warp] < 0) l->band[r->rows[i].s.warp] = (int)l->nbands++;
  return 0;
}

static unsigned band_top(const trace_rec *r, int band) {
  return TOP + (unsigned)band * (r->width * CELL + GAP);
}

static void put_lines(FILE *f, const trace_rec *r, unsigned pc) {
  if (pc >= r->nblocks || !r->first_line[pc]) fputs("lines unknown", f);
  else if (r->first_line[pc] == r->last_line[pc]) fprintf(f, "line %u", r->first_line[pc]);
  else fprintf(f, "lines %u-%u", r->first_line[pc], r->last_line[pc]);
}

static void band_labels(FILE *f, const trace_rec *r, const layout *l, size_t width) {
  for (unsigned w = 0; w <= l->maxwarp; w++) {
    if (l->band[w] < 0) continue;
    unsigned y = band_top(r, l->band[w]);
    fprintf(f, "<text x=\"4\" y=\"%u\" font-weight=\"bold\">warp %u</text>\n", y - 14, w);
    fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%zu\" height=\"%u\" fill=\"#f4f4f4\"/>\n", LEFT, y,
            width, r->width * CELL);
    for (unsigned lane = 0; lane < r->width; lane++)
      fprintf(f, "<text x=\"%d\" y=\"%u\" text-anchor=\"end\">lane %u</text>\n", LEFT - 6,
              y + lane * CELL + CELL - 3, lane);
  }
}

static void step_column(FILE *f, const trace_rec *r, const layout *l, size_t i) {
  const weft_trace_step *s = &r->rows[i].s;
  unsigned x = LEFT + (unsigned)i * CELL, y = band_top(r, l->band[s->warp]);
  if (i % 5 == 0)
    fprintf(f, "<text x=\"%u\" y=\"%d\" font-size=\"9\">%zu</text>\n", x, TOP - 30, i);
  FOR_LANES(s->mask, lane) {
    fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#fff\">", x,
            y + (unsigned)lane * CELL, CELL, CELL, palette[s->pc % NCOLOURS]);
    fprintf(f, "<title>step %llu, lane %u: B%u (", (unsigned long long)s->step, (unsigned)lane,
            s->pc);
    put_lines(f, r, s->pc);
    fprintf(f, "), %s</title></rect>\n", weft_trace_event_name(s->event));
  }
  int reconv = s->event == WEFT_TRACE_RECONVERGE;
  int early = s->event == WEFT_TRACE_EARLY_RECONVERGENCE;
  if (reconv || early)
    fprintf(f, "<path d=\"M%u %u h%d l-%d %d z\" fill=\"%s\"><title>%s</title></path>\n", x, y - 9,
            CELL, CELL / 2, 7, reconv ? "#d62728" : "#ff9900", weft_trace_event_name(s->event));
  if (s->event == WEFT_TRACE_DIVERGE)
    fprintf(f,
            "<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"3\" fill=\"#1f5fbf\">"
            "<title>diverge</title></rect>\n",
            x, y - 5, CELL);
}

static void legend(FILE *f, const trace_rec *r, unsigned y) {
  unsigned row = 0;
  for (unsigned pc = 0; pc < r->nblocks; pc++) {
    int used = 0;
    for (size_t i = 0; i < r->n && !used; i++) used = r->rows[i].s.pc == pc;
    if (!used) continue;
    unsigned ry = y + row++ * LEGEND_ROW;
    fprintf(f, "<rect x=\"%d\" y=\"%u\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", LEFT, ry, CELL,
            CELL, palette[pc % NCOLOURS]);
    fprintf(f, "<text x=\"%d\" y=\"%u\">B%u: ", LEFT + CELL + 6, ry + CELL - 3, pc);
    put_lines(f, r, pc);
    fputs("</text>\n", f);
  }
  unsigned ry = y + row * LEGEND_ROW + 6;
  fprintf(f,
          "<text x=\"%d\" y=\"%u\">red triangle: reconvergence; orange: early "
          "reconvergence; blue bar: divergence; blank: lane inactive%s</text>\n",
          LEFT, ry + CELL - 3, r->truncated ? "; stopped at --max-steps" : "");
}

void trace_write_svg(FILE *f, const trace_rec *r) {
  layout l;
  if (make_layout(r, &l)) return;
  size_t width = r->n * CELL;
  unsigned legend_y = band_top(r, (int)l.nbands), nlegend = r->nblocks + 2;
  size_t total = LEFT + width + 20 < 660 ? 660 : LEFT + width + 20; /* room for the texts */
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%u\" "
          "font-family=\"sans-serif\" font-size=\"11\">\n",
          total, legend_y + nlegend * LEGEND_ROW + 10);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
  fprintf(f,
          "<text x=\"4\" y=\"14\" font-size=\"13\">kernel %s, policy %s, W %u, G %u, "
          "work-group %llu: steps across, lanes down</text>\n",
          r->kernel, r->policy, r->width, r->lanes, (unsigned long long)r->group);
  band_labels(f, r, &l, width);
  for (size_t i = 0; i < r->n; i++) step_column(f, r, &l, i);
  legend(f, r, legend_y);
  fputs("</svg>\n", f);
  free(l.band);
}
