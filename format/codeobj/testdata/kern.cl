static float twice(float x) { return x + x; }
__attribute__((noinline)) float helper(float x) { return twice(x) * 3.0f; }
__kernel void scale(__global float *p, float f) { p[get_global_id(0)] *= helper(f); }
__kernel void fill(__global int *p) { p[0] = 7; }
