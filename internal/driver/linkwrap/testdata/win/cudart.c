/* Recording stub of libcudart's registration entry points for the Windows
   programs: the Windows twin of ../cuda/stub_cudart.c, built as
   cudart64_12.dll with the import library cudart.lib (the names CUDA 12's
   Windows toolkit uses). It logs the fat binary wrapper, the fatbin
   container's header, size and FNV-1a checksum, every kernel and variable
   registered (addresses as <module>+0x<rva>, symbolized by the test), and
   the end/unregister calls. */
#include "offload_abi.h"
#include "winrt.h"

#define EXPORT __declspec(dllexport)

static int hs;
static void *const H = &hs;

EXPORT void **__cudaRegisterFatBinary(const struct fatbin_wrapper *w) {
  const unsigned char *fb = w->image;
  uint32_t magic;
  uint16_t ver, hdr;
  uint64_t size;
  memcpy(&magic, fb, 4);
  memcpy(&ver, fb + 4, 2);
  memcpy(&hdr, fb + 6, 2);
  memcpy(&size, fb + 8, 8);
  uint64_t n = hdr + size;
  okit_printf("cuda: RegisterFatBinary wrapper=0x%08x version=%u reserved=%p fatbin=0x%08x v%u header=%u bytes=%llu "
              "fnv=%016llx\n",
              w->magic, w->version, w->reserved, magic, ver, hdr, n, okit_fnv(fb, n));
  return H;
}
EXPORT void __cudaRegisterFatBinaryEnd(void **h) { okit_printf("cuda: RegisterFatBinaryEnd ok=%d\n", h == H); }
EXPORT void __cudaUnregisterFatBinary(void **h) { okit_printf("cuda: UnregisterFatBinary ok=%d\n", h == H); }
EXPORT void __cudaRegisterFunction(void **h, const char *f, char *n1, const char *n2, int lim, void *a, void *b,
                                   void *c, void *d, int *e) {
  okit_printf("cuda: RegisterFunction ok=%d addr=%p name=%s same=%d limit=%d rest=%p,%p,%p,%p,%p\n", h == H, f, n1,
              strcmp(n1, n2) == 0, lim, a, b, c, d, e);
}
EXPORT void __cudaRegisterVar(void **h, char *addr, char *n1, const char *n2, int ext, size_t size, int constant,
                              int global) {
  okit_printf("cuda: RegisterVar ok=%d addr=%p name=%s same=%d extern=%d size=%zu constant=%d global=%d\n", h == H,
              addr, n1, strcmp(n1, n2) == 0, ext, size, constant, global);
}
EXPORT void __cudaRegisterManagedVar(void **h, void **ptr, char *init, const char *name, size_t size,
                                     unsigned align) {
  okit_printf("cuda: RegisterManagedVar ok=%d ptr=%p init=%p name=%s size=%zu align=%u\n", h == H, ptr, init, name,
              size, align);
}
EXPORT void __cudaRegisterSurface(void **h, void *v, char *n1, const char *n2, int dim, int ext) {
  okit_printf("cuda: RegisterSurface ok=%d addr=%p name=%s dim=%d extern=%d\n", h == H, v, n1, dim, ext);
}
EXPORT void __cudaRegisterTexture(void **h, void *v, char *n1, const char *n2, int dim, int norm, int ext) {
  okit_printf("cuda: RegisterTexture ok=%d addr=%p name=%s dim=%d normalized=%d extern=%d\n", h == H, v, n1, dim, norm,
              ext);
}
/* The programs' own launches: logged, succeed without doing anything. */
EXPORT int cudaLaunchKernel(const void *f, ...) {
  okit_printf("cuda: LaunchKernel %p\n", f);
  return 0;
}
EXPORT int __cudaPushCallConfiguration(void) { return 0; }
EXPORT int __cudaPopCallConfiguration(void) { return 0; }
