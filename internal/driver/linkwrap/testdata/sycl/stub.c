/* Recording stub of the SYCL runtime's registration entry points. It prints
   the descriptor that linker-wrapper's registration object passes (spec
   linker-wrapper.md §9.5): version and image count, then for each image its
   version, kind, format, target, size, FNV-1a checksum, whether the SPIR-V
   declares the Float64 capability, every entry name, and the property sets
   (intel's _pi_device_binary_property_set layout, spec sycl.md §9.1) if
   any: every set name, then every property's name, type and value (UINT32
   inline in ValSize, byte arrays in hex with their bit-count prefix,
   strings quoted). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "offload_abi.h"

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static uint32_t word(const unsigned char *p, size_t i) {
  uint32_t w;
  memcpy(&w, p + 4 * i, 4);
  return w;
}

/* 1 if the SPIR-V module declares OpCapability Float64, 0 if not, -1 if the
   image is not SPIR-V. */
static int fp64cap(const unsigned char *p, size_t n) {
  size_t nw = n / 4;
  if (nw < 5 || word(p, 0) != 0x07230203u) return -1;
  for (size_t i = 5; i < nw;) {
    uint32_t w = word(p, i), wc = w >> 16, op = w & 0xffff;
    if (wc == 0) break;
    if (op == 17 && i + 1 < nw && word(p, i + 1) == 10) return 1;
    i += wc;
  }
  return 0;
}

void __sycl_register_lib(struct sycl_bin_desc *d) {
  printf("register version=%u images=%u\n", d->version, d->num_images);
  for (unsigned i = 0; i < d->num_images; i++) {
    struct sycl_device_image *im = &d->images[i];
    size_t n = (size_t)(im->end - im->start);
    printf("image %u version=%u kind=%u format=%u triple=%s size=%zu fnv=%016llx fp64cap=%d compile=\"%s\" link=\"%s\"\n",
           i, im->version, im->kind, im->format, im->target, n, (unsigned long long)fnv1a(im->start, n),
           fp64cap(im->start, n), im->compile_opts, im->link_opts);
    for (struct offload_entry *e = im->entries_begin; e < im->entries_end; e++)
      printf("  entry %s version=%u kind=%u flags=%u\n", e->name, e->version, e->kind, e->flags);
    if (!im->props_begin) printf("  properties none\n");
    for (struct sycl_propset *s = im->props_begin; s && s < im->props_end; s++) {
      printf("  propset %s\n", s->name);
      for (struct sycl_prop *q = s->begin; q && q < s->end; q++) {
        printf("    prop %s type=%u", q->name, q->type);
        switch (q->type) {
        case 1: /* UINT32: the value is ValSize, ValAddr is null */
          printf(" value=%llu%s\n", (unsigned long long)q->size, q->val ? " valaddr-not-null" : "");
          break;
        case 3:
          printf(" size=%llu value=\"%s\"\n", (unsigned long long)q->size, q->val ? (const char *)q->val : "(null)");
          break;
        default:
          printf(" size=%llu value=", (unsigned long long)q->size);
          for (uint64_t k = 0; q->val && k < q->size; k++) printf("%02x", q->val[k]);
          printf("\n");
        }
      }
    }
  }
}

void __sycl_unregister_lib(struct sycl_bin_desc *d) { printf("unregister images=%u\n", d->num_images); }
