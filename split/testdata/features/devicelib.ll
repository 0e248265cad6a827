; Kernels that call fallback device-library functions, for the
; SYCL/devicelib req mask (sycl.md §7.6; intel's SYCLDeviceLibReqMask.cpp
; table): directly, through a helper, one function of every library, and
; __devicelib_ functions that set no bit (not in the table, or defined in
; the module).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func float @__devicelib_sinf(float)
declare spir_func ptr addrspace(4) @__devicelib_memcpy(ptr addrspace(4), ptr addrspace(4), i64)
declare spir_func double @__devicelib_cos(double)
declare spir_func { double, double } @__devicelib___muldc3(double, double, double, double)
declare spir_func void @__devicelib_assert_read(ptr addrspace(4))
declare spir_func float @__devicelib_cimagf(float, float)
declare spir_func double @__devicelib_creal(double, double)
declare spir_func ptr addrspace(4) @__devicelib_memset(ptr addrspace(4), i32, i64)
declare spir_func i32 @__devicelib_imf_viaddmax_s32(i32, i32, i32)
declare spir_func double @__devicelib_imf_dadd_rz(double, double)
declare spir_func i16 @__devicelib_imf_fmabf16(i16, i16, i16)
declare spir_func <4 x i16> @__devicelib_ConvertFToBF16INTELVec4(ptr addrspace(4))
declare spir_func void @__devicelib_default_work_group_private_sort_close_ascending_p1i32_u32_p1i8(ptr addrspace(1), i32, ptr addrspace(1))
declare spir_func void @__devicelib_not_in_the_table()

define spir_func i32 @__devicelib_imf_umin(i32 %a, i32 %b) {
entry:
  %lt = icmp ult i32 %a, %b
  %r = select i1 %lt, i32 %a, i32 %b
  ret i32 %r
}

define internal spir_func void @copy(ptr addrspace(4) %d, ptr addrspace(4) %s) {
entry:
  %r = call spir_func ptr addrspace(4) @__devicelib_memcpy(ptr addrspace(4) %d, ptr addrspace(4) %s, i64 4)
  ret void
}

; math (bit 1) directly, cstring (bit 5) through @copy
define spir_kernel void @k_math(ptr addrspace(1) %out) {
entry:
  %x = call spir_func float @__devicelib_sinf(float 1.0)
  store float %x, ptr addrspace(1) %out, align 4
  %g = addrspacecast ptr addrspace(1) %out to ptr addrspace(4)
  call spir_func void @copy(ptr addrspace(4) %g, ptr addrspace(4) %g)
  ret void
}

; one function of every library: assert 0, math 1, math_fp64 2, complex 3,
; complex_fp64 4, cstring 5, imf 6, imf_fp64 7, imf_bf16 8, bfloat16 9
define spir_kernel void @k_all(ptr addrspace(1) %out) {
entry:
  %g = addrspacecast ptr addrspace(1) %out to ptr addrspace(4)
  call spir_func void @__devicelib_assert_read(ptr addrspace(4) %g)
  %a = call spir_func float @__devicelib_sinf(float 1.0)
  %b = call spir_func double @__devicelib_cos(double 1.0)
  %c = call spir_func float @__devicelib_cimagf(float 1.0, float 2.0)
  %d = call spir_func { double, double } @__devicelib___muldc3(double 1.0, double 2.0, double 3.0, double 4.0)
  %e = call spir_func ptr addrspace(4) @__devicelib_memset(ptr addrspace(4) %g, i32 0, i64 4)
  %f = call spir_func i32 @__devicelib_imf_viaddmax_s32(i32 1, i32 2, i32 3)
  %h = call spir_func double @__devicelib_imf_dadd_rz(double 1.0, double 2.0)
  %i = call spir_func i16 @__devicelib_imf_fmabf16(i16 1, i16 2, i16 3)
  %j = call spir_func <4 x i16> @__devicelib_ConvertFToBF16INTELVec4(ptr addrspace(4) %g)
  %k = call spir_func double @__devicelib_creal(double 1.0, double 2.0)
  store i32 %f, ptr addrspace(1) %out, align 4
  ret void
}

; no bit: a group-sort function (a library intel dropped), a name outside
; the table, and a __devicelib_ function the module defines
define spir_kernel void @k_none(ptr addrspace(1) %out) {
entry:
  call spir_func void @__devicelib_default_work_group_private_sort_close_ascending_p1i32_u32_p1i8(ptr addrspace(1) %out, i32 4, ptr addrspace(1) %out)
  call spir_func void @__devicelib_not_in_the_table()
  %m = call spir_func i32 @__devicelib_imf_umin(i32 1, i32 2)
  store i32 %m, ptr addrspace(1) %out, align 4
  ret void
}
