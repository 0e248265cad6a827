// Integer kernels and the specialization-constant kernel.
#include "okit_sycl.h"

constexpr sycl::specialization_id<int> scale_id{42};

struct Iaxpy;
struct Ihist;
struct SpecScale;

// Not inlined, so splitting must carry it into the kernel's image.
[[gnu::noinline]] static int mix(int x, int i) { return x * 3 + (i ^ 5); }

void run_int(int *a, const int *b, int n) {
  launch<Iaxpy>(n, [=] {
    size_t i = global_id();
    a[i] = mix(a[i], (int)i) + b[i];
  });
}

void run_hist(unsigned *h, const int *v, int n) {
  launch<Ihist>(1, [=] {
    for (int i = 0; i < n; i++) h[v[i] & 7] += 1;
  });
}

void run_spec(int *out, int n) {
  launch<SpecScale>(n, [=] {
    size_t i = global_id();
    out[i] = OKIT_SPEC_GET(int, scale_id) * (int)i + 1;
  });
}
