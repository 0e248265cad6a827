; ESIMD and SYCL kernels of one translation unit (a.cpp) and a SYCL kernel
; of another (b.cpp). @esimd_k carries !sycl_explicit_simd; @wrapper_k does
; not, but calls the marked @esimd_body, so it is ESIMD too (the marker is
; copied up to callers, sycl.md §2.1). @shared is used by both kinds.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

@table = internal addrspace(1) constant [2 x i32] [i32 3, i32 5], align 4

define internal spir_func i32 @shared(i32 %x) {
entry:
  %p = getelementptr inbounds [2 x i32], ptr addrspace(1) @table, i64 0, i64 1
  %t = load i32, ptr addrspace(1) %p, align 4
  %r = mul i32 %x, %t
  ret i32 %r
}

define internal spir_func void @esimd_helper(ptr addrspace(1) %p) !sycl_explicit_simd !0 {
entry:
  %v = load i32, ptr addrspace(1) %p, align 4
  %r = call spir_func i32 @shared(i32 %v)
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @esimd_k(ptr addrspace(1) %p) #0 !sycl_explicit_simd !0 {
entry:
  call spir_func void @esimd_helper(ptr addrspace(1) %p)
  ret void
}

define linkonce_odr spir_func void @esimd_body(ptr addrspace(1) %p) #1 !sycl_explicit_simd !0 {
entry:
  store i32 7, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @wrapper_k(ptr addrspace(1) %p) #0 {
entry:
  call spir_func void @esimd_body(ptr addrspace(1) %p)
  ret void
}

define spir_kernel void @sycl_k(ptr addrspace(1) %p) #0 {
entry:
  %v = load i32, ptr addrspace(1) %p, align 4
  %r = call spir_func i32 @shared(i32 %v)
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @other_k(ptr addrspace(1) %p) #2 {
entry:
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" "sycl-optlevel"="2" }
attributes #1 = { "sycl-optlevel"="2" }
attributes #2 = { "sycl-module-id"="b.cpp" "sycl-optlevel"="2" }

!0 = !{}
