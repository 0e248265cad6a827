; Globals in .llvm.offloading without !llvm.embedded.objects: LLVM finds
; nothing; this package falls back to the section and returns both.
@a = private constant [3 x i8] c"\10\FF\10", section ".llvm.offloading", align 8
@b = internal constant [2 x i8] c"\AD\01", section ".llvm.offloading", align 8
@c = private constant [2 x i8] c"no", section ".rodata", align 8
@llvm.compiler.used = appending global [2 x ptr] [ptr @a, ptr @b], section "llvm.metadata"
