// Tiny kernel for nvcc-built fixtures (see ../README.md).
__device__ float scale(float a, float x) { return a * x; }
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scale(a, x[i]) + y[i];
}
