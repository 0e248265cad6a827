// Integer-only kernels.
#include "kernels.h"
struct Ishift;
struct Ixor;
void run_int(unsigned *u) {
  kl<Ishift>([=] { u[0] = u[1] << 3; });
  kl<Ixor>([=] { u[2] ^= u[3]; });
}
