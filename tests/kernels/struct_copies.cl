/* Private structs and arrays that clang initialises and copies with llvm.memset and memcpy: a
 * zeroed array indexed at run time, a struct built and returned by a helper, a struct passed
 * by value and changed in the callee, copies made on both sides of a divergent branch, and a
 * zeroed array of structs. */
typedef struct rec {
  int a;
  float b;
  int c[5];
} rec;

static rec make(int i) {
  rec r = {0};
  r.a = i;
  r.b = (float)i * 0.5f;
  r.c[i % 5] = 3;
  return r;
}

static rec twice(rec r) {
  r.a *= 2;
  r.b *= 2.0f;
  return r;
}

__kernel void struct_copies(__global const int *in, __global int *out) {
  int i = get_global_id(0), x = in[i], k = (x & 0xffff) % 24, j = x % 3 < 0 ? -(x % 3) : x % 3;
  int arr[24] = {0};
  arr[k] = x;
  rec s = make(x & 1023), t;
  if (x & 1) {
    t = twice(s);
  } else {
    t = s;
    t.c[0] += 7;
  }
  rec copies[3] = {0};
  copies[j] = t;
  out[i] = t.a + (int)t.b + t.c[2] + t.c[0] + arr[k] + arr[((x + 5) & 0xffff) % 24] + copies[1].a;
}
