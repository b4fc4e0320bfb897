// weft-run: -g 4 -l 4 --arg i32[8]=iota --arg i32[4]=zero
/* Collange, "Stack-less SIMT reconvergence at low cost" (2011), Listing 1: a call to f() inside a
 * divergent branch. With plain min(PC) arbitration this fails when f's code lies after its call
 * site: the lanes that skip the call run the code after the if first. The paper therefore
 * arbitrates on (call depth, PC), deepest call first.
 *
 * The paper names no blocks; here A is the code before the if, B the call site on the divergent
 * `then` side (lanes with odd data), C the code after the if, the branch's immediate
 * post-dominator. f has its own loop: F is the loop test, L the loop body and R the code after the
 * loop, the loop branch's immediate post-dominator. weft inlines f, so F, L and R get PCs between
 * B and C, as if f had been placed at its call site. weft also rotates the loop: the first test
 * of F joins B's block as a guard, and the body L ends with the test, branching back to L or on
 * to R. */
int f(__global const int *data, int n);

__kernel void collange_listing1(__global const int *data, __global int *out) {
  int id = get_local_id(0); /* A */
  int x = data[id];
  if (x % 2 == 1) {
    int n = id + 4; /* B */
    int s = f(data, n);
    x += s;
  }
  out[id] = x; /* C */
}

int f(__global const int *data, int n) {
  int s = 0, i = 0;
  while (i < n) { /* F */
    s += data[i]; /* L */
    i++;
  }
  return s * 2; /* R */
}
