.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
.text
.protected Cijk_Alik_Bljk_SB_MT64x64
.globl Cijk_Alik_Bljk_SB_MT64x64
.p2align 8
.type Cijk_Alik_Bljk_SB_MT64x64,@function
Cijk_Alik_Bljk_SB_MT64x64:
  s_mov_b32 s0, 0
label_0001:
  v_mov_b32 v0, 0
  s_cmp_eq_u32 s0, 0
  s_cbranch_scc1 label_0001
  s_endpgm
.protected Cijk_Alik_Bljk_DB_MT32x32
.globl Cijk_Alik_Bljk_DB_MT32x32
.p2align 8
.type Cijk_Alik_Bljk_DB_MT32x32,@function
Cijk_Alik_Bljk_DB_MT32x32:
  s_mov_b32 s1, 1
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel Cijk_Alik_Bljk_SB_MT64x64
  .amdhsa_next_free_vgpr 40
  .amdhsa_next_free_sgpr 30
  .amdhsa_accum_offset 24
  .amdhsa_group_segment_fixed_size 4096
  .amdhsa_private_segment_fixed_size 64
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel Cijk_Alik_Bljk_DB_MT32x32
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 1 ]
amdhsa.kernels:
  - .name: Cijk_Alik_Bljk_SB_MT64x64
    .symbol: Cijk_Alik_Bljk_SB_MT64x64.kd
    .language: OpenCL C
    .language_version: [ 2, 0 ]
    .args: []
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 256
    .private_segment_fixed_size: 64
    .sgpr_count: 36
    .sgpr_spill_count: 0
    .vgpr_count: 40
    .agpr_count: 16
    .vgpr_spill_count: 3
    .wavefront_size: 64
  - .name: Cijk_Alik_Bljk_DB_MT32x32
    .symbol: Cijk_Alik_Bljk_DB_MT32x32.kd
    .language: OpenCL C
    .language_version: [ 2, 0 ]
    .args: []
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 64
    .private_segment_fixed_size: 0
    .sgpr_count: 14
    .sgpr_spill_count: 0
    .vgpr_count: 8
    .vgpr_spill_count: 0
    .wavefront_size: 64
...
.end_amdgpu_metadata
