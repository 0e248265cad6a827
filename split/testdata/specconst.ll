; ModuleID = 'sc.cpp'
source_filename = "sc.cpp"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

%"struct.sycl::specialization_id" = type { i32 }
%"struct.sycl::specialization_id.0" = type { double }
%class.anon = type { ptr addrspace(4), ptr addrspace(4) }

@.str = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_int\00", align 1
@_ZL6int_id = internal addrspace(1) constant %"struct.sycl::specialization_id" { i32 42 }, align 4
@.str.1 = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_dbl\00", align 1
@_ZL6dbl_id = internal addrspace(1) constant %"struct.sycl::specialization_id.0" { double 1.500000e+00 }, align 8

; Function Attrs: convergent mustprogress norecurse nounwind
define spir_kernel void @_ZTS2KS(ptr noundef readonly byval(%class.anon) align 8 captures(none) %k) local_unnamed_addr #0 {
entry:
  %k.ascast = addrspacecast ptr %k to ptr addrspace(4)
  %0 = getelementptr inbounds nuw i8, ptr addrspace(4) %k.ascast, i64 8
  %1 = load ptr addrspace(4), ptr addrspace(4) %0, align 8, !tbaa !6
  %call.i = tail call spir_func noundef i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6int_id to ptr addrspace(4)), ptr addrspace(4) noundef %1) #2
  %2 = load ptr addrspace(4), ptr addrspace(4) %k.ascast, align 8, !tbaa !10
  store i32 %call.i, ptr addrspace(4) %2, align 4, !tbaa !2
  %call2.i = tail call spir_func noundef double @_Z37__sycl_getScalar2020SpecConstantValueIdET_PKcPKvS4_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.1 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6dbl_id to ptr addrspace(4)), ptr addrspace(4) noundef %1) #2
  %conv.i = fptosi double %call2.i to i32
  %arrayidx3.i = getelementptr inbounds nuw i8, ptr addrspace(4) %2, i64 4
  store i32 %conv.i, ptr addrspace(4) %arrayidx3.i, align 4, !tbaa !2
  %call4.i = tail call spir_func noundef i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6int_id to ptr addrspace(4)), ptr addrspace(4) noundef %1) #2
  %arrayidx5.i = getelementptr inbounds nuw i8, ptr addrspace(4) %2, i64 8
  store i32 %call4.i, ptr addrspace(4) %arrayidx5.i, align 4, !tbaa !2
  ret void
}

; Function Attrs: convergent nounwind
declare spir_func noundef i32 @_Z37__sycl_getScalar2020SpecConstantValueIiET_PKcPKvS4_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare spir_func noundef double @_Z37__sycl_getScalar2020SpecConstantValueIdET_PKcPKvS4_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #1

attributes #0 = { convergent mustprogress norecurse nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { convergent nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #2 = { convergent nounwind }

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
