; Device globals and a host pipe, identified by the IR attributes of intel's
; front end (sycl.md §7.6): @dg_ext is externally visible (so copied into
; every part), @dg_scoped has device_image_scope and is used by @k1 only,
; @dg_off spells "sycl-device-image-scope"="false", @pipe is a host pipe.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

%"class.dg" = type { [2 x i32] }

@dg_ext = addrspace(1) global %"class.dg" zeroinitializer, align 8 #0
@dg_scoped = internal addrspace(1) global i64 0, align 8 #1
@dg_off = linkonce_odr addrspace(1) global i32 0, align 4 #2
@pipe = linkonce_odr addrspace(1) global i32 0, align 4 #3
@plain = internal addrspace(1) global i32 0, align 4

define spir_kernel void @k1(ptr addrspace(1) %out) {
entry:
  %a = load i32, ptr addrspace(1) @dg_ext, align 8
  %b = load i64, ptr addrspace(1) @dg_scoped, align 8
  %c = trunc i64 %b to i32
  %d = add i32 %a, %c
  store i32 %d, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @k2(ptr addrspace(1) %out) {
entry:
  %a = load i32, ptr addrspace(1) @pipe, align 4
  %b = load i32, ptr addrspace(1) @dg_off, align 4
  %c = load i32, ptr addrspace(1) @plain, align 4
  %d = add i32 %a, %b
  %e = add i32 %d, %c
  store i32 %e, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "sycl-device-global-size"="8" "sycl-unique-id"="uid_ext" }
attributes #1 = { "sycl-device-global-size"="8" "sycl-device-image-scope" "sycl-unique-id"="uid_scoped" }
attributes #2 = { "sycl-device-global-size"="4" "sycl-device-image-scope"="false" "sycl-unique-id"="uid_off" }
attributes #3 = { "sycl-host-pipe-size"="4" "sycl-unique-id"="pipe_uid" }
