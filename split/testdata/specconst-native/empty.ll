; Hand-written: composite spec constants with no scalar at all (an empty
; struct returned directly, a [0 x i32] through sret). Nothing is
; specialised, but every mode must still write valid IR.
target triple = "spirv64"
@.s = private unnamed_addr addrspace(1) constant [4 x i8] c"uid\00", align 1
@.s2 = private unnamed_addr addrspace(1) constant [5 x i8] c"uid2\00", align 1
@id = internal addrspace(1) constant { {} } zeroinitializer, align 1
@id2 = internal addrspace(1) constant { [0 x i32] } zeroinitializer, align 4
define spir_kernel void @k(ptr addrspace(1) %o, ptr addrspace(4) %buf) {
entry:
  %e = call spir_func {} @_Z40__sycl_getComposite2020SpecConstantValueI1EET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id to ptr addrspace(4)), ptr addrspace(4) %buf)
  store {} %e, ptr addrspace(1) %o
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI1FET_PKcPKvS5_(ptr addrspace(1) sret([0 x i32]) %o, ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s2 to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id2 to ptr addrspace(4)), ptr addrspace(4) %buf)
  ret void
}
declare spir_func {} @_Z40__sycl_getComposite2020SpecConstantValueI1EET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI1FET_PKcPKvS5_(ptr addrspace(1) sret([0 x i32]), ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
