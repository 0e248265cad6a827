// SYCL program for the Windows registration test: kernels through clang 22's
// sycl_kernel_entry_point (../sycl/kernels.h, no SYCL headers or runtime),
// in two functions, and main, which calls them.
#include "../sycl/kernels.h"
struct Ishift;
struct Ixor;
struct Fscale;
void run_int(unsigned *u) {
  kl<Ishift>([=] { u[0] = u[1] << 3; });
  kl<Ixor>([=] { u[2] ^= u[3]; });
}
void run_float(float *f) {
  kl<Fscale>([=] { f[0] = f[1] * 2.5f; });
}
int main() {
  unsigned u[4] = {1, 2, 3, 4};
  float f[2] = {1, 2};
  run_int(u);
  run_float(f);
  return 0;
}
