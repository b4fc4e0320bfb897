/* The disk cache of compiled programs: a second process that builds the same program pays no
 * clang and no code generation (WEFT_CACHE_DIR, default $XDG_CACHE_HOME/weft or
 * ~/.cache/weft; WEFT_CACHE=0 turns it off).
 *
 * An entry is one file, named by a hash of its key, that holds the key itself, the files that
 * clang read, and the program: the front end's log and bitcode, each kernel's description
 * (kernel.h), the objects of its code, and the objects of each kernel's variant for work-groups
 * that are not x-aligned that a launch has needed. The key is what the code depends on besides
 * those files: weft's own code (its build ID), LLVM's version, clang (its path, size and time),
 * the CPU (name and features), W, G, the file name, the build options and the source text.
 *
 * The files read are what clang's make rule for the build names (cc1.c and frontend.c have it
 * written to a memfd): the kernel file, clang's opencl-c-base.h and every file included, as
 * ccache's direct mode records them. Each is kept by the name clang opened it by (a relative
 * name stays relative: a build in another folder would read the file there), its size and a
 * hash of its bytes; a hit reads each again, and any that changed or is gone makes the entry a
 * miss, built and written again. Its bytes decide, not its time; but one that changed after the
 * build began is not recorded at all (clang may have read it before the change), nor is a
 * program that asks whether files exist (__has_include, __has_embed, in its text, options or
 * any file read; a pasted spelling is not seen), whose build depends on files it did not read,
 * nor one with -Wp, options, which could change what clang says it read. What no entry sees: a
 * file created where clang would find it before the one it read (in a folder searched earlier),
 * as in ccache's direct mode.
 *
 * An entry is never trusted. The directory must be the user's and writable by no one else; the
 * entry's checksum must match, its key must be this build's byte for byte (two keys can share
 * a hash), and every count and length in it must fit in what is left of it. Anything else is
 * ignored: the program is built and the entry written again. Entries are written to a
 * temporary file and renamed into place, so that processes building the same program at once
 * each find a whole entry or none. A variant built later is added the same way, to the entry as
 * it is then, if that holds the same bitcode it was built from; two processes adding variants at
 * once may lose one of them, which is then built again, never half of one. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "compiler.h"

#define ENTRY_MAGIC "weftc\0\0\4" /* the format's version in the last byte */
#define ENTRY_HEAD 24             /* magic, payload size, checksum */
#define MAX_KERNELS 4096
#define MAX_BLOCKS (1u << 24)
#define MAX_PARAMS 4096
#define MAX_INPUTS 4096 /* files that clang read for a build */
#define ENTRY_PATH_MAX (PATH_MAX + 32) /* the folder and an entry's name in it */

static uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
#define FNV_START 0xcbf29ce484222325ull

/* ---- the key ---- */

typedef struct own_code {
  uintptr_t at; /* an address in weft's code */
  char id[2 * 64 + 1]; /* its object's build ID in hex, "" when it has none */
} own_code;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  own_code *o = arg;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && o->at >= start && o->at < start + ph->p_memsz) mine = 1;
  }
  for (int i = 0; mine && i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const char *n = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = n + ph->p_memsz;
    while (n + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *h = (const ElfW(Nhdr) *)n;
      const unsigned char *desc = (const unsigned char *)n + sizeof *h + ((h->n_namesz + 3) & ~3u);
      if (h->n_type == NT_GNU_BUILD_ID && h->n_descsz <= 64 && (const char *)desc <= end)
        for (unsigned k = 0; k < h->n_descsz; k++) sprintf(o->id + 2 * k, "%02x", desc[k]);
      n = (const char *)desc + ((h->n_descsz + 3) & ~3u);
    }
  }
  return mine;
}

static own_code weft_code;

static void read_code_id(void) {
  weft_code.at = (uintptr_t)&read_code_id;
  dl_iterate_phdr(find_build_id, &weft_code);
}

/* The build ID of the executable or library that holds this code: weft's version, down to
 * the last change of any of its files; "" when it has none (then nothing is cached). */
static const char *weft_code_id(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_code_id);
  return weft_code.id;
}

/* clang as the key sees it: the path weft runs, its size and time of change. */
static void clang_identity(char *out, size_t n) {
  const char *path = frontend_clang_path();
  struct stat st;
  if (stat(path, &st)) memset(&st, 0, sizeof st);
  snprintf(out, n, "%s %lld %lld.%09ld", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
           st.st_mtim.tv_nsec);
}

/* The length of a line splice at s (a backslash, or the trigraph ??/, then blanks and a
 * newline); 0 when there is none. */
static size_t splice_at(const char *s, const char *end) {
  const char *p = s;
  if (p < end && *p == '\\') p++;
  else if (end - p >= 3 && !memcmp(p,
                                   "??"
                                   "/",
                                   3))
    p += 3;
  else return 0;
  while (p < end && strchr(" \t\r\f\v", *p) && *p) p++;
  return p < end && *p == '\n' ? (size_t)(p + 1 - s) : 0;
}

/* Whether the n bytes at s spell `word`, line splices within it and all. */
static int says(const char *s, size_t n, const char *word) {
  const char *end = s + n;
  for (const char *at = s; at < end; at++) {
    const char *p = at, *w = word;
    for (size_t k; *w; p++, w++) {
      while ((k = splice_at(p, end))) p += k;
      if (p == end || *p != *w) break;
    }
    if (!*w) return 1;
  }
  return 0;
}

/* __has_include and __has_embed ask whether a file exists: a build where one was missing depends
 * on a file that it did not read, which no entry could record. */
static int asks_for_files(const char *s, size_t n) {
  return says(s, n, "__has_include") || says(s, n, "__has_embed");
}

static int cache_dir(char *dir);

char *cache_key(const pipeline_target *t, const char *path, const char *text, const char *opts) {
  char dir[PATH_MAX];
  if (cache_dir(dir)) return NULL;
  opts = opts ? opts : "";
  /* -Wp, hands options to the preprocessor that could change what clang says it read */
  if (!text || !*weft_code_id() || asks_for_files(text, strlen(text)) ||
      asks_for_files(opts, strlen(opts)) || strstr(opts, "-Wp,"))
    return NULL;
  const char *cpu, *features;
  jit_host(t->jit, &cpu, &features);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  char clang[PATH_MAX + 64];
  clang_identity(clang, sizeof clang);
  char *key = NULL;
  if (asprintf(&key,
               "weft %s\nllvm %u.%u.%u\nclang %s\ncpu %s %s\nW %u G %u avx512 %d\n"
               "file %zu:%s\noptions %zu:%s\n%s",
               weft_code_id(), major, minor, patch, clang, cpu, features, t->warp, t->lanes,
               t->avx512, strlen(path), path, strlen(opts), opts, text) < 0)
    return NULL;
  return key;
}

/* ---- the files clang read ---- */

/* The next file name of clang's make rule at *at, unescaped into name (PATH_MAX bytes), and *at
 * past it: 1; 0 at the rule's end; -1 for a name that this may not read as clang meant it (an
 * escape other than clang's for a space, a '#' or a '$', a newline within, too long). */
static int next_input(const char **at, char *name) {
  const char *s = *at;
  while (*s == ' ' || *s == '\t' || (s[0] == '\\' && s[1] == '\n')) s += *s == '\\' ? 2 : 1;
  if (*s == '\n' && !s[1]) s++; /* the rule's last line ends there */
  if (!*s) return *at = s, 0;
  size_t n = 0;
  for (; *s && *s != ' ' && *s != '\t' && *s != '\n'; n++) {
    char c = *s++;
    if (c == '\\' && *s != ' ' && *s != '#') return -1;
    if (c == '$' && *s != '$') return -1;
    if (c == '\\' || c == '$') c = *s++;
    if (n + 1 >= PATH_MAX) return -1;
    name[n] = c;
  }
  if (*s == '\n' && s[1]) return -1;
  name[n] = 0;
  *at = s;
  return 1;
}

static int not_before(struct timespec a, const struct timespec *b) {
  return a.tv_sec > b->tv_sec || (a.tv_sec == b->tv_sec && a.tv_nsec >= b->tv_nsec);
}

/* The regular file at path, whole (malloc'd), and when it last changed (its time of change or
 * of modification, the later); NULL when it is not a regular file or cannot be read. Opened
 * without blocking: a FIFO put in a header's place must not stop the build. */
static char *read_input(const char *path, size_t *n, struct timespec *changed) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *text = NULL;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
    text = file_read_fd(fd, n);
    *changed = not_before(st.st_mtim, &st.st_ctim) ? st.st_mtim : st.st_ctim;
  }
  close(fd);
  return text;
}

/* ---- the directory ---- */

static atomic_flag warned = ATOMIC_FLAG_INIT;

static int refuse_dir(const char *dir, const char *why) {
  if (!atomic_flag_test_and_set(&warned))
    fprintf(stderr, "weft: the kernel cache %s is not used: %s\n", dir, why);
  return -1;
}

/* mkdir -p, each new folder the user's alone. */
static int make_dirs(char *dir) {
  for (char *s = dir + 1;; s++) {
    if (*s && *s != '/') continue;
    char c = *s;
    *s = 0;
    int bad = mkdir(dir, 0700) && errno != EEXIST;
    *s = c;
    if (bad || !c) return bad ? -1 : 0;
  }
}

/* The cache's folder in dir (PATH_MAX bytes): 0, or -1 when there is none to use. */
static int cache_dir(char *dir) {
  const char *on = getenv("WEFT_CACHE"), *d = getenv("WEFT_CACHE_DIR"),
             *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (on && !strcmp(on, "0")) return -1;
  int n = d && *d              ? snprintf(dir, PATH_MAX, "%s", d)
          : xdg && *xdg == '/' ? snprintf(dir, PATH_MAX, "%s/weft", xdg)
          : home && *home      ? snprintf(dir, PATH_MAX, "%s/.cache/weft", home)
                               : -1;
  if (n < 0 || n >= PATH_MAX - 64) return -1;
  struct stat st;
  if (make_dirs(dir) || stat(dir, &st)) return refuse_dir(dir, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return refuse_dir(dir, "it is not a directory");
  if (st.st_uid != geteuid()) return refuse_dir(dir, "it belongs to another user");
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return refuse_dir(dir, "others may write to it");
  return 0;
}

static int entry_path(char *path, const char *key) {
  char dir[PATH_MAX];
  if (cache_dir(dir)) return -1;
  snprintf(path, ENTRY_PATH_MAX, "%s/%016llx.weftc", dir,
           (unsigned long long)fnv1a(key, strlen(key), FNV_START));
  return 0;
}

/* ---- writing an entry ---- */

typedef struct out_buf {
  char *p;
  size_t n, cap;
  int failed;
} out_buf;

static void put(out_buf *b, const void *data, size_t n) {
  if (b->failed) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
}

static void put_u64(out_buf *b, uint64_t v) { put(b, &v, 8); }
static void put_bytes(out_buf *b, const void *data, size_t n) { put_u64(b, n), put(b, data, n); }
static void put_str(out_buf *b, const char *s) {
  put_u64(b, s ? 1 : 0);
  if (s) put_bytes(b, s, strlen(s));
}

/* Each file that deps (clang's make rule for x) names: its name as clang opened it (a relative
 * name stays relative, as a later build in another folder would read the file there), its size
 * and a hash of its bytes. -1 when one cannot be recorded for sure: a name this cannot read, a
 * file that cannot be read, one that changed after the build began (clang may have read it
 * before the change), or one that asks whether files exist. */
static int put_inputs(out_buf *b, const char *deps, const struct timespec *began) {
  if (!deps || strncmp(deps, "x:", 2)) return -1;
  size_t count_at = b->n;
  uint64_t count = 0;
  put_u64(b, 0);
  char name[PATH_MAX];
  int got;
  for (const char *at = deps + 2; (got = next_input(&at, name)) > 0; count++) {
    size_t n;
    struct timespec changed;
    char *text = count < MAX_INPUTS ? read_input(name, &n, &changed) : NULL;
    int ok = text && !not_before(changed, began) && !asks_for_files(text, n);
    if (ok) put_str(b, name), put_u64(b, n), put_u64(b, fnv1a(text, n, FNV_START));
    free(text);
    if (!ok) return debug_cache("not stored, cannot record a file it read:", name), -1;
  }
  if (got < 0 || b->failed) return -1;
  memcpy(b->p + count_at, &count, 8);
  return 0;
}

static void put_kernel(out_buf *b, const weft_compiled_kernel *k) {
  put_str(b, k->name), put_str(b, k->file);
  put_u64(b, k->warp), put_u64(b, k->lanes), put_u64(b, k->nblocks);
  const uint32_t *arrays[] = {k->ipdom, k->first_line, k->last_line, k->ninstr, k->barrier_line};
  for (int a = 0; a < 5; a++) put(b, arrays[a], 4 * ((size_t)k->nblocks + 1));
  put_u64(b, k->frame_size), put_u64(b, k->static_local_size), put_u64(b, k->args_size);
  put_u64(b, (uint64_t)k->flush_denormals), put_u64(b, k->nparams);
  for (unsigned i = 0; i < k->nparams; i++) {
    const weft_param *p = &k->params[i];
    put_str(b, p->name), put_str(b, p->type_name);
    put_u64(b, p->kind), put_u64(b, p->type), put_u64(b, p->vector_width);
    put_u64(b, p->size), put_u64(b, p->offset), put_u64(b, p->qualifiers), put_u64(b, p->align);
  }
}

static void put_objects(out_buf *b, const jit_objects *o) {
  put_u64(b, o->n);
  for (unsigned k = 0; k < o->n; k++) put_bytes(b, o->bytes[k], o->size[k]);
}

/* After the key and the files read: the program. */
static void put_program(out_buf *b, const program_code *p, unsigned build, const jit_objects *o) {
  put_str(b, p->log);
  put_bytes(b, LLVMGetBufferStart(p->front_end), LLVMGetBufferSize(p->front_end));
  put_u64(b, p->instrs), put_u64(b, build), put_u64(b, p->nkernels);
  for (unsigned i = 0; i < p->nkernels; i++) put_kernel(b, &p->kernels[i].info);
  put_objects(b, o);
}

/* Last: the variants for work-groups that are not x-aligned that the entry holds, each with its
 * kernel's index (variants[k].o.n 0: none for kernel k). */
static void put_variants(out_buf *b, const cached_variant *variants, unsigned nkernels) {
  uint64_t count = 0;
  for (unsigned k = 0; variants && k < nkernels; k++) count += variants[k].o.n > 0;
  put_u64(b, count);
  for (unsigned k = 0; variants && k < nkernels; k++) {
    const cached_variant *v = &variants[k];
    if (!v->o.n) continue;
    put_u64(b, k), put_u64(b, v->fns), put_u64(b, v->globals);
    put_objects(b, &v->o);
  }
}

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w, n -= (size_t)w;
  }
  return 0;
}

/* b, an entry but for its head, as the file at path: to a temporary file first, renamed into
 * place whole, so that a process reading the entry meanwhile finds the old one or the new one. */
static void write_entry(const char *path, out_buf *b) {
  char tmp[ENTRY_PATH_MAX + 16];
  if (b->failed) return;
  uint64_t size = b->n - ENTRY_HEAD, sum = fnv1a(b->p + ENTRY_HEAD, size, FNV_START);
  memcpy(b->p, ENTRY_MAGIC, 8), memcpy(b->p + 8, &size, 8), memcpy(b->p + 16, &sum, 8);
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
  int fd = mkstemp(tmp);
  int ok = fd >= 0 && !write_all(fd, b->p, b->n);
  if (fd >= 0 && close(fd)) ok = 0;
  if (ok && !rename(tmp, path)) {
    debug_cache("stored", path);
    char dir[ENTRY_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    *slash = 0; /* dir: the folder; slash + 1: the entry's name */
    cache_trim(dir, slash + 1);
  } else if (fd >= 0) {
    unlink(tmp);
  }
}

void cache_store(const char *key, const program_code *p, unsigned build, const jit_objects *o,
                 const char *deps, const struct timespec *began) {
  char path[ENTRY_PATH_MAX];
  if (!key || o->lost || entry_path(path, key)) return;
  out_buf b = {0};
  put(&b, ENTRY_MAGIC, 8), put_u64(&b, 0), put_u64(&b, 0); /* the head, once it is known */
  put_str(&b, key);
  if (!put_inputs(&b, deps, began)) {
    put_program(&b, p, build, o);
    put_variants(&b, NULL, 0);
    write_entry(path, &b);
  }
  free(b.p);
}

/* ---- reading an entry: every count and length checked against what is left ---- */

typedef struct in_buf {
  const char *p, *end;
  int bad;
  int trust_inputs; /* the files read are not checked */
  char *changed;    /* the first file read that has changed (malloc'd): stale, not bad */
} in_buf;

static const void *take(in_buf *b, size_t n) {
  if (b->bad || (size_t)(b->end - b->p) < n) return b->bad = 1, NULL;
  const char *at = b->p;
  b->p += n;
  return at;
}

static uint64_t take_u64(in_buf *b) {
  uint64_t v = 0;
  const void *at = take(b, 8);
  if (at) memcpy(&v, at, 8);
  return v;
}

static unsigned take_count(in_buf *b, unsigned max) {
  uint64_t v = take_u64(b);
  if (v > max) b->bad = 1;
  return b->bad ? 0 : (unsigned)v;
}

static const char *take_bytes(in_buf *b, size_t *n) {
  *n = take_u64(b);
  return take(b, *n);
}

/* A string, malloc'd; NULL when the entry held none (or is bad). */
static char *take_str(in_buf *b) {
  if (!take_u64(b)) return NULL;
  size_t n;
  const char *s = take_bytes(b, &n);
  char *copy = s ? strndup(s, n) : NULL;
  if (s && (!copy || strlen(copy) != n)) b->bad = 1;
  return copy;
}

static uint32_t *take_u32s(in_buf *b, size_t n) {
  const void *at = take(b, 4 * n);
  uint32_t *a = at ? malloc(4 * n) : NULL;
  if (a) memcpy(a, at, 4 * n);
  else b->bad = 1;
  return a;
}

static void take_kernel(in_buf *b, weft_compiled_kernel *k) {
  k->name = take_str(b), k->file = take_str(b);
  k->warp = take_count(b, WEFT_MAX_WARP), k->lanes = take_count(b, WEFT_MAX_WARP);
  k->nblocks = take_count(b, MAX_BLOCKS);
  if (!k->name) b->bad = 1;
  const uint32_t **arrays[] = {&k->ipdom, &k->first_line, &k->last_line, &k->ninstr,
                               &k->barrier_line};
  for (int a = 0; a < 5 && !b->bad; a++) *arrays[a] = take_u32s(b, (size_t)k->nblocks + 1);
  for (unsigned pc = 0; pc < k->nblocks && !b->bad; pc++)
    if (k->ipdom[pc] > k->nblocks) b->bad = 1; /* the runtime follows these */
  k->frame_size = take_u64(b), k->static_local_size = take_u64(b), k->args_size = take_u64(b);
  k->flush_denormals = (int)take_count(b, 1);
  k->nparams = take_count(b, MAX_PARAMS);
  weft_param *ps = b->bad ? NULL : calloc(k->nparams ? k->nparams : 1, sizeof *ps);
  if (!ps) b->bad = 1;
  k->params = ps;
  for (unsigned i = 0; i < k->nparams && !b->bad; i++) {
    weft_param *p = &ps[i];
    p->name = take_str(b), p->type_name = take_str(b);
    p->kind = (weft_arg_kind)take_count(b, WEFT_ARG_LOCAL);
    p->type = (weft_type)take_count(b, WEFT_OTHER);
    p->vector_width = take_count(b, 16);
    p->size = take_u64(b), p->offset = take_u64(b), p->qualifiers = take_count(b, 7);
    p->align = take_count(b, WEFT_BUFFER_ALIGN);
    size_t slot = p->kind == WEFT_ARG_VALUE ? p->size : 8; /* a buffer's size is an element's */
    if (!p->name || !p->type_name || p->offset > k->args_size || slot > k->args_size - p->offset)
      b->bad = 1;
  }
}

/* The files that the entry's build read, each of which must hold the bytes it read still (a
 * file gone, or no longer a regular file, has changed): else b->changed names it. */
static void take_inputs(in_buf *b) {
  unsigned count = take_count(b, MAX_INPUTS);
  for (unsigned i = 0; i < count && !b->bad && !b->changed; i++) {
    char *name = take_str(b);
    uint64_t size = take_u64(b), hash = take_u64(b);
    if (!name) b->bad = 1;
    size_t n = 0;
    struct timespec changed;
    char *text = b->bad || b->trust_inputs ? NULL : read_input(name, &n, &changed);
    if (!b->bad && !b->trust_inputs && (!text || n != size || fnv1a(text, n, FNV_START) != hash))
      b->changed = name, name = NULL;
    free(text), free(name);
  }
}

static void take_objects(in_buf *b, jit_objects *o) {
  unsigned nobjects = take_count(b, JIT_UNITS_MAX);
  for (unsigned k = 0; k < nobjects && !b->bad; k++) {
    const char *bytes = take_bytes(b, &o->size[k]);
    o->bytes[k] = bytes ? malloc(o->size[k] ? o->size[k] : 1) : NULL;
    if (!o->bytes[k]) b->bad = 1;
    else memcpy(o->bytes[k], bytes, o->size[k]), o->n++;
  }
}

/* The program of entry b into p and o, with the number of the build that named its functions
 * in *build. */
static void take_program(in_buf *b, program_code *p, unsigned *build, jit_objects *o) {
  p->log = take_str(b);
  size_t n;
  const char *bitcode = take_bytes(b, &n);
  if (bitcode) p->front_end = LLVMCreateMemoryBufferWithMemoryRangeCopy(bitcode, n, "front end");
  p->instrs = take_count(b, UINT32_MAX), *build = take_count(b, UINT32_MAX);
  p->nkernels = take_count(b, MAX_KERNELS);
  p->kernels = b->bad ? NULL : calloc(p->nkernels ? p->nkernels : 1, sizeof *p->kernels);
  if (!p->log || !p->kernels) b->bad = 1;
  for (unsigned i = 0; i < p->nkernels && !b->bad; i++) take_kernel(b, &p->kernels[i].info);
  take_objects(b, o);
}

/* The variants for work-groups that are not x-aligned that the entry holds, one per kernel at
 * most, into p->cached. */
static void take_variants(in_buf *b, program_code *p) {
  unsigned count = take_count(b, p->nkernels);
  p->cached = count && !b->bad ? calloc(p->nkernels, sizeof *p->cached) : NULL;
  if (count && !p->cached) b->bad = 1;
  for (unsigned i = 0; i < count && !b->bad; i++) {
    unsigned k = take_count(b, p->nkernels - 1);
    cached_variant *v = &p->cached[b->bad ? 0 : k];
    if (v->o.n) b->bad = 1; /* a second for one kernel */
    v->fns = take_count(b, UINT32_MAX), v->globals = take_count(b, UINT32_MAX);
    take_objects(b, &v->o);
    if (!v->o.n || v->fns == v->globals) b->bad = 1; /* both renamed at once (cache_rename) */
  }
}

/* Entry b, whose key must be `key`: the files its build read, checked unless b->trust_inputs,
 * then the program into p and o (take_program) and its variants; *variants_at, when not NULL:
 * where they begin. */
static void take_entry(in_buf *b, const char *key, program_code *p, unsigned *build, jit_objects *o,
                       const char **variants_at) {
  char *stored = take_str(b);
  int foreign = !stored || strcmp(stored, key);
  free(stored);
  if (foreign) b->bad = 1;
  else take_inputs(b);
  if (b->bad || b->changed) return;
  take_program(b, p, build, o);
  if (variants_at) *variants_at = b->p;
  take_variants(b, p);
  if (b->p != b->end) b->bad = 1;
}

/* The file at path if it is the user's own regular file; malloc'd. Its time becomes now: the
 * entries used longest ago are the first deleted (cache_trim.c). */
static char *read_entry(const char *path, size_t *n) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  char *text = NULL;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid()) {
    text = file_read_fd(fd, n);
    futimens(fd, NULL);
  }
  close(fd);
  return text;
}

/* The body of the n bytes of entry, to read when its head is right: this format's magic, the
 * body's size and its checksum. */
static in_buf entry_body(const char *entry, size_t n) {
  in_buf b = {entry + ENTRY_HEAD, entry + n, 0, 0, NULL};
  uint64_t size, sum;
  if (n < ENTRY_HEAD || memcmp(entry, ENTRY_MAGIC, 8)) b.bad = 1;
  else memcpy(&size, entry + 8, 8), memcpy(&sum, entry + 16, 8);
  if (!b.bad && (size != n - ENTRY_HEAD || sum != fnv1a(entry + ENTRY_HEAD, size, FNV_START)))
    b.bad = 1;
  return b;
}

int cache_load(const char *key, program_code *p, unsigned *build, jit_objects *o) {
  char path[ENTRY_PATH_MAX];
  size_t n = 0;
  char *entry = key && !entry_path(path, key) ? read_entry(path, &n) : NULL;
  if (!entry) return -1;
  in_buf b = entry_body(entry, n);
  if (!b.bad) take_entry(&b, key, p, build, o, NULL);
  free(entry);
  if (!b.bad && !b.changed) return debug_cache("hit", path), 0;
  if (b.changed) debug_cache("miss: a file that its build read has changed:", b.changed);
  else debug_cache("ignored a damaged or foreign entry", path);
  free(b.changed);
  pipeline_code_free(p), jit_objects_free(o);
  return -1;
}

/* Whether programs a and b have the same front end's bitcode: code built from one fits the
 * other. */
static int same_program(const program_code *a, const program_code *b) {
  size_t n = a->front_end ? LLVMGetBufferSize(a->front_end) : 0;
  return a->nkernels == b->nkernels && n && b->front_end && n == LLVMGetBufferSize(b->front_end) &&
         !memcmp(LLVMGetBufferStart(a->front_end), LLVMGetBufferStart(b->front_end), n);
}

/* Entry (n bytes) with variant v of kernel `kernel` in place of the one it held, if any, as the
 * file at path; when it is the entry of p's program, else nothing. */
static void rewrite_with_variant(const char *path, const char *entry, size_t n,
                                 const program_code *p, unsigned kernel, cached_variant v) {
  program_code old = {0};
  jit_objects objects = {0};
  unsigned build;
  const char *variants_at = NULL;
  in_buf b = entry_body(entry, n);
  b.trust_inputs = 1; /* the same bitcode: what the files held then made both */
  if (!b.bad) take_entry(&b, p->cache_key, &old, &build, &objects, &variants_at);
  cached_variant *all = !b.bad && same_program(&old, p) ? calloc(p->nkernels, sizeof *all) : NULL;
  if (all) {
    for (unsigned k = 0; old.cached && k < p->nkernels; k++) all[k] = old.cached[k];
    all[kernel] = v;
    out_buf w = {0};
    put(&w, entry, (size_t)(variants_at - entry));
    put_variants(&w, all, p->nkernels);
    write_entry(path, &w);
    free(w.p);
  }
  free(all);
  pipeline_code_free(&old), jit_objects_free(&objects);
}

void cache_store_variant(const program_code *p, unsigned kernel, unsigned fns,
                         const jit_objects *o) {
  char path[ENTRY_PATH_MAX];
  size_t n = 0;
  if (!p->cache_key || o->lost || !o->n || kernel >= p->nkernels || entry_path(path, p->cache_key))
    return;
  char *entry = read_entry(path, &n);
  if (entry)
    rewrite_with_variant(path, entry, n, p, kernel, (cached_variant){fns, p->globals_build, *o});
  free(entry);
}

/* ---- a cached object's function names, for this build ---- */

/* Each KERNEL_SYMBOL_PREFIX of a build `from` of r (n of them) in the string tables of ELF
 * object obj becomes that of its `to`, all at once: the same length, so nothing else in the
 * object moves. -1 when obj is not an object this can read. */
static int rename_in_object(char *obj, size_t n, unsigned nr, const cache_renaming *r) {
  char old[2][32], new[2][32];
  size_t len = (size_t)snprintf(old[0], sizeof old[0], KERNEL_SYMBOL_PREFIX, 0u);
  if (nr > 2) return -1;
  for (unsigned i = 0; i < nr; i++)
    snprintf(old[i], sizeof old[i], KERNEL_SYMBOL_PREFIX, r[i].from),
        snprintf(new[i], sizeof new[i], KERNEL_SYMBOL_PREFIX, r[i].to);
  Elf64_Ehdr eh;
  if (n < sizeof eh) return -1;
  memcpy(&eh, obj, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n ||
      (n - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
    return -1;
  for (unsigned s = 0; s < eh.e_shnum; s++) {
    Elf64_Shdr sh;
    memcpy(&sh, obj + eh.e_shoff + s * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_STRTAB) continue;
    if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) return -1;
    char *t = obj + sh.sh_offset, *end = t + sh.sh_size;
    while ((size_t)(end - t) >= len) {
      unsigned i = 0;
      while (i < nr && memcmp(t, old[i], len)) i++;
      if (i < nr) memcpy(t, new[i], len), t += len; /* renamed: not read again */
      else t++;
    }
  }
  return 0;
}

int cache_rename(jit_objects *o, unsigned n, const cache_renaming *r) {
  for (unsigned k = 0; k < o->n; k++)
    if (rename_in_object(o->bytes[k], o->size[k], n, r)) return -1;
  return 0;
}
