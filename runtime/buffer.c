/* Buffers between inaccessible regions. A kernel that runs past the end of one stops with
 * SIGSEGV at its first access beyond (at most WEFT_BUFFER_ALIGN - 1 bytes of padding lie
 * between), and one that runs below its start (past what padding the first page has) stops the
 * same way: memory from malloc, or the runtime's own state next to __local memory, would be
 * overwritten without a word. Each guard is at least GUARD_MIN bytes of address space, never of
 * memory, so that an index that jumps a page or two still lands in it. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

#define GUARD_MIN (64u << 10)

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* The guard below and above: GUARD_MIN or a page, whichever is larger. */
static size_t guard_size(size_t page) { return page > GUARD_MIN ? page : GUARD_MIN; }

/* n rounded up to a multiple of unit (0 when that does not fit: the callers check). */
static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

/* The bytes the buffer takes before its guard: its size rounded up to WEFT_BUFFER_ALIGN, at
 * least that (so that the buffer begins in its mapping's first page even when it is empty).
 * OpenCL's CL_DEVICE_MEM_BASE_ADDR_ALIGN must be the largest type's size, a long16's. */
static size_t used_bytes(size_t bytes) {
  return bytes ? round_up(bytes, WEFT_BUFFER_ALIGN) : WEFT_BUFFER_ALIGN;
}

/* The pages that hold the buffer's data, from its used bytes. */
static size_t data_bytes(size_t used, size_t page) { return round_up(used, page); }

void *weft_buffer_alloc(size_t bytes) {
  size_t page = page_size(), guard = guard_size(page), used = used_bytes(bytes);
  if (used < bytes || used > SIZE_MAX - 2 * guard - page) return NULL;
  size_t data = data_bytes(used, page);
  char *base = mmap(NULL, guard + data + guard, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  if (mprotect(base + guard, data, PROT_READ | PROT_WRITE) != 0)
    return munmap(base, guard + data + guard), NULL;
  return base + guard + data - used;
}

void weft_buffer_free(void *buffer, size_t bytes) {
  if (!buffer) return;
  size_t page = page_size(), guard = guard_size(page), data = data_bytes(used_bytes(bytes), page);
  char *first = (char *)((uintptr_t)buffer & ~(uintptr_t)(page - 1));
  munmap(first - guard, guard + data + guard);
}
