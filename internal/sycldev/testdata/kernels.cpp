template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }
struct KD; struct KI;
int shared_helper(int x) { return x * 3; }
void f(double *d, int *i) {
  kl<KD>([=] { d[0] = d[1] * 2.5; });
  kl<KI>([=] { i[0] = shared_helper(i[1]) + 1; });
}
