/* The suite's kernel sources compiled as C (see cl_as_c.h), for test_oracles.c. */
#include "cl_as_c.h"
#include "kernels_as_c.h"

#include "address_after_barrier.cl"
#include "atomic_tickets.cl"
#include "atomics_global.cl"
#include "atomics_unsigned.cl"
#include "int_mul_hi.cl"
#include "atomics_local.cl"
#include "atomics_local_lanes.cl"
#include "div_rem.cl"
#include "barrier_divergent.cl"
#include "barrier_local_arg.cl"
#include "early_return.cl"
#include "packed_after_return.cl"
#include "parts.cl"
#include "parts_uniform.cl"
#include "int_indexes.cl"
#include "float4_arith.cl"
#include "function_calls.cl"
#include "gcd_while.cl"
#include "if_else.cl"
#include "if_no_else.cl"
#include "int_builtins.cl"
#include "loop_break.cl"
#include "loop_break_carried.cl"
#include "loop_continue.cl"
#include "loop_divergent_trip.cl"
#include "loop_in_divergent.cl"
#include "loop_ulong.cl"
#include "math_basic.cl"
#include "math_transcendental.cl"
#include "ndrange_2d.cl"
#include "ndrange_3d.cl"
#include "nested_if.cl"
#include "nested_loops_break.cl"
#include "odd_local_size.cl"
#include "pointer_arith.cl"
#include "prefix_sum.cl"
#include "scatter_gather.cl"
#include "short_circuit.cl"
#include "switch_fallthrough.cl"
#include "types_char.cl"
#include "types_double.cl"
#include "types_float.cl"
#include "types_long.cl"
#include "types_short.cl"
#include "types_uint.cl"
#include "uniform_after_store.cl"
#include "uniform_branch.cl"
#include "uniform_loop_divergent_body.cl"
#include "varying_branch.cl"

/* These declare static __local arrays and take no __local pointer: a static array is one
 * per program, which is one per work-group here since test_oracles runs groups one by one. */
#undef __local
#define __local static
#include "barrier_local_static.cl"
#include "parts_static_local.cl"
#include "transpose_tile.cl"
#undef __local
#define __local

#define ENTRY(name) {#name, (void (*)(void))name},
const c_kernel c_kernels[] = {
    ENTRY(address_after_barrier) ENTRY(atomic_tickets) ENTRY(atomics_global) ENTRY(atomics_local) ENTRY(atomics_local_lanes) ENTRY(div_rem) ENTRY(atomics_unsigned) ENTRY(barrier_divergent) ENTRY(barrier_local_arg)
    ENTRY(early_return) ENTRY(float4_arith) ENTRY(function_calls) ENTRY(gcd_while) ENTRY(if_else)
    ENTRY(if_no_else) ENTRY(int_builtins) ENTRY(int_mul_hi) ENTRY(int_indexes) ENTRY(loop_break) ENTRY(loop_break_carried) ENTRY(loop_continue) ENTRY(loop_divergent_trip)
    ENTRY(loop_in_divergent) ENTRY(loop_ulong) ENTRY(math_basic) ENTRY(math_transcendental)
    ENTRY(ndrange_2d) ENTRY(ndrange_3d) ENTRY(nested_if) ENTRY(nested_loops_break)
    ENTRY(odd_local_size) ENTRY(packed_after_return) ENTRY(parts) ENTRY(parts_uniform) ENTRY(pointer_arith) ENTRY(prefix_sum) ENTRY(scatter_gather)
    ENTRY(short_circuit) ENTRY(switch_fallthrough) ENTRY(types_char) ENTRY(types_double)
    ENTRY(types_float) ENTRY(types_long) ENTRY(types_short) ENTRY(types_uint)
    ENTRY(uniform_after_store) ENTRY(uniform_branch) ENTRY(uniform_loop_divergent_body)
    ENTRY(varying_branch)
    ENTRY(barrier_local_static) ENTRY(parts_static_local) ENTRY(transpose_tile)
};
const unsigned n_c_kernels = sizeof c_kernels / sizeof *c_kernels;
