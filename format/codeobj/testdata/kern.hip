#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
extern "C" __device__ int __ockl_get_local_id(int);
template <typename T> __device__ __attribute__((noinline)) T twice(T x) { return x + x; }
template <typename T> __global__ void scale(T *p, T f) { __shared__ T tile[256]; tile[0] = p[0] * f; p[1] = twice(tile[0]); }
template __global__ void scale<float>(float *, float);
template __global__ void scale<double>(double *, double);
__global__ void spill(float *p) { volatile float a[64]; for (int i = 0; i < 64; i++) a[i] = p[i]; for (int i = 0; i < 64; i++) p[i] = a[63 - i]; }
