// SYCL device code (clang 22 -fsycl-is-device): kernels that reach functions
// through a function-pointer table and a ptrtoint constant expression.
template <typename N, typename K> [[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }
typedef int (*op_t)(int);
[[gnu::noinline]] int sq(int x) { return x * x; }
[[gnu::noinline]] int neg(int x) { return -x; }
[[gnu::noinline]] int twice(int x) { return 2 * x; }
[[gnu::noinline]] int dead(int x) { return x - 1; }
[[gnu::noinline]] long addr_only(int x) { return x; }
static op_t const table[] = {sq, neg};
struct Ops { int tag; op_t f; };
static const Ops nested[] = {{1, twice}};
struct KTab; struct KNest; struct KAddr;
void run(int *p, long *q) {
  kl<KTab>([=] { p[0] = table[p[1] & 1](p[2]); });
  kl<KNest>([=] { p[0] = nested[0].f(p[1]) + nested[p[3]].tag; });
  kl<KAddr>([=] { q[0] = (long)(void*)&addr_only + 8; });
}
