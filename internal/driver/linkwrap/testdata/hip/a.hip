#include "mini_hip.h"
#ifdef __CLANG_RDC__
extern __device__ int counter;
__device__ int bump(int v);
#else
/* Without -fgpu-rdc each file's device code is linked on its own: a.hip
   brings its own counter and bump (TestHIPReleaseMatrix). */
static __device__ int counter;
static __device__ int bump(int v) { return v + 2; }
#endif
__global__ void kern_a(int *p) { *p = bump(counter); }
__global__ void kern_b(float *p, int n) { if (n) p[0] = 1.0f; }
void launch(int *p) { kern_a<<<1, 1>>>(p); }
