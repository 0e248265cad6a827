// Recording stub of libomptarget's __tgt_register_lib/__tgt_unregister_lib:
// prints the __tgt_bin_desc it receives (spec linker-wrapper.md §9.2), so
// that programs linked with our wrapper object and with LLVM's can be
// compared on any host, including under qemu. The program also defines two
// OpenMP offload entries of its own.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#ifdef BACKTRACE
#include <dlfcn.h>
#include <unwind.h>
#endif

#include "ms_abi.h"
#include "offload_abi.h"

char region_a, global_b[12];
#ifdef LEGACY
// -DLEGACY: the entries as clang 16-19 write them (32-byte
// __tgt_offload_entry in omp_offloading_entries), for the LLVM 16 and 19
// wrapper objects.
typedef struct legacy_offload_entry entry_t;
__attribute__((section("omp_offloading_entries"), used, aligned(8))) entry_t omp_entries[] = {
    {&region_a, "__omp_offloading_region_a", 0, 0, 0},
    {global_b, "global_b", sizeof global_b, 0, 0},
};
#define ENTRY_KIND(e) 1u
#else
typedef struct offload_entry entry_t;
__attribute__((section("llvm_offload_entries"), used, aligned(8))) entry_t omp_entries[] = {
    {0, 1, 1, 0, &region_a, "__omp_offloading_region_a", 0, 0, 0},
    {0, 1, 1, 0, global_b, "global_b", sizeof global_b, 0, 0},
};
#define ENTRY_KIND(e) (e)->kind
#endif

static const struct omp_bin_desc *registered;

#ifdef BACKTRACE
// With -DBACKTRACE, __tgt_register_lib prints the call stack it was
// reached through, as the unwinder sees it: "exe" for frames in the
// program, the nearest dynamic symbol otherwise. It only gets past the
// registration function if that has correct .eh_frame information.
int main(void);
static const char *exe_name;
static _Unwind_Reason_Code trace(struct _Unwind_Context *ctx, void *arg) {
  uintptr_t ip = _Unwind_GetIP(ctx);
  Dl_info info;
  (void)arg;
  if (ip == 0) return _URC_END_OF_STACK;
  if (dladdr((void *)(ip - 1), &info) == 0) printf(" ?");
  else if (info.dli_fname == exe_name) printf(" exe");
  else printf(" %s", info.dli_sname ? info.dli_sname : "?");
  return _URC_NO_REASON;
}
static void backtrace_here(void) {
  Dl_info info;
  if (dladdr((void *)main, &info)) exe_name = info.dli_fname;
  printf("backtrace:");
  _Unwind_Backtrace(trace, NULL);
  printf("\n");
}
#else
static void backtrace_here(void) {}
#endif

static uint64_t fnv(const unsigned char *p, const unsigned char *e) {
  uint64_t h = 1469598103934665603ull;
  for (; p < e; p++) h = (h ^ *p) * 1099511628211ull;
  return h;
}

ABI void __tgt_register_lib(const struct omp_bin_desc *d) {
  registered = d;
  backtrace_here();
  const entry_t *begin = (const entry_t *)d->entries_begin, *end = (const entry_t *)d->entries_end;
  printf("register images=%d entries=%ld\n", d->num_images, (long)(end - begin));
  for (const entry_t *e = begin; e < end; e++)
    printf(" entry kind=%u size=%llu name=%s\n", ENTRY_KIND(e), (unsigned long long)e->size, e->name);
  for (int i = 0; i < d->num_images; i++) {
    const struct omp_device_image *im = &d->images[i];
    printf(" image %d size=%ld fnv=%016llx same-entries=%d,%d head=%.3s\n", i, (long)(im->end - im->start),
           (unsigned long long)fnv(im->start, im->end), im->entries_begin == d->entries_begin,
           im->entries_end == d->entries_end, (const char *)im->start);
  }
}

ABI void __tgt_unregister_lib(const struct omp_bin_desc *d) { printf("unregister same=%d\n", d == registered); }

int main(void) {
  printf("main\n");
  return 0;
}
