#include <omp.h>

#pragma omp declare target
int reloc_twice(int x);
#pragma omp end declare target

int reloc_b(int *on_device) {
  int r = 0, dev = 0;
#pragma omp target map(tofrom : r, dev)
  {
    dev = !omp_is_initial_device();
    r = reloc_twice(50) + 1;
  }
  *on_device = dev;
  return r;
}
