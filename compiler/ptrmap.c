/* Open-addressing hash map from pointers (LLVM values) to records, grown in the arena. Passes
 * attach their per-value facts here instead of to LLVM, which has no C API for side tables. */
#include "compiler.h"

#include <stdint.h>

static unsigned slot_of(const ptrmap *m, const void *key) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17, h *= 0x9E3779B97F4A7C15u, h ^= h >> 29;
  unsigned i = (unsigned)h & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
  return i;
}

void ptrmap_init(weft_arena *a, ptrmap *m, unsigned expected) {
  m->cap = 16;
  while (m->cap < expected * 2) m->cap *= 2;
  m->keys = ARENA_NEW(a, const void *, m->cap);
  m->vals = ARENA_NEW(a, void *, m->cap);
  m->n = 0;
}

void *ptrmap_get(const ptrmap *m, const void *key) {
  if (!m->cap) return NULL;
  unsigned i = slot_of(m, key);
  return m->keys[i] ? m->vals[i] : NULL;
}

void ptrmap_put(weft_arena *a, ptrmap *m, const void *key, void *val) {
  if (!m->cap) ptrmap_init(a, m, 16);
  if ((m->n + 1) * 2 > m->cap) {
    ptrmap old = *m;
    ptrmap_init(a, m, old.cap);
    for (unsigned i = 0; i < old.cap; i++)
      if (old.keys[i]) ptrmap_put(a, m, old.keys[i], old.vals[i]);
  }
  unsigned i = slot_of(m, key);
  if (!m->keys[i]) m->keys[i] = key, m->n++;
  m->vals[i] = val;
}
