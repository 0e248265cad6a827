template <typename KN, typename K> [[clang::sycl_kernel_entry_point(KN)]] void kl(K k) { k(); }
struct N1;
struct N2;
int main() {
  double d = 1;
  kl<N1>([=] { (void)(d * 2.0); });
  kl<N2>([] {});
}
