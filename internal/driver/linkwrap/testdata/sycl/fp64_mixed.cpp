// One TU, one kernel with double arithmetic (aspect fp64) and one without.
#include "kernels.h"
struct Dmul;
struct Iadd;
void run_mixed(double *d, int *i) {
  kl<Dmul>([=] { d[0] = d[1] * 2.5 + d[2]; });
  kl<Iadd>([=] { i[0] = i[1] + 3; });
}
