/* WEFT_PERF_MAP=1: perf's names for the JIT's code. LLJIT puts the warp functions in anonymous
 * memory, where perf finds no symbols unless /tmp/perf-<pid>.map lists them, a line
 * "START SIZE name" (both in hex) each: perf's convention for JITs (its jit-interface.txt).
 *
 * A build's names and sizes come from its objects' symbol tables, read before the JIT takes each
 * object (LLJIT does not say where it put what); the addresses from LLJIT's lookup once all of
 * the build's objects are in: an object is linked at the first lookup of any of its symbols, and
 * what it refers to in the other units must be there by then (pipeline.c's lookups come later
 * still). A debugging aid: whatever fails is skipped, silently. */
#include <fcntl.h>
#include <inttypes.h>
#include <llvm-c/Object.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compiler.h"

typedef struct perf_fn {
  char *name; /* as the object spells it: with the JIT's global prefix, if it has one */
  uint64_t size;
} perf_fn;

struct perf_map {
  perf_fn *fns;
  size_t n, cap;
};

perf_map *perf_map_begin(void) {
  const char *want = getenv("WEFT_PERF_MAP"); /* read each time, as debug.c reads WEFT_DEBUG */
  if (!want || strcmp(want, "1")) return NULL;
  return calloc(1, sizeof(perf_map));
}

static void add_fn(perf_map *pm, const char *name, uint64_t size) {
  if (pm->n == pm->cap) {
    size_t cap = pm->cap ? 2 * pm->cap : 16;
    perf_fn *fns = realloc(pm->fns, cap * sizeof *fns);
    if (!fns) return;
    pm->fns = fns, pm->cap = cap;
  }
  char *copy = strdup(name);
  if (copy) pm->fns[pm->n++] = (perf_fn){copy, size};
}

/* A function that the object defines. The C API tells no symbol's type, but LLVM puts only
 * functions in .text (or .text.hot ...); an undefined symbol has no section, and the section's
 * own symbol no size. A local function is kept too, and then not found by LLJIT, which looks up
 * global symbols only: the front end inlines the kernel's helpers, but a policy's cold path stays
 * out of line (`arbitrate` of policy_pc.c: policy_code.c), local, in `.text.unlikely.`, which
 * the JIT places apart from `.text`; perf shows its samples as unnamed JIT addresses. */
static int defines_fn(LLVMBinaryRef bin, LLVMSymbolIteratorRef sym, LLVMSectionIteratorRef sec) {
  if (!LLVMGetSymbolSize(sym)) return 0;
  LLVMMoveToContainingSection(sec, sym);
  return !LLVMObjectFileIsSectionIteratorAtEnd(bin, sec) &&
         !strncmp(LLVMGetSectionName(sec), ".text", 5);
}

void perf_map_collect(perf_map *pm, LLVMMemoryBufferRef object) {
  if (!pm || !object) return;
  char *msg = NULL;
  LLVMBinaryRef bin = LLVMCreateBinary(object, NULL, &msg); /* it does not own the buffer */
  LLVMDisposeMessage(msg);
  if (!bin) return;
  LLVMSymbolIteratorRef sym = LLVMObjectFileCopySymbolIterator(bin);
  LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
  for (; sym && sec && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, sym); LLVMMoveToNextSymbol(sym))
    if (defines_fn(bin, sym, sec)) add_fn(pm, LLVMGetSymbolName(sym), LLVMGetSymbolSize(sym));
  if (sec) LLVMDisposeSectionIterator(sec);
  if (sym) LLVMDisposeSymbolIterator(sym);
  LLVMDisposeBinary(bin);
}

/* The map's lines for pm's functions that LLJIT finds, under their names in the IR; NULL if
 * none. */
static char *map_lines(const perf_map *pm, LLVMOrcLLJITRef lljit, size_t *len) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  if (!f) return NULL;
  char prefix = LLVMOrcLLJITGetGlobalPrefix(lljit);
  for (size_t i = 0; i < pm->n; i++) {
    const char *name = pm->fns[i].name + (prefix && pm->fns[i].name[0] == prefix);
    LLVMOrcExecutorAddress at = 0;
    LLVMErrorRef e = LLVMOrcLLJITLookup(lljit, &at, name);
    if (e) LLVMConsumeError(e);
    else fprintf(f, "%" PRIx64 " %" PRIx64 " %s\n", (uint64_t)at, pm->fns[i].size, name);
  }
  if (fclose(f) || !*len) return free(text), NULL;
  return text;
}

/* Refuses what a hostile /tmp could have put there instead: a symbolic link (O_NOFOLLOW), a FIFO
 * (O_NONBLOCK: the open fails without a reader instead of waiting for one), and anything else
 * that is not a regular file of ours with one link (a hard link to someone's file). */
static int open_map(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)getpid());
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1)
    return close(fd), -1;
  return fd;
}

/* One write() for the build's lines: with O_APPEND, builds on other threads (or in other
 * contexts) cannot interleave with them, and no lock is needed. */
void perf_map_end(perf_map *pm, LLVMOrcLLJITRef lljit) {
  if (!pm) return;
  size_t len = 0;
  char *text = lljit ? map_lines(pm, lljit, &len) : NULL;
  int fd = text ? open_map() : -1;
  if (fd >= 0) {
    ssize_t wrote = write(fd, text, len); /* a short write leaves a line cut: perf skips it */
    (void)wrote;
    close(fd);
  }
  free(text);
  for (size_t i = 0; i < pm->n; i++) free(pm->fns[i].name);
  free(pm->fns);
  free(pm);
}
