; An ASan-instrumented module (the instrumentation leaves the appending
; @__AsanKernelMetadata, which every part keeps), for the sanUsed entry of
; SYCL/misc properties (sycl.md §7.6). @k1 asserts and uses a device
; global, so sanUsed opens the misc set between SYCL/assert used and
; SYCL/device globals; @k2 has a misc entry of its own before it.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

@__AsanKernelMetadata = appending addrspace(1) global [1 x i64] zeroinitializer
@dg = linkonce_odr addrspace(1) global i32 0, align 4 #1

declare spir_func void @__devicelib_assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4), i64, i64, i64, i64, i64, i64)

define spir_kernel void @k1(ptr addrspace(1) %out) {
entry:
  %a = load i32, ptr addrspace(1) @dg, align 4
  store i32 %a, ptr addrspace(1) %out, align 4
  call spir_func void @__devicelib_assert_fail(ptr addrspace(4) null, ptr addrspace(4) null, i32 0, ptr addrspace(4) null, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0)
  ret void
}

define spir_kernel void @k2(ptr addrspace(1) %out) #0 {
entry:
  store i32 1, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "sycl-grf-size"="256" }
attributes #1 = { "sycl-device-global-size"="4" "sycl-unique-id"="dg_uid" }
