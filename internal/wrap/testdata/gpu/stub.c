// Recording stub of the CUDA and HIP registration runtime: every entry point
// the wrapper objects call prints what it received, so that the log of a
// program linked with our wrapper object can be compared with the log of the
// same program linked with LLVM's. Link with -rdynamic -ldl so that dladdr
// can name the registered addresses.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ms_abi.h"
#include "offload_abi.h"

static int handle_storage;
static void *const handle = &handle_storage;

static const char *sym(const void *p) {
  Dl_info info;
  if (p == NULL) return "null";
  if (dladdr(p, &info) && info.dli_sname && info.dli_saddr == p) return info.dli_sname;
  return "?";
}

static const char *h_ok(void *h) { return h == handle ? "ok" : "BAD"; }

// The test fatbins start with a little-endian u64 payload length; a HIP
// fatbin that LLVM's own tools made (the release tests) is an offload
// bundle ("__CLANG_OFFLOAD_BUNDLE__", u64 count, then per entry u64
// offset, u64 size, u64 id length, id), whose length is where its last
// entry ends.
static void *register_fatbin(const char *who, const struct fatbin_wrapper *w) {
  const unsigned char *data = w->image;
  uint64_t len, total;
  memcpy(&len, data, 8);
  total = len + 8;
  if (memcmp(data, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
    uint64_t n, at = 32;
    memcpy(&n, data + 24, 8);
    total = 0;
    for (uint64_t i = 0; i < n && i < 1024; i++) {
      uint64_t off, size, idlen;
      memcpy(&off, data + at, 8);
      memcpy(&size, data + at + 8, 8);
      memcpy(&idlen, data + at + 16, 8);
      if (off + size > total) total = off + size;
      at += 24 + idlen;
    }
    len = total;
    printf("%sRegisterFatBinary: offload bundle, %llu entries\n", who, (unsigned long long)n);
  }
  uint64_t h = 1469598103934665603ull;
  for (uint64_t i = 0; i < total; i++) h = (h ^ data[i]) * 1099511628211ull;
  printf("%sRegisterFatBinary magic=0x%08x version=%u len=%llu fnv=%016llx null=%d\n", who, w->magic, w->version,
         (unsigned long long)len, (unsigned long long)h, w->reserved == NULL);
  return handle;
}

#define RT(P)                                                                                            \
  ABI void **P##RegisterFatBinary(void *w) { return register_fatbin(#P, w); }                                \
  ABI void P##UnregisterFatBinary(void *h) { printf(#P "UnregisterFatBinary h=%s\n", h_ok(h)); }             \
  ABI int P##RegisterFunction(void *h, const void *addr, char *name1, const char *name2, int limit, void *a6, \
                          void *a7, void *a8, void *a9, int *a10) {                                       \
    printf(#P "RegisterFunction h=%s addr=%s name=%s/%s same=%d limit=%d rest=%p,%p,%p,%p,%p\n", h_ok(h),  \
           sym(addr), name1, name2, name1 == name2, limit, a6, a7, a8, a9, (void *)a10);                 \
    return 0;                                                                                            \
  }                                                                                                      \
  ABI void P##RegisterVar(void *h, void *addr, char *name1, const char *name2, int ext, uint64_t size,        \
                      int constant, int global) {                                                        \
    printf(#P "RegisterVar h=%s addr=%s name=%s/%s same=%d extern=%d size=%llu constant=%d global=%d\n",  \
           h_ok(h), sym(addr), name1, name2, name1 == name2, ext, (unsigned long long)size, constant,      \
           global);                                                                                      \
  }                                                                                                      \
  ABI void P##RegisterManagedVar(void *h, void *aux, void *addr, const char *name, uint64_t size,            \
                             unsigned align) {                                                           \
    printf(#P "RegisterManagedVar h=%s aux=%s addr=%s name=%s size=%llu align=%u\n", h_ok(h), sym(aux),   \
           sym(addr), name, (unsigned long long)size, align);                                            \
  }                                                                                                      \
  ABI void P##RegisterSurface(void *h, void *addr, char *name1, const char *name2, int dim, int ext) {        \
    printf(#P "RegisterSurface h=%s addr=%s name=%s/%s dim=%d extern=%d\n", h_ok(h), sym(addr), name1,    \
           name2, dim, ext);                                                                             \
  }                                                                                                      \
  ABI void P##RegisterTexture(void *h, void *addr, char *name1, const char *name2, int dim, int norm,         \
                          int ext) {                                                                     \
    printf(#P "RegisterTexture h=%s addr=%s name=%s/%s dim=%d normalized=%d extern=%d\n", h_ok(h),        \
           sym(addr), name1, name2, dim, norm, ext);                                                     \
  }

RT(__cuda)
RT(__hip)

ABI void __cudaRegisterFatBinaryEnd(void *h) { printf("__cudaRegisterFatBinaryEnd h=%s\n", h_ok(h)); }

// Kernel-launch entry points referenced by the host stubs (never called).
int __cudaPopCallConfiguration(void) { return 0; }
int cudaLaunchKernel(void) { return 0; }
int cudaSetupArgument(void) { return 0; } // the pre-CUDA-9 launch API clang 16 uses without an SDK
int cudaLaunch(void) { return 0; }
int __hipPopCallConfiguration(void) { return 0; }
int hipLaunchKernel(void) { return 0; }
