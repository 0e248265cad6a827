// CUDA program, second TU (relocatable device code: bump is called from
// cuda_a.cu's kernel): a device variable with an initializer, a kernel, a
// template kernel, and a surface and a texture (which LLVM's CUDA
// registration does not register).
#include "mini_cuda.h"
__device__ int bump(int v) { return v + 1; }
__device__ float scale = 2.0f;
surface<void, 2> surf_ref;
texture<float, 2, 0> tex_ref;
__global__ void kern_c() {}
template <class T> __global__ void kern_t(T v) {}
template __global__ void kern_t<int>(int);
