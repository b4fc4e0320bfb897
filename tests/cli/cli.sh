#!/bin/sh
# The `weft` command-line tests: one function test_NAME per test, which ctest runs as NAME
# (tests/CMakeLists.txt registers every test_NAME of this file).
#
#     sh tests/cli/cli.sh WEFT SOURCE_DIR WORK_DIR [NAME...]
#
# runs the named tests, or all of them, each in a subshell with its own empty directory
# WORK_DIR/NAME ($dir), and prints `ok NAME` or `FAIL NAME` with what was expected and the
# output. A test runs weft with the `weft` function below and checks the result with expect_*;
# anything else it checks ends in `|| fail MESSAGE`.

WEFT=$1 SRC=$2 WORK=$3
shift 3
samples=$SRC/samples
vadd=$samples/vector_add.cl

# ---- helpers ----

# weft ARGS...: runs the weft under test; its stdout and stderr go to $out, its exit code to
# $status.
weft() {
  status=0
  "$WEFT" "$@" >"$out" 2>&1 || status=$?
}

fail() {
  echo "$name: $*"
  echo "---- output ----"
  cat "$out"
  exit 1
}

expect_status() { [ "$status" = "$1" ] || fail "exit code $status, expected $1"; }
expect_failure() { [ "$status" != 0 ] || fail "exit code 0, expected a failure"; }

# A line of the output matches the extended regular expression $1.
expect_line() { grep -Eq -e "$1" "$out" || fail "no line matches: $1"; }

# The whole output matches the Perl regular expression $1, where `.` matches newlines too and
# `^` is the start of the output (what ctest's PASS_REGULAR_EXPRESSION does).
expect_output() { grep -Pzq -e "(?s)$1" "$out" || fail "the output does not match: $1"; }

# The kernel stopped at a buffer's guard page with a message and exit 1, not a heap corruption
# or a silent exit 0.
expect_memory_fault() {
  expect_status 1
  expect_output "kernel '[a-z]+' stopped with a memory fault: it accessed memory outside its buffers"
}

# ---- `weft run` on each sample with its // weft-run: defaults ----

run_sample() {
  weft run "$samples/$1.cl"
  expect_status 0
}
test_run_sample_vector_add() { run_sample vector_add; }
test_run_sample_mandelbrot() { run_sample mandelbrot; }
test_run_sample_nested_divergence() { run_sample nested_divergence; }
test_run_sample_loop_break() { run_sample loop_break; }
test_run_sample_sphere_trace() { run_sample sphere_trace; }
test_run_sample_histogram() { run_sample histogram; }
test_run_sample_warp_vote() { run_sample warp_vote; }

# warp_vote: the voted loop computes what the per-lane one does, without a divergent branch
test_run_warp_vote() {
  weft run "$samples/warp_vote.cl" -k per_lane --out 1="$dir/a"
  expect_status 0
  expect_line 'divergent branches +[1-9]'
  weft run "$samples/warp_vote.cl" --out 1="$dir/b"
  expect_status 0
  expect_line 'divergent branches +0$'
  cmp "$dir/a" "$dir/b" || fail "the voted loop and the per-lane one wrote different results"
}

# ---- `weft run`: its error messages ----

test_run_error_count() {
  weft run "$vadd" --arg 'f32[4]=zero'
  expect_failure
}

test_run_error_count_message() {
  weft run "$vadd" --arg 'f32[4]=zero'
  expect_output "kernel 'vector_add' has 3 parameters \(0: [^)]* a, 1: [^)]* b, 2: [^)]* c\) but 1 --arg was given"
}

test_run_error_kind() {
  weft run "$vadd" --arg f32:1 --arg 'f32[4]=zero' --arg 'f32[4]=zero'
  expect_output "--arg 0 'f32:1': gives a value \(TYPE:VALUE\) but parameter 0 'a'"
}

test_run_error_max_splits() {
  weft run "$vadd" --policy mp --max-splits 1
  expect_output "max splits must be 0 \(no bound\) or at least 2, not 1"
}

test_run_error_spec() {
  weft run "$vadd" --arg 'float[4]=zero'
  expect_output "--arg 0 'float\[4\]=zero'[^:]*: unknown type 'float'"
}

# the mp options and the split stats
test_run_mp_options() {
  weft run "$samples/sphere_trace.cl" -g 64,32 -l 32,8 --arg 'f32[2048]=zero' --arg i32:64 \
    --arg i32:32 --arg i32:64 --policy mp-orec --split-order lowest-pc --max-splits 2 --warp 8 \
    --stats
  expect_output 'split order lowest-pc, max splits 2\).*early reconvergences +[0-9]+\n.*splits per warp +max [0-9]+, average [0-9.]+\n.*table entries +split table max 2, reconvergence table max [1-9]'
}

# an --out that cannot be written fails the run (exit 1) but loses neither the other --out nor
# the stats
test_run_out_unwritable() {
  weft run "$vadd" -g 64 -l 32 --arg 'f32[64]=iota' --arg 'f32[64]=iota' --arg 'f32[64]=zero' \
    --out 0=/nonexistent/a.bin --out 2="$dir/c.bin" --stats-json "$dir/s.json"
  expect_status 1
  [ "$(wc -c <"$dir/c.bin")" = 256 ] || fail "the other --out, c.bin, is not 256 bytes"
  grep -q '"kernel": "vector_add"' "$dir/s.json" || fail "the stats JSON does not name the kernel"
}

# a kernel that runs past a buffer too small for the NDRange: a __global one; a __local one
test_run_error_global_overrun() {
  weft run "$samples/mandelbrot.cl" -g 32,8 -l 32,8 --arg 'u32[16]=zero' --arg i32:32 \
    --arg i32:8 --arg i32:10
  expect_memory_fault
}

test_run_error_local_overrun() {
  weft run "$samples/histogram.cl" -g 1024 -l 256 --arg 'u32[1024]=rand:7' --arg u32:1024 \
    --arg u32:5000 --arg 'u32[5000]=zero' --arg 'local:u32[100]'
  expect_memory_fault
}

# ... and one that writes below the start of a buffer: the __local one (the scheduler's state
# lay below it), the __global one
run_underrun() {
  weft run "$SRC/tests/cli/underrun.cl" -g 64 -l 64 --arg 'i32[64]=zero' --arg 'local:i32[64]' \
    --arg "i32:$1"
  expect_memory_fault
}
test_run_error_local_underrun() { run_underrun 0; }
test_run_error_global_underrun() { run_underrun 1; }

# clang crashing in a build: it compiles in a child process, so the build fails with a message
# that names the file and the signal, and the exit status is 1, never a death by signal
test_run_error_clang_crash() {
  weft run "$SRC/tests/cli/clang_crash.cl" -g 1 --arg 'i32[1]=zero'
  expect_status 1
  expect_line "weft: build of .*clang_crash.cl failed: clang crashed \(SIGILL\) compiling .*clang_crash.cl"
}

# 10,000 nested ifs overflow the stack of clang's recursive parser: a build error that says so
test_run_error_clang_stack_overflow() {
  awk 'BEGIN { printf "__kernel void k(__global int *o) {\n  int x = o[0];\n  ";
               for (i = 0; i < 10000; i++) printf "if (x) ";
               print "o[0] = 1;\n}" }' >"$dir/deep.cl"
  weft run "$dir/deep.cl" -g 1 --arg 'i32[1]=zero'
  expect_status 1
  expect_line "clang crashed \(SIGSEGV\) compiling .*deep.cl: deeply nested code"
}

# a kernel whose macros expand to 2^32 statements: stopped at the build time limit, in time
slow_kernel() {
  cat >"$dir/slow.cl" <<'KERNEL'
#define A(x) x x
#define B(x) A(A(A(A(x))))
#define C(x) B(B(B(B(x))))
__kernel void k(__global int *o) { int y = 0; C(C(y++;)) o[0] = y; }
KERNEL
}
test_run_error_build_timeout() {
  slow_kernel
  start=$(date +%s)
  WEFT_BUILD_TIMEOUT=1 weft run "$dir/slow.cl" -g 1 --arg 'i32[1]=zero'
  expect_status 1
  expect_line "clang ran longer than the build time limit of 1 s compiling .*slow.cl"
  [ $(($(date +%s) - start)) -lt 30 ] || fail "the build took $(($(date +%s) - start)) s"
}

# the same kernel where memory runs out first: clang's abort is a build error that says why
test_run_error_clang_out_of_memory() {
  if ! (ulimit -v 300000 && exec "$WEFT" --help) >/dev/null 2>&1; then
    echo "skipped: this weft cannot start at all under ulimit -v (a sanitizer's shadow memory)"
    return 0
  fi
  slow_kernel
  status=0
  (ulimit -v 600000 && WEFT_BUILD_TIMEOUT=60 exec "$WEFT" run "$dir/slow.cl" --threads 1 -g 1 \
    --arg 'i32[1]=zero') >"$out" 2>&1 || status=$?
  expect_status 1
  expect_line "clang crashed \(SIGABRT\) compiling .*slow.cl: it ran out of memory"
  expect_line "WEFT_ERROR_OUT_OF_MEMORY"
}

# LLVM crashing in the build's code generation, which runs in weft's process (an internal
# error; std::bad_alloc when memory runs out): the build's file is named and the exit status is
# 1. 300 MB of address space is too little for clang and LLVM: a clear error, or (if it one day
# fits) a run that works; never an abort
build_crashed='the build of [^ ]+ stopped: LLVM crashed'
test_run_error_out_of_memory() {
  if ! (ulimit -v 300000 && exec "$WEFT" --help) >/dev/null 2>&1; then
    echo "skipped: this weft cannot start at all under ulimit -v (a sanitizer's shadow memory)"
    return 0
  fi
  status=0
  (ulimit -v 300000 && exec "$WEFT" run "$samples/vector_add.cl") >"$out" 2>&1 || status=$?
  [ "$status" = 0 ] || { expect_status 1 && expect_line "$build_crashed|out of memory"; }
}

# ---- the bad-input catalogue (bad_inputs.txt): each bad input gets its clear error and exit
# status, within the time limit, never a signal ----

test_bad_input_catalogue() {
  bad=$SRC/tests/cli/bad cli=$SRC/tests/cli n=0 tab=$(printf '\t')
  while IFS=$tab read -r want regex args; do
    case "$want" in '#'* | '') continue ;; esac
    n=$((n + 1))
    eval "set -- $args"
    status=0
    timeout 120 "$WEFT" "$@" >"$out" 2>&1 </dev/null || status=$?
    [ "$status" -lt 124 ] || fail "weft $args: killed or out of time (status $status)"
    [ "$status" = "$want" ] || fail "weft $args: exit code $status, expected $want"
    grep -Eq -e "$regex" "$out" || fail "weft $args: no line matches: $regex"
  done <"$SRC/tests/cli/bad_inputs.txt"
  [ "$n" -ge 60 ] || fail "only $n bad inputs in the catalogue"
  echo "$n bad inputs, each a clear error"
}

# ---- `weft run`: a struct passed by value ----

# its fields as C lays them out (c + a*i + s + b, a negated in odd work-items' own copies)
test_run_struct_arg() {
  { "$WEFT" run "$SRC/tests/cli/struct_arg.cl" -g 4 --arg 'i32[4]=zero' \
      --arg '{i8:2,i32:3,i16:-4,i64:1000}' --out 0=/dev/stdout | od -An -td4; } >"$out" 2>&1
  expect_output '^ +998 +995 +1004 +989\n'
}

# a struct of the wrong size, named
test_run_error_struct_size() {
  weft run "$SRC/tests/cli/struct_arg.cl" -g 4 --arg 'i32[4]=zero' --arg '{i8:2,i32:3,i64:1000}'
  expect_output "gives a struct of 16 bytes but parameter 1 'p' \(params\) has 24"
}

# ---- `weft run`: the back end for work-groups that are not x-aligned ----

# A build compiles its kernels for x-aligned work-groups (G divides x, or one row) only; the
# variant for the others is built once, at the first launch that needs it: $2 builds of it in
# 3 launches with local size $1.
variant_builds() {
  export WEFT_DEBUG=time
  weft run "$SRC/tests/kernels/ndrange_2d.cl" -g 64,48 -l "$1" --lanes 4 --repeat 3 \
    --arg 'i32[3072]=zero' --arg 'i32[4]=zero'
  expect_status 0
  builds=$(grep -c 'back end for work-groups not x-aligned' "$out")
  [ "$builds" = "$2" ] || fail "$builds builds of the variant, expected $2"
}
test_run_variant_aligned() { variant_builds 8,6 0; }
test_run_variant_unaligned() { variant_builds 2,6 1; }

# ---- divisions: by a constant or a uniform divisor, no guard for inactive lanes, so that LLVM
# sees the constant (multiply-highs) and no vector division has a computed divisor ----

test_run_div_no_guard() {
  export WEFT_DEBUG=lowered
  weft run "$SRC/tests/cli/div_guard.cl" -g 64 --lanes 8 --arg 'u32[64]=iota' --arg u32:5 \
    --arg i32:-3
  expect_status 0
  expect_line 'urem <8 x i32> %[0-9]+, <i32 48, '
  ! grep -Eq '(udiv|sdiv|urem|srem) <8 x i32> %[0-9]+, %' "$out" ||
    fail "a vector division by a computed divisor"
}

# ---- lgamma and tgamma of float: vector code (lower_builtin.c, gamma_of), not a C library
# call per lane; a double's go to the C library (tests/kernels/math_libm.cl checks both) ----

test_run_gamma_vector() {
  export WEFT_DEBUG=lowered
  weft run "$SRC/tests/cli/gamma_float.cl" -g 64 --lanes 8 --arg 'f32[64]=rand:3'
  expect_status 0
  expect_line 'call <[48] x double> @_ZGV[de]N[48]v_log\('
  ! grep -Eq '@(lgamma|tgamma)f' "$out" || fail "a C library call per lane"
}

# ---- a kernel without a divergent branch has no policy step in its code: its warps end whole,
# and the step at its end (a few hundred instructions, inlined) is the runtime's ----

test_run_uniform_no_steps() {
  WEFT_CACHE=0 WEFT_DEBUG=optimized weft run "$vadd"
  expect_status 0
  expect_line '^step\.stack:'
  ! grep -Eq 'arbitrate|weft_(stack|pc)_arrive' "$out" || fail "a policy step in the code"
}

# ---- 8- and 16-bit elements packed without AVX-512: lane by lane, each lane's elements as one
# integer (lower_inst.c, narrow_packed), not LLVM's element-by-element masked loads and stores
# (a branch per element: 70 ms of code generation for this kernel, 18 ms now) ----

test_run_narrow_packed_by_lane() {
  WEFT_ISA=avx2 WEFT_CACHE=0 WEFT_DEBUG=optimized weft run "$SRC/tests/cli/narrow_packed.cl" \
    -g 64 --arg 'i8[256]=zero' --arg 'i8[256]=rand:1'
  expect_status 0
  expect_line 'load i32, ptr addrspace\(1\) %[0-9]+, align 4$'
  expect_line 'store i32 %[0-9]+, ptr addrspace\(1\) %[0-9]+, align 4$'
  ! grep -Eq 'llvm\.masked\.(load|store)\.v[0-9]+i(8|16)' "$out" ||
    fail "a masked load or store of 8- or 16-bit elements"
}

# ---- a gather whose address a loop hoisted (the barriers workload's &t[(l + 1) & 255], above
# its loop): a uniform base and 32-bit indices, not a vector of 64-bit addresses (two gathers
# per lane group without AVX-512, and the vectors kept) ----

test_run_hoisted_gather() {
  export WEFT_DEBUG=optimized
  weft run "$SRC/bench/kernels/barriers.cl" -g 256 -l 256 --lanes 8 --arg 'u32[256]=zero' \
    --arg u32:3
  expect_status 0
  expect_line 'getelementptr i32, ptr addrspace\(3\) %[0-9]+, <8 x i64> %[0-9]+$'
  ! grep -Eq 'getelementptr \[256 x i32\], ptr addrspace\(3\) %[0-9]+, i64 0, <8 x i64>' "$out" ||
    fail "a gather from a vector of addresses"
  # and where no lane of the group wraps, the read is one vector load (the only load of t)
  expect_line '= load <8 x i32>, ptr addrspace\(3\) %[0-9]+, align 4$'
}

# ---- WEFT_DEBUG=asm: the machine code of the kernels built, not of the JIT's warm-up ----

test_debug_asm() {
  WEFT_DEBUG=asm weft run "$vadd"
  expect_status 0
  expect_line '^__weft_p[0-9a-f]+_run_vector_add:$'
  expect_line '^[[:space:]]+retq?$'
  ! grep -q '^warm_up:' "$out" || fail "the warm-up's code was printed"
}

# ---- WEFT_ISA=avx2: the code for a host without AVX-512, on any host (G 8 by default) ----

test_isa_avx2() {
  weft run --help
  expect_line 'WEFT_ISA=avx2 compiles for a host without'
  WEFT_ISA=avx2 weft run "$samples/mandelbrot.cl"
  expect_status 0
  expect_line '^kernel +mandelbrot \(policy stack, W 32, G 8, '
  WEFT_ISA=avx1024 weft run "$vadd"
  expect_status 0
  expect_line '^weft: WEFT_ISA=avx1024: not native or avx2; using native$'
}

# ---- a divergent branch's lanes come from each lane group's compare (a movmsk), not from a
# <8 x i1> phi around the groups that a block skips, which AVX2 keeps as 16-bit lanes ----

test_branch_bits_in_groups() {
  WEFT_ISA=avx2 WEFT_CACHE=0 WEFT_DEBUG=optimized weft run "$samples/mandelbrot.cl"
  expect_status 0
  expect_line '= bitcast <8 x i1> %[0-9a-z.]+ to i8$'
  ! grep -q 'phi <8 x i1>' "$out" || fail "a branch condition lives across its lane groups"
  # a condition on ids only (q == 0 of the work-item's id & 3) is computed again where it
  # branches, in a loop too, rather than kept as a <8 x i1> from the block before the loop
  WEFT_ISA=avx2 WEFT_CACHE=0 WEFT_DEBUG=optimized weft run "$SRC/bench/kernels/nested_loop.cl" \
    -g 256 --arg 'u32[256]=rand:1' --arg 'u32[256]=zero'
  expect_status 0
  ! grep -q 'phi <8 x i1>' "$out" || fail "an id's condition lives across the loop"
}

# ---- WEFT_DEBUG=blends: a loop's back edge writes its phis whole when no lane can wait in
# the loop (the helper's walk), and keeps the lanes of a side that waits (loop_side_waits) ----

test_back_edge_blends() {
  WEFT_CACHE=0 WEFT_DEBUG=blends weft run "$SRC/bench/kernels/helper_branch.cl" -g 256 \
    --arg 'u32[256]=rand:1' --arg 'u32[256]=zero'
  expect_status 0
  expect_line '^weft: blends: helper_branch: back edge B7 -> B4 writes 2 of its 2 blended phis whole$'
  WEFT_CACHE=0 WEFT_DEBUG=blends weft run "$SRC/tests/kernels/loop_side_waits.cl" -g 256 \
    --arg 'u32[256]=rand:1' --arg 'u32[256]=zero'
  expect_status 0
  expect_line '^weft: blends: loop_side_waits: back edge B4 -> B1 writes 0 of its 3 blended phis whole$'
}

# ---- an early return around a loop takes its policy steps in the code: no round trip under
# stack or pc, nor under mp and mp-orec, whose code makes the reconvergence entries of the
# return and of the loop's exit itself (compiler/lower_region.c, open_mp), and the same output
# as the runtime's own steps (--policy-in-runtime) ----

test_early_exit_steps_in_code() {
  for p in stack pc mp mp-orec; do
    weft run "$SRC/tests/cli/early_exit_loop.cl" -g 1024 -l 64 --arg 'u32[1024]=rand:1' \
      --arg 'u32[1024]=zero' --policy $p --stats --out "1=$dir/code.bin"
    expect_status 0
    expect_line '^round trips +0$'
    weft run "$SRC/tests/cli/early_exit_loop.cl" -g 1024 -l 64 --arg 'u32[1024]=rand:1' \
      --arg 'u32[1024]=zero' --policy $p --stats --policy-in-runtime --out "1=$dir/runtime.bin"
    expect_status 0
    expect_line '^round trips +[1-9]'
    cmp -s "$dir/code.bin" "$dir/runtime.bin" || fail "$p: the steps in the code gave another output"
  done
}

# ---- mp's code makes a reconvergence entry in one part of a warp function and goes on into the
# next part, which takes the entry's point as its guard (open_across_parts.cl) ----

test_open_across_parts() {
  set -- -g 256 -l 128 --arg 'u32[64]=rand:1' --arg 'u32[1024]=zero' --arg 'u32[4]=zero' \
    --arg 'u32[8]=zero'
  weft cfg "$SRC/tests/cli/open_across_parts.cl"
  expect_line '^  parts: B0-B4 B5-B12 '
  for p in mp mp-orec; do
    weft run "$SRC/tests/cli/open_across_parts.cl" "$@" --policy $p --out "1=$dir/code.bin"
    expect_status 0
    weft run "$SRC/tests/cli/open_across_parts.cl" "$@" --policy $p --policy-in-runtime \
      --out "1=$dir/runtime.bin"
    expect_status 0
    cmp -s "$dir/code.bin" "$dir/runtime.bin" || fail "$p: the code's steps gave another output"
  done
}

# ---- the same kernel lowers to the same module in every process (the slots' allocas once
# came in the order of a map keyed by addresses, which ASLR changes from run to run) ----

test_lowering_is_deterministic() {
  for i in 1 2 3; do
    WEFT_DEBUG=optimized weft run "$samples/mandelbrot.cl"
    expect_status 0
    awk '/^; ---- weft: module optimized/ { on = 1 } /^kernel  / { on = 0 } on' "$out" \
      >"$dir/module$i"
  done
  grep -q 'define' "$dir/module1" || fail "no module printed"
  cmp -s "$dir/module1" "$dir/module2" && cmp -s "$dir/module1" "$dir/module3" ||
    { diff "$dir/module1" "$dir/module2" | head -20 >"$out"; fail "the runs' modules differ"; }
}

# ---- outputs: a file is replaced whole; a link, a device or stdout is written through, never
# replaced (as root, `-o /dev/stdout` once replaced the machine's /dev/stdout) ----

# vector_add of iota and iota over 4 work-items: c is 0 2 4 6
vadd4="$vadd -g 4 --arg f32[4]=iota --arg f32[4]=iota --arg f32[4]=zero --no-defaults"
expect_c() { [ "$(od -An -tf4 "$1" | tr -s ' ')" = " 0 2 4 6" ] || fail "$1 does not hold c"; }

test_out_symlink() {
  echo old >"$dir/target"
  ln -s target "$dir/link"
  weft run $vadd4 --out 2="$dir/link"
  expect_status 0
  [ -L "$dir/link" ] || fail "the link was replaced"
  expect_c "$dir/target"
}

# a link to a file that does not exist yet: the file is created where the link points
test_out_symlink_dangling() {
  mkdir "$dir/sub"
  ln -s sub/new "$dir/link"
  weft run $vadd4 --out 2="$dir/link"
  expect_status 0
  [ -L "$dir/link" ] || fail "the link was replaced"
  expect_c "$dir/sub/new"
}

test_stats_json_symlink() {
  : >"$dir/stats.json"
  ln -s stats.json "$dir/link"
  weft run $vadd4 --stats-json "$dir/link"
  expect_status 0
  [ -L "$dir/link" ] || fail "the link was replaced"
  grep -q '"kernel": "vector_add"' "$dir/stats.json" || fail "the stats are not in the target"
}

test_trace_out_symlink() {
  : >"$dir/trace.txt"
  ln -s trace.txt "$dir/link"
  weft trace "$samples/teaching/mp_fig2.cl" --warp 4 --lanes 4 -o "$dir/link"
  expect_status 0
  [ -L "$dir/link" ] || fail "the link was replaced"
  grep -q "^trace of kernel 'mp_fig2'" "$dir/trace.txt" || fail "the trace is not in the target"
}

# /dev/stdout is a link to /proc/self/fd/1; one of our own in $dir stands for it: written in
# place through the descriptor, so stdout opened with >> is appended to and nothing is replaced
test_trace_out_stdout_link() {
  ln -s /proc/self/fd/1 "$dir/stdout"
  echo before >"$dir/log"
  "$WEFT" trace "$samples/teaching/mp_fig2.cl" --warp 4 --lanes 4 -o "$dir/stdout" \
    >>"$dir/log" 2>"$out" || fail "weft trace failed"
  [ -L "$dir/stdout" ] || fail "the link to /proc/self/fd/1 was replaced"
  [ "$(head -1 "$dir/log")" = before ] || fail "the log was replaced, not appended to"
  grep -q "^trace of kernel 'mp_fig2'" "$dir/log" || fail "the trace is not in the log"
}

# a FIFO is written in place (a device would be too; none of the machine's is used here)
test_out_fifo() {
  mkfifo "$dir/fifo" || fail "mkfifo failed"
  cat "$dir/fifo" >"$dir/got" &
  weft run $vadd4 --out 2="$dir/fifo"
  expect_status 0
  wait
  [ -p "$dir/fifo" ] || fail "the FIFO was replaced"
  expect_c "$dir/got"
}

test_out_stdout_dash() {
  { "$WEFT" run $vadd4 --out 2=- | head -c 16 | od -An -tf4; } >"$out" 2>&1
  expect_output '^ +0 +2 +4 +6\n'
}

test_out_directory() {
  weft run $vadd4 --out 2="$dir"
  expect_status 1
  expect_output "cannot write $dir: it is a directory"
}

# root may write any file, but a read-only one is its owner's wish: not replaced
test_out_read_only() {
  echo keep >"$dir/ro"
  chmod 444 "$dir/ro"
  weft run $vadd4 --out 2="$dir/ro"
  expect_status 1
  expect_output "cannot write $dir/ro: it is read-only"
  [ "$(cat "$dir/ro")" = keep ] || fail "the read-only file was replaced"
}

# a replaced file keeps its mode; the temporary file beside it is gone
test_out_keeps_mode() {
  : >"$dir/c.bin"
  chmod 600 "$dir/c.bin"
  weft run $vadd4 --out 2="$dir/c.bin"
  expect_status 0
  expect_c "$dir/c.bin"
  [ "$(stat -c %a "$dir/c.bin")" = 600 ] || fail "the mode is $(stat -c %a "$dir/c.bin")"
  [ "$(ls -A "$dir" | wc -l)" = 2 ] || fail "more files than output and c.bin: $(ls -A "$dir")"
}

# the temporary file's name must fit NAME_MAX (255) too
test_out_long_name() {
  name254=$(printf '%0254d' 0)
  weft run $vadd4 --out 2="$dir/$name254"
  expect_status 0
  expect_c "$dir/$name254"
}

# ---- a kernel file's // weft-run: lines are trusted with its launch settings only ----

# k.cl in $dir: `// weft-run: -g 4 --arg i32[4]=zero` on line 1, then $1 (empty: none) on line 2
defaults_file() {
  mkdir -p "$dir/k"
  { echo '// weft-run: -g 4 --arg i32[4]=zero'
    echo "$1"
    echo '__kernel void fill(__global int *o) {'
    echo '#ifdef N'
    echo '  o[get_global_id(0)] = N;'
    echo '#endif'
    echo '}'; } >"$dir/k/k.cl"
}

# $1 on line 2 is refused with exit 2, file:line and what to do, before anything runs
refused() {
  defaults_file "// weft-run: $1"
  weft "${2:-run}" "$dir/k/k.cl"
  expect_status 2
  expect_output "k/k.cl:2: a kernel file may not [^\n]*: pass it on the command line"
}

test_defaults_refuse_plugin() {
  refused '--build-options -fplugin=/nonexistent/x.so'
  expect_output 'may not give --build-options -fplugin=/nonexistent/x.so \(only -D, -U, -I'
}
test_defaults_refuse_xclang() { refused '--build-options -Xclang'; }
test_defaults_refuse_build_output() {
  refused "--build-options -o$dir/built"
  [ ! -e "$dir/built" ] || fail "clang wrote the file's -o"
}
test_defaults_refuse_preprocess() { refused '--build-options -E'; }
test_defaults_refuse_wp() { refused "--build-options -Wp,-MD,$dir/deps"; }
test_defaults_refuse_include_elsewhere() { refused '--build-options -I/usr/include'; }
test_defaults_refuse_file_arg() {
  refused "-g 4 --arg i32[4]=file:/etc/passwd"
  expect_output 'may not read a file outside its folder'
}

test_defaults_refuse_out() {
  refused "--out 0=$dir/written"
  expect_output "may not choose what weft writes \(--out 0=$dir/written\)"
  [ ! -e "$dir/written" ] || fail "the file's --out was written"
}
test_defaults_refuse_stats_json() {
  refused "--stats-json $dir/written"
  [ ! -e "$dir/written" ] || fail "the file's --stats-json was written"
}
test_defaults_refuse_trace_output() {
  refused "-o $dir/written" trace
  [ ! -e "$dir/written" ] || fail "the file's -o was written"
}

# macros, include folders inside the file's folder, OpenCL and warning options are taken, and
# --no-defaults still runs a file whose lines are refused
test_defaults_allowed() {
  mkdir -p "$dir/k/inc"
  defaults_file "// weft-run: --build-options -DN=7"
  { "$WEFT" run "$dir/k/k.cl" --out 0=- | head -c 16 | od -An -td4; } >"$out" 2>&1
  expect_output '^ +7 +7 +7 +7\n'
  for opt in "-I$dir/k/inc" "-I$dir/k/inc/../inc" -cl-fast-relaxed-math -w -Wall -UN; do
    defaults_file "// weft-run: --build-options $opt"
    weft run "$dir/k/k.cl"
    expect_status 0
  done
  defaults_file '// weft-run: --build-options -fplugin=/nonexistent/x.so'
  weft run "$dir/k/k.cl" --no-defaults -g 4 --arg 'i32[4]=zero'
  expect_status 0
}

# ---- messages for inputs that are not what they should be ----

test_run_error_directory() {
  weft run "$dir"
  expect_status 1
  expect_output "cannot read $dir: it is a directory"
}

test_cfg_error_directory() {
  weft cfg "$dir"
  expect_status 1
  expect_output "cannot read $dir: it is a directory"
}

# a source without end stops at the limit, even with --no-defaults (the build would read it)
test_run_error_source_too_large() {
  for flag in "" --no-defaults; do
    status=0
    timeout 60 "$WEFT" run /dev/zero $flag >"$out" 2>&1 || status=$?
    expect_status 1
    expect_output 'cannot read /dev/zero: kernel source too large \(more than 16 MiB\)'
  done
}

test_run_error_file_arg_directory() {
  weft run "$vadd" -g 4 --arg "f32[4]=file:$dir" --arg 'f32[4]=zero' --arg 'f32[4]=zero'
  expect_status 1
  expect_output "'$dir' is a directory"
}

test_run_error_threads() {
  weft run "$vadd" --threads 1048577
  expect_status 2
  expect_output "--threads '1048577' is not a number from 0 to 1024\n"
}

# ---- every launch ends and says why: --timeout, WEFT_TIMEOUT, SIGINT/SIGTERM ----

endless=$SRC/tests/cli/endless_lane.cl
spin=$SRC/tests/cli/spin_lock.cl

# lane 37 never leaves its loop: stopped after 1 s, the report names its line, and the printf
# output of every lane comes first, though stdout is a file
test_timeout_endless_lane() {
  weft run "$endless" --timeout 1
  expect_status 1
  expect_line "^kernel 'endless_lane' stopped after [0-9.]+ s: it ran longer than its timeout of 1 s"
  expect_line '^  lanes 0+100000 were running the loop at .*endless_lane.cl:8 \(B2\)$'
  expect_line 'launch of .endless_lane. failed: WEFT_ERROR_TIMEOUT'
  # the two work-groups run on two workers: either may print first
  expect_output '^(lane [0-9]+ starts\n){64}kernel .endless_lane. stopped'
  [ "$(grep '^lane [0-9]* starts$' "$out" | sort -u | wc -l)" = 64 ] || fail "not every lane printed once"
  ! grep -q 'SIMT deadlock' "$out" || fail "an endless loop reported as a SIMT deadlock"
}

test_timeout_simt_deadlock() {
  weft run "$spin" --policy stack --timeout 1
  expect_status 1
  expect_line "SIMT deadlock under policy 'stack':"
  expect_line '^    lanes 1{31}0 spin in the loop at .*spin_lock.cl:6 \(B1\)$'
  expect_line '^    while lanes 0{31}1 are parked at .*spin_lock.cl:8-10 \(B2\),$'
}

test_timeout_env() {
  WEFT_TIMEOUT=0.5 weft run "$endless"
  expect_status 1
  expect_line 'it ran longer than its timeout of 0.5 s'
  WEFT_TIMEOUT=soon weft run "$endless"
  expect_status 2
  expect_line 'WEFT_TIMEOUT must be 0 \(no limit\) or a number of seconds'
}

# the trace of a stopped launch holds the steps recorded before it stopped
test_timeout_trace_writes_steps() {
  weft trace "$endless" --group 1 --timeout 0.5 -o "$dir/trace.txt"
  expect_status 1
  expect_line 'traced launch of .endless_lane. failed: WEFT_ERROR_TIMEOUT'
  grep -Eq '^ +0 +0  B0 ' "$dir/trace.txt" || fail "no step in the trace"
}

# SIGINT (again every second, in case the first one came before the launch began) stops the
# launch with the report and exit status 130, as a shell reports a process SIGINT ended
test_sigint_stops_run() {
  "$WEFT" run "$endless" >"$out" 2>&1 &
  pid=$!
  sleep 2
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -INT $pid 2>/dev/null && sleep 1 || break; done
  status=0
  wait $pid || status=$?
  expect_status 130
  expect_line "stopped after [0-9.]+ s: it was asked to stop"
  expect_line 'were running the loop at .*endless_lane.cl:8'
}

# ---- WEFT_PERF_MAP=1: the JIT's functions named for perf in /tmp/perf-<pid>.map ----

# perf_map_run SAMPLE PREPARE ENV...: `weft run` on samples/SAMPLE.cl with the environment
# changed by `env ENV...`, as a shell that first runs PREPARE, a command on $map
# (/tmp/perf-<its pid>.map; $1 is $dir), then becomes weft (exec keeps its pid, and so the map's
# name, which it prints first). Sets $map.
perf_map_run() {
  sample=$samples/$1.cl prepare=$2
  shift 2
  status=0
  env "$@" sh -c 'map=/tmp/perf-$$.map && echo "map $map" && '"$prepare"' && exec "$0" run "$2"' \
    "$WEFT" "$dir" "$sample" >"$out" 2>&1 || status=$?
  map=$(sed -n 's/^map //p' "$out")
  [ -n "$map" ] || fail "the shell did not say its pid"
}

# the map has a line "START SIZE name" for each part of the warp function and the setargs;
# sphere_trace's warp function has two parts, compiled in two units where there are 2 CPUs
test_perf_map() {
  perf_map_run sphere_trace 'rm -f "$map"' WEFT_PERF_MAP=1
  cp "$map" "$dir/map" 2>/dev/null
  rm -f "$map"
  expect_status 0
  [ -f "$dir/map" ] || fail "no $map"
  for fn in 'run_sphere_trace' 'run_sphere_trace\.1' 'setargs_sphere_trace'; do
    grep -Eq "^[0-9a-f]+ [0-9a-f]+ __weft_p[0-9a-f]{8}_$fn\$" "$dir/map" ||
      fail "no line for $fn in the map: $(cat "$dir/map")"
  done
}

test_perf_map_off() {
  perf_map_run vector_add 'rm -f "$map"' -u WEFT_PERF_MAP
  [ ! -e "$map" ] || { rm -f "$map"; fail "$map written without WEFT_PERF_MAP"; }
  expect_status 0
  perf_map_run vector_add 'rm -f "$map"' WEFT_PERF_MAP=0
  [ ! -e "$map" ] || { rm -f "$map"; fail "$map written with WEFT_PERF_MAP=0"; }
  expect_status 0
}

# a symbolic link planted at the map's name is not followed: the run goes on without a map
test_perf_map_symlink() {
  perf_map_run vector_add 'rm -f "$map" && ln -s "$1/target" "$map"' WEFT_PERF_MAP=1
  linked=0
  [ -L "$map" ] && linked=1
  rm -f "$map"
  expect_status 0
  [ $linked = 1 ] || fail "the link was replaced"
  [ ! -e "$dir/target" ] || fail "weft wrote the map where the link points"
}

# ---- builds that stay small ----

# atomics in nested branches of a helper called four times: the masked regions' code is bounded
# (at W 32 it was 182,000 instructions before their cost counted their copies; 36,000 after).
# G 16 on any host: the code grows with the lane groups, twice as many at the AVX2 default of 8.
test_build_nested_regions() {
  WEFT_DEBUG=time weft run "$SRC/tests/cli/nested_regions.cl" --lanes 16
  expect_status 0
  total=$(sed -n 's/.*functions, \([0-9]*\) instructions.*/\1/p' "$out" | awk '{s += $1} END {print s + 0}')
  [ "$total" -gt 0 ] && [ "$total" -lt 80000 ] || fail "$total instructions lowered"
}

# ---- the disk cache of compiled programs (ctest runs every other test with WEFT_CACHE=0) ----

# cached ARGS...: `weft run ARGS` with the cache on in $dir/cache, saying what it did
# (WEFT_DEBUG=cache,time: "cache: hit", "from cache", "front end" ...).
cached() {
  WEFT_CACHE=1 WEFT_CACHE_DIR=$dir/cache WEFT_DEBUG=cache,time weft run "$@"
}
entries() { ls "$dir/cache" 2>/dev/null | grep -c '\.weftc$'; }
mandel() { cached "$samples/mandelbrot.cl" --out "0=$dir/$1"; }
# the build ran clang and code generation and stored its entry
expect_built() {
  expect_status 0
  expect_line "weft: front end" && expect_line "weft: cache: stored"
}
expect_hit() {
  expect_status 0
  expect_line "weft: cache: hit" && expect_line "weft: from cache"
  ! grep -q "weft: front end" "$out" || fail "a hit ran clang"
}

# a second process builds nothing: the same code, the same output as without a cache
test_cache_hit() {
  WEFT_CACHE=0 weft run "$samples/mandelbrot.cl" --out "0=$dir/plain"
  expect_status 0
  mandel first
  expect_built
  mandel second
  expect_hit
  cmp -s "$dir/plain" "$dir/first" && cmp -s "$dir/plain" "$dir/second" ||
    fail "the outputs differ"
  [ "$(entries)" = 1 ] || fail "$(entries) entries, expected 1"
}

# the variant for work-groups that are not x-aligned (groups of 2 x 6 at G 4) goes into the
# entry when a launch builds it: a second process takes it from there and generates no code
test_cache_hit_unaligned() {
  k=$SRC/tests/kernels/ndrange_2d.cl v="-g 64,48 -l 2,6 --lanes 4 --arg i32[3072]=zero --arg i32[4]=zero"
  WEFT_CACHE=0 weft run "$k" $v --out "0=$dir/plain"
  cached "$k" $v --out "0=$dir/first"
  expect_built
  expect_line "weft: back end for work-groups not x-aligned"
  [ "$(grep -c "weft: cache: stored" "$out")" = 2 ] || fail "the variant was not stored"
  cached "$k" $v --out "0=$dir/second"
  expect_hit
  expect_line "weft: variant for work-groups not x-aligned from cache"
  ! grep -Eq "code gen|back end|stored" "$out" || fail "the second process built code"
  cmp -s "$dir/plain" "$dir/first" && cmp -s "$dir/plain" "$dir/second" ||
    fail "the outputs differ"
  [ "$(entries)" = 1 ] || fail "$(entries) entries, expected 1"
}

# damage_entry HOW: the only entry, truncated to half (HOW=cut) or 16 bytes of its middle
# overwritten (HOW=bytes)
damage_entry() {
  f=$(ls "$dir"/cache/*.weftc) size=$(wc -c <"$f")
  if [ "$1" = cut ]; then
    head -c $((size / 2)) "$f" >"$f.cut" && mv "$f.cut" "$f"
  else
    printf 'DAMAGED-DAMAGED!' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
  fi
}

# a damaged entry is ignored, the program built again and the entry written again
cache_damaged() {
  mandel plain
  damage_entry "$1"
  mandel again
  expect_built
  expect_line "weft: cache: ignored a damaged or foreign entry"
  cmp -s "$dir/plain" "$dir/again" || fail "the output differs after a damaged entry"
  mandel third
  expect_hit
}
test_cache_damaged_bytes() { cache_damaged bytes; }
test_cache_damaged_cut() { cache_damaged cut; }

# another program's entry under this one's name (a hash shared by chance) is not taken
test_cache_foreign() {
  mandel plain
  m=$(ls "$dir"/cache/*.weftc)
  v="-g 256 -l 64 --arg f32[256]=iota --arg f32[256]=iota --arg f32[256]=zero"
  cached "$vadd" $v --out "2=$dir/vadd"
  v_entry=$(ls "$dir"/cache/*.weftc | grep -v "$m")
  cp "$m" "$v_entry"
  cached "$vadd" $v --out "2=$dir/vadd2"
  expect_built
  expect_line "weft: cache: ignored a damaged or foreign entry"
  cmp -s "$dir/vadd" "$dir/vadd2" || fail "the output differs after a foreign entry"
}

# processes that build the same program at once each find a whole entry or none
test_cache_concurrent() {
  for i in 1 2 3 4; do
    WEFT_CACHE=1 WEFT_CACHE_DIR=$dir/cache "$WEFT" run "$samples/mandelbrot.cl" \
      --out "0=$dir/out$i" >"$dir/log$i" 2>&1 &
  done
  wait
  for i in 1 2 3 4; do
    [ -s "$dir/out$i" ] || fail "process $i wrote nothing: $(cat "$dir/log$i")"
    cmp -s "$dir/out1" "$dir/out$i" || fail "process $i's output differs"
  done
  [ "$(ls "$dir/cache" | wc -l)" = 1 ] || fail "the cache holds: $(ls "$dir/cache")"
  mandel last
  expect_hit
  cmp -s "$dir/out1" "$dir/last" || fail "the output from the cache differs"
}

# WEFT_CACHE=0 writes nothing
test_cache_off() {
  WEFT_CACHE=0 WEFT_CACHE_DIR=$dir/cache weft run "$samples/mandelbrot.cl"
  expect_status 0
  [ "$(entries)" = 0 ] || fail "an entry was written"
}

# a folder that others may write to could hand weft their code: it is not used
test_cache_unsafe_dir() {
  mkdir -p "$dir/cache" && chmod 777 "$dir/cache"
  mandel plain
  expect_status 0
  expect_line "weft: the kernel cache .*/cache is not used: others may write to it"
  [ "$(entries)" = 0 ] || fail "an entry was written"
}

# the folder stays under WEFT_CACHE_SIZE: the entries used longest ago go first (a hit counts as
# a use), never the one just written; a temporary file over an hour old goes too (its writer
# died); a bad size is said once, and the default kept
test_cache_size_limit() {
  hist() { cached "$samples/histogram.cl" --out "0=$dir/$1"; }
  WEFT_CACHE=1 WEFT_CACHE_DIR=$dir/probe weft run "$samples/histogram.cl"
  hist_size=$(cat "$dir"/probe/*.weftc | wc -c)
  mandel plain
  m=$(ls "$dir"/cache/*.weftc)
  cached "$vadd" -g 256 -l 64 --arg f32[256]=iota --arg f32[256]=iota --arg f32[256]=zero
  v=$(ls "$dir"/cache/*.weftc | grep -v "$m")
  mandel again
  expect_hit
  stale=$dir/cache/0123456789abcdef.weftc.AbCdEf fresh=$dir/cache/fedcba9876543210.weftc.AbCdEf
  : >"$stale" && touch -d '2 hours ago' "$stale" && : >"$fresh"
  limit=$(($(wc -c <"$m") + $(wc -c <"$v") + hist_size - 1))
  WEFT_CACHE_SIZE=$limit hist first
  expect_built
  expect_line "weft: cache: deleted, to keep the folder under WEFT_CACHE_SIZE, ${v##*/}"
  [ ! -e "$v" ] && [ -e "$m" ] || fail "not the entry used longest ago went: $(ls "$dir/cache")"
  [ "$(entries)" = 2 ] || fail "$(entries) entries, expected 2"
  [ ! -e "$stale" ] && [ -e "$fresh" ] || fail "the temporary files: $(ls "$dir/cache")"
  WEFT_CACHE_SIZE=1 hist second
  expect_hit
  [ "$(entries)" = 2 ] || fail "a hit deleted entries"
  WEFT_CACHE_SIZE=1 mandel third
  expect_hit
  WEFT_CACHE_SIZE=12x cached "$vadd" -g 256 -l 64 --arg f32[256]=iota --arg f32[256]=iota \
    --arg f32[256]=zero
  expect_built
  expect_line "weft: WEFT_CACHE_SIZE '12x' is not a size .*: the cache keeps 512M"
  [ "$(entries)" = 3 ] || fail "$(entries) entries after a bad size, expected 3"
  WEFT_CACHE_SIZE=1 WEFT_CACHE=1 WEFT_CACHE_DIR=$dir/cache weft run "$samples/loop_break.cl"
  expect_status 0
  [ "$(entries)" = 1 ] || fail "$(entries) entries under a budget of 1 byte, expected 1"
}

# a buffer of wide elements last: its slot is a pointer's 8 bytes, not a float4's 16 (the entry
# was refused as damaged)
test_cache_hit_wide_elements() {
  printf '__kernel void k(__global const float *a, __global float4 *o) {\n  o[get_global_id(0)] = (float4)(a[get_global_id(0)]);\n}\n' \
    >"$dir/k.cl"
  cached "$dir/k.cl" -g 16 -l 16 --arg f32[16]=iota --arg f32[64]=zero --out "1=$dir/first"
  expect_built
  cached "$dir/k.cl" -g 16 -l 16 --arg f32[16]=iota --arg f32[64]=zero --out "1=$dir/second"
  expect_hit
  cmp -s "$dir/first" "$dir/second" || fail "the outputs differ"
}

# a private long16 is 128-byte aligned, as OpenCL C's alignment of a long16 says, for every
# lane: the frames start on 128 bytes and the lowering places private variables on it
test_private_long16_aligned() {
  cat >"$dir/p.cl" <<'EOF'
__kernel void k(__global ulong *out, int n) {
  long16 v[3];
  for (int i = 0; i < 3; i++) v[i] = (long16)(get_global_id(0) + i + n);
  out[2 * get_global_id(0)] = (ulong)&v[n % 3];
  out[2 * get_global_id(0) + 1] = v[n % 3].s3;
}
EOF
  for wg in 4x4 8x4 8x8 16x8 16x16 32x8 32x16 64x16; do
    weft run "$dir/p.cl" -g 192 -l 96 --warp "${wg%x*}" --lanes "${wg#*x}" --arg u64[384]=zero \
      --arg i32:1 --out "0=$dir/out"
    expect_status 0
    bad=$(od -An -tu8 -w16 -v "$dir/out" | awk '$1 % 128 != 0 || $2 != NR + 1 { n++ } END { print n + 0 }')
    [ "$bad" = 0 ] || fail "W x G $wg: $bad work-items' long16 not 128-byte aligned (or wrong)"
  done
}

# the variant for work-groups that are not x-aligned is built for the launched kernel only: its
# units lower less than half of what the program's first build did (the other kernel is larger)
test_unaligned_builds_one_kernel() {
  cat >"$dir/two.cl" <<'EOF'
__kernel void other(__global float *o) {
  int i = get_global_id(0);
  float s = 0;
  for (int k = 0; k < i; k++) s += sin((float)k) * cos(s) + exp(s) * log(s + 2.0f);
  for (int k = 0; k < i; k++) s = pow(s, 0.5f) + atan2(s, (float)k) + tanh(s) * erf(s);
  o[i] = s;
}
__kernel void scale(__global float *o) { o[get_global_id(0)] += 1.0f; }
EOF
  WEFT_DEBUG=time weft run "$dir/two.cl" -k scale -g 6,2 -l 3,2 --arg f32[12]=iota
  expect_status 0
  expect_line "weft: back end for work-groups not x-aligned"
  sizes=$(awk '/ unit [0-9]+:/ { n += $(NF - 11) } /back end/ { printf "%d ", n; n = 0 }' "$out")
  set -- $sizes
  [ $# = 2 ] && [ "$2" -gt 0 ] && [ $(($2 * 2)) -lt "$1" ] ||
    fail "instructions lowered by the first build, then by the variant: $sizes"
}

# a program that includes a file is cached with each file that clang read, by its bytes: a hit
# needs each to hold the same still (a header written again as it was is one), a header
# changed is a miss, built again, and a header gone is the build's error, never the old code
test_cache_include() {
  mkdir -p "$dir/k"
  printf '#define SCALE 2.0f\n' >"$dir/k/scale.h"
  printf '#include "scale.h"\n__kernel void k(__global float *o) { o[get_global_id(0)] = SCALE; }\n' \
    >"$dir/k/k.cl"
  inc() { cached "$dir/k/k.cl" -g 16 -l 16 --arg f32[16]=zero --out "0=$dir/$1"; }
  value() { od -An -tf4 -N4 "$dir/$1" | tr -d ' '; }
  inc two
  expect_built
  inc two_again
  expect_hit
  cmp -s "$dir/two" "$dir/two_again" || fail "the output from the cache differs"
  printf '#define SCALE 2.0f\n' >"$dir/k/scale.h"
  inc two_rewritten
  expect_hit
  printf '#define SCALE 3.0f\n' >"$dir/k/scale.h"
  inc three
  expect_built
  expect_line "weft: cache: miss: a file that its build read has changed: .*k/scale.h"
  [ "$(value two)" = 2 ] && [ "$(value three)" = 3 ] || fail "the header's change was not seen"
  inc three_again
  expect_hit
  cmp -s "$dir/three" "$dir/three_again" || fail "the output from the cache differs"
  [ "$(entries)" = 1 ] || fail "$(entries) entries, expected 1"
  rm "$dir/k/scale.h"
  inc gone
  expect_status 1
  expect_line "weft: cache: miss: a file that its build read has changed: .*k/scale.h"
  expect_line "'scale.h' file not found"
  [ ! -e "$dir/gone" ] || fail "a kernel ran without its header"
}

# a file that changed after the build began may have been read before the change: the build is
# not stored (a header dated an hour ahead stands for one written while clang ran)
test_cache_include_changed_while_built() {
  printf '#define V 1\n' >"$dir/v.h"
  touch -d '+1 hour' "$dir/v.h"
  printf '#include "v.h"\n__kernel void k(__global int *o) { o[0] = V; }\n' >"$dir/k.cl"
  cached "$dir/k.cl" -g 1 -l 1 --arg i32[1]=zero
  expect_status 0
  expect_line "weft: cache: not stored, cannot record a file it read: .*v.h"
  [ "$(entries)" = 0 ] || fail "an entry was written"
}

# a program that asks whether a file exists is not cached: the answer depends on a file that it
# may not have read
test_cache_has_include() {
  printf '#if __has_include("opt.h")\n#include "opt.h"\n#else\n#define V 1\n#endif\n__kernel void k(__global int *o) { o[0] = V; }\n' \
    >"$dir/k.cl"
  cached "$dir/k.cl" -g 1 -l 1 --arg i32[1]=zero --out "0=$dir/one"
  expect_status 0
  printf '#define V 2\n' >"$dir/opt.h"
  cached "$dir/k.cl" -g 1 -l 1 --arg i32[1]=zero --out "0=$dir/two"
  expect_status 0
  [ "$(entries)" = 0 ] || fail "an entry was written"
  [ "$(od -An -td4 "$dir/two" | tr -d ' ')" = 2 ] || fail "the new header was not seen"
}

# ---- running ----

[ $# -gt 0 ] || set -- $(sed -n 's/^test_\([a-z0-9_]*\)().*/\1/p' "$0")
failed=0
for name; do
  dir=$WORK/$name
  out=$dir/output
  rm -rf "$dir" && mkdir -p "$dir" || exit 1
  if ! command -v "test_$name" >/dev/null; then
    echo "FAIL $name: no such test in $0"
    failed=1
  elif (: >"$out" && "test_$name"); then
    echo "ok   $name"
  else
    echo "FAIL $name"
    failed=1
  fi
done
exit $failed
