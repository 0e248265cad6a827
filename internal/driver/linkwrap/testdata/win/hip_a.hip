// HIP program, first TU (relocatable device code: counter and bump come
// from hip_b.hip): two kernels and launch, which hip_main.cpp calls.
#include "mini_hip.h"
extern __device__ int counter;
__device__ int bump(int v);
__global__ void kern_a(int *p) { *p = bump(counter); }
__global__ void kern_b(float *p, int n) { if (n) p[0] = 1.0f; }
void launch(int *p) { kern_a<<<1, 1>>>(p); }
