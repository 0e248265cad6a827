; The shape of intel's bfloat16 device library (libsycl-fallback-bfloat16.bc,
; libsycl-native-bfloat16.bc), for its image's property sets: SYCL/exported
; symbols (the __devicelib_ spir_func definitions) and SYCL/devicelib
; metadata (sycl.md §7.6).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func void @__devicelib_declared_only()

define spir_func float @__devicelib_ConvertBF16ToFINTEL(ptr addrspace(4) %p) {
entry:
  %v = load i16, ptr addrspace(4) %p, align 2
  %w = zext i16 %v to i32
  %s = shl i32 %w, 16
  %f = bitcast i32 %s to float
  ret float %f
}

define spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4) %p) {
entry:
  %f = load float, ptr addrspace(4) %p, align 4
  %i = bitcast float %f to i32
  %s = lshr i32 %i, 16
  %t = trunc i32 %s to i16
  call spir_func void @__devicelib_declared_only()
  ret i16 %t
}

; not spir_func, or not a __devicelib_ name: not exported
define float @__devicelib_default_cc(float %x) {
entry:
  ret float %x
}

define spir_func void @helper() {
entry:
  ret void
}
