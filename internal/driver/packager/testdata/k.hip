#include "mini_hip.h"
__device__ int g;
__global__ void kern(int *p) { *p = g; }
void launch(int *p) { kern<<<1, 1>>>(p); }
