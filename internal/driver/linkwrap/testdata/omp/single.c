// Single translation unit: one target region with a reduction.
#include <omp.h>
#include <stdio.h>

int main(void) {
  int on_device = 0;
  long sum = 0;
  int a[64];
  for (int i = 0; i < 64; i++)
    a[i] = i * 3;
#pragma omp target map(to : a) map(tofrom : sum, on_device)
  {
    on_device = !omp_is_initial_device();
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 64; i++)
      sum += a[i];
  }
  printf("on_device=%d\n", on_device);
  printf("sum=%ld\n", sum);
  return 0;
}
