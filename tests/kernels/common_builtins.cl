/* OpenCL builtins that become plain IR (compiler/expand_builtins.c): vload/vstore of 2, 3 and 4
 * elements at lane-affine and at varying offsets, select on scalars and vectors, any/all, the
 * ordered and unordered comparisons (with NaNs), rotate, add_sat/sub_sat and hadd/rhadd on int
 * and uint, some under a varying branch; float2 and int2, which the x86-64 calling convention
 * passes as doubles, in fmax, select and vload2, and float8, which it passes through memory, in
 * fmax, vload8 and vstore8 (builtin_types.c). vo gets 4 floats per work-item from vstore4, then
 * 3 from vstore3, then 8 from vstore8; r gets 8 ints. */
__kernel void common_builtins(__global const float *f, __global const int *x,
                              __global const uint *u, __global float *vo, __global int *r) {
  int i = get_global_id(0), n = get_global_size(0), xi = x[i];
  uint ui = u[i];
  float4 v = vload4(i, f);
  float2 w = vload2(xi & 63, f), m = fmax(w, (float2)(v.z, -v.z));
  vstore4(v * 2.0f + (float4)(m.x, m.y, w.y, w.x), i, vo);
  float3 t = vload3(i, f);
  if (xi & 1)
    vstore3(t - 1.0f, i, vo + 4 * n);
  else
    vstore3(t * t, i, vo + 4 * n);
  int2 s2 = select((int2)(xi, 1), (int2)(-xi, 2), (int2)(-(xi & 1), -(xi & 2)));
  r[8 * i] = select(xi, -xi, xi & 1) + s2.y + 1000 * (s2.x != select(xi, -xi, xi & 1));
  int4 s = select((int4)(1, 2, 3, 4), (int4)(10, 20, 30, 40), (int4)(xi, -xi, xi >> 1, ~xi));
  r[8 * i + 1] = s.x + s.y + s.z + s.w;
  int4 bits = (int4)((int)ui, (int)(ui << 1), (int)(ui << 2), (int)(ui << 3));
  r[8 * i + 2] = any(bits) + 2 * all(bits);
  float a = v.x, b = xi % 5 == 0 ? NAN : v.y;
  r[8 * i + 3] = isequal(a, b) + 2 * isnotequal(a, b) + 4 * isgreater(a, b) +
                 8 * isgreaterequal(a, b) + 16 * isless(a, b) + 32 * islessequal(a, b) +
                 64 * islessgreater(a, b) + 128 * isordered(a, b) + 256 * isunordered(a, b);
  int4 c = isless(v, (float4)(0.5f));
  float8 e = fmax(vload8(i >> 1, f), (float8)(v.w));
  vstore8(e, i, vo + 7 * n);
  r[8 * i + 4] = c.x + 2 * c.y + 4 * c.z + 8 * c.w + 16 * (e.s3 > e.s6);
  r[8 * i + 5] = rotate(xi, i) ^ (int)rotate(ui, (uint)(7 * i));
  r[8 * i + 6] = add_sat(xi, xi) ^ sub_sat(xi, -xi) ^ (int)add_sat(ui, ui) ^ (int)sub_sat(ui, ui << 1);
  if (i & 1)
    r[8 * i + 7] = hadd(xi, x[i ^ 1]) ^ (int)rhadd(ui, u[i ^ 1]);
  else
    r[8 * i + 7] = rhadd(xi, -xi) ^ (int)hadd(ui, ~ui);
}
