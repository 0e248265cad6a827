; x86 COFF mangling (m:x): '_' prefix except for '?' names, unnamed globals.
target datalayout = "e-m:x-p:32:32-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "i686-pc-windows-msvc"

@data = dso_local global i32 1
@"?cxx@@3HA" = dso_local global i32 2
@0 = dso_local global i32 3
@"\01raw" = dso_local global i32 4
define dso_local void @fn() { ret void }
define dso_local void @std64() { ret void }
