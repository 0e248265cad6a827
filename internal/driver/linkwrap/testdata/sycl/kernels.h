// Minimal SYCL kernel launcher for clang 22's sycl_kernel_entry_point: no
// SYCL headers or runtime library are needed to compile and link.
template <typename KN, typename K> [[clang::sycl_kernel_entry_point(KN)]] void kl(K k) { k(); }
