/* The table of reconvergence policies. Adding one is a file policy_<name>.c that defines a
 * weft_policy_ops and a line here; the scheduler does not change. */
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static const weft_policy_ops *const policies[] = {&policy_stack, &policy_mp, &policy_mp_orec,
                                                  &policy_pc};

const weft_policy_ops *policy_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
    if (!strcmp(policies[i]->name, name)) return policies[i];
  return NULL;
}

void policy_names(char *buf, size_t n) {
  size_t used = 0;
  if (n) buf[0] = 0;
  for (size_t i = 0; i < sizeof policies / sizeof *policies && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", policies[i]->name);
}

static const char *const order_names[] = {[SPLIT_RR] = "rr", [SPLIT_LOWEST_PC] = "lowest-pc"};

const char *split_order_name(split_order_kind order) { return order_names[order]; }

weft_status policy_config_make(const char *split_order, unsigned max_splits, unsigned warp,
                               policy_config *cfg, char *why, size_t n) {
  policy_config c = {SPLIT_LOWEST_PC, max_splits == 0 || max_splits > warp ? warp : max_splits};
  if (split_order && !strcmp(split_order, order_names[SPLIT_RR])) c.order = SPLIT_RR;
  else if (split_order && strcmp(split_order, order_names[SPLIT_LOWEST_PC]))
    return rt_error(why, n, WEFT_ERROR_INVALID_VALUE, "split order '%s' is not rr or lowest-pc",
                    split_order);
  if (max_splits == 1) /* the paper's smallest table, the dual-path stack, has 2 */
    return rt_error(why, n, WEFT_ERROR_INVALID_VALUE,
                    "max splits must be 0 (no bound) or at least 2, not 1");
  *cfg = c;
  return WEFT_SUCCESS;
}
