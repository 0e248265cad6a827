#include "hip.h"
__device__ int dev_counter;
__device__ __attribute__((weak)) int weak_dev(int x) { return x + 1; }
__device__ int helper(int x) { return x * 2 + dev_counter; }
static __device__ int local_helper(int x) { return x - 1; }
__global__ void kern(int *p) { p[0] = helper(p[1]) + weak_dev(3) + local_helper(4); }
template <typename T> __global__ void tkern(T *p) { p[0] = T(1); }
void launch(int *p, float *q) { kern<<<1, 1>>>(p); tkern<<<1, 1>>>(q); }
