; A SYCL kernel that passes an ESIMD function by address (the shape of
; invoke_simd): the ESIMD split cannot separate them (sycl.md §2.7).
target triple = "spirv64"

define spir_func void @simd_target(ptr addrspace(1) %p) !sycl_explicit_simd !0 {
entry:
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @sycl_k(ptr addrspace(1) %p, ptr addrspace(1) %slot) #0 {
entry:
  store ptr @simd_target, ptr addrspace(1) %slot, align 8
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }

!0 = !{}
