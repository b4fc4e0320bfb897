/* Replaying a policy event by event, for the policy unit tests: a replay holds one warp's policy
 * state and a weft_warp_ctx; the steps hand it the events generated code would return (branch,
 * jump, split2, barrier) and check what next() offers and what the printer shows. */
#ifndef WEFT_POLICY_REPLAY_H
#define WEFT_POLICY_REPLAY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

typedef struct replay {
  weft_compiled_kernel k;
  const weft_policy_ops *ops;
  void *st;
  weft_warp_ctx ctx;
  policy_counters c;
  policy_config cfg;
} replay;

/* A warp of W = 4 lanes, `live` of them work-items, in a CFG of nblocks blocks, with the split
 * order and bound of cfg. */
static void replay_init_cfg(replay *r, const char *policy, unsigned nblocks, const uint32_t *ipdom,
                            uint64_t live, policy_config cfg) {
  memset(r, 0, sizeof *r);
  r->k = (weft_compiled_kernel){.name = "k",
                                .warp = 4,
                                .lanes = 4,
                                .nblocks = nblocks,
                                .ipdom = ipdom};
  r->cfg = cfg;
  r->ops = policy_find(policy);
  assert_non_null(r->ops);
  r->st = aligned_alloc(64, rt_align64(r->ops->state_size(&r->k)));
  r->ops->init(r->st, &r->k, &r->cfg, live);
}

/* Round robin, no bound. */
static void replay_init(replay *r, const char *policy, unsigned nblocks, const uint32_t *ipdom,
                        uint64_t live) {
  replay_init_cfg(r, policy, nblocks, ipdom, live, (policy_config){SPLIT_RR, 4});
}

static void replay_done(replay *r) {
  if (r->ops->release) r->ops->release(r->st);
  free(r->st);
}

/* The policy's printer must show exactly `want`. */
static void expect_state(replay *r, const char *want) {
  char *got = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&got, &len);
  r->ops->print(f, r->st);
  fclose(f);
  if (strcmp(got, want)) fail_msg("%s state:\n%s\nexpected:\n%s", r->ops->name, got, want);
  free(got);
}

/* next() must give this split now. */
static void expect_next(replay *r, uint32_t pc, uint64_t mask, uint32_t guard) {
  assert_int_equal(r->ops->next(r->st, &r->ctx.pc, &r->ctx.mask, &r->ctx.guard), 1);
  assert_int_equal(r->ctx.pc, pc);
  assert_int_equal(r->ctx.mask, mask);
  assert_int_equal(r->ctx.guard, guard);
}

static void expect_none(replay *r) {
  uint32_t pc, guard;
  uint64_t mask;
  assert_int_equal(r->ops->next(r->st, &pc, &mask, &guard), 0);
}

/* The split last offered went to n targets. */
static weft_status branch(replay *r, uint32_t from, unsigned n, const uint32_t *pcs,
                          const uint64_t *masks) {
  r->ctx.event = WEFT_EVENT_BRANCH, r->ctx.from_pc = from, r->ctx.ntargets = n;
  for (unsigned t = 0; t < n; t++) r->ctx.target_pc[t] = pcs[t], r->ctx.target_mask[t] = masks[t];
  return r->ops->branch(r->st, &r->ctx, &r->c);
}

static void jump(replay *r, uint32_t from, uint32_t to) {
  assert_int_equal(branch(r, from, 1, (uint32_t[]){to}, (uint64_t[]){r->ctx.mask}), 0);
}

static void split2(replay *r, uint32_t from, uint32_t t0, uint64_t m0, uint32_t t1, uint64_t m1) {
  assert_int_equal(branch(r, from, 2, (uint32_t[]){t0, t1}, (uint64_t[]){m0, m1}), 0);
}

/* next() gives this split now, and it goes on to `to` as one piece. */
static inline void step(replay *r, uint32_t pc, uint64_t mask, uint32_t guard, uint32_t to) {
  expect_next(r, pc, mask, guard);
  jump(r, pc, to);
}

/* The split last offered reached the barrier ending block `from`; it resumes at `resume`. */
static weft_status barrier(replay *r, uint32_t from, uint32_t resume) {
  r->ctx.event = WEFT_EVENT_BARRIER, r->ctx.from_pc = from, r->ctx.ntargets = 1;
  r->ctx.target_pc[0] = resume, r->ctx.target_mask[0] = r->ctx.mask;
  return r->ops->barrier_arrive(r->st, &r->ctx, &r->c);
}

#endif
