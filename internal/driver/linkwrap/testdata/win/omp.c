/* OpenMP offload program for gfx90a: two target regions (kernels), declare
   target variables (an array and a scalar, with and without initializer)
   and main, which runs one region: the stub libomptarget fails the launch,
   so it runs on the host. */
#pragma omp declare target
int dev_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int dev_count;
#pragma omp end declare target

int sum(int n) {
  int s = 0;
#pragma omp target map(tofrom : s)
  for (int i = 0; i < n; i++) s += dev_table[i];
  return s;
}

void bump(void) {
#pragma omp target
  dev_count++;
}

int main(void) { return sum(8) == 36 ? 0 : 1; }
