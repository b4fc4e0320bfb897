/* lgamma and tgamma of float per lane: vector code (a libmvec log per vector), not the C
 * library's lgammaf and tgammaf once per lane. */
__kernel void gamma_float(__global float *o) {
  size_t i = get_global_id(0);
  o[i] = tgamma(o[i] * 4.0f) + lgamma(o[i] - 2.0f);
}
