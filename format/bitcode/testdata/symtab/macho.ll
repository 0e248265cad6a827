; Mach-O mangling: globals get a '_' prefix, private ones 'L'/'l'.
target datalayout = "e-m:o-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "arm64-apple-macosx14.0.0"

@data = global i32 1
@"\01raw_name" = global i32 2
@priv = private global i32 3
@0 = global i32 9
@wk = weak_odr hidden global i32 4
define void @fn() { ret void }
declare void @undef_fn()
@al = alias void (), ptr @fn
