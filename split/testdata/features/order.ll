; One ESIMD kernel that touches every property set offload-kit computes,
; for the set order of sycl.md §7.5: it asserts, uses a device global and
; a host pipe, calls into a virtual-function set, has an implicit local
; argument, has a registered name, calls a bfloat16 device-library
; function (an imported symbol, devicelib mask bit 9) and is ASan
; instrumented (sanUsed).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

@dg = linkonce_odr addrspace(1) global [4 x i32] zeroinitializer, align 4 #1
@hp = linkonce_odr addrspace(1) global i64 0, align 8 #2
@__AsanKernelMetadata = appending addrspace(1) global [1 x i64] zeroinitializer

declare spir_func void @__devicelib_assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4), i64, i64, i64, i64, i64, i64)

declare spir_func float @__devicelib_ConvertBF16ToFINTEL(ptr addrspace(4))

define spir_kernel void @ek(ptr addrspace(1) %out, ptr addrspace(3) noalias "sycl-implicit-local-arg" %loc) #0 !reqd_work_group_size !1 !sycl_explicit_simd !0 {
entry:
  %a = load i32, ptr addrspace(1) @dg, align 4
  %b = load i64, ptr addrspace(1) @hp, align 8
  %c = trunc i64 %b to i32
  %d = add i32 %a, %c
  %f = call spir_func float @__devicelib_ConvertBF16ToFINTEL(ptr addrspace(4) null)
  store i32 %d, ptr addrspace(1) %out, align 4
  %z = icmp eq i32 %d, 0
  br i1 %z, label %fail, label %done

fail:
  call spir_func void @__devicelib_assert_fail(ptr addrspace(4) null, ptr addrspace(4) null, i32 0, ptr addrspace(4) null, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0)
  br label %done

done:
  ret void
}

attributes #0 = { "calls-indirectly"="set-b,set-a" "sycl-module-id"="o.cpp" "sycl-register-alloc-mode"="2" "sycl-work-group-static"="1" }
attributes #1 = { "sycl-device-global-size"="16" "sycl-unique-id"="dg_uid" }
attributes #2 = { "sycl-host-pipe-size"="8" "sycl-unique-id"="hp_uid" }

!sycl_registered_kernels = !{!2}

!0 = !{}
!1 = !{i32 16, i32 1, i32 1}
!2 = !{!3}
!3 = !{!"ek_name", !"ek"}
