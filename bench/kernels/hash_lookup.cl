/* Hash-table lookups: each work-item hashes its key (FNV-1a, a loop over its bytes), then
 * probes the open-addressing table linearly, comparing bytes with an early exit, until it finds
 * the key or an empty slot. Keys are 1 to 16 bytes, stored in 16-byte rows; a length of 0
 * marks an empty slot. out[i] is the key's value, or 0xffffffff when it is not there. */
static uint fnv1a(__global const uchar *k, uint len) {
  uint h = 2166136261u;
  for (uint i = 0; i < len; i++)
    h = (h ^ k[i]) * 16777619u;
  return h;
}

__kernel void hash_lookup(__global const uchar *keys, __global const uint *klen,
                          __global const uint *vals, uint mask, __global const uchar *qkeys,
                          __global const uint *qlen, __global uint *out) {
  uint id = get_global_id(0), len = qlen[id], r = 0xffffffffu;
  __global const uchar *q = qkeys + id * 16;
  uint slot = fnv1a(q, len) & mask;
  while (klen[slot] != 0) {
    if (klen[slot] == len) {
      uint i = 0;
      while (i < len && keys[slot * 16 + i] == q[i])
        i++;
      if (i == len) {
        r = vals[slot];
        break;
      }
    }
    slot = (slot + 1) & mask;
  }
  out[id] = r;
}
