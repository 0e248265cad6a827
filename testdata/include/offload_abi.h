/* The structs through which a linker-wrapper registration object hands its
   images and offload entries to the offloading runtime, as the recording
   stub runtimes in internal/wrap/testdata and
   internal/driver/linkwrap/testdata read them. Layouts are those of 64-bit
   targets (the only hosts the tests run on); the sizes are checked below.
   Field names follow LLVM's. */
#ifndef OKIT_OFFLOAD_ABI_H
#define OKIT_OFFLOAD_ABI_H

#include <stdint.h>

/* __tgt_offload_entry: llvm::offloading::EntryTy in
   llvm/include/llvm/Frontend/Offloading/Utility.h (its IR type is built by
   getEntryTy in llvm/lib/Frontend/Offloading/Utility.cpp). One record of
   the llvm_offload_entries section; Kind is the OffloadKind (1 OpenMP,
   2 CUDA, 4 HIP, 8 SYCL), Flags the OffloadEntryKindFlag bits. */
struct offload_entry {
  uint64_t reserved;
  uint16_t version, kind;
  uint32_t flags;
  void *addr;
  const char *name;
  uint64_t size, data;
  void *aux;
};

/* The older __tgt_offload_entry that clang 16 to 19 write (LLVM 20 replaced
   it with EntryTy above): libomptarget's struct __tgt_offload_entry of those
   releases, the IR type %__tgt_offload_entry = { ptr, ptr, i64, i32, i32 }
   that their clang-linker-wrapper --print-wrapped-module shows; one record
   of the per-kind sections omp_offloading_entries, cuda_offloading_entries and
   hip_offloading_entries. There is no kind field; flags is the type (0
   global, 1 managed, 2 surface, 3 texture) plus, from LLVM 18 on, 8
   extern, 16 constant, 32 normalized, and clang 19 puts a surface's or
   texture's dimension in reserved. */
struct legacy_offload_entry {
  void *addr;
  const char *name;
  uint64_t size;
  int32_t flags;
  int32_t reserved;
};

/* __tgt_device_image and __tgt_bin_desc, passed to __tgt_register_lib:
   getDeviceImageTy and getBinDescTy in
   llvm/lib/Frontend/Offloading/OffloadWrapper.cpp. */
struct omp_device_image {
  const unsigned char *start, *end;
  struct offload_entry *entries_begin, *entries_end;
};
struct omp_bin_desc {
  int32_t num_images;
  struct omp_device_image *images;
  struct offload_entry *entries_begin, *entries_end;
};

/* The SYCL property sets that PropertiesBegin/End of __sycl.tgt_device_image
   point to. LLVM 22 defines no such type (its SYCL wrapper in
   llvm/lib/Frontend/Offloading/OffloadWrapper.cpp leaves both pointers
   null); this is intel's _pi_device_binary_property_struct and
   _pi_device_binary_property_set_struct (spec sycl.md §9.1). Type 1 is
   UINT32 (the value is in size, val is null), 2 a byte array, 3 a string. */
struct sycl_prop {
  const char *name;
  const unsigned char *val;
  uint32_t type;
  uint64_t size;
};
struct sycl_propset {
  const char *name;
  struct sycl_prop *begin, *end;
};

/* __sycl.tgt_device_image (version 3) and __sycl.tgt_bin_desc (version 1),
   passed to __sycl_register_lib: getSyclDeviceImageTy and getSyclBinDescTy
   in llvm/lib/Frontend/Offloading/OffloadWrapper.cpp. LLVM 22 writes null
   host entries. */
struct sycl_device_image {
  uint16_t version;
  uint8_t kind, format;
  const char *target, *compile_opts, *link_opts;
  const unsigned char *start, *end;
  struct offload_entry *entries_begin, *entries_end;
  struct sycl_propset *props_begin, *props_end;
};
struct sycl_bin_desc {
  uint16_t version, num_images;
  struct sycl_device_image *images;
  struct offload_entry *host_entries_begin, *host_entries_end;
};

/* fatbin_wrapper, passed to __cudaRegisterFatBinary/__hipRegisterFatBinary:
   getFatbinWrapperTy in llvm/lib/Frontend/Offloading/OffloadWrapper.cpp.
   magic is 0x466243b1 (CUDA) or 0x48495046 (HIP), version 1, reserved
   null. */
struct fatbin_wrapper {
  uint32_t magic, version;
  const unsigned char *image;
  void *reserved;
};

_Static_assert(sizeof(struct offload_entry) == 56, "offload_entry");
_Static_assert(sizeof(struct legacy_offload_entry) == 32, "legacy_offload_entry");
_Static_assert(sizeof(struct omp_device_image) == 32, "omp_device_image");
_Static_assert(sizeof(struct omp_bin_desc) == 32, "omp_bin_desc");
_Static_assert(sizeof(struct sycl_prop) == 32, "sycl_prop");
_Static_assert(sizeof(struct sycl_propset) == 24, "sycl_propset");
_Static_assert(sizeof(struct sycl_device_image) == 80, "sycl_device_image");
_Static_assert(sizeof(struct sycl_bin_desc) == 32, "sycl_bin_desc");
_Static_assert(sizeof(struct fatbin_wrapper) == 24, "fatbin_wrapper");

#endif
