; ModuleID = 'scc.cpp'
source_filename = "scc.cpp"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

%"struct.sycl::specialization_id" = type { i8 }
%"struct.sycl::specialization_id.0" = type { %struct.P }
%struct.P = type { i8, i32, [2 x float] }
%class.anon = type { ptr addrspace(4), ptr addrspace(4) }

@.str = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_c\00", align 1
@_ZL4c_id = internal addrspace(1) constant %"struct.sycl::specialization_id" { i8 122 }, align 1
@.str.1 = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_p\00", align 1
@_ZL4p_id = internal addrspace(1) constant %"struct.sycl::specialization_id.0" { %struct.P { i8 97, i32 7, [2 x float] [float 1.000000e+00, float 2.500000e+00] } }, align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define spir_kernel void @_ZTS2KS(ptr noundef readonly byval(%class.anon) align 8 captures(none) %k) local_unnamed_addr #0 {
entry:
  %p.i = alloca %struct.P, align 4
  %k.ascast = addrspacecast ptr %k to ptr addrspace(4)
  %p.ascast.i = addrspacecast ptr %p.i to ptr addrspace(4)
  %0 = getelementptr inbounds nuw i8, ptr addrspace(4) %k.ascast, i64 8
  %1 = load ptr addrspace(4), ptr addrspace(4) %0, align 8, !tbaa !6
  %call.i = tail call spir_func noundef signext i8 @_Z37__sycl_getScalar2020SpecConstantValueIcET_PKcPKvS4_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL4c_id to ptr addrspace(4)), ptr addrspace(4) noundef %1) #3
  %conv.i = sext i8 %call.i to i32
  %2 = load ptr addrspace(4), ptr addrspace(4) %k.ascast, align 8, !tbaa !10
  %arrayidx.i = getelementptr inbounds nuw i8, ptr addrspace(4) %2, i64 12
  store i32 %conv.i, ptr addrspace(4) %arrayidx.i, align 4, !tbaa !2
  call void @llvm.lifetime.start.p0(ptr nonnull %p.i) #4
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI1PET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.P) align 4 %p.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.1 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL4p_id to ptr addrspace(4)), ptr addrspace(4) noundef %1) #3
  %i.i = getelementptr inbounds nuw i8, ptr addrspace(4) %p.ascast.i, i64 4
  %3 = load i32, ptr addrspace(4) %i.i, align 4, !tbaa !11
  %4 = load i8, ptr addrspace(4) %p.ascast.i, align 4, !tbaa !13
  %conv2.i = sext i8 %4 to i32
  %add.i = add nsw i32 %3, %conv2.i
  %arrayidx3.i = getelementptr inbounds nuw i8, ptr addrspace(4) %p.ascast.i, i64 12
  %5 = load float, ptr addrspace(4) %arrayidx3.i, align 4, !tbaa !14
  %conv4.i = fptosi float %5 to i32
  %add5.i = add nsw i32 %add.i, %conv4.i
  store i32 %add5.i, ptr addrspace(4) %2, align 4, !tbaa !2
  call void @llvm.lifetime.end.p0(ptr nonnull %p.i) #4
  ret void
}

; Function Attrs: convergent nounwind
declare spir_func noundef signext i8 @_Z37__sycl_getScalar2020SpecConstantValueIcET_PKcPKvS4_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #2

; Function Attrs: convergent nounwind
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI1PET_PKcPKvS5_(ptr dead_on_unwind writable sret(%struct.P) align 4, ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #2

attributes #0 = { convergent mustprogress norecurse nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { convergent nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #3 = { convergent nounwind }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0}
!llvm.ident = !{!1}
!llvm.errno.tbaa = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!2 = !{!3, !3, i64 0}
!3 = !{!"int", !4, i64 0}
!4 = !{!"omnipotent char", !5, i64 0}
!5 = !{!"Simple C++ TBAA"}
!6 = !{!7, !9, i64 8}
!7 = !{!"_ZTSZ4mainEUlvE_", !8, i64 0, !9, i64 8}
!8 = !{!"p1 int", !9, i64 0}
!9 = !{!"any pointer", !4, i64 0}
!10 = !{!7, !8, i64 0}
!11 = !{!12, !3, i64 4}
!12 = !{!"_ZTS1P", !4, i64 0, !3, i64 4, !4, i64 8}
!13 = !{!12, !4, i64 0}
!14 = !{!15, !15, i64 0}
!15 = !{!"float", !4, i64 0}
