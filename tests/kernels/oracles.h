/* One oracle per kernel of the suite: plain C that computes, from the inputs in io, what the
 * kernel must leave in its buffers. Written from the kernel's meaning, not by running its
 * source, and checked against the source compiled as C by test_oracles. */
#ifndef WEFT_TEST_ORACLES_H
#define WEFT_TEST_ORACLES_H

#include "cases.h"

#define KERNEL_LIST(X)                                                                        \
  X(if_else) X(nested_if) X(if_no_else) X(loop_divergent_trip) X(loop_break) X(loop_break_carried) X(loop_continue) \
  X(early_return) X(packed_after_return) X(int_indexes) X(switch_fallthrough) X(uniform_branch) X(varying_branch)                   \
  X(loop_in_divergent) X(gcd_while) X(nested_loops_break) X(function_calls)                   \
  X(uniform_loop_divergent_body) X(loop_ulong) X(short_circuit) X(odd_local_size)             \
  X(barrier_local_static) X(barrier_local_arg) X(barrier_divergent) X(address_after_barrier) X(parts) X(parts_uniform) X(parts_static_local) X(prefix_sum)             \
  X(atomics_global) X(atomics_local) X(atomics_local_lanes) X(atomics_unsigned) X(atomic_tickets) X(transpose_tile) X(types_char) X(types_short)           \
  X(types_long) X(types_uint) X(types_float) X(types_double) X(int_builtins) X(int_mul_hi) X(div_rem) X(pointer_arith) \
  X(scatter_gather) X(float4_arith) X(float4_swizzle) X(common_builtins) X(conversions) X(math_basic) X(math_transcendental) X(math_more)    \
  X(ndrange_2d) X(ndrange_3d) X(dynamic_index) X(uniform_after_store) X(sub_groups)

#define DECLARE_ORACLE(name) oracle_fn oracle_##name;
KERNEL_LIST(DECLARE_ORACLE)
#undef DECLARE_ORACLE

#endif
