// Declare-target functions defined in another translation unit (xtu_dev.c).
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int square(int x);
int cube(int x);
#pragma omp end declare target

int main(void) {
  int on_device = 0, s = 0, c = 0;
#pragma omp target map(tofrom : on_device, s, c)
  {
    on_device = !omp_is_initial_device();
    s = square(7);
    c = cube(3);
  }
  printf("on_device=%d\n", on_device);
  printf("square=%d cube=%d\n", s, c);
  return 0;
}
