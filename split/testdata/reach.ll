; Reachability rows (split/reach_test.go): each kernel reaches functions
; only in one way that is not a plain direct call. Hand-written; verified
; with opt-22 -passes=verify. Every row's functions have a signature of
; their own, so "every function of the called type" (llvm-split's rule for
; indirect calls) reaches the same set as intel's rule.
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

; a non-discardable variable holding a function pointer: copied into every part
@ext_tab = addrspace(1) global ptr @seed_fn, align 8
; function pointers stored in globals
@tab = internal addrspace(1) constant [2 x ptr] [ptr @tab_a, ptr @tab_b], align 8
@nested_inner = internal addrspace(1) constant { i32, ptr } { i32 1, ptr @nested_fn }, align 8
@nested_outer = internal addrspace(1) constant [1 x ptr addrspace(1)] [ptr addrspace(1) @nested_inner], align 8
; function pointers in constant expressions
@gep_holder = internal addrspace(1) constant ptr getelementptr (i8, ptr @gep_fn, i64 4), align 8
@p2i_holder = internal addrspace(1) constant [2 x i64] [i64 ptrtoint (ptr @p2i_fn to i64), i64 sub (i64 ptrtoint (ptr @p2i_fn2 to i64), i64 1)], align 8
; a variable only a region directive names
@g_shared = internal addrspace(1) global i32 0, align 4
; never reached
@dead_tab = internal addrspace(1) constant [1 x ptr] [ptr @dead_tab_fn], align 8

; --- operand bundles ---------------------------------------------------------
define spir_kernel void @k_bundle(ptr addrspace(1) %p) {
entry:
  call spir_func void @sink() [ "okit.callee"(ptr @bundle_fn) ]
  call void @llvm.assume(i1 true) [ "align"(ptr @assume_fn, i64 16) ]
  ret void
}

define spir_kernel void @k_deopt(ptr addrspace(1) %p) {
entry:
  call spir_func void @sink() [ "deopt"(i32 7, ptr @deopt_fn), "funclet-like"(ptr addrspace(1) %p) ]
  ret void
}

; --- region directives (parallel-IR extensions) ------------------------------
define spir_kernel void @k_region(ptr addrspace(1) %p) {
entry:
  %t = call token @llvm.directive.region.entry() [ "DIR.OMP.PARALLEL"(), "QUAL.OMP.SHARED"(ptr addrspace(1) @g_shared), "QUAL.OMP.REDUCTION.UDR"(ptr addrspace(1) %p, ptr null, ptr @udr_combiner, ptr @udr_init) ]
  call spir_func void @in_region(ptr addrspace(1) %p)
  call void @llvm.directive.region.exit(token %t) [ "DIR.OMP.END.PARALLEL"() ]
  ret void
}

; --- function pointers in globals --------------------------------------------
define spir_kernel void @k_table(ptr addrspace(1) %p) {
entry:
  %i = load i32, ptr addrspace(1) %p, align 4
  %ix = zext i32 %i to i64
  %slot = getelementptr [2 x ptr], ptr addrspace(1) @tab, i64 0, i64 %ix
  %f = load ptr, ptr addrspace(1) %slot, align 8
  %r = call spir_func i32 %f(i32 %i)
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
}

define spir_kernel void @k_nested(ptr addrspace(1) %p) {
entry:
  %inner = load ptr addrspace(1), ptr addrspace(1) @nested_outer, align 8
  %slot = getelementptr { i32, ptr }, ptr addrspace(1) %inner, i64 0, i32 1
  %f = load ptr, ptr addrspace(1) %slot, align 8
  %r = call spir_func i64 %f(i64 3)
  store i64 %r, ptr addrspace(1) %p, align 8
  ret void
}

; --- function pointers in constant expressions -------------------------------
define spir_kernel void @k_constexpr(ptr addrspace(1) %p) {
entry:
  %a = load ptr, ptr addrspace(1) @gep_holder, align 8
  store ptr %a, ptr addrspace(1) %p, align 8
  %b = load i64, ptr addrspace(1) @p2i_holder, align 8
  store i64 %b, ptr addrspace(1) %p, align 8
  store i64 add (i64 ptrtoint (ptr @inst_fn to i64), i64 8), ptr addrspace(1) %p, align 8
  ret void
}

; --- function pointers through select and phi --------------------------------
define spir_kernel void @k_select(ptr addrspace(1) %p, i1 %c) {
entry:
  %f = select i1 %c, ptr @sel_a, ptr @sel_b
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %g = phi ptr [ %f, %entry ], [ @phi_fn, %then ]
  %r = call spir_func i16 %g(i16 1)
  store i16 %r, ptr addrspace(1) %p, align 2
  ret void
}

define spir_func void @seed_fn() {
  ret void
}
define internal spir_func void @bundle_fn() {
  ret void
}
define internal spir_func void @assume_fn(i8 %x) {
  ret void
}
define internal spir_func void @deopt_fn(i16 %x) {
  ret void
}
define internal spir_func void @udr_combiner(ptr addrspace(4) %a, ptr addrspace(4) %b) {
  ret void
}
define internal spir_func void @udr_init(ptr addrspace(4) %a, ptr addrspace(4) %b, i1 %c) {
  ret void
}
define internal spir_func void @in_region(ptr addrspace(1) %p) {
  %v = load i32, ptr addrspace(1) @g_shared, align 4
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}
define internal spir_func i32 @tab_a(i32 %x) {
  ret i32 %x
}
define internal spir_func i32 @tab_b(i32 %x) {
  %y = sub i32 0, %x
  ret i32 %y
}
define internal spir_func i64 @nested_fn(i64 %x) {
  ret i64 %x
}
define internal spir_func void @gep_fn(i32 %x) {
  ret void
}
define internal spir_func void @p2i_fn(i64 %x) {
  ret void
}
define internal spir_func void @p2i_fn2(i64 %x, i64 %y) {
  ret void
}
define internal spir_func void @inst_fn(float %x) {
  ret void
}
define internal spir_func i16 @sel_a(i16 %x) {
  ret i16 %x
}
define internal spir_func i16 @sel_b(i16 %x) {
  %y = add i16 %x, 1
  ret i16 %y
}
define internal spir_func i16 @phi_fn(i16 %x) {
  %y = add i16 %x, 2
  ret i16 %y
}
define spir_func void @dead_fn(double %x) {
  ret void
}
define internal spir_func void @dead_tab_fn(float %x, float %y) {
  ret void
}

declare spir_func void @sink()
declare void @llvm.assume(i1 noundef)
declare token @llvm.directive.region.entry()
declare void @llvm.directive.region.exit(token)
