/* A small ray tracer: for each pixel, the nearest hit over a list of spheres through a helper,
 * then a shadow ray towards the light that leaves its loop over the spheres at the first hit
 * (`break`). Spheres are (x, y, z, radius). FP_CONTRACT OFF keeps the arithmetic plain C's. */
#pragma OPENCL FP_CONTRACT OFF

/* The distance along the ray o + t d (d of length 1) to sphere s, or -1 for a miss. */
static float hit(float ox, float oy, float oz, float dx, float dy, float dz, float4 s) {
  float px = ox - s.x, py = oy - s.y, pz = oz - s.z;
  float b = px * dx + py * dy + pz * dz;
  float disc = b * b - (px * px + py * py + pz * pz - s.w * s.w);
  if (disc < 0.0f)
    return -1.0f;
  float q = sqrt(disc), t = -b - q;
  if (t < 1e-3f)
    t = -b + q;
  return t < 1e-3f ? -1.0f : t;
}

__kernel void ray_trace(__global const float4 *spheres, int nspheres, __global float *out,
                        int width, int height) {
  int px = get_global_id(0), py = get_global_id(1);
  float dx = (2.0f * px - width) / height, dy = (height - 2.0f * py) / height, dz = 2.0f;
  float len = sqrt(dx * dx + dy * dy + dz * dz);
  dx /= len, dy /= len, dz /= len;
  float best = 1e30f;
  int near = -1;
  for (int i = 0; i < nspheres; i++) {
    float t = hit(0.0f, 1.0f, -4.0f, dx, dy, dz, spheres[i]);
    if (t > 0.0f && t < best) {
      best = t;
      near = i;
    }
  }
  float shade = 0.0f;
  if (near >= 0) {
    const float lx = 0.408f, ly = 0.816f, lz = -0.408f;
    float4 s = spheres[near];
    float x = dx * best, y = 1.0f + dy * best, z = -4.0f + dz * best;
    float nx = (x - s.x) / s.w, ny = (y - s.y) / s.w, nz = (z - s.z) / s.w;
    float diffuse = nx * lx + ny * ly + nz * lz;
    int lit = diffuse > 0.0f;
    for (int i = 0; lit && i < nspheres; i++)
      if (hit(x, y, z, lx, ly, lz, spheres[i]) > 0.0f) {
        lit = 0;
        break;
      }
    shade = 0.1f + (lit ? 0.9f * diffuse : 0.0f) + 0.01f * (float)near;
  }
  out[py * width + px] = shade;
}
