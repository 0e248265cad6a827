// Recording stub of LLVM main's blob-taking SYCL registration entry points
// (llvm-project PR #193876): __sycl_register_lib(blob, size) and
// __sycl_unregister_lib(blob, size), both void(ptr, i64). The register stub
// writes the blob it receives to blob.bin, for the test to parse back.
#include <stdint.h>
#include <stdio.h>

#include "ms_abi.h"

static const void *registered;
static uint64_t registered_size;

ABI void __sycl_register_lib(const void *blob, uint64_t size) {
  registered = blob;
  registered_size = size;
  printf("register size=%llu aligned8=%d\n", (unsigned long long)size, (int)(((uintptr_t)blob & 7) == 0));
  FILE *f = fopen("blob.bin", "wb");
  if (!f || fwrite(blob, 1, size, f) != size || fclose(f) != 0) printf("cannot write blob.bin\n");
}

ABI void __sycl_unregister_lib(const void *blob, uint64_t size) {
  printf("unregister same=%d size=%d\n", blob == registered, size == registered_size);
}

int main(void) {
  printf("main registered=%d\n", registered != NULL);
  fflush(stdout);
  return 0;
}
