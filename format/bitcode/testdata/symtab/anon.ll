; Unnamed globals ("__unnamed_N", numbered in printing order), '\01'
; names, and two modules' worth of names when concatenated.
target datalayout = "e-m:e-i64:64-n32:64"
target triple = "x86_64-unknown-linux-gnu"

@0 = global i32 1
@1 = private global i32 2
@2 = internal global i32 3
@"\01raw" = global i32 4
@llvm.foo = global i32 5
@named = global i32 6
@3 = weak global i32 7
define void @4() { ret void }
define hidden void @"\01rawfn"() { ret void }
@5 = alias i32, ptr @0
