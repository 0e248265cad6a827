// Final link of the -r pre-linked reloc.o plus a target region of its own.
#include <omp.h>
#include <stdio.h>

int reloc_a(int *on_device);
int reloc_b(int *on_device);

int main(void) {
  int da = 0, db = 0, dm = 0, m = 0;
  int a = reloc_a(&da);
  int b = reloc_b(&db);
#pragma omp target map(tofrom : dm, m)
  {
    dm = !omp_is_initial_device();
    m = 7;
  }
  printf("on_device=%d\n", da && db && dm);
  printf("a=%d b=%d m=%d\n", a, b, m);
  return 0;
}
