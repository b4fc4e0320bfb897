/* One arena per kernel compilation: every analysis result (CFG, post-dominators, divergence facts)
 * is allocated here and freed in one call, as QBE frees a function's pools. Allocations are
 * zeroed, so structures start in a known state. */
#include "compiler.h"

#include <stdlib.h>
#include <string.h>

typedef struct chunk {
  struct chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} chunk;

struct weft_arena {
  chunk *head;
};

weft_arena *arena_create(void) { return calloc(1, sizeof(weft_arena)); }

void *arena_alloc(weft_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  chunk *c = a->head;
  if (!c || c->used + n > c->size) {
    size_t size = n > 65536 ? n : 65536;
    c = malloc(sizeof(chunk) + size);
    if (!c) weft_die(__FILE__, __LINE__, "out of memory (%zu bytes)", n);
    c->next = a->head, c->used = 0, c->size = size;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  return memset(p, 0, n);
}

void arena_release(weft_arena *a) {
  if (!a) return;
  for (chunk *c = a->head, *next; c; c = next) next = c->next, free(c);
  free(a);
}
