; Hand-written: composite spec constants returned directly (no sret), which
; C++ cannot express for arrays and literal structs: a top-level array, a
; literal struct, a packed struct, a named struct whose name needs quoting,
; i1 leaves, a struct whose padding field is undef, a zeroinitializer
; default and a c"..." string default. A type mixing half, double and i64
; covers the remaining mini-mangling codes.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

%"struct.n::S" = type { i32, <2 x float> }
%struct.U = type { i16, [2 x i8], i32 }
%struct.H = type { half, double, i64 }

@.s.arr = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_arr\00", align 1
@id.arr = internal addrspace(1) constant { [3 x i32] } { [3 x i32] [i32 1, i32 2, i32 3] }, align 4
@.s.lit = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_lit\00", align 1
@id.lit = internal addrspace(1) constant { { i32, float } } { { i32, float } { i32 -1, float 0.25 } }, align 4
@.s.pk = private unnamed_addr addrspace(1) constant [7 x i8] c"uid_pk\00", align 1
@id.pk = internal addrspace(1) constant { <{ i8, i32 }> } { <{ i8, i32 }> <{ i8 7, i32 8 }> }, align 1
@.s.ns = private unnamed_addr addrspace(1) constant [7 x i8] c"uid_ns\00", align 1
@id.ns = internal addrspace(1) constant { %"struct.n::S" } { %"struct.n::S" { i32 5, <2 x float> <float 1.0, float 2.0> } }, align 8
@.s.bv = private unnamed_addr addrspace(1) constant [7 x i8] c"uid_bv\00", align 1
@id.bv = internal addrspace(1) constant { <2 x i1> } { <2 x i1> <i1 true, i1 false> }, align 1
@.s.u = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_u\00", align 1
@id.u = internal addrspace(1) constant { %struct.U } { %struct.U { i16 3, [2 x i8] undef, i32 4 } }, align 4
@.s.z = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_z\00", align 1
@id.z = internal addrspace(1) constant { { i32, i1 } } zeroinitializer, align 4
@.s.str = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_str\00", align 1
@id.str = internal addrspace(1) constant { [3 x i8] } { [3 x i8] c"hi\00" }, align 1
@.s.h = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_h\00", align 1
@id.h = internal addrspace(1) constant { %struct.H } { %struct.H { half 0xH3C00, double 2.0, i64 -5 } }, align 8

define spir_kernel void @kd(ptr addrspace(1) %o, ptr addrspace(4) %buf) {
entry:
  %arr = call spir_func [3 x i32] @_Z40__sycl_getComposite2020SpecConstantValueIA3_iET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.arr to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.arr to ptr addrspace(4)), ptr addrspace(4) %buf)
  store [3 x i32] %arr, ptr addrspace(1) %o, align 4
  %lit = call spir_func { i32, float } @_Z40__sycl_getComposite2020SpecConstantValueI3LitET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.lit to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.lit to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o1 = getelementptr i8, ptr addrspace(1) %o, i64 16
  store { i32, float } %lit, ptr addrspace(1) %o1, align 4
  %pk = call spir_func <{ i8, i32 }> @_Z40__sycl_getComposite2020SpecConstantValueI2PkET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.pk to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.pk to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o2 = getelementptr i8, ptr addrspace(1) %o, i64 32
  store <{ i8, i32 }> %pk, ptr addrspace(1) %o2, align 1
  %ns = call spir_func %"struct.n::S" @_Z40__sycl_getComposite2020SpecConstantValueIN1n1SEET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.ns to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.ns to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o3 = getelementptr i8, ptr addrspace(1) %o, i64 48
  store %"struct.n::S" %ns, ptr addrspace(1) %o3, align 8
  %bv = call spir_func <2 x i1> @_Z40__sycl_getComposite2020SpecConstantValueIDv2_bET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.bv to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.bv to ptr addrspace(4)), ptr addrspace(4) %buf)
  %bz = zext <2 x i1> %bv to <2 x i8>
  %o4 = getelementptr i8, ptr addrspace(1) %o, i64 64
  store <2 x i8> %bz, ptr addrspace(1) %o4, align 2
  %u = call spir_func %struct.U @_Z40__sycl_getComposite2020SpecConstantValueI1UET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.u to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.u to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o5 = getelementptr i8, ptr addrspace(1) %o, i64 80
  store %struct.U %u, ptr addrspace(1) %o5, align 4
  %z = call spir_func { i32, i1 } @_Z40__sycl_getComposite2020SpecConstantValueI1ZET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.z to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.z to ptr addrspace(4)), ptr addrspace(4) %buf)
  %z0 = extractvalue { i32, i1 } %z, 0
  %o6 = getelementptr i8, ptr addrspace(1) %o, i64 96
  store i32 %z0, ptr addrspace(1) %o6, align 4
  %str = call spir_func [3 x i8] @_Z40__sycl_getComposite2020SpecConstantValueIA3_cET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.str to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.str to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o7 = getelementptr i8, ptr addrspace(1) %o, i64 112
  store [3 x i8] %str, ptr addrspace(1) %o7, align 1
  %h = call spir_func %struct.H @_Z40__sycl_getComposite2020SpecConstantValueI1HET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.h to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.h to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o8 = getelementptr i8, ptr addrspace(1) %o, i64 128
  store %struct.H %h, ptr addrspace(1) %o8, align 8
  %arr2 = call spir_func [3 x i32] @_Z40__sycl_getComposite2020SpecConstantValueIA3_iET_PKcPKvS5_(ptr addrspace(4) addrspacecast (ptr addrspace(1) @.s.arr to ptr addrspace(4)), ptr addrspace(4) addrspacecast (ptr addrspace(1) @id.arr to ptr addrspace(4)), ptr addrspace(4) %buf)
  %o9 = getelementptr i8, ptr addrspace(1) %o, i64 160
  store [3 x i32] %arr2, ptr addrspace(1) %o9, align 4
  ret void
}
declare spir_func %"struct.n::S" @_Z40__sycl_getComposite2020SpecConstantValueIN1n1SEET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func %struct.H @_Z40__sycl_getComposite2020SpecConstantValueI1HET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func %struct.U @_Z40__sycl_getComposite2020SpecConstantValueI1UET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func <2 x i1> @_Z40__sycl_getComposite2020SpecConstantValueIDv2_bET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func <{ i8, i32 }> @_Z40__sycl_getComposite2020SpecConstantValueI2PkET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func [3 x i32] @_Z40__sycl_getComposite2020SpecConstantValueIA3_iET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func [3 x i8] @_Z40__sycl_getComposite2020SpecConstantValueIA3_cET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func { i32, float } @_Z40__sycl_getComposite2020SpecConstantValueI3LitET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
declare spir_func { i32, i1 } @_Z40__sycl_getComposite2020SpecConstantValueI1ZET_PKcPKvS5_(ptr addrspace(4), ptr addrspace(4), ptr addrspace(4))
