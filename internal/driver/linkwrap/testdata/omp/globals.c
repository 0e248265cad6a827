// Declare-target globals moved with target update.
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int counter = 10;
double scale[4] = {1.0, 2.0, 3.0, 4.0};
#pragma omp end declare target

int main(void) {
  int on_device = 0;
  counter = 100;
#pragma omp target update to(counter)
#pragma omp target map(tofrom : on_device)
  {
    on_device = !omp_is_initial_device();
    counter += 5;
    for (int i = 0; i < 4; i++)
      scale[i] *= counter;
  }
#pragma omp target update from(counter, scale)
  printf("on_device=%d\n", on_device);
  printf("counter=%d scale=%g,%g,%g,%g\n", counter, scale[0], scale[1], scale[2], scale[3]);
  return 0;
}
