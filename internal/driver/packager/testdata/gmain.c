/* Built with gcc: a plain host object that offload-packager embed turns
   into a fat object. */
#include <stdio.h>
int run_on_device(int n, int *sum);
int main(void) {
  int s = 0;
  int on_host = run_on_device(100, &s);
  printf("ran on %s sum=%d\n", on_host ? "host" : "device", s);
  return on_host || s != 4950;
}
