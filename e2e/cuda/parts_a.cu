// Partitioned device links on a GPU (issue 27): twelve kernels over two
// translation units that share device functions, a function-pointer table
// (address-taken functions, indirect calls), shared memory used from a
// device function, recursion, a template kernel, a local counter every
// kernel of a file updates, and __constant__ tables. Linked in parts, each
// kernel must compute what the host computes.
#include "mini_cuda.h"
#include <stdio.h>
typedef int (*op_t)(int);
extern __device__ int g_total;
__device__ int mix(int a, int b);
__device__ int fib(int n);
__device__ int counter_a;
static __device__ int hidden_a; // local, updated by kernels in several parts
__constant__ int coeff_a[4] = {1, 2, 3, 5};
static __device__ __attribute__((noinline)) int op_add(int x) { return x + 7; }
static __device__ __attribute__((noinline)) int op_mul(int x) { return x * 3; }
__device__ op_t ops_a[2] = {op_add, op_mul};
__device__ __attribute__((noinline)) int sh_sum(int v) {
  __shared__ int buf[128];
  int i = threadIdx_x;
  buf[i] = v;
  __nvvm_bar_sync(0);
  return buf[i] + buf[(i + 1) & 127];
}
template <int N> __global__ void tk(int *out) { out[threadIdx_x] = N * 100 + threadIdx_x; }
#define KERN(K) \
  __global__ void ka_##K(int *out) { \
    int i = threadIdx_x; \
    int r = sh_sum(i * coeff_a[K & 3]) + ops_a[(i + K) & 1](i) + mix(i, K) + fib(K & 7); \
    atomicAdd(&counter_a, 1); atomicAdd(&g_total, 1); atomicAdd(&hidden_a, 1); \
    out[i] = r; \
  }
KERN(0) KERN(1) KERN(2) KERN(3) KERN(4) KERN(5)
__global__ void ka_read(int *out) { out[0] = hidden_a; }
// host model of a kernel K of this file at thread i
static int h_fib(int n) { return n < 2 ? n : h_fib(n - 1) + h_fib(n - 2); }
int h_mix(int a, int b);
static int h_ka(int K, int i) {
  static const int c[4] = {1, 2, 3, 5};
  int s = i * c[K & 3] + ((i + 1) & 127) * c[K & 3];
  int op = ((i + K) & 1) ? i * 3 : i + 7;
  return s + op + h_mix(i, K) + h_fib(K & 7);
}
static void launch_ka(int K, int *d) {
  switch (K) {
  case 0: ka_0<<<1, 128>>>(d); break;
  case 1: ka_1<<<1, 128>>>(d); break;
  case 2: ka_2<<<1, 128>>>(d); break;
  case 3: ka_3<<<1, 128>>>(d); break;
  case 4: ka_4<<<1, 128>>>(d); break;
  case 5: ka_5<<<1, 128>>>(d); break;
  }
}
int check_a(int *d) {
  int bad = 0, h[128];
  for (int K = 0; K < 6; K++) {
    launch_ka(K, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 128; i++) bad += h[i] != h_ka(K, i);
  }
  tk<4><<<1, 128>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 128; i++) bad += h[i] != 400 + i;
  int ca = -1;
  cudaMemcpyFromSymbol(&ca, &counter_a, sizeof ca, 0, cudaMemcpyDeviceToHost);
  bad += ca != 6 * 128;
  ka_read<<<1, 1>>>(d);
  cudaMemcpy(h, d, sizeof h[0], cudaMemcpyDeviceToHost);
  bad += h[0] != 6 * 128;
  return bad;
}
