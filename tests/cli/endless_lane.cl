// One lane of the launch never leaves its loop: --timeout must stop it and name line 8.
// weft-run: -g 64 -l 32 --arg i32[64]=zero
__kernel void endless_lane(__global int *out) {
  int i = get_global_id(0);
  if (printf("lane %d starts\n", i) < 0)
    return;
  if (i == 37)
    for (;;)
      out[i]++;
  out[i] += 1;
}
