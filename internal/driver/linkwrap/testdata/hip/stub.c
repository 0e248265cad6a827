/* Recording stub of the HIP registration runtime: logs the fat binary wrapper,
   every bundle entry ID with a size and FNV-1a checksum per code object (after
   zstd decompression for CCOB bundles) and an ELF code object's e_machine and
   e_flags (the AMDGPU processor), and every registered kernel and
   variable, so that programs linked by two wrappers can be compared. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "offload_abi.h"

static int hs; static void *const H = &hs;
static const char *sym(const void *p) { Dl_info i; if (!p) return "null"; if (dladdr(p, &i) && i.dli_sname && i.dli_saddr == p) return i.dli_sname; return "?"; }
static uint64_t fnv(const unsigned char *d, uint64_t n) { uint64_t h = 1469598103934665603ull; for (uint64_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull; return h; }
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
void **__hipRegisterFatBinary(const struct fatbin_wrapper *w) {
  const unsigned char *b = w->image;
  printf("RegisterFatBinary magic=0x%08x version=%u\n", w->magic, w->version);
  unsigned char *z = NULL;
  if (memcmp(b, "CCOB", 4) == 0) {
    uint16_t ver = *(const uint16_t *)(b + 4), method = *(const uint16_t *)(b + 6);
    uint64_t total = u64(b + 8), size = u64(b + 16), hash = u64(b + 24);
    printf("  compressed bundle version=%u method=%u uncompressed=%llu hash=%016llx\n", ver, method,
           (unsigned long long)size, (unsigned long long)hash);
    z = malloc(size);
    size_t got = ZSTD_decompress(z, size, b + 32, total - 32);
    if (ZSTD_isError(got) || got != size) { printf("  decompression failed\n"); free(z); return H; }
    b = z;
  }
  if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
    uint64_t n = u64(b + 24); const unsigned char *p = b + 32;
    printf("  bundle entries=%llu\n", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t off = u64(p), size = u64(p + 8), idlen = u64(p + 16);
      printf("  entry %.*s offset=%llu size=%llu fnv=%016llx", (int)idlen, p + 24, (unsigned long long)off,
             (unsigned long long)size, (unsigned long long)fnv(b + off, size));
      /* A 64-bit ELF code object: its machine and flags (for AMDGPU the
         processor, EF_AMDGPU_MACH, and the xnack/sramecc settings). */
      if (size >= 64 && memcmp(b + off, "\x7f" "ELF", 4) == 0 && b[off + 4] == 2) {
        uint16_t mach; uint32_t flags;
        memcpy(&mach, b + off + 18, 2); memcpy(&flags, b + off + 48, 4);
        printf(" e_machine=%u e_flags=0x%x", mach, flags);
      }
      printf("\n");
      p += 24 + idlen;
    }
  }
  free(z);
  return H;
}
void __hipUnregisterFatBinary(void *h) { printf("UnregisterFatBinary ok=%d\n", h == H); }
void __hipRegisterFunction(void *h, const void *f, char *n1, const char *n2, int lim, void *a, void *b, void *c, void *d, int *e) {
  printf("RegisterFunction ok=%d addr=%s name=%s\n", h == H, sym(f), n1);
}
void __hipRegisterVar(void *h, char *addr, char *n1, const char *n2, int ext, size_t size, int constant, int global) {
  printf("RegisterVar ok=%d addr=%s name=%s extern=%d size=%zu constant=%d global=%d\n", h == H, sym(addr), n1, ext, size, constant, global);
}
void __hipRegisterManagedVar(void *h, void **ptr, char *init, const char *name, size_t size, unsigned align) {
  printf("RegisterManagedVar ok=%d ptr=%s init=%s name=%s size=%zu align=%u\n", h == H, sym(ptr), sym(init), name, size, align);
}
void __hipRegisterSurface(void *h, void *v, char *n1, const char *n2, int dim, int ext) { printf("RegisterSurface %s\n", n1); }
void __hipRegisterTexture(void *h, void *v, char *n1, const char *n2, int dim, int norm, int ext) { printf("RegisterTexture %s\n", n1); }
int hipLaunchKernel(const void *f, ...) { return 0; }
int __hipPushCallConfiguration(void) { return 0; }
int __hipPopCallConfiguration(void) { return 0; }
