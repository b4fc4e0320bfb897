/* Linear probing with an early-exit compare, as a hash lookup does: the probe loop is left by
 * `break` at an empty slot or a match, or after 64 probes, and holds the compare loop, which
 * its lanes leave at different trips. Lanes leave the probe loop while the others go on to
 * diverge again, in loops the policy steps through. */
__kernel void probe_compare(__global const uchar *table, __global const uchar *q,
                            __global int *out) {
  int id = get_global_id(0), found = -1;
  __global const uchar *key = q + id * 4;
  for (int n = 0, slot = (id * 7) & 63; n < 64; n++, slot = (slot + 1) & 63) {
    __global const uchar *row = table + slot * 4;
    if (row[0] == 0)
      break;
    int i = 0;
    while (i < 3 && row[i] == key[i])
      i++;
    if (i == 3) {
      found = slot * 4 + row[3];
      break;
    }
  }
  out[id] = found;
}
