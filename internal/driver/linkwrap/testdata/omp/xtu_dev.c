#pragma omp declare target
int square(int x) { return x * x; }
int cube(int x) { return x * square(x); }
#pragma omp end declare target
