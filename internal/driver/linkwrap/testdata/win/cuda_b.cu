// CUDA program, second TU (relocatable device code: bump is called from
// cuda_a.cu's kernel).
#include "mini_cuda.h"
__device__ int bump(int v) { return v + 1; }
__device__ float scale = 2.0f;
__global__ void kern_c() {}
