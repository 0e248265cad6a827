#pragma omp declare target
int dev_global = 5;
int dev_fn(int x) { return x + dev_global; }
__attribute__((weak)) int dev_weak(int x) { return x; }
#pragma omp end declare target
int main() { int r = 0;
#pragma omp target map(tofrom: r)
  r = dev_fn(1) + dev_weak(2);
  return r; }
