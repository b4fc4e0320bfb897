/* Conditions that LLVM canonicalizes by inverting the branch (icmp ne, sge, a bit test), each with
 * its `then` side and `else` side marked: weft's PCs must still put `then` first. */
__kernel void then_before_else(__global int *out) {
  int id = get_local_id(0);
  int x = out[id]; /* A */
  if (id != 1) {
    x += 1; /* B */
  } else {
    x *= 3; /* C */
  }
  out[id] = x; /* D */
  if (x >= 3) {
    x -= 7; /* E */
  } else {
    x *= 5; /* F */
  }
  out[id] += x; /* G */
  if (x & 1) {
    x = x * x; /* H */
  } else {
    x += 11; /* I */
  }
  out[id] -= x; /* J */
}
