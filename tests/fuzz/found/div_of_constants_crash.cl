// weft-run: -g 32 -l 32 --arg u32[32]=zero --arg u32:5
/* Found by weft_fuzz (seed 5 of an earlier generator, and seeds 15, 70, 159, 285, 290 of
 * 938c754 at --rotate): weft dies with SIGSEGV (every W, G and policy) when both operands of a
 * division or remainder are constants only after clang's -O0 output is put in SSA form (here
 * through `v`); `4u / 3u` written directly, or a divisor that varies, builds and runs. */
__kernel void fz(__global uint *out, uint u) {
  uint gid = (uint)get_global_id(0);
  uint v = 1u;
  uint x = 4u / v; /* 7u % v with v = 3u crashes the same way */
  out[gid] = x + u;
}
