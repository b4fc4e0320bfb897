/* Recording the steps of `weft trace` and writing them as text or JSON lines (trace_out.h).
 *
 * The text is a table read like the papers' figures: a line per step (the block, its lines,
 * the active mask with thread 0 rightmost, the event, the lane groups run and skipped by BCC,
 * where the lanes go next) and under it the policy's state after the step, as the policy's own
 * printer shows it. The JSON has one object per step with the same fields and the state as the
 * policy's JSON, after a first line that describes the trace (kernel, policy, W, G, blocks). */
#include <stdlib.h>
#include <string.h>

#include "launch_opts.h"
#include "runtime.h"
#include "trace_out.h"

/* ---- recording ---- */

static int copy_step(trace_row *row, const weft_trace_step *s) {
  row->s = *s;
  row->target_pc = malloc(s->ntargets * sizeof *row->target_pc + 1);
  row->target_mask = malloc(s->ntargets * sizeof *row->target_mask + 1);
  row->state_text = strdup(s->state_text);
  row->state_json = strdup(s->state_json);
  if (!row->target_pc || !row->target_mask || !row->state_text || !row->state_json) return -1;
  memcpy(row->target_pc, s->target_pc, s->ntargets * sizeof *row->target_pc);
  memcpy(row->target_mask, s->target_mask, s->ntargets * sizeof *row->target_mask);
  row->s.target_pc = row->target_pc, row->s.target_mask = row->target_mask;
  row->s.state_text = row->state_text, row->s.state_json = row->state_json;
  return 0;
}

/* Keeps steps up to r->max; the one after tells that there were more, and stops the trace. */
int trace_rec_step(void *rec, const weft_trace_step *step) {
  trace_rec *r = rec;
  if (r->n == r->max) return r->truncated = 1, 1;
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    trace_row *rows = realloc(r->rows, cap * sizeof *rows);
    if (!rows) return r->oom = 1, 1;
    r->rows = rows, r->cap = cap;
  }
  trace_row *row = &r->rows[r->n++];
  memset(row, 0, sizeof *row);
  if (copy_step(row, step)) return r->oom = 1, 1;
  return 0;
}

void trace_rec_free(trace_rec *r) {
  for (size_t i = 0; i < r->n; i++) {
    trace_row *row = &r->rows[i];
    free(row->target_pc), free(row->target_mask), free(row->state_text), free(row->state_json);
  }
  free(r->rows);
  free(r->first_line), free(r->last_line);
}

/* ---- text ---- */

static void put_lines(FILE *f, unsigned first, unsigned last, int width) {
  char buf[32];
  if (!first) snprintf(buf, sizeof buf, "?");
  else if (first == last) snprintf(buf, sizeof buf, "%u", first);
  else snprintf(buf, sizeof buf, "%u-%u", first, last);
  fprintf(f, "%-*s", width, buf);
}

/* "B3"; "B3..B1" for a step from B3 that jumped back to B1; "B2 x5" for five runs of B2. */
static void put_block(FILE *f, const weft_trace_step *s) {
  char buf[32];
  if (s->pc != s->end_pc) snprintf(buf, sizeof buf, "B%u..B%u", s->pc, s->end_pc);
  else if (s->blocks > 1)
    snprintf(buf, sizeof buf, "B%u x%llu", s->pc, (unsigned long long)s->blocks);
  else snprintf(buf, sizeof buf, "B%u", s->pc);
  fprintf(f, "%-9s", buf);
}

/* Where the lanes go: "B3", "B1 0101, B2 1010", "end". */
static void put_targets(FILE *f, const trace_rec *r, const weft_trace_step *s) {
  char m[WEFT_MASK_CHARS];
  for (unsigned t = 0; t < s->ntargets; t++) {
    fputs(t ? ", " : "", f);
    if (s->target_pc[t] >= r->nblocks) fputs("end", f);
    else fprintf(f, "B%u", s->target_pc[t]);
    if (s->ntargets > 1) fprintf(f, " %s", weft_mask_string(m, s->target_mask[t], s->width));
  }
  if (s->event == WEFT_TRACE_BARRIER_WAIT) fputs(" after the barrier", f);
}

static void put_indented(FILE *f, const char *text) {
  for (const char *line = text; *line;) {
    const char *nl = strchr(line, '\n');
    int len = nl ? (int)(nl - line) : (int)strlen(line);
    fprintf(f, "      %.*s\n", len, line);
    line += len + (nl != NULL);
  }
}

static void text_header(FILE *f, const trace_rec *r) {
  fprintf(f, "trace of kernel '%s' under policy %s: W %u, G %u, work-group %llu, ", r->kernel,
          r->policy, r->width, r->lanes, (unsigned long long)r->group);
  if (r->warp < 0) fputs("every warp\n", f);
  else fprintf(f, "warp %d\n", r->warp);
  fputs("masks: thread 0 rightmost; blocks by PC (`weft cfg` shows the CFG):", f);
  for (unsigned pc = 0; pc < r->nblocks; pc++) {
    fprintf(f, "%s B%u ", pc % 6 ? "," : "\n ", pc);
    put_lines(f, r->first_line[pc], r->last_line[pc], 0);
  }
  fprintf(f, "\n\n%4s %4s  %-9s%-8s%-*s  %-20s%-9s%s\n", "step", "warp", "block", "lines",
          (int)(r->width > 4 ? r->width : 4), "mask", "event", "groups", "next");
}

void trace_write_text(FILE *f, const trace_rec *r) {
  char m[WEFT_MASK_CHARS];
  text_header(f, r);
  for (size_t i = 0; i < r->n; i++) {
    const weft_trace_step *s = &r->rows[i].s;
    char groups[48];
    fprintf(f, "%4llu %4u  ", (unsigned long long)s->step, s->warp);
    put_block(f, s);
    put_lines(f, s->first_line, s->last_line, 8);
    fprintf(f, "%-*s  %-20s", (int)(r->width > 4 ? r->width : 4),
            weft_mask_string(m, s->mask, s->width), weft_trace_event_name(s->event));
    snprintf(groups, sizeof groups, "%llu/%llu", (unsigned long long)s->groups_run,
             (unsigned long long)s->groups_skipped);
    fprintf(f, "%-9s", groups);
    put_targets(f, r, s);
    fputc('\n', f);
    put_indented(f, s->state_text);
  }
  fputs("\ngroups: lane groups run/skipped (BCC skips a group of G lanes with no active lane)\n",
        f);
  if (r->truncated)
    fprintf(f, "(stopped after %zu steps: --max-steps; the launch itself ran to its end)\n", r->n);
}

/* ---- JSON lines ---- */

static void json_header(FILE *f, const trace_rec *r) {
  fputs("{\"kernel\": ", f);
  json_string(f, r->kernel);
  fputs(", \"policy\": ", f);
  json_string(f, r->policy);
  fprintf(f, ", \"warp_width\": %u, \"lanes\": %u, \"work_group\": %llu, \"warp\": ", r->width,
          r->lanes, (unsigned long long)r->group);
  if (r->warp < 0) fputs("null", f);
  else fprintf(f, "%d", r->warp);
  fprintf(f, ", \"end_pc\": %u, \"blocks\": [", r->nblocks);
  for (unsigned pc = 0; pc < r->nblocks; pc++)
    fprintf(f, "%s{\"pc\": %u, \"first_line\": %u, \"last_line\": %u}", pc ? ", " : "", pc,
            r->first_line[pc], r->last_line[pc]);
  fputs("]}\n", f);
}

static void json_step(FILE *f, const weft_trace_step *s) {
  char m[WEFT_MASK_CHARS];
  fprintf(f,
          "{\"step\": %llu, \"group\": [%llu, %llu, %llu], \"warp\": %u, \"pc\": %u, "
          "\"end_pc\": %u, \"first_line\": %u, \"last_line\": %u, \"mask\": \"%s\", "
          "\"event\": \"%s\", \"targets\": [",
          (unsigned long long)s->step, (unsigned long long)s->group_id[0],
          (unsigned long long)s->group_id[1], (unsigned long long)s->group_id[2], s->warp, s->pc,
          s->end_pc, s->first_line, s->last_line, weft_mask_string(m, s->mask, s->width),
          weft_trace_event_name(s->event));
  for (unsigned t = 0; t < s->ntargets; t++)
    fprintf(f, "%s{\"pc\": %u, \"mask\": \"%s\"}", t ? ", " : "", s->target_pc[t],
            weft_mask_string(m, s->target_mask[t], s->width));
  fprintf(f,
          "], \"blocks\": %llu, \"groups_run\": %llu, \"groups_skipped\": %llu, "
          "\"reconvergences\": %u, \"early_reconvergences\": %u, \"state\": %s}\n",
          (unsigned long long)s->blocks, (unsigned long long)s->groups_run,
          (unsigned long long)s->groups_skipped, s->reconvergences, s->early_reconvergences,
          s->state_json);
}

void trace_write_json(FILE *f, const trace_rec *r) {
  json_header(f, r);
  for (size_t i = 0; i < r->n; i++) json_step(f, &r->rows[i].s);
  if (r->truncated) fprintf(f, "{\"truncated\": true, \"max_steps\": %zu}\n", r->max);
}
