// Kernels with the resources format/codeobj reads from a cubin: registers,
// static shared memory, a local frame (an indexed local array), a launch
// bound (EIATTR_MAX_THREADS), a template family and a device function.
template <typename T, int N>
__global__ void tile_sum(const T *in, T *out) {
  __shared__ T tile[N];
  tile[threadIdx.x % N] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  T s = 0;
  for (int i = 0; i < N; i++) s += tile[i];
  out[blockIdx.x] = s;
}
template __global__ void tile_sum<float, 128>(const float *, float *);
template __global__ void tile_sum<double, 256>(const double *, double *);

__device__ __noinline__ float mix(float a, float b) { return a * 0.25f + b * 0.75f; }

__global__ void __launch_bounds__(128) local_frame(const int *idx, float *out) {
  float buf[64];
  for (int i = 0; i < 64; i++) buf[i] = out[i] * i;
  out[threadIdx.x] = mix(buf[idx[threadIdx.x] & 63], buf[idx[threadIdx.x + 1] & 63]);
}
