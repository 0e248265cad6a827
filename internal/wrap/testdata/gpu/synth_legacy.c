// Hand-written LLVM 16-19 offload entries (32-byte __tgt_offload_entry, no
// kind field) in cuda_offloading_entries and hip_offloading_entries,
// covering every way those releases' globals_reg decodes an entry: size 0
// or not, each type, the extern/constant/normalized bits (decoded from
// LLVM 18 on, ignored by 16, which registers a variable only when the
// whole flags value is 0), unknown types and the reserved field (a
// surface's or texture's dimension for LLVM 19's HIP wrapper). The names
// say which section an entry is in, so the logs show that each wrapper
// walks its own.
#include "offload_abi.h"

void lsynth_kernel(void) {}
int lsynth_plain[3];
long lsynth_ext_const;
double lsynth_managed;
char lsynth_surf[8], lsynth_tex[8], lsynth_tex_n[8], lsynth_odd[4];

#define E(flags, addr, name, size, reserved) {(void *)(addr), name, size, flags, reserved}
#define SET(p)                                                        \
  E(0, lsynth_kernel, p "_kernel", 0, 0),                             \
  E(1 | 8, lsynth_kernel, p "_kernel_flagged", 0, 7),                 \
  E(0, lsynth_plain, p "_plain", sizeof lsynth_plain, 0),             \
  E(8 | 16, &lsynth_ext_const, p "_ext_const", 8, 0),                 \
  E(16 | 32, lsynth_plain, p "_plain_c", 12, 0),                      \
  E(8, lsynth_plain, p "_plain_x", 12, 5),                            \
  E(1, &lsynth_managed, p "_managed", 8, 0),                          \
  E(1 | 8, &lsynth_managed, p "_managed_x", 8, 4),                    \
  E(2 | 8, lsynth_surf, p "_surf", 8, 2),                             \
  E(2, lsynth_surf, p "_surf_l", 8, 3),                               \
  E(3 | 32 | 8, lsynth_tex, p "_tex", 8, 3),                          \
  E(3 | 32, lsynth_tex_n, p "_tex_n", 8, 1),                          \
  E(3, lsynth_tex_n, p "_tex_0", 8, 2),                               \
  E(5, lsynth_odd, p "_odd5", 4, 0),                                  \
  E(7 | 8, lsynth_odd, p "_odd7", 4, 0)

__attribute__((section("cuda_offloading_entries"), used, aligned(8))) struct legacy_offload_entry
    lsynth_cuda[] = {SET("cuda")};
__attribute__((section("hip_offloading_entries"), used, aligned(8))) struct legacy_offload_entry
    lsynth_hip[] = {SET("hip")};
