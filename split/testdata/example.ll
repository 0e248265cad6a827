; The worked example of sycl.md §4.1, extended.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64-unknown-unknown"

%struct.Pair = type { i32, float }

$comdat_fn = comdat any

@GV = internal addrspace(1) constant [1 x i32] [i32 42]
@FPTAB = internal addrspace(1) constant [1 x ptr] [ptr @via_table]
@unused_internal = internal addrspace(1) global i32 7
@ext_global = addrspace(1) global i32 9
@DGV = internal addrspace(1) global double 1.0
@alias_shared = alias void (), ptr @shared
@llvm.used = appending global [1 x ptr] [ptr @k_float], section "llvm.metadata"

define spir_func void @shared() #2 {
entry:
  ret void
}

define internal spir_func i32 @via_table(i32 %x) #3 {
entry:
  ret i32 %x
}

define spir_func i32 @sig_match(i32 %x) {
entry:
  %y = add i32 %x, 1
  ret i32 %y
}

define spir_func double @dbl_helper(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}

define linkonce_odr spir_func void @comdat_fn() comdat {
entry:
  ret void
}

define spir_kernel void @k_float(ptr addrspace(1) %out) #0 !reqd_work_group_size !7 {
entry:
  %v = load i32, ptr addrspace(1) @GV, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  call spir_func void @alias_shared()
  call spir_func void @comdat_fn()
  ret void
}

define spir_kernel void @k_double(ptr addrspace(1) %out) #0 !sycl_used_aspects !5 {
entry:
  %r = call spir_func double @dbl_helper(double 2.0)
  %i = fptosi double %r to i32
  store i32 %i, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @k_conv(ptr addrspace(1) %out) #0 {
entry:
  %d = load double, ptr addrspace(1) @DGV, align 8
  %i = fptosi double %d to i32
  store i32 %i, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @k_other_tu(ptr addrspace(1) %out) #1 {
entry:
  call spir_func void @shared()
  %fp = load ptr, ptr addrspace(1) @FPTAB, align 8
  %r = call spir_func i32 %fp(i32 3)
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @k_noid(ptr addrspace(1) %out) {
entry:
  store i32 1, ptr addrspace(1) %out, align 4
  ret void
}

define spir_func void @ext_fn(ptr addrspace(4) %p) #0 {
entry:
  store i32 5, ptr addrspace(4) %p, align 4
  ret void
}

declare spir_kernel void @k_decl() #0

attributes #0 = { "module-id"="TU1.cpp" "sycl-module-id"="TU1.cpp" }
attributes #1 = { "module-id"="TU2.cpp" "sycl-module-id"="TU2.cpp" }
attributes #2 = { nounwind }
attributes #3 = { "referenced-indirectly" }

!opencl.spir.version = !{!0}
!spirv.Source = !{!1}
!spirv.ExecutionMode = !{!2, !3}

!0 = !{i32 1, i32 2}
!1 = !{i32 4, i32 100000}
!2 = !{ptr @k_float, i32 17, i32 8, i32 1, i32 1}
!3 = !{ptr @k_double, i32 31}
!5 = !{i32 6}
!7 = !{i32 8, i32 1, i32 1}
