// Host side of a CUDA/HIP program whose offload entries cover kernels,
// device globals (plain, extern-visible, constant) and managed variables.
#include "mini.h"
#include <stdio.h>
__device__ int dev_counter;
__device__ double dev_table[16];
__constant__ float const_coeffs[4];
#ifdef __HIP__
// Managed variables, surfaces and textures exist only on the HIP side here.
__managed__ long managed_total;
__managed__ int managed_flags[8];
surface<void, 2> surf_ref;
texture<float, 2, 0> tex_ref;
#endif
__global__ void kern_a(int *p) {}
__global__ void kern_b(float x, double *y) {}
template <class T> __global__ void kern_t(T v) {}
template __global__ void kern_t<int>(int);
int main() {
  printf("main\n");
  return 0;
}
