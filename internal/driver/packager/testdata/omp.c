#include <omp.h>
int run_on_device(int n, int *sum) {
  int on_host = -1, s = 0;
#pragma omp target map(tofrom : on_host, s) map(to : n)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < n; i++)
      s += i;
  }
  *sum = s;
  return on_host;
}
