/* clang's compiler proper (cc1), loaded into weft's process and run in a child forked from it.
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
 * Each compile runs in a child forked from this process, where cc1 is loaded already: the fork
 * takes about a millisecond, and the child's file table is its own, with fds 0, 1 and 2 the
 * source, the bitcode and the diagnostics, so clang writes to its stdout and stderr and the
 * host's stay as they are. A crash of clang ends the child only: `#pragma clang __debug crash`
 * (SIGILL), ten thousand nested `if`s (SIGSEGV when the recursive parser overflows its stack),
 * memory running out (std::bad_alloc, SIGABRT). A compile that runs longer than the build's
 * time limit is killed. Either way the build fails with a message that names the file
 * (child.c). The isolation costs bench/k50.cl's compile about 6 ms over the 3.5 ms it took on a
 * thread of this process: 1.3 ms to start the child, 4 ms of page faults in it (1,100: clang's
 * code mapped again, the heap copied on write) and 2.5 ms for its exit to unmap it all.
 *
 * The child of a process with threads has one thread, a copy of the forking one, and every lock
 * that another thread held at the fork stays held in it. So the fork comes after clang's load
 * (dlopen's lock) and before the build's idle work (LLVM code generation) starts on the
 * building thread, and the child runs cc1 only and ends with _exit, clang's fatal errors too,
 * which call exit(): the host's atexit handlers and stdio buffers are not the child's to run or
 * flush. A lock that another context's thread holds in LLVM at that moment could still stop the
 * child; the time limit makes that a build error too, not a hang. The host's own fork waits
 * for a load in progress (pthread_atfork), else its child could hang in exit() on the loader's
 * dlopen lock, as a child forked 26 ms after weft_context_create did.
 *
 * When any of this fails (another clang, a system that forbids fork or memfds), builds run a
 * clang-19 process instead (frontend.c); WEFT_CLANG asks for that process. */
#include "compiler.h"
#include "runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
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
                                          "-D__GCC_HAVE_DWARF2_CFI_ASM=1",
                                          WEFT_SUBGROUP_EXTENSIONS};
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
                                      "-cl-kernel-arg-info",
                                      "-fdenormal-fp-math=preserve-sign"};
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

/* What cc1 is told to write the files it read to (DEPS_FD, as the child holds it), for the disk
 * cache: every one, clang's own headers too (-sys-header-deps), as make's rule for target x. */
#define DEPS_FD 3
static const char *const deps_args[] = {"-dependency-file", "/dev/fd/3", "-MT", "x",
                                        "-sys-header-deps"};
#define N_DEPS_ARGS (sizeof deps_args / sizeof *deps_args)

/* Runs cc1 on `path` (with_stdin: the source is on fd 0, named `path`), writing the bitcode to
 * fd 1, the diagnostics to fd 2 and, with deps, the files it read to DEPS_FD. Returns cc1's exit
 * status. -disable-free, as clang's driver passes it: the child ends right after. */
static int run_cc1(const char *path, int with_stdin, int deps, const char *const *user, int nuser) {
  const char *argv[N_DRIVER_ARGS + N_DEPS_ARGS + MAX_USER_ARGS + 16];
  char cwd[PATH_MAX + 32] = "-fdebug-compilation-dir=", include[sizeof resource_dir + 16];
  size_t argc = 0;
  for (; argc < N_DRIVER_ARGS; argc++) argv[argc] = driver_args[argc];
  argv[argc++] = "-disable-free";
  const char *base = strrchr(path, '/');
  argv[argc++] = "-main-file-name", argv[argc++] = with_stdin ? "-" : base ? base + 1 : path;
  if (getcwd(cwd + strlen(cwd), PATH_MAX)) argv[argc++] = cwd;
  snprintf(include, sizeof include, "%s/include", resource_dir);
  argv[argc++] = "-resource-dir", argv[argc++] = resource_dir;
  argv[argc++] = "-internal-isystem", argv[argc++] = include;
  for (size_t i = 0; deps && i < N_DEPS_ARGS; i++) argv[argc++] = deps_args[i];
  for (int i = 0; i < nuser; i++) argv[argc++] = user[i];
  const char *tail[] = {"-o", "-", "-x", "cl", with_stdin ? "-" : path};
  for (size_t i = 0; i < 5; i++) argv[argc++] = tail[i];
  return cc1_main(argv, argc, clang_exe, NULL);
}

/* Set when the process exits: libLLVM's static destructors are about to run, and loading
 * (libclang-cpp's constructors) must not be running then. */
static atomic_int leaving;

/* WEFT_DEBUG=time tells how long loading took and whether it worked. */
static void load(void) {
  double t = rt_now_ms();
  if (atomic_load(&leaving)) return;
  load_clang();
  if (debug_wants(DEBUG_TIME))
    fprintf(stderr, "weft: %-12s %7.2f ms%s\n", "clang load", rt_now_ms() - t,
            cc1_main ? "" : " (failed: builds run clang-19 as a process)");
}

/* The threads that load clang and that fork a compile's child (whose one thread is a copy of
 * the forking one, and runs cc1) get the stack that clang's main thread has. */
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

/* A child forked meanwhile has no loader to wait for. (Polled: a condition variable, or
 * pthread_once under ThreadSanitizer, would be left held in such a child.) */
static void wait_for_loader(void) {
  while (getpid() == loader_pid && atomic_load(&loading))
    nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* At exit, before libLLVM's static destructors: a load in progress ends first, one not begun
 * never begins. */
static void leave(void) {
  atomic_store(&leaving, 1);
  wait_for_loader();
}

static void start_loading(void) {
  pthread_t t;
  loader_pid = getpid();
  atomic_store(&loading, 1);
  if (start_thread(&t, load_in_background, NULL) != 0) atomic_store(&loading, 0);
  else pthread_detach(t), atexit(leave), pthread_atfork(wait_for_loader, NULL, NULL);
}

void cc1_start(void) {
  static pthread_once_t started = PTHREAD_ONCE_INIT;
  if (!process_wanted()) pthread_once(&started, start_loading);
}

/* ---- compiling, in a child ---- */

typedef struct cc1_job {
  const char *path, *text;
  const char *user[MAX_USER_ARGS]; /* the build options, split */
  int nuser;
  int out, err, deps; /* memfds: the bitcode, the diagnostics, the files read (-1: none) */
  pid_t pid;    /* the child; -1: none */
} cc1_job;

#define SETUP_FAILED 125 /* the child's exit status when it could not set up its files */

/* The child's fds 0, 1, 2 and DEPS_FD are the source (none for a file), the bitcode, the
 * diagnostics and the list of files read (none unless asked), and it holds no other: clang
 * writes to its stdout and stderr, and none of the host's files (a pipe's end, say) stay open in
 * it. The four go above DEPS_FD first, since in a host that closed its own 0, 1 or 2 they may be
 * there. */
static int child_files(const cc1_job *j) {
  int fds[DEPS_FD + 1] = {j->text ? file_text_fd(j->text) : -1, j->out, j->err, j->deps};
  if (j->text && fds[0] < 0) return -1;
  for (int i = 0; i <= DEPS_FD; i++)
    if (fds[i] >= 0 && (fds[i] = fcntl(fds[i], F_DUPFD, DEPS_FD + 1)) < 0) return -1;
  for (int i = 0; i <= DEPS_FD; i++)
    if (fds[i] < 0 ? close(i) != 0 && errno != EBADF : dup2(fds[i], i) != i) return -1;
  close_range(DEPS_FD + 1, ~0U, 0);
  return 0;
}

/* clang calls exit() on a fatal error: this ends the child there, before the host's atexit
 * handlers (registered earlier, so run later) and the flush of the host's stdio buffers, whose
 * copies the parent still holds and will write itself. */
static void leave_now(int status, void *unused) {
  (void)unused;
  _exit(status);
}

/* The child ends with _exit whichever way clang ends, and dies of its own crash: a signal the
 * host handles goes back to its default, as exec would do (the weft command, for one, reports
 * its own crashes from a handler that writes to fd 2, which here is clang's diagnostics). */
static _Noreturn void compile_in_child(const cc1_job *j) {
  struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
  sigemptyset(&dfl.sa_mask);
  for (int s = 1; s < NSIG; s++)
    if (sigaction(s, NULL, &old) == 0 && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
      sigaction(s, &dfl, NULL);
  on_exit(leave_now, NULL);
  _exit(child_files(j) == 0 ? run_cc1(j->path, j->text != NULL, j->deps >= 0, j->user, j->nuser)
                            : SETUP_FAILED);
}

/* On a thread with the stack that clang's main thread has, which becomes the child's one
 * thread; after the load, so that no other thread holds the dynamic loader's lock. */
static void *fork_child(void *arg) {
  cc1_job *j = arg;
  pthread_once(&load_once, load);
  j->pid = cc1_main ? fork() : -1;
  if (j->pid == 0) compile_in_child(j);
  return NULL;
}

int cc1_compile(const char *path, const char *text, const char *options, const frontend_run *run,
                char **bitcode, size_t *len, char **log) {
  if (process_wanted()) return -1;
  cc1_job j = {.path = path,
               .text = text,
               .out = memfd_create("cc1-bitcode", MFD_CLOEXEC),
               .err = memfd_create("cc1-diagnostics", MFD_CLOEXEC),
               .deps = run && run->deps ? memfd_create("cc1-deps", MFD_CLOEXEC) : -1,
               .pid = -1};
  char *split = strdup(options ? options : "");
  pthread_t t;
  if (split && j.out >= 0 && j.err >= 0 &&
      (j.nuser = file_split_options(split, j.user, MAX_USER_ARGS)) >= 0 &&
      cc1_takes(j.user, j.nuser) && start_thread(&t, fork_child, &j) == 0)
    pthread_join(t, NULL); /* the build's idle (LLVM code generation) starts after the fork */
  int code = SETUP_FAILED;
  if (j.pid > 0)
    code = child_finish(j.pid, rt_now_ms(), run, path, j.out, j.err, bitcode, len, log);
  if (j.pid > 0 && code == SETUP_FAILED) free(*log), *log = NULL; /* and *bitcode is NULL */
  if (code == 0 && j.deps >= 0) *run->deps = file_read_back(j.deps, &(size_t){0});
  if (j.out >= 0) close(j.out);
  if (j.err >= 0) close(j.err);
  if (j.deps >= 0) close(j.deps);
  free(split);
  return code == SETUP_FAILED ? -1 : code == CHILD_NO_MEMORY ? CHILD_NO_MEMORY : 0;
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
