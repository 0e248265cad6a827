// C++ templates and lambdas inside target regions.
#include <omp.h>
#include <cstdio>

template <typename T> T dot(const T *a, const T *b, int n) {
  T s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

template <typename T, int N> struct Vec {
  T v[N];
  T sum() const {
    T s = 0;
    for (int i = 0; i < N; i++)
      s += v[i];
    return s;
  }
};

int main() {
  int on_device = 0;
  double d = 0;
  long l = 0, lam = 0;
  double a[8], b[8];
  for (int i = 0; i < 8; i++) {
    a[i] = i;
    b[i] = 2 * i;
  }
#pragma omp target map(to : a, b) map(tofrom : on_device, d, l, lam)
  {
    on_device = !omp_is_initial_device();
    d = dot(a, b, 8);
    Vec<long, 4> v{{1, 2, 3, 4}};
    l = v.sum();
    auto f = [&](long x) { return x * l + 1; };
    lam = f(3);
  }
  std::printf("on_device=%d\n", on_device);
  std::printf("dot=%g vec=%ld lambda=%ld\n", d, l, lam);
  return 0;
}
