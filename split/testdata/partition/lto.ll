; ModuleID = 'img.0.5.precodegen.bc'
source_filename = "ld-temp.o"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

%llvm.amdgcn.module.lds.t = type { [64 x float] }
%llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds.t = type { [64 x float], [32 x float] }
%llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds.t = type { [64 x float], [64 x float] }
%llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds.t = type { [96 x float], [64 x float] }
%llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds.t = type { [32 x float] }
%llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds.t = type { [64 x float] }
%llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds.t = type { [96 x float] }

$_Z2tkILi0EEvPi = comdat any

$_Z2tkILi1EEvPi = comdat any

@coeff_0 = protected addrspace(4) externally_initialized constant [4 x float] [float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 5.000000e-01], align 16
@ops_0 = protected addrspace(1) externally_initialized global [2 x ptr] [ptr @_ZL8op_add_0i, ptr @_ZL8op_mul_0i], align 16
@g_total = protected addrspace(1) externally_initialized global i32 0, align 4
@_ZL5lut_0 = internal unnamed_addr addrspace(4) constant [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6], align 16
@_ZL9counter_0 = internal unnamed_addr addrspace(1) global i32 0, align 4
@__hip_cuid_1b1bfa03433207c7 = addrspace(1) global i8 0
@coeff_1 = protected addrspace(4) externally_initialized constant [4 x float] [float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 1.500000e+00], align 16
@ops_1 = protected addrspace(1) externally_initialized global [2 x ptr] [ptr @_ZL8op_add_1i, ptr @_ZL8op_mul_1i], align 16
@_ZL5lut_1 = internal unnamed_addr addrspace(4) constant [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6], align 16
@_ZL9counter_1 = internal unnamed_addr addrspace(1) global i32 0, align 4
@__hip_cuid_ce96e6dc7d999f2a = addrspace(1) global i8 0
@llvm.amdgcn.module.lds = internal addrspace(3) global %llvm.amdgcn.module.lds.t poison, align 16, !absolute_symbol !0
@llvm.compiler.used = appending addrspace(1) global [8 x ptr] [ptr addrspacecast (ptr addrspace(1) @__hip_cuid_1b1bfa03433207c7 to ptr), ptr addrspacecast (ptr addrspace(1) @__hip_cuid_ce96e6dc7d999f2a to ptr), ptr addrspacecast (ptr addrspace(4) @coeff_0 to ptr), ptr addrspacecast (ptr addrspace(4) @coeff_1 to ptr), ptr addrspacecast (ptr addrspace(1) @g_total to ptr), ptr addrspacecast (ptr addrspace(1) @ops_0 to ptr), ptr addrspacecast (ptr addrspace(1) @ops_1 to ptr), ptr addrspacecast (ptr addrspace(3) @llvm.amdgcn.module.lds to ptr)], section "llvm.metadata"
@llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds.t poison, align 16, !absolute_symbol !0
@llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds.t poison, align 16, !absolute_symbol !0
@llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds.t poison, align 16, !absolute_symbol !0
@llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds.t poison, align 16, !absolute_symbol !1
@llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds.t poison, align 16, !absolute_symbol !1
@llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds = internal addrspace(3) global %llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds.t poison, align 16, !absolute_symbol !1
@llvm.amdgcn.lds.offset.table = internal addrspace(4) constant [3 x [1 x i32]] [[1 x i32] [i32 ptrtoint (ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds to i32)], [1 x i32] [i32 ptrtoint (ptr addrspace(3) getelementptr inbounds (%llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds.t, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds, i32 0, i32 1) to i32)], [1 x i32] [i32 ptrtoint (ptr addrspace(3) getelementptr inbounds (%llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds.t, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds, i32 0, i32 1) to i32)]]

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none)
define internal noundef range(i32 -2147483647, -2147483648) i32 @_ZL8op_add_0i(i32 noundef %0) #0 {
  %2 = add nsw i32 %0, 1
  ret i32 %2
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none)
define internal noundef range(i32 -2147483648, 2147483647) i32 @_ZL8op_mul_0i(i32 noundef %0) #0 {
  %2 = shl nsw i32 %0, 1
  ret i32 %2
}

; Function Attrs: mustprogress norecurse nounwind
define weak_odr protected amdgpu_kernel void @_Z2tkILi0EEvPi(ptr addrspace(1) noundef %0) local_unnamed_addr #1 comdat {
  ret void
}

; Function Attrs: mustprogress nofree noinline nosync nounwind willreturn memory(none)
define internal fastcc noundef i32 @_Z5fib_0i(i32 noundef range(i32 -2147483648, 2147483647) %0) unnamed_addr #2 {
  %2 = icmp slt i32 %0, 2
  br i1 %2, label %.loopexit, label %.preheader

.preheader:                                       ; preds = %.preheader, %1
  %3 = phi i32 [ %5, %.preheader ], [ %0, %1 ]
  %4 = phi i32 [ %8, %.preheader ], [ 0, %1 ]
  %5 = add nsw i32 %3, -2
  %6 = add nsw i32 %3, -1
  %7 = tail call fastcc noundef i32 @_Z5fib_0i(i32 noundef %6) #12
  %8 = add nsw i32 %7, %4
  %9 = icmp samesign ult i32 %3, 4
  br i1 %9, label %.loopexit, label %.preheader

.loopexit:                                        ; preds = %.preheader, %1
  %10 = phi i32 [ 0, %1 ], [ %8, %.preheader ]
  %11 = phi i32 [ %0, %1 ], [ %5, %.preheader ]
  %12 = add nsw i32 %11, %10
  ret i32 %12
}

; Function Attrs: convergent mustprogress nofree noinline norecurse nounwind willreturn
define internal fastcc noundef float @_Z9lds_sum_0f(float noundef %0) unnamed_addr #3 {
  %2 = call i32 @llvm.amdgcn.lds.kernel.id()
  %3 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %4 = and i32 %3, 63
  %_ZZ9lds_sum_0fE3buf4 = getelementptr inbounds [3 x [1 x i32]], ptr addrspace(4) @llvm.amdgcn.lds.offset.table, i32 0, i32 %2, i32 0
  %5 = load i32, ptr addrspace(4) %_ZZ9lds_sum_0fE3buf4, align 4
  %_ZZ9lds_sum_0fE3buf5 = inttoptr i32 %5 to ptr addrspace(3)
  %6 = getelementptr inbounds nuw float, ptr addrspace(3) %_ZZ9lds_sum_0fE3buf5, i32 %4
  store float %0, ptr addrspace(3) %6, align 4, !tbaa !13
  tail call void @llvm.amdgcn.s.barrier()
  %7 = add nuw nsw i32 %3, 1
  %8 = and i32 %7, 63
  %_ZZ9lds_sum_0fE3buf2 = getelementptr inbounds [3 x [1 x i32]], ptr addrspace(4) @llvm.amdgcn.lds.offset.table, i32 0, i32 %2, i32 0
  %9 = load i32, ptr addrspace(4) %_ZZ9lds_sum_0fE3buf2, align 4
  %_ZZ9lds_sum_0fE3buf3 = inttoptr i32 %9 to ptr addrspace(3)
  %10 = getelementptr inbounds nuw float, ptr addrspace(3) %_ZZ9lds_sum_0fE3buf3, i32 %8
  %11 = load float, ptr addrspace(3) %10, align 4, !tbaa !13
  %12 = add nuw nsw i32 %3, 2
  %13 = and i32 %12, 63
  %_ZZ9lds_sum_0fE3buf = getelementptr inbounds [3 x [1 x i32]], ptr addrspace(4) @llvm.amdgcn.lds.offset.table, i32 0, i32 %2, i32 0
  %14 = load i32, ptr addrspace(4) %_ZZ9lds_sum_0fE3buf, align 4
  %_ZZ9lds_sum_0fE3buf1 = inttoptr i32 %14 to ptr addrspace(3)
  %15 = getelementptr inbounds nuw float, ptr addrspace(3) %_ZZ9lds_sum_0fE3buf1, i32 %13
  %16 = load float, ptr addrspace(3) %15, align 4, !tbaa !13
  %17 = fadd contract float %11, %16
  ret float %17
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x() #4

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #5

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(read, argmem: none, inaccessiblemem: none, target_mem0: none, target_mem1: none)
define internal fastcc noundef i32 @_Z10shared_mixii(i32 noundef range(i32 0, 1024) %0, i32 noundef range(i32 0, 3) %1) unnamed_addr #6 {
  %3 = mul nuw nsw i32 %0, 31
  %4 = load i32, ptr addrspace(1) @g_total, align 4, !tbaa !3
  %5 = add nsw i32 %4, %1
  %6 = xor i32 %5, %3
  ret i32 %6
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_0_0PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #7 !llvm.amdgcn.lds.kernel.id !15 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds) ], !alias.scope !16, !noalias !19
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) @coeff_0, align 16, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) getelementptr inbounds (%llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds.t, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds, i32 0, i32 1), i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13, !alias.scope !19, !noalias !16
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) getelementptr inbounds (%llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds.t, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_0PfPii.lds, i32 0, i32 1), i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13, !alias.scope !19, !noalias !16
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_0f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = zext nneg i32 %17 to i64
  %19 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_0, i64 %18
  %20 = load ptr, ptr addrspace(1) %19, align 8, !tbaa !21
  %21 = tail call noundef i32 %20(i32 noundef %2) #13
  %22 = and i32 %4, 7
  %23 = zext nneg i32 %22 to i64
  %24 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_0, i64 %23
  %25 = load i32, ptr addrspace(4) %24, align 4, !tbaa !3
  %26 = add nsw i32 %25, %21
  %27 = and i32 %2, 7
  %28 = tail call fastcc noundef i32 @_Z5fib_0i(i32 noundef %27) #12
  %29 = add nsw i32 %26, %28
  %30 = load i32, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %31 = add nsw i32 %30, %29
  store i32 %31, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %32 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 0) #12
  %33 = add i32 %31, %29
  %34 = add i32 %33, %32
  %35 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %34, ptr addrspace(1) %35, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_0_1PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #8 !llvm.amdgcn.lds.kernel.id !23 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds) ], !alias.scope !24, !noalias !27
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) getelementptr inbounds nuw (i8, ptr addrspace(4) @coeff_0, i64 4), align 4, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds, i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13, !alias.scope !24, !noalias !27
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_1PfPii.lds, i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13, !alias.scope !24, !noalias !27
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_0f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = xor i32 %17, 1
  %19 = zext nneg i32 %18 to i64
  %20 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_0, i64 %19
  %21 = load ptr, ptr addrspace(1) %20, align 8, !tbaa !21
  %22 = tail call noundef i32 %21(i32 noundef %2) #13
  %23 = and i32 %12, 7
  %24 = zext nneg i32 %23 to i64
  %25 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_0, i64 %24
  %26 = load i32, ptr addrspace(4) %25, align 4, !tbaa !3
  %27 = add nsw i32 %26, %22
  %28 = load i32, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %29 = add nsw i32 %28, %27
  store i32 %29, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %30 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 1) #12
  %31 = add i32 %29, %27
  %32 = add i32 %31, %30
  %33 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %32, ptr addrspace(1) %33, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_0_2PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #9 !llvm.amdgcn.lds.kernel.id !29 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds) ], !alias.scope !30, !noalias !33
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) getelementptr inbounds nuw (i8, ptr addrspace(4) @coeff_0, i64 8), align 8, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds, i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13, !alias.scope !30, !noalias !33
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_0_2PfPii.lds, i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13, !alias.scope !30, !noalias !33
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_0f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = zext nneg i32 %17 to i64
  %19 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_0, i64 %18
  %20 = load ptr, ptr addrspace(1) %19, align 8, !tbaa !21
  %21 = tail call noundef i32 %20(i32 noundef %2) #13
  %22 = add nuw nsw i32 %4, 2
  %23 = and i32 %22, 7
  %24 = zext nneg i32 %23 to i64
  %25 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_0, i64 %24
  %26 = load i32, ptr addrspace(4) %25, align 4, !tbaa !3
  %27 = add nsw i32 %26, %21
  %28 = load i32, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %29 = add nsw i32 %28, %27
  store i32 %29, ptr addrspace(1) @_ZL9counter_0, align 4, !tbaa !3
  %30 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 2) #12
  %31 = add i32 %29, %27
  %32 = add i32 %31, %30
  %33 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %32, ptr addrspace(1) %33, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none)
define internal noundef range(i32 -2147483646, -2147483648) i32 @_ZL8op_add_1i(i32 noundef %0) #0 {
  %2 = add nsw i32 %0, 2
  ret i32 %2
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none)
define internal noundef i32 @_ZL8op_mul_1i(i32 noundef %0) #0 {
  %2 = mul nsw i32 %0, 3
  ret i32 %2
}

; Function Attrs: mustprogress norecurse nounwind
define weak_odr protected amdgpu_kernel void @_Z2tkILi1EEvPi(ptr addrspace(1) noundef %0) local_unnamed_addr #1 comdat {
  %2 = load i32, ptr addrspace(1) %0, align 4, !tbaa !3
  %3 = add nsw i32 %2, 1
  store i32 %3, ptr addrspace(1) %0, align 4, !tbaa !3
  ret void
}

; Function Attrs: mustprogress nofree noinline nosync nounwind willreturn memory(none)
define internal fastcc noundef i32 @_Z5fib_1i(i32 noundef range(i32 -2147483648, 2147483647) %0) unnamed_addr #2 {
  %2 = icmp slt i32 %0, 2
  br i1 %2, label %.loopexit, label %.preheader

.preheader:                                       ; preds = %.preheader, %1
  %3 = phi i32 [ %5, %.preheader ], [ %0, %1 ]
  %4 = phi i32 [ %8, %.preheader ], [ 0, %1 ]
  %5 = add nsw i32 %3, -2
  %6 = add nsw i32 %3, -1
  %7 = tail call fastcc noundef i32 @_Z5fib_1i(i32 noundef %6) #12
  %8 = add nsw i32 %7, %4
  %9 = icmp samesign ult i32 %3, 4
  br i1 %9, label %.loopexit, label %.preheader

.loopexit:                                        ; preds = %.preheader, %1
  %10 = phi i32 [ 0, %1 ], [ %8, %.preheader ]
  %11 = phi i32 [ %0, %1 ], [ %5, %.preheader ]
  %12 = add nsw i32 %11, %10
  ret i32 %12
}

; Function Attrs: convergent mustprogress nofree noinline norecurse nounwind willreturn
define internal fastcc noundef float @_Z9lds_sum_1f(float noundef %0) unnamed_addr #10 {
  %2 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %3 = and i32 %2, 63
  %4 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.module.lds, i32 %3
  store float %0, ptr addrspace(3) %4, align 4, !tbaa !13
  tail call void @llvm.amdgcn.s.barrier()
  %5 = add nuw nsw i32 %2, 1
  %6 = and i32 %5, 63
  %7 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.module.lds, i32 %6
  %8 = load float, ptr addrspace(3) %7, align 4, !tbaa !13
  %9 = add nuw nsw i32 %2, 2
  %10 = and i32 %9, 63
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.module.lds, i32 %10
  %12 = load float, ptr addrspace(3) %11, align 4, !tbaa !13
  %13 = fadd contract float %8, %12
  ret float %13
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_1_0PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #7 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds) ]
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.module.lds) ]
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) @coeff_1, align 16, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds, i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_0PfPii.lds, i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_1f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = zext nneg i32 %17 to i64
  %19 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_1, i64 %18
  %20 = load ptr, ptr addrspace(1) %19, align 8, !tbaa !21
  %21 = tail call noundef i32 %20(i32 noundef %2) #13
  %22 = and i32 %4, 7
  %23 = zext nneg i32 %22 to i64
  %24 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_1, i64 %23
  %25 = load i32, ptr addrspace(4) %24, align 4, !tbaa !3
  %26 = add nsw i32 %25, %21
  %27 = and i32 %2, 7
  %28 = tail call fastcc noundef i32 @_Z5fib_1i(i32 noundef %27) #12
  %29 = add nsw i32 %26, %28
  %30 = load i32, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %31 = add nsw i32 %30, %29
  store i32 %31, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %32 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 0) #12
  %33 = add nsw i32 %32, %29
  %34 = add nsw i32 %33, %31
  %35 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %34, ptr addrspace(1) %35, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_1_1PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #8 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds) ]
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.module.lds) ]
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) getelementptr inbounds nuw (i8, ptr addrspace(4) @coeff_1, i64 4), align 4, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds, i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_1PfPii.lds, i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_1f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = xor i32 %17, 1
  %19 = zext nneg i32 %18 to i64
  %20 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_1, i64 %19
  %21 = load ptr, ptr addrspace(1) %20, align 8, !tbaa !21
  %22 = tail call noundef i32 %21(i32 noundef %2) #13
  %23 = and i32 %12, 7
  %24 = zext nneg i32 %23 to i64
  %25 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_1, i64 %24
  %26 = load i32, ptr addrspace(4) %25, align 4, !tbaa !3
  %27 = add nsw i32 %26, %22
  %28 = load i32, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %29 = add nsw i32 %28, %27
  store i32 %29, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %30 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 1) #12
  %31 = add nsw i32 %30, %27
  %32 = add nsw i32 %31, %29
  %33 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %32, ptr addrspace(1) %33, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: convergent mustprogress norecurse nounwind
define protected amdgpu_kernel void @_Z8kern_1_2PfPii(ptr addrspace(1) noundef captures(none) %0, ptr addrspace(1) noundef writeonly captures(none) %1, i32 noundef %2) local_unnamed_addr #9 {
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds) ]
  call void @llvm.donothing() [ "ExplicitUse"(ptr addrspace(3) @llvm.amdgcn.module.lds) ]
  %4 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
  %7 = load float, ptr addrspace(1) %6, align 4, !tbaa !13
  %8 = load float, ptr addrspace(4) getelementptr inbounds nuw (i8, ptr addrspace(4) @coeff_1, i64 8), align 8, !tbaa !13
  %9 = fmul contract float %7, %8
  %10 = and i32 %4, 31
  %11 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds, i32 %10
  store float %9, ptr addrspace(3) %11, align 4, !tbaa !13
  tail call void @llvm.amdgcn.s.barrier()
  %12 = add nuw nsw i32 %4, 1
  %13 = and i32 %12, 31
  %14 = getelementptr inbounds nuw float, ptr addrspace(3) @llvm.amdgcn.kernel._Z8kern_1_2PfPii.lds, i32 %13
  %15 = load float, ptr addrspace(3) %14, align 4, !tbaa !13
  %16 = tail call contract fastcc noundef float @_Z9lds_sum_1f(float noundef %15) #13
  %17 = and i32 %2, 1
  %18 = zext nneg i32 %17 to i64
  %19 = getelementptr inbounds nuw ptr, ptr addrspace(1) @ops_1, i64 %18
  %20 = load ptr, ptr addrspace(1) %19, align 8, !tbaa !21
  %21 = tail call noundef i32 %20(i32 noundef %2) #13
  %22 = add nuw nsw i32 %4, 2
  %23 = and i32 %22, 7
  %24 = zext nneg i32 %23 to i64
  %25 = getelementptr inbounds nuw i32, ptr addrspace(4) @_ZL5lut_1, i64 %24
  %26 = load i32, ptr addrspace(4) %25, align 4, !tbaa !3
  %27 = add nsw i32 %26, %21
  %28 = load i32, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %29 = add nsw i32 %28, %27
  store i32 %29, ptr addrspace(1) @_ZL9counter_1, align 4, !tbaa !3
  %30 = tail call fastcc noundef i32 @_Z10shared_mixii(i32 noundef %4, i32 noundef 2) #12
  %31 = add nsw i32 %30, %27
  %32 = add nsw i32 %31, %29
  %33 = getelementptr inbounds nuw i32, ptr addrspace(1) %1, i64 %5
  store i32 %32, ptr addrspace(1) %33, align 4, !tbaa !3
  store float %16, ptr addrspace(1) %6, align 4, !tbaa !13
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(none)
declare void @llvm.donothing() #11

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.lds.kernel.id() #4

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) "amdgpu-agpr-alloc"="0" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { mustprogress norecurse nounwind "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,1024" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree noinline nosync nounwind willreturn memory(none) "amdgpu-agpr-alloc"="0" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #3 = { convergent mustprogress nofree noinline norecurse nounwind willreturn "amdgpu-agpr-alloc"="0" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { convergent nocallback nofree nounwind willreturn }
attributes #6 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(read, argmem: none, inaccessiblemem: none, target_mem0: none, target_mem1: none) "amdgpu-agpr-alloc"="0" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #7 = { convergent mustprogress norecurse nounwind "amdgpu-flat-work-group-size"="1,1024" "amdgpu-lds-size"="384" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #8 = { convergent mustprogress norecurse nounwind "amdgpu-flat-work-group-size"="1,1024" "amdgpu-lds-size"="512" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #9 = { convergent mustprogress norecurse nounwind "amdgpu-flat-work-group-size"="1,1024" "amdgpu-lds-size"="640" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #10 = { convergent mustprogress nofree noinline norecurse nounwind willreturn "amdgpu-agpr-alloc"="0" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="true" }
attributes #11 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #12 = { nounwind }
attributes #13 = { convergent nounwind }

!llvm.ident = !{!2}
!llvm.errno.tbaa = !{!3}
!llvm.module.flags = !{!7, !8, !9, !10, !11, !12}

!0 = !{i32 0, i32 1}
!1 = !{i32 256, i32 257}
!2 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!3 = !{!4, !4, i64 0}
!4 = !{!"int", !5, i64 0}
!5 = !{!"omnipotent char", !6, i64 0}
!6 = !{!"Simple C++ TBAA"}
!7 = !{i32 1, !"amdhsa_code_object_version", i32 600}
!8 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!9 = !{i32 1, !"wchar_size", i32 4}
!10 = !{i32 8, !"PIC Level", i32 2}
!11 = !{i32 1, !"ThinLTO", i32 0}
!12 = !{i32 1, !"EnableSplitLTOUnit", i32 1}
!13 = !{!14, !14, i64 0}
!14 = !{!"float", !5, i64 0}
!15 = !{i32 0}
!16 = !{!17}
!17 = distinct !{!17, !18}
!18 = distinct !{!18}
!19 = !{!20}
!20 = distinct !{!20, !18}
!21 = !{!22, !22, i64 0}
!22 = !{!"any pointer", !5, i64 0}
!23 = !{i32 1}
!24 = !{!25}
!25 = distinct !{!25, !26}
!26 = distinct !{!26}
!27 = !{!28}
!28 = distinct !{!28, !26}
!29 = !{i32 2}
!30 = !{!31}
!31 = distinct !{!31, !32}
!32 = distinct !{!32}
!33 = !{!34}
!34 = distinct !{!34, !32}
