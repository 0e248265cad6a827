// okit_sycl.h: the smallest SYCL-like layer our pocl runtime (runtime.c)
// needs, for clang 22's upstream SYCL device compilation: no SYCL headers
// or SYCL runtime library.
//
// - launch<Name>(n, closure) compiles the closure as a kernel through
//   [[clang::sycl_kernel_entry_point]] (the device compilation emits
//   spir_kernel @_ZTS<Name> taking the closure by value; the host
//   compilation leaves the entry point's body empty) and, on the host,
//   asks the runtime to run it over n work items.
// - global_id() is the work item's index (__spirv_BuiltInGlobalInvocationId,
//   which the SPIR-V backend turns into the GlobalInvocationId built-in).
// - spec_get<T>(id) reads a SYCL 2020 specialization constant through
//   __sycl_getScalar2020SpecConstantValue, the call sycl-linker
//   --spec-const=native lowers to OpSpecConstant; the symbolic ID is the
//   variable's name, which the host passes to okit_set_spec_const_i32.
#pragma once
#include <stddef.h>

extern "C" {
void *okit_malloc_shared(size_t bytes);
void okit_free(void *p);
void okit_launch(const char *kernel, const void *closure, size_t closure_size, size_t n);
void okit_set_spec_const_i32(const char *symbolic_id, int value);
void okit_clear_spec_consts(void);
}

namespace sycl {
template <typename T> struct specialization_id {
  T DefaultValue;
};
} // namespace sycl
template <typename T>
T __sycl_getScalar2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);

size_t __spirv_BuiltInGlobalInvocationId(int dim);
inline size_t global_id() { return __spirv_BuiltInGlobalInvocationId(0); }

#define OKIT_SPEC_GET(T, id) __sycl_getScalar2020SpecConstantValue<T>(#id, &id, nullptr)

template <typename Name, typename K> [[clang::sycl_kernel_entry_point(Name)]] void okit_kernel(K k) { k(); }

template <typename Name, typename K> void launch(size_t n, K k) {
  okit_kernel<Name>(k);
#ifndef __SYCL_DEVICE_ONLY__
  okit_launch(__builtin_sycl_unique_stable_name(Name), &k, sizeof k, n);
#endif
}
