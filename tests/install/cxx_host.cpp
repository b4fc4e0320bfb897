// weft.h from C++: the header compiles as C++17 under -Wall -Wextra -Wpedantic -Werror, its
// functions link with C names (extern "C") from libweft.so, and a kernel built and launched from
// C++ gives what the same computation in C++ gives. The kernel counts the Collatz steps of
// 1..N, a loop whose trip count differs from lane to lane.
#include <weft.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

const char source[] = "__kernel void collatz(__global const uint *in, __global uint *steps) {\n"
                      "  uint i = get_global_id(0), n = in[i], s = 0;\n"
                      "  while (n != 1) { n = n & 1 ? 3 * n + 1 : n / 2; s++; }\n"
                      "  steps[i] = s;\n"
                      "}\n";

uint32_t collatz(uint32_t n) {
  uint32_t s = 0;
  for (; n != 1; s++) n = n & 1 ? 3 * n + 1 : n / 2;
  return s;
}

// A weft object released when it goes out of scope, whatever the path out.
template <typename T, weft_status (*release)(T *)> struct owned {
  T *p = nullptr;
  ~owned() { release(p); }
};

int check(weft_status st, weft_context *ctx, const char *what) {
  if (st)
    std::fprintf(stderr, "cxx_host: %s: %s: %s\n", what, weft_status_name(st),
                 ctx ? weft_last_error(ctx) : "");
  return st != WEFT_SUCCESS;
}

} // namespace

int main() {
  const size_t n = 512;
  std::vector<uint32_t> in(n), steps(n, 0);
  for (size_t i = 0; i < n; i++) in[i] = uint32_t(i + 1);

  weft_options options{};
  options.threads = 2;
  options.warp = 16;
  owned<weft_context, weft_context_release> ctx;
  owned<weft_program, weft_program_release> program;
  owned<weft_kernel, weft_kernel_release> kernel;
  if (check(weft_context_create(&options, &ctx.p), nullptr, "context") ||
      check(weft_program_build_source(ctx.p, "collatz.cl", source, nullptr, &program.p), ctx.p,
            "build") ||
      check(weft_kernel_create(program.p, "collatz", &kernel.p), ctx.p, "kernel"))
    return 1;
  const weft_arg args[] = {{WEFT_ARG_GLOBAL, WEFT_U32, n * sizeof(uint32_t), in.data()},
                           {WEFT_ARG_GLOBAL, WEFT_U32, n * sizeof(uint32_t), steps.data()}};
  const weft_ndrange range = {1, {n, 1, 1}, {64, 1, 1}};
  weft_stats stats{};
  if (check(weft_kernel_launch(kernel.p, &range, 2, args, &stats), ctx.p, "launch")) return 1;

  for (size_t i = 0; i < n; i++)
    if (steps[i] != collatz(in[i])) {
      std::fprintf(stderr, "cxx_host: steps[%zu] is %u, not %u\n", i, unsigned(steps[i]),
                   unsigned(collatz(in[i])));
      return 1;
    }
  if (stats.divergent_branches == 0) { // the loop's exit must have diverged
    std::fprintf(stderr, "cxx_host: no divergent branch counted\n");
    return 1;
  }
  std::printf("cxx_host: %zu Collatz counts ok under weft %s, SIMD efficiency %.2f\n", n,
              weft_version(), stats.simd_efficiency);
  return 0;
}
