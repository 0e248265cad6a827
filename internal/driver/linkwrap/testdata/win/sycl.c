/* Recording stub of the SYCL runtime's registration entry points for the
   Windows SYCL program (sycl.dll): __sycl_register_lib logs the descriptor
   (version, image count, host entries), every image's version, kind and
   target and every offload entry it names (version, kind, flags, name,
   size, data, address), then on lines marked "(not compared)" what
   offload-kit's own SYCL device link legitimately writes differently from
   clang-sycl-linker 22 (docs/linker-wrapper.md, docs/wrapper-objects.md):
   the image format (IMG_SPIRV against IMG_None), its size and checksum, and
   the property sets (null in LLVM 22's descriptor).
   __sycl_unregister_lib logs the call. */
#include "offload_abi.h"
#include "winrt.h"

#define EXPORT __declspec(dllexport)

static const struct sycl_bin_desc *registered;

EXPORT void __sycl_register_lib(const struct sycl_bin_desc *d) {
  registered = d;
  okit_printf("sycl: register_lib version=%u images=%u host_entries=%lld\n", d->version, d->num_images,
              (long long)(d->host_entries_end - d->host_entries_begin));
  for (unsigned i = 0; i < d->num_images; i++) {
    const struct sycl_device_image *im = &d->images[i];
    uint64_t size = (uint64_t)(im->end - im->start);
    okit_printf("sycl:   image %u version=%u kind=%u target=%s compile=\"%s\" link=\"%s\" entries=%lld\n", i,
                im->version, im->kind, im->target, im->compile_opts, im->link_opts,
                (long long)(im->entries_end - im->entries_begin));
    for (struct offload_entry *p = im->entries_begin; p < im->entries_end; p++)
      okit_printf("sycl:     entry version=%u kind=%u flags=%u name=%s size=%llu data=%llu addr=%p aux=%p\n", p->version,
                  p->kind, p->flags, p->name, p->size, p->data, p->addr, p->aux);
    okit_printf("sycl:   image %u format=%u size=%llu fnv=%016llx property_sets=%lld (not compared)\n", i, im->format, size,
                okit_fnv(im->start, size), (long long)(im->props_end - im->props_begin));
    for (struct sycl_propset *s = im->props_begin; s < im->props_end; s++)
      okit_printf("sycl:     property set %s properties=%lld (not compared)\n", s->name, (long long)(s->end - s->begin));
  }
}
EXPORT void __sycl_unregister_lib(const struct sycl_bin_desc *d) {
  okit_printf("sycl: unregister_lib same=%d\n", d == registered);
}
