; x86 COFF mangling: '_' prefix, stdcall/fastcall decorations, dllexport.
target datalayout = "e-m:x-p:32:32-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:32-n8:16:32-a:0:32-S32"
target triple = "i686-pc-windows-msvc"

$ld = comdat any
@data = dso_local global i32 1
@cvar = common global i32 0
@ld = linkonce_odr dso_local global i32 5, comdat
define dso_local x86_stdcallcc void @std(i32 %a) { ret void }
define dso_local x86_fastcallcc void @fast(i32 inreg %a) { ret void }
define dllexport void @exported() { ret void }
define weak void @weakfn() { ret void }
declare dllimport void @imported()
