// Host program: runs every kernel on the OpenCL device through runtime.c
// and checks the results against the same arithmetic on the host. Prints
// one "<kernel> ok" line per check and "all ok" at the end; exits 1 with a
// "<kernel> FAIL ..." line on the first wrong value.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "okit_sycl.h"

void run_int(int *a, const int *b, int n);
void run_hist(unsigned *h, const int *v, int n);
void run_spec(int *out, int n);
void run_poly(double *y, const double *x, int n);
void run_sum(double *out, const double *x, int n);

static int fails;

static void check(const char *what, int ok, int i, double got, double want) {
  if (!ok) {
    printf("%s FAIL at %d: got %.17g want %.17g\n", what, i, got, want);
    exit(1);
  }
}

static int host_mix(int x, int i) { return x * 3 + (i ^ 5); }

int main() {
  const int n = 1000;
  int *a = (int *)okit_malloc_shared(n * sizeof(int));
  int *b = (int *)okit_malloc_shared(n * sizeof(int));
  for (int i = 0; i < n; i++) a[i] = i * 7 - 300, b[i] = 11 - i;
  run_int(a, b, n);
  for (int i = 0; i < n; i++) {
    int want = host_mix(i * 7 - 300, i) + 11 - i;
    check("Iaxpy", a[i] == want, i, a[i], want);
  }
  printf("Iaxpy ok\n");

  unsigned *h = (unsigned *)okit_malloc_shared(8 * sizeof(unsigned));
  for (int i = 0; i < 8; i++) h[i] = 0;
  run_hist(h, b, n);
  unsigned want_h[8] = {0};
  for (int i = 0; i < n; i++) want_h[(11 - i) & 7]++;
  for (int i = 0; i < 8; i++) check("Ihist", h[i] == want_h[i], i, h[i], want_h[i]);
  printf("Ihist ok\n");

  double *x = (double *)okit_malloc_shared(n * sizeof(double));
  double *y = (double *)okit_malloc_shared(n * sizeof(double));
  for (int i = 0; i < n; i++) x[i] = i * 0.001 - 0.25, y[i] = -1;
  run_poly(y, x, n);
  for (int i = 0; i < n; i++) {
    double t = x[i], want = (0.5 * t - 1.25) * t + 3.0 / (t + 2.0);
    check("Dpoly", fabs(y[i] - want) <= 1e-13 * fabs(want), i, y[i], want);
  }
  // The values need double precision: in float they differ past 1e-7.
  printf("Dpoly ok\n");
  run_sum(y, x, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  check("Dsum", fabs(y[0] - s) <= 1e-12 * s, 0, y[0], s);
  printf("Dsum ok\n");

  // The specialization constant: its default (42), an overridden value
  // (7, the image is translated again with llvm-spirv --spec-const) and the
  // default again.
  int vals[] = {42, 7, 42};
  for (int k = 0; k < 3; k++) {
    if (k == 1) okit_set_spec_const_i32("scale_id", 7);
    if (k == 2) okit_clear_spec_consts();
    for (int i = 0; i < n; i++) a[i] = -1;
    run_spec(a, n);
    for (int i = 0; i < n; i++) check("SpecScale", a[i] == vals[k] * i + 1, i, a[i], vals[k] * i + 1);
    printf("SpecScale=%d ok\n", vals[k]);
  }
  okit_free(a), okit_free(b), okit_free(h), okit_free(x), okit_free(y);
  printf("all ok\n");
  return fails;
}
