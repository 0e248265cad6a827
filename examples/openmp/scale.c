#pragma omp declare target
int scale(int v) { return 2 * v; }
#pragma omp end declare target
