// Part of a relocatable (-r) pre-link together with reloc_b.c.
#include <omp.h>

#pragma omp declare target
int reloc_twice(int x) { return 2 * x; }
#pragma omp end declare target

int reloc_a(int *on_device) {
  int r = 0, dev = 0;
#pragma omp target map(tofrom : r, dev)
  {
    dev = !omp_is_initial_device();
    r = reloc_twice(21);
  }
  *on_device = dev;
  return r;
}
