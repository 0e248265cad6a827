// Never referenced by lib_main.c: lazy extraction leaves its device code out.
int lib_unused(void) {
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 1;
  return x;
}
