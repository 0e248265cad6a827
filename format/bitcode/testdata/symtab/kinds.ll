; Symbol kinds for irsymtab / archive symbol table tests.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

module asm ".globl asm_global"
module asm "asm_global:"
module asm ".weak asm_weak"
module asm "asm_weak:"
module asm "asm_local:"
module asm "  call asm_undef"

$cd = comdat any

@gvar = global i32 1
@cvar = common global i32 0, align 8
@wvar = weak global i32 2
@lovar = linkonce_odr global i32 3, comdat($cd)
@hvar = hidden global i32 4
@pvar = protected global i32 5
@ivar = internal global i32 6
@privvar = private global i32 7
@tlsvar = thread_local global i32 8
@tlshid = hidden thread_local(initialexec) global i32 9
@extvar = external global i32
@ewvar = extern_weak global i32
@avail = available_externally global i32 10
@meta = global i32 11, section "llvm.metadata"
@sect = global i32 12, section ".mysect"
@constv = unnamed_addr constant i32 13
@llvm.used = appending global [1 x ptr] [ptr @usedfn], section "llvm.metadata"

define void @fn() { ret void }
define weak void @wfn() { ret void }
define linkonce void @lofn() { ret void }
define weak_odr hidden void @wofn() { ret void }
define internal void @usedfn() { ret void }
define private void @privfn() { ret void }
declare void @decl()
declare extern_weak void @ewdecl()
define available_externally void @availfn() { ret void }
declare i32 @llvm.ctpop.i32(i32)

@alias = alias i32, ptr @gvar
@falias = weak alias void (), ptr @fn
@halias = hidden alias i32, ptr @hvar
@ialias = internal alias void (), ptr @fn
define internal ptr @resolver() { ret ptr @fn }
@ifn = ifunc void (), ptr @resolver
@wifn = weak ifunc void (), ptr @resolver
