/* A host program as a user of an installed weft writes it: <weft.h> and libweft, nothing of the
 * build tree. It checks that the header and the library it runs with are the same version,
 * builds a kernel whose branch diverges inside every warp, runs it, and checks every element
 * against the same computation in C. Prints "weft VERSION: N elements ok" and exits 0 when all
 * agree. install.sh builds it with pkg-config (libweft.so and libweft.a) and through
 * find_package(weft). */
#include <stdio.h>
#include <string.h>

#include <weft.h>

enum { N = 1024, K = 7 };

static const char source[] =
    "__kernel void mix(__global const int *in, __global int *out, int k) {\n"
    "  int i = get_global_id(0);\n"
    "  out[i] = i % 3 ? in[i] * k : in[i] - k;\n"
    "}\n";

static int expected(const int *in, int i) { return i % 3 ? in[i] * K : in[i] - K; }

/* Builds and runs `mix` over in, into out. */
static weft_status run(weft_context *ctx, const int *in, int *out) {
  weft_program *program = NULL;
  weft_kernel *kernel = NULL;
  int k = K;
  weft_status st = weft_program_build_source(ctx, "mix.cl", source, NULL, &program);
  if (!st) st = weft_kernel_create(program, "mix", &kernel);
  if (!st) {
    weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_I32, sizeof(int) * N, in},
                       {WEFT_ARG_GLOBAL, WEFT_I32, sizeof(int) * N, out},
                       {WEFT_ARG_VALUE, WEFT_I32, sizeof k, &k}};
    weft_ndrange range = {1, {N, 1, 1}, {64, 1, 1}};
    st = weft_kernel_launch(kernel, &range, 3, args, NULL);
  }
  weft_kernel_release(kernel);
  weft_program_release(program);
  return st;
}

int main(void) {
  if (strcmp(weft_version(), WEFT_VERSION))
    return fprintf(stderr, "host: weft.h is %s, libweft %s\n", WEFT_VERSION, weft_version()), 1;
  static int in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = i * 5 - 2000;
  weft_options options = {.threads = 2};
  weft_context *ctx;
  weft_status st = weft_context_create(&options, &ctx);
  if (st) return fprintf(stderr, "host: %s\n", weft_status_name(st)), 1;
  st = run(ctx, in, out);
  if (st) fprintf(stderr, "host: %s: %s\n", weft_status_name(st), weft_last_error(ctx));
  weft_context_release(ctx);
  for (int i = 0; !st && i < N; i++)
    if (out[i] != expected(in, i))
      return fprintf(stderr, "host: out[%d] is %d, not %d\n", i, out[i], expected(in, i)), 1;
  if (!st) printf("weft %s: %d elements ok\n", weft_version(), N);
  return st ? 1 : 0;
}
