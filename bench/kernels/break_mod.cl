/* A loop left by `break` under a data-dependent modulo: each work-item steps a xorshift
 * generator from its seed until the state is a multiple of 48 (about one step in 48), or to
 * its own limit, `limit` less the seed's low 6 bits. Lanes of a warp leave after different
 * numbers of trips. */
__kernel void break_mod(__global const uint *seed, __global uint *out, uint limit) {
  uint id = get_global_id(0);
  uint x = seed[id], acc = 0, mine = limit - (x & 63u), i;
  for (i = 0; i < mine; i++) {
    if (x % 48u == 0)
      break;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    acc += x >> 24;
  }
  out[id] = acc + (i << 16);
}
