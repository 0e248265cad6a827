; Virtual functions (sycl.md §2.6, §7.6): two sets, set-foo (@foo, which
; does fp64 arithmetic) and set-bar (@bar); @kernel stores the vtable that
; names @foo and calls into both sets, @kernel2 into set-bar only.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

$foo = comdat any

@vt = linkonce_odr addrspace(1) constant { [3 x ptr addrspace(4)] } { [3 x ptr addrspace(4)] [ptr addrspace(4) null, ptr addrspace(4) null, ptr addrspace(4) addrspacecast (ptr @foo to ptr addrspace(4))] }, align 8
@scale = internal addrspace(1) global double 2.5, align 8

define linkonce_odr spir_func void @foo(ptr addrspace(4) noundef align 8 %this) #0 comdat !sycl_used_aspects !0 {
entry:
  %s = load double, ptr addrspace(1) @scale, align 8
  %m = fmul double %s, 3.0
  store double %m, ptr addrspace(4) %this, align 8
  ret void
}

define spir_func void @bar(ptr addrspace(4) noundef %this) #1 {
entry:
  store i32 2, ptr addrspace(4) %this, align 4
  ret void
}

define weak_odr spir_kernel void @kernel(ptr addrspace(1) noundef align 8 %obj) #2 {
entry:
  store ptr addrspace(1) getelementptr inbounds inrange(-16, 8) (i8, ptr addrspace(1) @vt, i64 16), ptr addrspace(1) %obj, align 8
  ret void
}

define weak_odr spir_kernel void @kernel2(ptr addrspace(1) noundef %obj) #3 {
entry:
  store i32 0, ptr addrspace(1) %obj, align 4
  ret void
}

attributes #0 = { "indirectly-callable"="set-foo" "sycl-module-id"="v.cpp" }
attributes #1 = { "indirectly-callable"="set-bar" "sycl-module-id"="v.cpp" }
attributes #2 = { "calls-indirectly"="set-foo,set-bar" "sycl-module-id"="v.cpp" }
attributes #3 = { "calls-indirectly"="set-bar" "sycl-module-id"="v.cpp" }

!0 = !{i32 6}
