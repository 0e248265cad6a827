// CUDA program, first TU: kernels, a device variable, and a __constant__ (clang ignores
// __managed__ in CUDA), and main, which launches kern_a.
#include "mini_cuda.h"
__device__ int counter;
__constant__ int table[4];
extern __device__ int bump(int v);
__global__ void kern_a(int *p) { *p = bump(counter) + table[1]; }
__global__ void kern_b(float *p, int n) { if (n) p[0] = 1.0f; }
int main() {
  kern_a<<<1, 1>>>(0);
  return 0;
}
