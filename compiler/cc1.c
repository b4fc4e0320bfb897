/* clang's compiler proper (cc1) run inside weft's process.
 *
 * Starting clang-19 as a process takes 80-140 ms on this project's 2-core VMs, nearly all of it
 * the dynamic loader relocating libLLVM and libclang-cpp (557,838 relocations) and the page
 * faults that come with it; compiling a small kernel takes 5 ms more (25 ms for a process's
 * first). weft's process has its libLLVM relocated already, so loading libclang-cpp into it
 * (about 22 ms, once per process, on a thread of its own from the first context's creation)
 * leaves the compile.
 *
 * libclang-cpp exports only C++. clang's cc1 entry is in the clang executable:
 *   int cc1_main(llvm::ArrayRef<const char *> Argv, const char *Argv0, void *MainAddr)
 * An ArrayRef is a pointer and a length, trivially copyable, which the x86-64 ABI passes in two
 * integer registers exactly as C passes (const char *const *, size_t). glibc refuses to dlopen an
 * executable marked PIE, so weft loads a copy of it, in a memfd, with that flag cleared, after
 * checking that it has nothing a library could not have (thread-local storage, copy
 * relocations; Debian's clang-19 has neither). Its libraries come from its RUNPATH,
 * $ORIGIN/../lib, which means nothing for a memfd: weft loads them first.
 *
 * Each compile runs on a thread of its own with a file table of its own (unshare(CLONE_FILES)),
 * where fds 0, 1 and 2 are the source, the bitcode and the diagnostics: clang writes to its
 * stdout and stderr, and the host's stay as they are. cc1 keeps process-wide state (the fatal
 * error handler), so one compile runs at a time.
 *
 * When any of this fails (another clang, a system that forbids unshare), builds run a clang-19
 * process instead (frontend.c); WEFT_CLANG asks for that process. */
#include "compiler.h"
#include "runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int cc1_main_fn(const char *const *argv, size_t argc, const char *argv0, void *main_addr);
#define CC1_MAIN "_Z8cc1_mainN4llvm8ArrayRefIPKcEES2_Pv"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t one_compile = PTHREAD_MUTEX_INITIALIZER;
static cc1_main_fn *cc1_main; /* NULL: not loaded */
static char clang_exe[PATH_MAX], resource_dir[PATH_MAX + 32];

/* ---- loading ---- */

typedef struct elf_view {
  Elf64_Phdr *ph;
  int nph;
  Elf64_Dyn *dyn, *end; /* the dynamic section */
} elf_view;

/* The file offset of virtual address v, through the PT_LOAD segments; 0 when none holds it. */
static size_t file_offset(const elf_view *v, Elf64_Addr addr) {
  for (int i = 0; i < v->nph; i++)
    if (v->ph[i].p_type == PT_LOAD && addr >= v->ph[i].p_vaddr &&
        addr - v->ph[i].p_vaddr < v->ph[i].p_filesz)
      return (size_t)(addr - v->ph[i].p_vaddr + v->ph[i].p_offset);
  return 0;
}

static Elf64_Dyn *dyn_entry(const elf_view *v, Elf64_Sxword tag) {
  for (Elf64_Dyn *d = v->dyn; d < v->end && d->d_tag != DT_NULL; d++)
    if (d->d_tag == tag) return d;
  return NULL;
}

/* Whether b is an x86-64 position-independent executable that could be loaded as a library:
 * without thread-local storage or copy relocations, which only the main program may have. */
static int library_like(unsigned char *b, size_t len, elf_view *v) {
  Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 || eh->e_type != ET_DYN ||
      eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > len)
    return 0;
  *v = (elf_view){(Elf64_Phdr *)(b + eh->e_phoff), eh->e_phnum, NULL, NULL};
  for (int i = 0; i < v->nph; i++) {
    if (v->ph[i].p_type == PT_TLS) return 0;
    if (v->ph[i].p_type == PT_DYNAMIC && v->ph[i].p_offset + v->ph[i].p_filesz <= len)
      v->dyn = (Elf64_Dyn *)(b + v->ph[i].p_offset),
      v->end = v->dyn + v->ph[i].p_filesz / sizeof *v->dyn;
  }
  Elf64_Dyn *rela = v->dyn ? dyn_entry(v, DT_RELA) : NULL,
            *size = v->dyn ? dyn_entry(v, DT_RELASZ) : NULL;
  size_t at = rela ? file_offset(v, rela->d_un.d_ptr) : 0, n = size ? size->d_un.d_val : 0;
  if (!v->dyn || (rela && !at) || at + n > len) return 0;
  for (Elf64_Rela *r = (Elf64_Rela *)(b + at); rela && n >= sizeof *r; r++, n -= sizeof *r)
    if (ELF64_R_TYPE(r->r_info) == R_X86_64_COPY) return 0;
  return 1;
}

/* Loads the libraries that b needs from lib_dir, where its RUNPATH would have found them. */
static int load_needed(const unsigned char *b, size_t len, const elf_view *v, const char *lib_dir) {
  Elf64_Dyn *str = dyn_entry(v, DT_STRTAB);
  size_t strtab = str ? file_offset(v, str->d_un.d_ptr) : 0;
  if (!strtab) return -1;
  for (Elf64_Dyn *d = v->dyn; d < v->end && d->d_tag != DT_NULL; d++) {
    if (d->d_tag != DT_NEEDED) continue;
    const char *name = (const char *)b + strtab + d->d_un.d_val;
    char path[PATH_MAX];
    if (strtab + d->d_un.d_val >= len || !memchr(name, 0, len - strtab - d->d_un.d_val) ||
        snprintf(path, sizeof path, "%s/%s", lib_dir, name) >= (int)sizeof path)
      return -1;
    if (access(path, R_OK) == 0 && !dlopen(path, RTLD_NOW | RTLD_LOCAL)) return -1;
  }
  return 0;
}

/* Clears the PIE flag of the executable b, so that glibc loads it as a library, and loads the
 * libraries it needs. Returns 0, or -1 when b cannot be loaded that way. */
static int unpie(unsigned char *b, size_t len, const char *lib_dir) {
  elf_view v;
  Elf64_Dyn *flags = library_like(b, len, &v) ? dyn_entry(&v, DT_FLAGS_1) : NULL;
  if (!flags) return -1;
  flags->d_un.d_val &= ~(Elf64_Xword)DF_1_PIE;
  return load_needed(b, len, &v, lib_dir);
}

/* The resource directory holds opencl-c-base.h, which every OpenCL compile includes. */
static int find_resource_dir(const char *prefix) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(resource_dir, sizeof resource_dir, "%s/lib/clang/%u", prefix, major);
  char header[sizeof resource_dir + 32];
  snprintf(header, sizeof header, "%s/include/opencl-c-base.h", resource_dir);
  return access(header, R_OK);
}

/* WEFT_CLANG asks for a clang-19 process; read on the caller's thread (getenv races setenv). */
static int process_wanted(void) {
  const char *chosen = getenv("WEFT_CLANG");
  return chosen && *chosen;
}

static void load_clang(void) {
  if (!realpath(WEFT_CLANG_PATH, clang_exe)) return;
  char prefix[PATH_MAX], lib_dir[PATH_MAX + 8], fd_path[64];
  snprintf(prefix, sizeof prefix, "%s", clang_exe);
  for (int up = 0; up < 2; up++) *(strrchr(prefix, '/') ? strrchr(prefix, '/') : prefix) = 0;
  snprintf(lib_dir, sizeof lib_dir, "%s/lib", prefix);
  size_t len;
  unsigned char *b = (unsigned char *)file_read(clang_exe, &len);
  int fd = b && find_resource_dir(prefix) == 0 && unpie(b, len, lib_dir) == 0
               ? memfd_create("clang-cc1", MFD_CLOEXEC)
               : -1;
  if (fd >= 0 && write(fd, b, len) == (ssize_t)len) {
    snprintf(fd_path, sizeof fd_path, "/proc/thread-self/fd/%d", fd);
    void *exe = dlopen(fd_path, RTLD_NOW | RTLD_LOCAL);
    if (exe) cc1_main = (cc1_main_fn *)dlsym(exe, CC1_MAIN);
  }
  if (fd >= 0) close(fd);
  free(b);
}

/* ---- compiling ---- */

/* What the clang-19 driver passes to cc1 for frontend.c's command line, less what depends on
 * the file and the directory (added per compile). test_frontend checks that both give the same
 * module. */
static const char *const driver_args[] = {"-triple",
                                          "x86_64-unknown-linux-gnu",
                                          "-emit-llvm-bc",
                                          "-emit-llvm-uselists",
                                          "-clear-ast-before-backend",
                                          "-disable-llvm-verifier",
                                          "-discard-value-names",
                                          "-mrelocation-model",
                                          "pic",
                                          "-pic-level",
                                          "2",
                                          "-pic-is-pie",
                                          "-mframe-pointer=all",
                                          "-fmath-errno",
                                          "-ffp-contract=on",
                                          "-fno-rounding-math",
                                          "-mconstructor-aliases",
                                          "-funwind-tables=2",
                                          "-target-cpu",
                                          "x86-64",
                                          "-tune-cpu",
                                          "generic",
                                          "-debug-info-kind=line-tables-only",
                                          "-dwarf-version=5",
                                          "-debugger-tuning=gdb",
                                          "-O0",
                                          "-Wno-psabi",
                                          "-ferror-limit",
                                          "19",
                                          "-cl-std=CL1.2",
                                          "-cl-kernel-arg-info",
                                          "-finclude-default-header",
                                          "-fdeclare-opencl-builtins",
                                          "-fgnuc-version=4.2.1",
                                          "-fno-threadsafe-statics",
                                          "-fskip-odr-check-in-gmf",
                                          "-ffake-address-space-map",
                                          "-disable-O0-optnone",
                                          "-faddrsig",
                                          "-D__GCC_HAVE_DWARF2_CFI_ASM=1"};
#define N_DRIVER_ARGS (sizeof driver_args / sizeof *driver_args)
#define MAX_USER_ARGS 64

/* Build options that the driver hands to cc1 as they are (-D, -U, -I with their value joined or
 * next, warnings, the OpenCL options that need no translation). Others go to a clang-19 process. */
static int cc1_takes(const char *const *user, int n) {
  static const char *const prefixes[] = {"-D", "-U", "-I", "-W", "-cl-std="};
  static const char *const whole[] = {"-w",
                                      "-cl-fast-relaxed-math",
                                      "-cl-mad-enable",
                                      "-cl-finite-math-only",
                                      "-cl-no-signed-zeros",
                                      "-cl-unsafe-math-optimizations",
                                      "-cl-opt-disable",
                                      "-cl-single-precision-constant",
                                      "-cl-strict-aliasing",
                                      "-cl-kernel-arg-info"};
  int value_next = 0;
  for (int k = 0; k < n; k++) {
    const char *t = user[k];
    int ok = value_next && *t != '-';
    value_next = !strcmp(t, "-D") || !strcmp(t, "-U") || !strcmp(t, "-I");
    for (size_t i = 0; !ok && i < sizeof prefixes / sizeof *prefixes; i++)
      ok = !strncmp(t, prefixes[i], strlen(prefixes[i])) && !strchr(t, ',');
    for (size_t i = 0; !ok && i < sizeof whole / sizeof *whole; i++) ok = !strcmp(t, whole[i]);
    if (!ok) return 0;
  }
  return !value_next;
}

/* Runs cc1 on `path` (with_stdin: the source is on fd 0, named `path`), writing the bitcode to
 * fd 1 and the diagnostics to fd 2 of this thread's own table. Returns cc1's exit status. */
static int run_cc1(const char *path, int with_stdin, const char *const *user, int nuser) {
  const char *argv[N_DRIVER_ARGS + MAX_USER_ARGS + 16];
  char cwd[PATH_MAX + 32] = "-fdebug-compilation-dir=", include[sizeof resource_dir + 16];
  size_t argc = 0;
  for (; argc < N_DRIVER_ARGS; argc++) argv[argc] = driver_args[argc];
  const char *base = strrchr(path, '/');
  argv[argc++] = "-main-file-name", argv[argc++] = with_stdin ? "-" : base ? base + 1 : path;
  if (getcwd(cwd + strlen(cwd), PATH_MAX)) argv[argc++] = cwd;
  snprintf(include, sizeof include, "%s/include", resource_dir);
  argv[argc++] = "-resource-dir", argv[argc++] = resource_dir;
  argv[argc++] = "-internal-isystem", argv[argc++] = include;
  for (int i = 0; i < nuser; i++) argv[argc++] = user[i];
  const char *tail[] = {"-o", "-", "-x", "cl", with_stdin ? "-" : path};
  for (size_t i = 0; i < 5; i++) argv[argc++] = tail[i];
  pthread_mutex_lock(&one_compile);
  int status = cc1_main(argv, argc, clang_exe, NULL);
  pthread_mutex_unlock(&one_compile);
  return status;
}

/* This thread's own file table, holding only 0, 1 and 2: clang's stdout and stderr become its
 * own, and it holds none of the host's files open (a pipe's end, say). */
static int own_files(void) {
  if (unshare(CLONE_FILES) != 0) return -1;
  close_range(3, ~0U, 0);
  return 0;
}

/* Set when the process exits: libLLVM's static destructors are about to run, and loading
 * (libclang-cpp's constructors) must not be running then. */
static atomic_int leaving;

/* WEFT_DEBUG=time tells how long loading took and whether it worked. Only loading runs in the
 * background: libclang-cpp's destructors, which exit() runs before weft's wait_for_loader, must
 * not find a compile running. */
static void load(void) {
  double t = rt_now_ms();
  if (atomic_load(&leaving)) return;
  load_clang();
  if (debug_wants(DEBUG_TIME))
    fprintf(stderr, "weft: %-12s %7.2f ms%s\n", "clang load", rt_now_ms() - t,
            cc1_main ? "" : " (failed: builds run clang-19 as a process)");
}

/* Threads that run cc1 get the stack that clang's main thread has. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg) {
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 8 << 20);
  int rc = pthread_create(t, &a, fn, arg);
  pthread_attr_destroy(&a);
  return rc;
}

static atomic_int loading; /* the loader has yet to finish */
static pid_t loader_pid;

static void *load_in_background(void *unused) {
  (void)unused;
  pthread_once(&load_once, load);
  atomic_store(&loading, 0);
  return NULL;
}

/* At exit, before libLLVM's static destructors: a load in progress ends first, one not begun
 * never begins. A child forked meanwhile has no loader to wait for. (Polled: a condition
 * variable, or pthread_once under ThreadSanitizer, would be left held in such a child.) */
static void wait_for_loader(void) {
  atomic_store(&leaving, 1);
  while (getpid() == loader_pid && atomic_load(&loading))
    nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static void start_loading(void) {
  pthread_t t;
  loader_pid = getpid();
  atomic_store(&loading, 1);
  if (start_thread(&t, load_in_background, NULL) != 0) atomic_store(&loading, 0);
  else pthread_detach(t), atexit(wait_for_loader);
}

void cc1_start(void) {
  static pthread_once_t started = PTHREAD_ONCE_INIT;
  if (!process_wanted()) pthread_once(&started, start_loading);
}

typedef struct cc1_job {
  const char *path, *text;
  const char *user[MAX_USER_ARGS]; /* the build options, split */
  int nuser;
  char *bitcode, *log;
  size_t len;
  int ran;
} cc1_job;

/* One compile, on a thread of its own; its file table, and the memfds in it, end with it. */
static void *compile_job(void *arg) {
  cc1_job *j = arg;
  if (own_files() != 0) return NULL;
  pthread_once(&load_once, load);
  int out = memfd_create("cc1-bitcode", 0), err = memfd_create("cc1-diagnostics", 0);
  int in = j->text ? file_text_fd(j->text) : -1;
  if (!cc1_main || out < 0 || err < 0 || (j->text && in < 0) || dup2(out, 1) != 1 ||
      dup2(err, 2) != 2 || (j->text && dup2(in, 0) != 0))
    return NULL;
  int failed = run_cc1(j->path, j->text != NULL, j->user, j->nuser);
  size_t loglen;
  j->bitcode = failed ? NULL : file_read_back(out, &j->len);
  j->log = file_read_back(err, &loglen);
  j->ran = 1;
  return NULL;
}

int cc1_compile(const char *path, const char *text, const char *options, const frontend_idle *idle,
                char **bitcode, size_t *len, char **log) {
  if (process_wanted()) return -1;
  cc1_job j = {.path = path, .text = text};
  char *split = strdup(options ? options : "");
  pthread_t t;
  int started = split && (j.nuser = file_split_options(split, j.user, MAX_USER_ARGS)) >= 0 &&
                cc1_takes(j.user, j.nuser) && start_thread(&t, compile_job, &j) == 0;
  if (started && idle) idle->fn(idle->arg);
  if (started) pthread_join(t, NULL);
  free(split);
  if (!j.ran) return -1;
  *bitcode = j.bitcode, *len = j.len, *log = j.log;
  return 0;
}

#if defined(__SANITIZE_THREAD__)
/* libclang-cpp's static constructors, run by dlopen on the loading thread, lock a mutex that
 * libLLVM created on first use from another thread (its ManagedStatic): the atomic pointer
 * between the two is in uninstrumented code, so ThreadSanitizer sees no order. */
const char *__tsan_default_suppressions(void);
__attribute__((visibility("default"))) const char *__tsan_default_suppressions(void) {
  return "race:llvm::TimerGroup::TimerGroup\n";
}
#endif
