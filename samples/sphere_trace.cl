// weft-run: -g 512,384 -l 32,8 --stats
// weft-run: --arg f32[196608]=zero --arg i32:512 --arg i32:384 --arg i32:128
/* Sphere tracing: each work-item marches its pixel's ray through a field of spheres over a floor
 * until it hits a surface or gives up, and stores the brightness of the hit (0: nothing hit).
 * The loop has the shape of the MP paper's Figure 10, a `break` with work on its way out:
 *
 *     do { A: d = distance to the scene;
 *          if (d < eps) { B: shade the hit (normal, light, soft shadow); break; }
 *          C: step on by d;
 *     } while (steps and distance left);
 *     D: store the brightness
 *
 * Neighbouring rays hit after different numbers of steps, so each warp leaves the loop through
 * B in many small splits. Every branch here reconverges at D, so `stack` and `mp` run B once
 * per such split; under `mp-orec`, lanes that reach B while an earlier split still waits there
 * merge with it (an early reconvergence), and B runs with more lanes: compare the SIMD
 * efficiency and the early reconvergences of `--policy stack` and `--policy mp-orec`. */
#pragma OPENCL FP_CONTRACT OFF

/* Distance from (x, y, z) to the nearest surface: spheres of radius 0.6 at every point of the
 * grid (2i, 0, 2k), and the floor y = -1. */
static float scene(float x, float y, float z) {
  float sx = x - 2.0f * round(x * 0.5f), sz = z - 2.0f * round(z * 0.5f);
  float sphere = sqrt(sx * sx + y * y + sz * sz) - 0.6f;
  return fmin(sphere, y + 1.0f);
}

__kernel void sphere_trace(__global float *out, int width, int height, int max_steps) {
  int px = get_global_id(0), py = get_global_id(1);
  float dx = (2.0f * px - width) / height, dy = (height - 2.0f * py) / height - 0.5f, dz = 1.5f;
  float len = sqrt(dx * dx + dy * dy + dz * dz);
  dx /= len, dy /= len, dz /= len;
  float t = 0.0f, shade = 0.0f;
  int i = 0;
  do {
    float x = 0.3f + dx * t, y = 1.2f + dy * t, z = dz * t;
    float d = scene(x, y, z);
    if (d < 0.001f) {
      /* the normal by central differences, diffuse and specular light, a soft shadow */
      const float e = 0.001f, lx = 0.577f, ly = 0.577f, lz = -0.577f;
      float nx = scene(x + e, y, z) - scene(x - e, y, z);
      float ny = scene(x, y + e, z) - scene(x, y - e, z);
      float nz = scene(x, y, z + e) - scene(x, y, z - e);
      float nl = sqrt(nx * nx + ny * ny + nz * nz);
      nx /= nl, ny /= nl, nz /= nl;
      float diffuse = fmax(nx * lx + ny * ly + nz * lz, 0.0f);
      float hx = lx - dx, hy = ly - dy, hz = lz - dz, hl = sqrt(hx * hx + hy * hy + hz * hz);
      float spec = fmax((nx * hx + ny * hy + nz * hz) / hl, 0.0f);
      spec *= spec, spec *= spec, spec *= spec;
      float lit = 1.0f, s = 0.02f; /* march 16 steps towards the light: the narrowest miss */
      for (int k = 0; k < 16; k++) {
        float h = scene(x + lx * s, y + ly * s, z + lz * s);
        lit = fmin(lit, 8.0f * fmax(h, 0.0f) / s);
        s += fmax(h, 0.02f);
      }
      shade = 0.1f + lit * (0.7f * diffuse + 0.2f * spec);
      break;
    }
    t += d;
    i++;
  } while (i < max_steps && t < 40.0f);
  out[py * width + px] = shade;
}
