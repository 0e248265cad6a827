/* Recording stub of the HIP runtime's registration entry points for the
   Windows programs (amdhip64.dll): the Windows twin of
   ../hip/stub.c. It logs the fat binary wrapper, the bundle's entries (ID,
   offset, size, FNV-1a checksum, an ELF code object's e_machine and
   e_flags), for a compressed (CCOB) bundle its header (no zstd here: the
   header's hash is that of the uncompressed bundle) and, on a line marked
   "(not compared)", the size and checksum of the compressed bytes (ours
   compresses with another zstd encoder than libzstd: docs/bundle.md), and
   every kernel and variable registered, with
   their addresses as <module>+0x<rva> (symbolized by the test). */
#include "offload_abi.h"
#include "winrt.h"

#define EXPORT __declspec(dllexport)

static int hs;
static void *const H = &hs;
static uint64_t u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

EXPORT void **__hipRegisterFatBinary(const struct fatbin_wrapper *w) {
  const unsigned char *b = w->image;
  okit_printf("hip: RegisterFatBinary magic=0x%08x version=%u reserved=%p\n", w->magic, w->version, w->reserved);
  if (memcmp(b, "CCOB", 4) == 0) {
    uint16_t ver, method;
    memcpy(&ver, b + 4, 2);
    memcpy(&method, b + 6, 2);
    uint64_t total = u64(b + 8), size = u64(b + 16), hash = u64(b + 24);
    okit_printf("hip:   compressed bundle version=%u method=%u uncompressed=%llu hash=%016llx\n", ver, method, size, hash);
    okit_printf("hip:   compressed bytes=%llu fnv=%016llx (not compared)\n", total, okit_fnv(b, total));
    return H;
  }
  if (memcmp(b, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
    uint64_t n = u64(b + 24);
    const unsigned char *p = b + 32;
    okit_printf("hip:   bundle entries=%llu\n", n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t off = u64(p), size = u64(p + 8), idlen = u64(p + 16);
      char id[128];
      uint64_t k = idlen < sizeof id - 1 ? idlen : sizeof id - 1;
      memcpy(id, p + 24, k);
      id[k] = 0;
      okit_printf("hip:   entry %s offset=%llu size=%llu fnv=%016llx", id, off, size, okit_fnv(b + off, size));
      if (size >= 64 && memcmp(b + off, "\x7f" "ELF", 4) == 0 && b[off + 4] == 2) {
        uint16_t mach;
        uint32_t flags;
        memcpy(&mach, b + off + 18, 2);
        memcpy(&flags, b + off + 48, 4);
        okit_printf(" e_machine=%u e_flags=0x%x", mach, flags);
      }
      okit_printf("\n");
      p += 24 + idlen;
    }
  } else {
    okit_printf("hip:   not a bundle\n");
  }
  return H;
}
EXPORT void __hipUnregisterFatBinary(void *h) { okit_printf("hip: UnregisterFatBinary ok=%d\n", h == H); }
EXPORT void __hipRegisterFunction(void *h, const void *f, char *n1, const char *n2, int lim, void *a, void *b, void *c,
                                  void *d, int *e) {
  okit_printf("hip: RegisterFunction ok=%d addr=%p name=%s same=%d limit=%d rest=%p,%p,%p,%p,%p\n", h == H, f, n1,
              strcmp(n1, n2) == 0, lim, a, b, c, d, e);
}
EXPORT void __hipRegisterVar(void *h, char *addr, char *n1, const char *n2, int ext, size_t size, int constant,
                             int global) {
  okit_printf("hip: RegisterVar ok=%d addr=%p name=%s same=%d extern=%d size=%zu constant=%d global=%d\n", h == H, addr,
              n1, strcmp(n1, n2) == 0, ext, size, constant, global);
}
EXPORT void __hipRegisterManagedVar(void *h, void **ptr, char *init, const char *name, size_t size, unsigned align) {
  okit_printf("hip: RegisterManagedVar ok=%d ptr=%p init=%p name=%s size=%zu align=%u\n", h == H, ptr, init, name, size,
              align);
}
EXPORT void __hipRegisterSurface(void *h, void *v, char *n1, const char *n2, int dim, int ext) {
  okit_printf("hip: RegisterSurface ok=%d addr=%p name=%s dim=%d extern=%d\n", h == H, v, n1, dim, ext);
}
EXPORT void __hipRegisterTexture(void *h, void *v, char *n1, const char *n2, int dim, int norm, int ext) {
  okit_printf("hip: RegisterTexture ok=%d addr=%p name=%s dim=%d normalized=%d extern=%d\n", h == H, v, n1, dim, norm,
              ext);
}
/* The programs' own kernel launches: logged, succeed without doing anything. */
EXPORT int hipLaunchKernel(const void *f, ...) {
  okit_printf("hip: LaunchKernel %p\n", f);
  return 0;
}
EXPORT int __hipPushCallConfiguration(void) { return 0; }
EXPORT int __hipPopCallConfiguration(void) { return 0; }
