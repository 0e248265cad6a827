namespace sycl { template <typename T> struct specialization_id { T DefaultValue; }; }
template <typename T> T __sycl_getComposite2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);
template <typename T> T __sycl_getScalar2020SpecConstantValue(const char *SymbolicID, const void *DefaultValue, const void *RTBuffer);
typedef float float4 __attribute__((ext_vector_type(4)));
typedef short short2 __attribute__((ext_vector_type(2)));
struct Pad { char c; int i; char d; };              // interior and tail padding
struct In { short s; float f; };
struct Out { In a; double d; In b[2]; };            // nested struct and array
struct Flag { bool on; int n; };                     // bool member, fits in 64 bits
struct Al { char c; alignas(8) int i; };             // explicit padding fields
constexpr sycl::specialization_id<Pad> pad_id{Pad{'p', -3, 'q'}};
constexpr sycl::specialization_id<Out> out_id{Out{{1, 0.5f}, 2.25, {{3, 1.5f}, {4, -2.0f}}}};
constexpr sycl::specialization_id<float4> vec_id{float4{1.0f, 2.0f, 3.0f, 4.0f}};
constexpr sycl::specialization_id<short2> v2_id{short2{5, 6}};
constexpr sycl::specialization_id<Flag> flag_id{Flag{true, 9}};
constexpr sycl::specialization_id<Al> al_id{Al{'a', 11}};
constexpr sycl::specialization_id<bool> b_id{true};
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KN;
int main() {
  float *out = nullptr; const void *buf = nullptr;
  single_task<KN>([=]() {
    Pad p = __sycl_getComposite2020SpecConstantValue<Pad>("uid_pad", &pad_id, buf);
    Out o = __sycl_getComposite2020SpecConstantValue<Out>("uid_out", &out_id, buf);
    float4 v = __sycl_getComposite2020SpecConstantValue<float4>("uid_vec", &vec_id, buf);
    short2 w = __sycl_getComposite2020SpecConstantValue<short2>("uid_v2", &v2_id, buf);
    Flag f = __sycl_getComposite2020SpecConstantValue<Flag>("uid_flag", &flag_id, buf);
    Al a = __sycl_getComposite2020SpecConstantValue<Al>("uid_al", &al_id, buf);
    bool b = __sycl_getScalar2020SpecConstantValue<bool>("uid_b", &b_id, buf);
    Pad p2 = __sycl_getComposite2020SpecConstantValue<Pad>("uid_pad", &pad_id, buf);
    out[0] = p.c + p.i + p.d + p2.i;
    out[1] = o.a.s + o.a.f + o.d + o.b[1].f + o.b[0].s;
    out[2] = v.x + v.w + w.y;
    out[3] = f.on ? f.n : 0;
    out[4] = a.c + a.i + (b ? 1 : 0);
  });
  return 0;
}
