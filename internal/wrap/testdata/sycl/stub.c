// Recording stub of the SYCL runtime's registration entry points: prints the
// __sycl.tgt_bin_desc it receives field by field (spec linker-wrapper.md §9.5),
// with the property sets in intel's layout (spec sycl.md §9.1) when present.
#include <stdint.h>
#include <stdio.h>

#include "ms_abi.h"
#include "offload_abi.h"

// props prints the property sets of an image (nothing when there are none):
// UINT32 values inline (ValAddr must be null), byte arrays in hex, strings
// quoted.
static void props(const struct sycl_device_image *im) {
  for (const struct sycl_propset *s = im->props_begin; s && s < im->props_end; s++) {
    printf("  propset \"%s\" props=%ld\n", s->name, (long)(s->end - s->begin));
    for (const struct sycl_prop *p = s->begin; p && p < s->end; p++) {
      printf("   prop \"%s\" type=%u", p->name, p->type);
      switch (p->type) {
      case 1:
        printf(" value=%llu%s\n", (unsigned long long)p->size, p->val ? " valaddr-not-null" : "");
        break;
      case 3:
        printf(" size=%llu value=\"%s\"\n", (unsigned long long)p->size, (const char *)p->val);
        break;
      default:
        printf(" size=%llu value=", (unsigned long long)p->size);
        for (uint64_t i = 0; p->val && i < p->size; i++) printf("%02x", p->val[i]);
        printf("\n");
      }
    }
  }
}

static const struct sycl_bin_desc *registered;

ABI void __sycl_register_lib(const struct sycl_bin_desc *d) {
  registered = d;
  printf("register version=%u images=%u null=%d,%d\n", d->version, d->num_images, d->host_entries_begin == NULL,
         d->host_entries_end == NULL);
  for (unsigned i = 0; i < d->num_images; i++) {
    const struct sycl_device_image *im = &d->images[i];
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = im->start; p < im->end; p++) h = (h ^ *p) * 1099511628211ull;
    printf(" image %u version=%u kind=%u format=%u target=\"%s\" compile=\"%s\" link=\"%s\" size=%ld fnv=%016llx"
           " props=%d,%d entries=%ld\n",
           i, im->version, im->kind, im->format, im->target, im->compile_opts, im->link_opts,
           (long)(im->end - im->start), (unsigned long long)h, im->props_begin == NULL, im->props_end == NULL,
           (long)(im->entries_end - im->entries_begin));
    for (const struct offload_entry *e = im->entries_begin; e < im->entries_end; e++)
      printf("  entry reserved=%llu version=%u kind=%u flags=%u addr=%p name=%s size=%llu data=%llu aux=%p\n",
             (unsigned long long)e->reserved, e->version, e->kind, e->flags, e->addr, e->name,
             (unsigned long long)e->size, (unsigned long long)e->data, e->aux);
    props(im);
  }
}

ABI void __sycl_unregister_lib(const struct sycl_bin_desc *d) { printf("unregister same=%d\n", d == registered); }

extern struct offload_entry __start_llvm_offload_entries[], __stop_llvm_offload_entries[];

int main(void) {
  printf("main: llvm_offload_entries holds %ld entries:", (long)(__stop_llvm_offload_entries - __start_llvm_offload_entries));
  for (struct offload_entry *e = __start_llvm_offload_entries; e < __stop_llvm_offload_entries; e++) printf(" %s/%u", e->name, e->kind);
  printf("\n");
  return 0;
}
