// A float-only kernel and a double one that divides.
#include "kernels.h"
struct Fscale;
struct Ddiv;
void run_float(float *f, double *d) {
  kl<Fscale>([=] { f[0] = f[1] * 2.0f; });
  kl<Ddiv>([=] { d[0] = d[1] / d[2]; });
}
