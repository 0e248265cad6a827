// The second file of parts_a.cu's program: it defines the shared device
// functions and variable, six more kernels, and main.
#include "mini_cuda.h"
#include <stdio.h>
typedef int (*op_t)(int);
__device__ int g_total;
__device__ __attribute__((noinline)) int mix(int a, int b) { return (a * 31) ^ (b + 5); }
__device__ __attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ int counter_b;
__constant__ int coeff_b[4] = {7, 11, 13, 17};
static __device__ __attribute__((noinline)) int op_sub(int x) { return x - 9; }
static __device__ __attribute__((noinline)) int op_sq(int x) { return x * x; }
__device__ op_t ops_b[2] = {op_sub, op_sq};
template <int N> __global__ void tk(int *out) { out[threadIdx_x] = N * 100 + threadIdx_x; }
template __global__ void tk<4>(int *);
#define KERN(K) \
  __global__ void kb_##K(int *out) { \
    int i = threadIdx_x; \
    int r = coeff_b[K & 3] * i + ops_b[(i + K) & 1](i) + mix(K, i) + fib((K + 2) & 7); \
    atomicAdd(&counter_b, 1); atomicAdd(&g_total, 1); \
    out[i] = r; \
  }
KERN(0) KERN(1) KERN(2) KERN(3) KERN(4) KERN(5)
int h_mix(int a, int b) { return (a * 31) ^ (b + 5); }
static int h_fib(int n) { return n < 2 ? n : h_fib(n - 1) + h_fib(n - 2); }
static int h_kb(int K, int i) {
  static const int c[4] = {7, 11, 13, 17};
  int op = ((i + K) & 1) ? i * i : i - 9;
  return c[K & 3] * i + op + h_mix(K, i) + h_fib((K + 2) & 7);
}
static void launch_kb(int K, int *d) {
  switch (K) {
  case 0: kb_0<<<1, 128>>>(d); break;
  case 1: kb_1<<<1, 128>>>(d); break;
  case 2: kb_2<<<1, 128>>>(d); break;
  case 3: kb_3<<<1, 128>>>(d); break;
  case 4: kb_4<<<1, 128>>>(d); break;
  case 5: kb_5<<<1, 128>>>(d); break;
  }
}
int check_a(int *d);
int main() {
  int *d, h[128], bad = 0;
  cudaMalloc((void **)&d, sizeof h);
  bad += check_a(d);
  for (int K = 0; K < 6; K++) {
    launch_kb(K, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) bad += h[i] != h_kb(K, i);
  }
  int cb = -1, gt = -1;
  cudaMemcpyFromSymbol(&cb, &counter_b, sizeof cb, 0, cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(&gt, &g_total, sizeof gt, 0, cudaMemcpyDeviceToHost);
  bad += (cb != 6 * 128) + (gt != 12 * 128);
  int e = cudaDeviceSynchronize();
  printf("parts bad=%d counter_b=%d g_total=%d status=%d %s\n", bad, cb, gt, e, cudaGetErrorString(cudaGetLastError()));
  return bad != 0 || e != 0;
}
