; Several embedded objects of odd sizes and encodings. In the bitstream:
;   @llvm.embedded.object      [1 x i8]  -> CST_CODE_STRING
;   @llvm.embedded.object.1    [7 x i8]  -> CST_CODE_STRING (non-ASCII)
;   @llvm.embedded.object.2    [9 x i8]  -> CST_CODE_CSTRING (one trailing NUL)
;   @llvm.embedded.object.3    <4 x i8>  -> CST_CODE_DATA (vector)
;   @llvm.embedded.object.4    [2 x i16] -> CST_CODE_DATA (little-endian bytes)
;   @llvm.embedded.object.5    [0 x i8]  -> CST_CODE_NULL (skipped, as by LLVM)
;   @llvm.embedded.object.6    [3 x i8]  -> CST_CODE_NULL (all zeros: skipped)
;   @not.listed                in .llvm.offloading but not in the metadata: skipped
;   @other.section             listed, but with !"other" as the second operand: skipped
@llvm.embedded.object = private constant [1 x i8] c"\FF", section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.1 = private constant [7 x i8] c"\00\80\FE\10\AD\E2\82", section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.2 = private constant [9 x i8] c"abcdefgh\00", section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.3 = private constant <4 x i8> <i8 1, i8 2, i8 -1, i8 4>, section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.4 = private constant [2 x i16] [i16 258, i16 -2], section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.5 = private constant [0 x i8] zeroinitializer, section ".llvm.offloading", align 8, !exclude !0
@llvm.embedded.object.6 = private constant [3 x i8] zeroinitializer, section ".llvm.offloading", align 8, !exclude !0
@not.listed = private constant [4 x i8] c"nope", section ".llvm.offloading", align 8
@other.section = private constant [4 x i8] c"skip", section ".llvm.offloading", align 8
@llvm.compiler.used = appending global [9 x ptr] [ptr @llvm.embedded.object, ptr @llvm.embedded.object.1, ptr @llvm.embedded.object.2, ptr @llvm.embedded.object.3, ptr @llvm.embedded.object.4, ptr @llvm.embedded.object.5, ptr @llvm.embedded.object.6, ptr @not.listed, ptr @other.section], section "llvm.metadata"

!llvm.embedded.objects = !{!1, !2, !3, !4, !5, !6, !7, !8}
!0 = !{}
!1 = !{ptr @llvm.embedded.object, !".llvm.offloading"}
!2 = !{ptr @llvm.embedded.object.1, !".llvm.offloading"}
!3 = !{ptr @llvm.embedded.object.2, !".llvm.offloading"}
!4 = !{ptr @llvm.embedded.object.3, !".llvm.offloading"}
!5 = !{ptr @llvm.embedded.object.4, !".llvm.offloading"}
!6 = !{ptr @llvm.embedded.object.5, !".llvm.offloading"}
!7 = !{ptr @llvm.embedded.object.6, !".llvm.offloading"}
!8 = !{ptr @other.section, !"other"}

; A function, an alias and an ifunc: they take value IDs before the
; constants, so miscounting them would shift every initializer.
define internal ptr @resolver() {
  ret ptr @impl
}
define internal void @impl() {
  ret void
}
@alias = internal alias [4 x i8], ptr @not.listed
@ifunc = internal ifunc void (), ptr @resolver
