; ModuleID = 'specconst-native.cpp'
source_filename = "specconst-native.cpp"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64"

%"struct.sycl::specialization_id" = type { %struct.Pad }
%struct.Pad = type { i8, i32, i8 }
%"struct.sycl::specialization_id.0" = type { %struct.Out }
%struct.Out = type { %struct.In, double, [2 x %struct.In] }
%struct.In = type { i16, float }
%"struct.sycl::specialization_id.1" = type { <4 x float> }
%"struct.sycl::specialization_id.2" = type { <2 x i16> }
%"struct.sycl::specialization_id.3" = type { %struct.Flag }
%struct.Flag = type { i8, i32 }
%"struct.sycl::specialization_id.4" = type { %struct.Al }
%struct.Al = type { i8, [7 x i8], i32, [4 x i8] }
%"struct.sycl::specialization_id.5" = type { i8 }
%class.anon = type { ptr addrspace(4), ptr addrspace(4) }

@.str = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_pad\00", align 1
@_ZL6pad_id = internal addrspace(1) constant %"struct.sycl::specialization_id" { %struct.Pad { i8 112, i32 -3, i8 113 } }, align 4
@.str.1 = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_out\00", align 1
@_ZL6out_id = internal addrspace(1) constant %"struct.sycl::specialization_id.0" { %struct.Out { %struct.In { i16 1, float 5.000000e-01 }, double 2.250000e+00, [2 x %struct.In] [%struct.In { i16 3, float 1.500000e+00 }, %struct.In { i16 4, float -2.000000e+00 }] } }, align 8
@.str.2 = private unnamed_addr addrspace(1) constant [8 x i8] c"uid_vec\00", align 1
@_ZL6vec_id = internal addrspace(1) constant %"struct.sycl::specialization_id.1" { <4 x float> <float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00> }, align 16
@.str.3 = private unnamed_addr addrspace(1) constant [7 x i8] c"uid_v2\00", align 1
@_ZL5v2_id = internal addrspace(1) constant %"struct.sycl::specialization_id.2" { <2 x i16> <i16 5, i16 6> }, align 4
@.str.4 = private unnamed_addr addrspace(1) constant [9 x i8] c"uid_flag\00", align 1
@_ZL7flag_id = internal addrspace(1) constant %"struct.sycl::specialization_id.3" { %struct.Flag { i8 1, i32 9 } }, align 4
@.str.5 = private unnamed_addr addrspace(1) constant [7 x i8] c"uid_al\00", align 1
@_ZL5al_id = internal addrspace(1) constant %"struct.sycl::specialization_id.4" { %struct.Al { i8 97, [7 x i8] undef, i32 11, [4 x i8] undef } }, align 8
@.str.6 = private unnamed_addr addrspace(1) constant [6 x i8] c"uid_b\00", align 1
@_ZL4b_id = internal addrspace(1) constant %"struct.sycl::specialization_id.5" { i8 1 }, align 1

; Function Attrs: convergent mustprogress norecurse nounwind
define spir_kernel void @_ZTS2KN(ptr noundef readonly byval(%class.anon) align 8 captures(none) %k) local_unnamed_addr #0 {
entry:
  %p.i = alloca %struct.Pad, align 4
  %o.i = alloca %struct.Out, align 8
  %f.i = alloca %struct.Flag, align 4
  %a.i = alloca %struct.Al, align 8
  %p2.i = alloca %struct.Pad, align 4
  %k.ascast = addrspacecast ptr %k to ptr addrspace(4)
  %p.ascast.i = addrspacecast ptr %p.i to ptr addrspace(4)
  %o.ascast.i = addrspacecast ptr %o.i to ptr addrspace(4)
  %f.ascast.i = addrspacecast ptr %f.i to ptr addrspace(4)
  %a.ascast.i = addrspacecast ptr %a.i to ptr addrspace(4)
  %p2.ascast.i = addrspacecast ptr %p2.i to ptr addrspace(4)
  call void @llvm.lifetime.start.p0(ptr nonnull %p.i) #3
  %0 = load ptr addrspace(4), ptr addrspace(4) %k.ascast, align 8, !tbaa !6
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3PadET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.Pad) align 4 %p.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6pad_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  call void @llvm.lifetime.start.p0(ptr nonnull %o.i) #3
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3OutET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.Out) align 8 %o.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.1 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6out_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  %call.i = call spir_func noundef <4 x float> @_Z40__sycl_getComposite2020SpecConstantValueIDv4_fET_PKcPKvS5_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.2 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6vec_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  %call2.i = call spir_func noundef <2 x i16> @_Z40__sycl_getComposite2020SpecConstantValueIDv2_sET_PKcPKvS5_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.3 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL5v2_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  call void @llvm.lifetime.start.p0(ptr nonnull %f.i) #3
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI4FlagET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.Flag) align 4 %f.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.4 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL7flag_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  call void @llvm.lifetime.start.p0(ptr nonnull %a.i) #3
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI2AlET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.Al) align 8 %a.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.5 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL5al_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  %call3.i = call spir_func noundef zeroext i1 @_Z37__sycl_getScalar2020SpecConstantValueIbET_PKcPKvS4_(ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str.6 to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL4b_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  call void @llvm.lifetime.start.p0(ptr nonnull %p2.i) #3
  call spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3PadET_PKcPKvS5_(ptr dead_on_unwind nonnull writable sret(%struct.Pad) align 4 %p2.i, ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @.str to ptr addrspace(4)), ptr addrspace(4) noundef addrspacecast (ptr addrspace(1) @_ZL6pad_id to ptr addrspace(4)), ptr addrspace(4) noundef %0) #4
  %1 = load i8, ptr addrspace(4) %p.ascast.i, align 4, !tbaa !10
  %conv.i = sext i8 %1 to i32
  %i.i = getelementptr inbounds nuw i8, ptr addrspace(4) %p.ascast.i, i64 4
  %2 = load i32, ptr addrspace(4) %i.i, align 4, !tbaa !12
  %add.i = add nsw i32 %2, %conv.i
  %d.i = getelementptr inbounds nuw i8, ptr addrspace(4) %p.ascast.i, i64 8
  %3 = load i8, ptr addrspace(4) %d.i, align 4, !tbaa !13
  %conv4.i = sext i8 %3 to i32
  %add5.i = add nsw i32 %add.i, %conv4.i
  %i6.i = getelementptr inbounds nuw i8, ptr addrspace(4) %p2.ascast.i, i64 4
  %4 = load i32, ptr addrspace(4) %i6.i, align 4, !tbaa !12
  %add7.i = add nsw i32 %add5.i, %4
  %conv8.i = sitofp i32 %add7.i to float
  %5 = getelementptr inbounds nuw i8, ptr addrspace(4) %k.ascast, i64 8
  %6 = load ptr addrspace(4), ptr addrspace(4) %5, align 8, !tbaa !14
  store float %conv8.i, ptr addrspace(4) %6, align 4, !tbaa !15
  %7 = load i16, ptr addrspace(4) %o.ascast.i, align 8, !tbaa !17
  %conv11.i = sitofp i16 %7 to float
  %f13.i = getelementptr inbounds nuw i8, ptr addrspace(4) %o.ascast.i, i64 4
  %8 = load float, ptr addrspace(4) %f13.i, align 4, !tbaa !22
  %add14.i = fadd float %8, %conv11.i
  %conv15.i = fpext float %add14.i to double
  %d16.i = getelementptr inbounds nuw i8, ptr addrspace(4) %o.ascast.i, i64 8
  %9 = load double, ptr addrspace(4) %d16.i, align 8, !tbaa !23
  %add17.i = fadd double %9, %conv15.i
  %b18.i = getelementptr inbounds nuw i8, ptr addrspace(4) %o.ascast.i, i64 16
  %f20.i = getelementptr inbounds nuw i8, ptr addrspace(4) %o.ascast.i, i64 28
  %10 = load float, ptr addrspace(4) %f20.i, align 4, !tbaa !24
  %conv21.i = fpext float %10 to double
  %add22.i = fadd double %add17.i, %conv21.i
  %11 = load i16, ptr addrspace(4) %b18.i, align 8, !tbaa !25
  %conv27.i = sitofp i16 %11 to double
  %add28.i = fadd double %add22.i, %conv27.i
  %conv29.i = fptrunc double %add28.i to float
  %arrayidx30.i = getelementptr inbounds nuw i8, ptr addrspace(4) %6, i64 4
  store float %conv29.i, ptr addrspace(4) %arrayidx30.i, align 4, !tbaa !15
  %12 = extractelement <4 x float> %call.i, i64 0
  %13 = extractelement <4 x float> %call.i, i64 3
  %add31.i = fadd float %12, %13
  %14 = extractelement <2 x i16> %call2.i, i64 1
  %conv33.i = sitofp i16 %14 to float
  %add34.i = fadd float %add31.i, %conv33.i
  %arrayidx35.i = getelementptr inbounds nuw i8, ptr addrspace(4) %6, i64 8
  store float %add34.i, ptr addrspace(4) %arrayidx35.i, align 4, !tbaa !15
  %15 = load i8, ptr addrspace(4) %f.ascast.i, align 4, !tbaa !26, !range !29, !noundef !30
  %loadedv.i = trunc nuw i8 %15 to i1
  %n.i = getelementptr inbounds nuw i8, ptr addrspace(4) %f.ascast.i, i64 4
  %16 = load i32, ptr addrspace(4) %n.i, align 4
  %17 = sitofp i32 %16 to float
  %conv36.i = select i1 %loadedv.i, float %17, float 0.000000e+00
  %arrayidx37.i = getelementptr inbounds nuw i8, ptr addrspace(4) %6, i64 12
  store float %conv36.i, ptr addrspace(4) %arrayidx37.i, align 4, !tbaa !15
  %18 = load i8, ptr addrspace(4) %a.ascast.i, align 8, !tbaa !31
  %conv39.i = sext i8 %18 to i32
  %i40.i = getelementptr inbounds nuw i8, ptr addrspace(4) %a.ascast.i, i64 8
  %19 = load i32, ptr addrspace(4) %i40.i, align 8, !tbaa !33
  %cond43.i = zext i1 %call3.i to i32
  %add41.i = add nsw i32 %conv39.i, %cond43.i
  %add44.i = add i32 %add41.i, %19
  %conv45.i = sitofp i32 %add44.i to float
  %arrayidx46.i = getelementptr inbounds nuw i8, ptr addrspace(4) %6, i64 16
  store float %conv45.i, ptr addrspace(4) %arrayidx46.i, align 4, !tbaa !15
  call void @llvm.lifetime.end.p0(ptr nonnull %p2.i) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %a.i) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %f.i) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %o.i) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %p.i) #3
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #1

; Function Attrs: convergent nounwind
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3PadET_PKcPKvS5_(ptr dead_on_unwind writable sret(%struct.Pad) align 4, ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI3OutET_PKcPKvS5_(ptr dead_on_unwind writable sret(%struct.Out) align 8, ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func noundef <4 x float> @_Z40__sycl_getComposite2020SpecConstantValueIDv4_fET_PKcPKvS5_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func noundef <2 x i16> @_Z40__sycl_getComposite2020SpecConstantValueIDv2_sET_PKcPKvS5_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI4FlagET_PKcPKvS5_(ptr dead_on_unwind writable sret(%struct.Flag) align 4, ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func void @_Z40__sycl_getComposite2020SpecConstantValueI2AlET_PKcPKvS5_(ptr dead_on_unwind writable sret(%struct.Al) align 8, ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: convergent nounwind
declare spir_func noundef zeroext i1 @_Z37__sycl_getScalar2020SpecConstantValueIbET_PKcPKvS4_(ptr addrspace(4) noundef, ptr addrspace(4) noundef, ptr addrspace(4) noundef) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #1

attributes #0 = { convergent mustprogress norecurse nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { convergent nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { nounwind }
attributes #4 = { convergent nounwind }

!llvm.module.flags = !{!0}
!llvm.ident = !{!1}
!llvm.errno.tbaa = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!2 = !{!3, !3, i64 0}
!3 = !{!"int", !4, i64 0}
!4 = !{!"omnipotent char", !5, i64 0}
!5 = !{!"Simple C++ TBAA"}
!6 = !{!7, !8, i64 0}
!7 = !{!"_ZTSZ4mainEUlvE_", !8, i64 0, !9, i64 8}
!8 = !{!"any pointer", !4, i64 0}
!9 = !{!"p1 float", !8, i64 0}
!10 = !{!11, !4, i64 0}
!11 = !{!"_ZTS3Pad", !4, i64 0, !3, i64 4, !4, i64 8}
!12 = !{!11, !3, i64 4}
!13 = !{!11, !4, i64 8}
!14 = !{!7, !9, i64 8}
!15 = !{!16, !16, i64 0}
!16 = !{!"float", !4, i64 0}
!17 = !{!18, !20, i64 0}
!18 = !{!"_ZTS3Out", !19, i64 0, !21, i64 8, !4, i64 16}
!19 = !{!"_ZTS2In", !20, i64 0, !16, i64 4}
!20 = !{!"short", !4, i64 0}
!21 = !{!"double", !4, i64 0}
!22 = !{!18, !16, i64 4}
!23 = !{!18, !21, i64 8}
!24 = !{!19, !16, i64 4}
!25 = !{!19, !20, i64 0}
!26 = !{!27, !28, i64 0}
!27 = !{!"_ZTS4Flag", !28, i64 0, !3, i64 4}
!28 = !{!"bool", !4, i64 0}
!29 = !{i8 0, i8 2}
!30 = !{}
!31 = !{!32, !4, i64 0}
!32 = !{!"_ZTS2Al", !4, i64 0, !3, i64 8}
!33 = !{!32, !3, i64 8}
