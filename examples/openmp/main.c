// A two-translation-unit OpenMP offload program: the target region calls a
// declare-target function from another file and reports where it ran.
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int scale(int v);
#pragma omp end declare target

int main(void) {
  int on_host = -1, sum = 0;
  int n = 1000;
#pragma omp target map(from : on_host, sum) map(to : n)
  {
    on_host = omp_is_initial_device();
    int s = 0;
    for (int i = 0; i < n; i++)
      s += scale(i);
    sum = s;
  }
  printf("target region ran on %s; sum=%d\n", on_host ? "the host (fallback)" : "the offload device", sum);
  return on_host ? 1 : (sum == 999000 ? 0 : 2);
}
