/* Recording stub of libcudart's registration entry points (and the few
   runtime calls the e2e programs make), so that CUDA programs linked by two
   wrappers can be compared without a GPU. It logs the fat binary wrapper,
   the fatbin container header, its size and FNV-1a checksum, every kernel
   and variable registered, and the end/unregister calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "offload_abi.h"

static int hs;
static void *const H = &hs;
static const char *sym(const void *p) {
  Dl_info i;
  if (!p) return "null";
  if (dladdr(p, &i) && i.dli_sname && i.dli_saddr == p) return i.dli_sname;
  return "?";
}
void **__cudaRegisterFatBinary(const struct fatbin_wrapper *w) {
  const unsigned char *fb = w->image;
  uint32_t magic;
  uint16_t ver, hdr;
  uint64_t size;
  memcpy(&magic, fb, 4);
  memcpy(&ver, fb + 4, 2);
  memcpy(&hdr, fb + 6, 2);
  memcpy(&size, fb + 8, 8);
  uint64_t h = 1469598103934665603ull, n = hdr + size;
  for (uint64_t i = 0; i < n; i++) h = (h ^ fb[i]) * 1099511628211ull;
  printf("RegisterFatBinary wrapper=0x%08x version=%u third=%s fatbin=0x%08x v%u header=%u bytes=%llu fnv=%016llx\n",
         w->magic, w->version, w->reserved ? "set" : "null", magic, ver, hdr, (unsigned long long)n, (unsigned long long)h);
  return H;
}
void __cudaRegisterFatBinaryEnd(void **h) { printf("RegisterFatBinaryEnd ok=%d\n", h == H); }
void __cudaUnregisterFatBinary(void **h) { printf("UnregisterFatBinary ok=%d\n", h == H); }
void __cudaRegisterFunction(void **h, const char *f, char *n1, const char *n2, int lim, void *a, void *b, void *c,
                            void *d, int *e) {
  printf("RegisterFunction ok=%d addr=%s name=%s same=%d limit=%d\n", h == H, sym(f), n1, strcmp(n1, n2) == 0, lim);
}
void __cudaRegisterVar(void **h, char *addr, char *n1, const char *n2, int ext, size_t size, int constant, int global) {
  printf("RegisterVar ok=%d addr=%s name=%s extern=%d size=%zu constant=%d global=%d\n", h == H, sym(addr), n1, ext,
         size, constant, global);
}
void __cudaRegisterManagedVar(void **h, void **ptr, char *init, const char *name, size_t size, unsigned align) {
  printf("RegisterManagedVar ok=%d name=%s size=%zu\n", h == H, name, size);
}
void __cudaRegisterSurface(void) { printf("RegisterSurface\n"); }
void __cudaRegisterTexture(void) { printf("RegisterTexture\n"); }
/* The programs' own runtime calls: succeed without doing anything. */
int cudaMalloc(void **p, size_t n) { static char b[64]; *p = b; return 0; }
int cudaMemcpy(void *d, const void *s, size_t n, int k) { return 0; }
int cudaMemcpyToSymbol(const void *s, const void *src, size_t n, size_t o, int k) { return 0; }
int cudaMemcpyFromSymbol(void *d, const void *s, size_t n, size_t o, int k) { return 0; }
int cudaFree(void *p) { return 0; }
int cudaDeviceSynchronize(void) { return 0; }
int cudaGetLastError(void) { return 0; }
const char *cudaGetErrorString(int e) { return "stub"; }
int __cudaPushCallConfiguration(void) { return 0; }
int __cudaPopCallConfiguration(void) { return 0; }
int cudaLaunchKernel(const void *f, ...) { printf("LaunchKernel %s\n", sym(f)); return 0; }
