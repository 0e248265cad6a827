// Double-precision kernels (aspect fp64).
#include "okit_sycl.h"

struct Dpoly;
struct Dsum;

void run_poly(double *y, const double *x, int n) {
  launch<Dpoly>(n, [=] {
    size_t i = global_id();
    double t = x[i];
    y[i] = (0.5 * t - 1.25) * t + 3.0 / (t + 2.0);
  });
}

void run_sum(double *out, const double *x, int n) {
  launch<Dsum>(1, [=] {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    out[0] = s;
  });
}
