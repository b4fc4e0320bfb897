/* A recorded trace (weft trace) and its three renderings: a text table like the papers'
 * figures, one JSON object per line, and an SVG picture of the warp over time. */
#ifndef WEFT_TRACE_OUT_H
#define WEFT_TRACE_OUT_H

#include <stdio.h>

#include "weft.h"

/* One step, owning copies of what weft_trace_step points to. */
typedef struct trace_row {
  weft_trace_step s;
  uint32_t *target_pc;
  uint64_t *target_mask;
  char *state_text, *state_json;
} trace_row;

typedef struct trace_rec {
  /* what was traced */
  const char *kernel, *policy;
  unsigned width, lanes; /* W, G */
  uint64_t group;        /* linear index of the traced work-group */
  int warp;              /* the traced warp, -1: all */
  unsigned nblocks;
  unsigned *first_line, *last_line; /* per block */
  /* the steps */
  trace_row *rows;
  size_t n, cap;
  size_t max;    /* steps to record at most */
  int truncated; /* there were more */
  int oom;       /* a copy failed: the trace is incomplete */
} trace_rec;

/* weft_trace_fn that appends to a trace_rec. */
int trace_rec_step(void *rec, const weft_trace_step *step);
void trace_rec_free(trace_rec *r);

void trace_write_text(FILE *f, const trace_rec *r);
void trace_write_json(FILE *f, const trace_rec *r);
void trace_write_svg(FILE *f, const trace_rec *r);

#endif
