namespace sycl { template <typename T> struct specialization_id { T DefaultValue; }; }
template <typename T> T __sycl_getScalar2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);
constexpr sycl::specialization_id<int> int_id{42};
constexpr sycl::specialization_id<double> dbl_id{1.5};
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KS;
int main() {
  int *out = nullptr; const void *buf = nullptr;
  single_task<KS>([=]() {
    out[0] = __sycl_getScalar2020SpecConstantValue<int>("uid_int", &int_id, buf);
    out[1] = (int)__sycl_getScalar2020SpecConstantValue<double>("uid_dbl", &dbl_id, buf);
    out[2] = __sycl_getScalar2020SpecConstantValue<int>("uid_int", &int_id, buf);
  });
  return 0;
}
