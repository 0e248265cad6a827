// Hand-written offload entries covering every dispatch case of
// globals_reg (spec §9.3): each kind, size 0 or not, each type, the
// extern/constant/normalized bits, unknown types, and Data above 32 bits.
#include "offload_abi.h"

void synth_kernel(void) {}
int synth_plain[3];
long synth_ext_const;
double synth_managed;
void *synth_managed_ptr;
char synth_surf[8], synth_tex[8], synth_tex_n[8], synth_odd[4];

#define E(kind, flags, addr, name, size, data, aux) \
  {0, 1, kind, flags, (void *)(addr), name, size, data, (void *)(aux)}
#define SET(k)                                                                        \
  E(k, 0, synth_kernel, "synth_kernel", 0, 0, 0),                                     \
  E(k, 0, synth_plain, "synth_plain", sizeof synth_plain, 0, 0),                      \
  E(k, 8 | 16, &synth_ext_const, "synth_ext_const", 8, 0, 0),                         \
  E(k, 16 | 32, synth_plain, "synth_plain_c", 12, 0, 0),                               \
  E(k, 1, &synth_managed, "synth_managed", 8, 0x100000010ull, &synth_managed_ptr),   \
  E(k, 1 | 8, &synth_managed, "synth_managed_x", 8, 4, &synth_managed_ptr),          \
  E(k, 2 | 8, synth_surf, "synth_surf", 8, 2, 0),                                     \
  E(k, 2, synth_surf, "synth_surf_l", 8, 0x700000003ull, 0),                          \
  E(k, 3 | 32 | 8, synth_tex, "synth_tex", 8, 3, 0),                                  \
  E(k, 3 | 32, synth_tex_n, "synth_tex_n", 8, 1, 0),                                  \
  E(k, 3, synth_tex_n, "synth_tex_0", 8, 2, 0),                                       \
  E(k, 5, synth_odd, "synth_odd5", 4, 0, 0),                                          \
  E(k, 7 | 8, synth_odd, "synth_odd7", 4, 0, 0)

__attribute__((section("llvm_offload_entries"), used, aligned(8))) struct offload_entry synth_entries[] = {
    SET(2), SET(4),
    E(1, 0, synth_kernel, "omp_entry", 0, 0, 0),
    E(8, 0, synth_kernel, "sycl_entry", 0, 0, 0),
    E(3, 0, synth_kernel, "kind3_entry", 0, 0, 0),
};
