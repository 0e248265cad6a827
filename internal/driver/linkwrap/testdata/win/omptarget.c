/* Recording stub of libomptarget for the Windows OpenMP program
   (omptarget.dll): __tgt_register_lib logs the descriptor it is handed,
   every image's size and FNV-1a checksum (and an ELF image's e_machine and
   e_flags: for AMDGPU the processor) and every offload entry (version,
   kind, flags, name, size, data, address as <module>+0x<rva>, symbolized by
   the test); __tgt_unregister_lib logs the call; __tgt_target_kernel logs
   the launch and fails it, so that the region runs on the host. */
#include "offload_abi.h"
#include "winrt.h"

#define EXPORT __declspec(dllexport)

static void entries(const char *who, struct offload_entry *b, struct offload_entry *e) {
  okit_printf("omp:   %s entries=%lld\n", who, (long long)(e - b));
  for (struct offload_entry *p = b; p < e; p++)
    okit_printf("omp:     entry version=%u kind=%u flags=%u name=%s size=%llu data=%llu addr=%p aux=%p reserved=%llu\n",
                p->version, p->kind, p->flags, p->name, p->size, p->data, p->addr, p->aux, p->reserved);
}

static const struct omp_bin_desc *registered;

EXPORT void __tgt_register_lib(const struct omp_bin_desc *d) {
  registered = d;
  okit_printf("omp: register_lib images=%d\n", d->num_images);
  for (int i = 0; i < d->num_images; i++) {
    const struct omp_device_image *im = &d->images[i];
    uint64_t size = (uint64_t)(im->end - im->start);
    okit_printf("omp:   image %d size=%llu fnv=%016llx", i, size, okit_fnv(im->start, size));
    if (size >= 64 && memcmp(im->start, "\x7f" "ELF", 4) == 0 && im->start[4] == 2) {
      uint16_t mach;
      uint32_t flags;
      memcpy(&mach, im->start + 18, 2);
      memcpy(&flags, im->start + 48, 4);
      okit_printf(" e_machine=%u e_flags=0x%x", mach, flags);
    }
    okit_printf(" entries_same=%d\n", im->entries_begin == d->entries_begin && im->entries_end == d->entries_end);
  }
  entries("descriptor", d->entries_begin, d->entries_end);
}
EXPORT void __tgt_unregister_lib(const struct omp_bin_desc *d) {
  okit_printf("omp: unregister_lib same=%d\n", d == registered);
}
EXPORT int __tgt_target_kernel(void *loc, int64_t device, int32_t teams, int32_t threads, void *host_ptr, void *args) {
  okit_printf("omp: target_kernel host_ptr=%p\n", host_ptr);
  return 1;
}
