import sys
T=int(sys.argv[1]); K=int(sys.argv[2])
for t in range(T):
    s=['#include "mini_hip.h"', '#define __shared__ __attribute__((shared))',
       'extern __device__ int g_total;', '__device__ int shared_mix(int a, int b);',
       'typedef int (*op_t)(int);',
       'template <int N> __global__ void tk(int *p) { p[0] += N; }',
       f'template __global__ void tk<{t%2}>(int *);',
       f'static __device__ int counter_{t};',
       f'__constant__ float coeff_{t}[4] = {{1.f, 2.f, 3.f, {t}.5f}};',
       f'static __device__ __attribute__((noinline)) int op_add_{t}(int x) {{ return x + {t+1}; }}',
       f'static __device__ __attribute__((noinline)) int op_mul_{t}(int x) {{ return x * {t+2}; }}',
       f'__device__ op_t ops_{t}[2] = {{op_add_{t}, op_mul_{t}}};',
       f'__device__ __attribute__((noinline)) int fib_{t}(int n) {{ return n < 2 ? n : fib_{t}(n-1) + fib_{t}(n-2); }}',
       f'__device__ __attribute__((noinline)) float lds_sum_{t}(float v) {{ static __shared__ float buf[64]; int i = __builtin_amdgcn_workitem_id_x(); buf[i & 63] = v; __builtin_amdgcn_s_barrier(); return buf[(i+1)&63] + buf[(i+2)&63]; }}',
       f'static const int lut_{t}[8] = {{3,1,4,1,5,9,2,6}};']
    if t==0:
        s.append('__device__ int g_total;')
        s.append('__device__ __attribute__((noinline)) int shared_mix(int a, int b) { return (a*31) ^ (b+g_total); }')
    for k in range(K):
        s.append(f'''__global__ void kern_{t}_{k}(float *p, int *q, int n) {{
  __shared__ float tile[{32+(k%4)*32}];
  int i = __builtin_amdgcn_workitem_id_x();
  tile[i & 31] = p[i] * coeff_{t}[{k} & 3];
  __builtin_amdgcn_s_barrier();
  float acc = lds_sum_{t}(tile[(i+1)&31]);
  int r = ops_{t}[(n+{k}) & 1](n) + lut_{t}[(i+{k}) & 7];
  if ({k} % 3 == 0) r += fib_{t}(n & 7);
  counter_{t} += r;
  atomicAdd_stub:;
  q[i] = r + shared_mix(i, {k}) + counter_{t};
  p[i] = acc;
}}''')
    s.append(f'void launch_{t}(float *p, int *q) {{ ' + ' '.join(f'kern_{t}_{k}<<<1,1>>>(p,q,4);' for k in range(K)) + f' tk<{t%2}><<<1,1>>>(q); }}')
    open(f'tu{t}.hip','w').write('\n'.join(s)+'\n')
