/* weft cfg: the CFG, PCs and reconvergence points of each kernel in a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "driver.h"
#include "paths.h"

static const char usage[] =
    "usage: weft cfg FILE.cl [-k KERNEL] [--dot | --json] [--divergence] [--build-options OPTS]\n"
    "\n"
    "Compiles FILE.cl and prints, for each kernel (or only KERNEL), its basic blocks in PC order\n"
    "(reverse post-order, closest to source order) with their source line range, their successors\n"
    "and, for every conditional branch or switch, its immediate post-dominator: the block where\n"
    "the warp reconverges ('exit' when the lanes only meet again at the end of the kernel).\n"
    "A long kernel's warp function is generated in parts, cut where no loop is open and\n"
    "compiled on several threads: the text shows them as a 'parts:' line.\n"
    "\n"
    "  -k KERNEL              only this kernel\n"
    "  --dot                  Graphviz output, reconvergence points as dashed red edges\n"
    "  --json                 one JSON object per kernel:\n"
    "                         {\"kernel\", \"blocks\": [{\"pc\", \"first_line\", \"last_line\",\n"
    "                          \"succs\", \"ipdom\"}], \"parts\"}; ipdom is null for\n"
    "                         non-branches and for the virtual exit; parts holds the first\n"
    "                         PC of each part\n"
    "  --divergence           also print the divergence analysis: every value uniform,\n"
    "                         lane-affine (with its per-lane stride) or varying, and the\n"
    "                         branches that can split a warp\n"
    "  --build-options OPTS   extra clang options, such as \"-DN=4\"\n";

typedef struct cfg_opts {
  const char *file, *kernel, *build_options;
  enum { TEXT, DOT, JSON } format;
  int divergence;
} cfg_opts;

static int parse(int argc, char **argv, cfg_opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(usage, stdout), 0;
    else if (!strcmp(a, "--dot")) o->format = DOT;
    else if (!strcmp(a, "--json")) o->format = JSON;
    else if (!strcmp(a, "--divergence")) o->divergence = 1;
    else if ((!strcmp(a, "-k") || !strcmp(a, "--build-options")) && i + 1 < argc)
      *(a[1] == 'k' ? &o->kernel : &o->build_options) = argv[++i];
    else if (a[0] == '-' && a[1]) return fail(2, "cfg: unknown option '%s'\n%s", a, usage);
    else if (o->file) return fail(2, "cfg: more than one input file ('%s', '%s')", o->file, a);
    else o->file = a;
  }
  if (!o->file) return fail(2, "cfg: no input file\n%s", usage);
  return -1;
}

static void print_kernel(LLVMValueRef fn, const cfg_opts *o) {
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  weft_arena *a = arena_create();
  divergence *dv;
  cfg *g = pipeline_analyse(a, fn, &dv); /* the blocks weft schedules, as the lowering sees them */
  if (o->format == DOT) cfg_print_dot(stdout, g, name);
  else if (o->format == JSON) cfg_print_json(stdout, g, name);
  else cfg_print_text(stdout, g, name);
  if (o->divergence) divergence_print(stdout, g, dv);
  arena_release(a);
}

static int print_kernels(LLVMModuleRef m, const cfg_opts *o) {
  int found = 0;
  for (LLVMValueRef fn = frontend_next_kernel(m, NULL); fn; fn = frontend_next_kernel(m, fn)) {
    size_t len;
    if (o->kernel && strcmp(LLVMGetValueName2(fn, &len), o->kernel)) continue;
    print_kernel(fn, o);
    found++;
  }
  if (found) return 0;
  if (o->kernel) return fail(1, "no kernel named '%s' in %s", o->kernel, o->file);
  return fail(1, "no kernels in %s", o->file);
}

int cmd_cfg(int argc, char **argv) {
  cfg_opts o = {0};
  int rc = parse(argc, argv, &o);
  if (rc >= 0) return rc;
  char *text = paths_read_kernel(o.file); /* a directory or /dev/zero: a clear message */
  if (!text) return 1;
  free(text);
  LLVMContextRef ctx = LLVMContextCreate();
  frontend_result fr;
  weft_status st = pipeline_front_end(ctx, o.file, NULL, o.build_options, NULL, &fr);
  if (fr.log && *fr.log) fputs(fr.log, stderr);
  if (fr.log && *fr.log && fr.log[strlen(fr.log) - 1] != '\n') fputc('\n', stderr);
  rc = st ? 1 : print_kernels(fr.module, &o);
  free(fr.log);
  if (fr.module) LLVMDisposeModule(fr.module);
  LLVMContextDispose(ctx);
  return rc;
}
