; A kernel with an implicit local-memory argument (sycl-work-group-static,
; parameter 1 carries "sycl-implicit-local-arg") and registered kernel
; names (!sycl_registered_kernels, with a malformed pair and a name
; registered for two kernels: the first pair wins where both are kept).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

define weak_odr spir_kernel void @_ZTS7KernelA(ptr addrspace(1) %out, ptr addrspace(3) noalias "sycl-implicit-local-arg" %loc) #0 {
entry:
  %v = load i32, ptr addrspace(3) %loc, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @_Z17__sycl_kernel_foov() {
entry:
  ret void
}

define spir_kernel void @_Z3barv() {
entry:
  ret void
}

attributes #0 = { "sycl-work-group-static"="1" }

!sycl_registered_kernels = !{!0}

!0 = !{!1, !2, !3, !4, !5}
!1 = !{!"foo", !"_Z17__sycl_kernel_foov"}
!2 = !{!"incorrect_data_format"}
!3 = !{!"bar", !"_Z3barv"}
!4 = !{!"bar", !"_Z17__sycl_kernel_foov"}
!5 = !{!"(void(*)())bar", !"_Z3barv"}
