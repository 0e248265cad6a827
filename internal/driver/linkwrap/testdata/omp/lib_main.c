// Device code taken from a static library (libdev.a holds lib_dev.o).
#include <stdio.h>

int lib_offload_sum(int n, int *on_device);

int main(void) {
  int on_device = 0;
  int s = lib_offload_sum(100, &on_device);
  printf("on_device=%d\n", on_device);
  printf("lib_sum=%d\n", s);
  return 0;
}
