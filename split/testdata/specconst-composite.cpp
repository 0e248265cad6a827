namespace sycl { template <typename T> struct specialization_id { T DefaultValue; }; }
template <typename T> T __sycl_getComposite2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);
template <typename T> T __sycl_getScalar2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);
struct P { char c; int i; float f[2]; };
constexpr sycl::specialization_id<P> p_id{P{'a', 7, {1.0f, 2.5f}}};
constexpr sycl::specialization_id<char> c_id{'z'};
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KS;
int main() {
  int *out = nullptr; const void *buf = nullptr;
  single_task<KS>([=]() {
    out[3] = __sycl_getScalar2020SpecConstantValue<char>("uid_c", &c_id, buf);
    P p = __sycl_getComposite2020SpecConstantValue<P>("uid_p", &p_id, buf);
    out[0] = p.i + p.c + (int)p.f[1];
  });
  return 0;
}
