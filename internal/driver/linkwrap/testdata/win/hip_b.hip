// HIP program, second TU: a device variable, a __constant__, a __managed__
// variable, a surface and a texture, a kernel and a template kernel, and
// bump, which hip_a.hip's kernel calls.
#include "mini_hip.h"
__device__ int counter;
__constant__ int table[4];
__managed__ int managed_v;
surface<void, 2> surf_ref;
texture<float, 3, 1> tex_ref;
__device__ int bump(int v) { return v + table[0] + 1; }
__global__ void kern_c() {}
template <class T> __global__ void kern_t(T v) {}
template __global__ void kern_t<int>(int);
