template <typename Name, typename F> [[clang::sycl_kernel_entry_point(Name)]] void kernel_single_task(F f) { f(); }
int gval = 3;
[[clang::sycl_external]] int ext_fn(int x) { return x + 1; }
int main() { int *p = nullptr; kernel_single_task<class K1>([=]() { if (p) *p = 1; }); return 0; }
