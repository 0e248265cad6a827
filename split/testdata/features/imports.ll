; Declarations of every kind canBeImportedFunction tells apart, for
; SYCL/imported symbols (sycl.md §7.6): user functions another image
; defines (mangled, nested, template, C), builtins and reserved names
; (__ prefixes, _Z<n>__spirv_, intrinsics, demanglings that start with
; "__"), the bfloat16 device-library functions (always importable), a
; declared virtual function, and a SYCL_EXTERNAL function the module
; defines.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64"
target triple = "spir64-unknown-unknown"

declare spir_func i32 @_Z7ext_fooi(i32)
declare spir_func void @_ZN2ns3barEv()
declare spir_func void @_Z4tmplIiEvT_(i32)
declare spir_func void @ext_c()
declare spir_func void @_Z8__helperv()
declare spir_func void @_ZN4__ns3barEv()
declare spir_func void @_Z6retfooIiE5__FooT_(i32)
declare spir_func i32 @_Z20__spirv_SubgroupSizev()
declare spir_func void @__internal()
declare void @llvm.memset.p4.i64(ptr addrspace(4) writeonly captures(none), i8, i64, i1 immarg)
declare spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4))
declare spir_func i16 @__devicelib_imf_fmabf16(i16, i16, i16)
declare spir_func void @_ZN1A1fEv() #1

define spir_func i32 @_Z7definedi(i32 %x) #0 {
entry:
  %r = call spir_func i32 @_Z7ext_fooi(i32 %x)
  ret i32 %r
}

define spir_kernel void @k1(ptr addrspace(1) %out) #0 {
entry:
  %g = addrspacecast ptr addrspace(1) %out to ptr addrspace(4)
  %a = call spir_func i32 @_Z7ext_fooi(i32 1)
  call spir_func void @_ZN2ns3barEv()
  call spir_func void @_Z4tmplIiEvT_(i32 2)
  call spir_func void @ext_c()
  call spir_func void @_Z8__helperv()
  call spir_func void @_ZN4__ns3barEv()
  call spir_func void @_Z6retfooIiE5__FooT_(i32 3)
  %b = call spir_func i32 @_Z20__spirv_SubgroupSizev()
  call spir_func void @__internal()
  call void @llvm.memset.p4.i64(ptr addrspace(4) %g, i8 0, i64 4, i1 false)
  %c = call spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4) %g)
  %d = call spir_func i16 @__devicelib_imf_fmabf16(i16 1, i16 2, i16 3)
  call spir_func void @_ZN1A1fEv()
  %e = call spir_func i32 @_Z7definedi(i32 %b)
  store i32 %e, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @k2(ptr addrspace(1) %out) #0 {
entry:
  %g = addrspacecast ptr addrspace(1) %out to ptr addrspace(4)
  %c = call spir_func i16 @__devicelib_ConvertFToBF16INTEL(ptr addrspace(4) %g)
  %a = call spir_func i32 @_Z7ext_fooi(i32 1)
  store i32 %a, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "sycl-module-id"="imports.cpp" }
attributes #1 = { "indirectly-callable"="set-a" }
