/* The table of reconvergence policies. Adding one is a file policy_<name>.c that defines a
 * weft_policy_ops and a line here; the scheduler does not change. */
#include <stdio.h>
#include <string.h>

#include "runtime.h"

static const weft_policy_ops *const policies[] = {&policy_stack, &policy_mp, &policy_mp_orec, &policy_pc};

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
