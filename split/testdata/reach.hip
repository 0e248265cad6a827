// Device code whose kernels reach functions only through an operand bundle
// (__builtin_assume_aligned on a function's address), a function-pointer
// table in a global, a struct in a global, and a constant expression.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
typedef int (*op_t)(int);
__device__ __attribute__((noinline)) int in_bundle(int x) { return x + 1; }
__device__ __attribute__((noinline)) int sq(int x) { return x * x; }
__device__ __attribute__((noinline)) int neg(int x) { return -x; }
__device__ __attribute__((noinline)) int via_struct(int x) { return 2 * x; }
__device__ __attribute__((noinline)) long via_constexpr(int x) { return x; }
__device__ __attribute__((noinline)) int dead(int x) { return x - 7; }
__device__ __attribute__((noinline)) int dead_table_fn(int x) { return x - 8; }
__device__ op_t table[] = {sq, neg};
struct Ops { int tag; op_t f; };
__device__ Ops ops = {1, via_struct};
static __device__ op_t dead_table[] = {dead_table_fn};
__global__ void k_bundle(int *p) {
  (void)__builtin_assume_aligned((void *)in_bundle, 16);
  p[0] = 1;
}
__global__ void k_table(int *p) { p[0] = table[p[1] & 1](p[2]); }
__global__ void k_struct(int *p) { p[0] = ops.f(p[1]) + ops.tag; }
__global__ void k_constexpr(long *q) { q[0] = (long)(void *)&via_constexpr + 8; }
