/* Buffers that end at an inaccessible page. A kernel that runs past the end of one stops with
 * SIGSEGV at its first access beyond (at most 63 bytes of padding lie between), where memory
 * from malloc would be overwritten without a word and the heap corrupted. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* The bytes the buffer takes before its guard page: its size, 64-byte aligned, at least 64 (so
 * that the buffer begins in its mapping's first page even when it is empty). */
static size_t used_bytes(size_t bytes) { return bytes ? rt_align64(bytes) : 64; }

void *weft_buffer_alloc(size_t bytes) {
  size_t page = page_size(), used = used_bytes(bytes);
  if (used < bytes || used > SIZE_MAX - 2 * page) return NULL;
  size_t data = (used + page - 1) / page * page;
  char *base = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  if (mprotect(base + data, page, PROT_NONE) != 0) return munmap(base, data + page), NULL;
  return base + data - used;
}

void weft_buffer_free(void *buffer, size_t bytes) {
  if (!buffer) return;
  size_t page = page_size(), used = used_bytes(bytes), data = (used + page - 1) / page * page;
  munmap((char *)((uintptr_t)buffer & ~(uintptr_t)(page - 1)), data + page);
}
