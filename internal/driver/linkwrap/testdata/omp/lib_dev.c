#include <omp.h>

#pragma omp declare target
static int weight(int i) { return i % 7; }
#pragma omp end declare target

int lib_offload_sum(int n, int *on_device) {
  int s = 0, dev = 0;
#pragma omp target map(tofrom : s, dev)
  {
    dev = !omp_is_initial_device();
    for (int i = 0; i < n; i++)
      s += weight(i);
  }
  *on_device = dev;
  return s;
}
