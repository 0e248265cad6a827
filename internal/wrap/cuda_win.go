package wrap

import "github.com/offload-kit/offload-kit/internal/objw"

// emitGPUWin emits <prefix>.fatbin_reg, .fatbin_unreg and .globals_reg for
// the Windows x64 ABI: arguments in %rcx, %rdx, %r8, %r9, then on the
// stack above 32 bytes of shadow space; %rsi, %rdi and %rbx are
// callee-saved; every function has unwind codes for its prolog.
func emitGPUWin(m *module, fl gpuFlavor, segSym, bssSym *objw.Symbol) {
	rt := func(name string) *objw.Symbol { return m.extern(fl.rt + name) }
	reg, unreg, globals := fl.prefix+".fatbin_reg", fl.prefix+".fatbin_unreg", fl.prefix+".globals_reg"
	c := m.c

	c.fn(reg)
	c.op(0x56)                   // push %rsi
	c.op(0x48, 0x83, 0xec, 0x20) // sub  $0x20,%rsp
	c.winUnwind(5, [3]byte{1, uwopPushNonvol, 6}, [3]byte{5, uwopAllocSmall, (0x20 - 8) / 8})
	c.op(0x48, 0x8d, 0x0d)             // lea  .fatbin_wrapper(%rip),%rcx
	c.pcrel(segSym, 0)                 //
	c.callExt(rt("RegisterFatBinary")) // call __{cuda,hip}RegisterFatBinary
	c.op(0x48, 0x89, 0xc6)             // mov  %rax,%rsi             h
	c.op(0x48, 0x89, 0x05)             // mov  %rax,binary_handle(%rip)
	c.pcrel(bssSym, 0)                 //
	c.op(0x48, 0x89, 0xc1)             // mov  %rax,%rcx
	c.call(globals)                    // call <prefix>.globals_reg
	if fl.callEnd {
		c.op(0x48, 0x89, 0xf1)                            // mov  %rsi,%rcx
		c.callExt(m.extern("__cudaRegisterFatBinaryEnd")) // call __cudaRegisterFatBinaryEnd
	}
	m.callAtexit(unreg)          // atexit(<prefix>.fatbin_unreg)
	c.op(0x90)                   // nop
	c.op(0x48, 0x83, 0xc4, 0x20) // add  $0x20,%rsp
	c.op(0x5e)                   // pop  %rsi
	c.op(0xc3)                   // ret
	c.endFn()

	c.fn(unreg)
	c.op(0x48, 0x83, 0xec, 0x28) // sub  $0x28,%rsp
	c.winUnwind(4, [3]byte{4, uwopAllocSmall, (0x28 - 8) / 8})
	c.op(0x48, 0x8b, 0x0d)               // mov  binary_handle(%rip),%rcx
	c.pcrel(bssSym, 0)                   //
	c.callExt(rt("UnregisterFatBinary")) // call __{cuda,hip}UnregisterFatBinary
	c.op(0x90)                           // nop
	c.op(0x48, 0x83, 0xc4, 0x28)         // add  $0x28,%rsp
	c.op(0xc3)                           // ret
	c.endFn()

	// globals_reg(h): %rsi = h, %rbx = entry, %rdi = stop; 0x50 bytes of
	// frame = 32 shadow + 6 stack argument slots, keeping 16-byte alignment.
	start, stop := m.entryBounds()
	l := func(s string) string { return globals + "." + s }
	c.fn(globals)
	c.op(0x56)                   // push %rsi
	c.op(0x57)                   // push %rdi
	c.op(0x53)                   // push %rbx
	c.op(0x48, 0x83, 0xec, 0x50) // sub  $0x50,%rsp
	c.winUnwind(7, [3]byte{1, uwopPushNonvol, 6}, [3]byte{2, uwopPushNonvol, 7}, [3]byte{3, uwopPushNonvol, 3},
		[3]byte{7, uwopAllocSmall, (0x50 - 8) / 8})
	c.op(0x48, 0x89, 0xce)                 // mov  %rcx,%rsi             h
	c.op(0x48, 0x8d, 0x1d)                 // lea  __start_llvm_offload_entries(%rip),%rbx
	c.pcrel(start, 0)                      //
	c.op(0x48, 0x8d, 0x3d)                 // lea  __stop_llvm_offload_entries(%rip),%rdi
	c.pcrel(stop, 0)                       //
	c.label(l("loop"))                     // loop:
	c.op(0x48, 0x39, 0xfb)                 // cmp  %rdi,%rbx
	c.jcc(ccAE, l("end"))                  // jae  end
	c.op(0x66, 0x83, 0x7b, entryKind)      // cmpw $kind,0xa(%rbx)
	c.op(byte(fl.kind))                    //
	c.jcc(ccNE, l("next"))                 // jne  next
	c.op(0x48, 0x8b, 0x53, entryAddr)      // mov  0x10(%rbx),%rdx       addr
	c.op(0x4c, 0x8b, 0x43, entryName)      // mov  0x18(%rbx),%r8        name
	c.op(0x48, 0x8b, 0x43, entrySizeField) // mov  0x20(%rbx),%rax       size
	c.op(0x48, 0x89, 0xf1)                 // mov  %rsi,%rcx             h
	c.op(0x4d, 0x89, 0xc1)                 // mov  %r8,%r9               name (4th argument)
	c.op(0x48, 0x85, 0xc0)                 // test %rax,%rax
	c.jcc(ccNE, l("var"))                  // jne  var

	// Kernel: RegisterFunction(h, addr, name, name, -1, 0, 0, 0, 0, 0).
	c.op(0xc7, 0x44, 0x24, 0x20, 0xff, 0xff, 0xff, 0xff) // movl $-1,0x20(%rsp)
	for _, off := range []byte{0x28, 0x30, 0x38, 0x40, 0x48} {
		c.op(0x48, 0xc7, 0x44, 0x24, off, 0, 0, 0, 0) // movq $0,off(%rsp)
	}
	c.callExt(rt("RegisterFunction"))
	c.jmp(l("next"))

	c.label(l("var"))
	c.op(0x44, 0x8b, 0x53, entryFlags) // mov  0xc(%rbx),%r10d        flags
	c.op(0x45, 0x89, 0xd3)             // mov  %r10d,%r11d
	c.op(0x41, 0x83, 0xe3, 0x07)       // and  $7,%r11d               type
	c.jcc(ccE, l("global"))
	c.op(0x41, 0x83, 0xfb, 0x01) // cmp  $1,%r11d
	c.jcc(ccE, l("managed"))
	if fl.surfTex {
		c.op(0x41, 0x83, 0xfb, 0x02) // cmp  $2,%r11d
		c.jcc(ccE, l("surface"))
		c.op(0x41, 0x83, 0xfb, 0x03) // cmp  $3,%r11d
		c.jcc(ccE, l("texture"))
	}
	c.jmp(l("next"))

	// bit stores flag bit n of %r10d into the i32 stack slot off.
	bit := func(n, off byte) {
		c.op(0x44, 0x89, 0xd0)      // mov  %r10d,%eax
		c.op(0xc1, 0xe8, n)         // shr  $n,%eax
		c.op(0x83, 0xe0, 0x01)      // and  $1,%eax
		c.op(0x89, 0x44, 0x24, off) // mov  %eax,off(%rsp)
	}
	data := func(off byte) {
		c.op(0x8b, 0x43, entryData) // mov  0x28(%rbx),%eax        data
		c.op(0x89, 0x44, 0x24, off) // mov  %eax,off(%rsp)
	}

	// Global: RegisterVar(h, addr, name, name, extern, size, constant, 0).
	c.label(l("global"))
	c.op(0x48, 0x89, 0x44, 0x24, 0x28)       // mov  %rax,0x28(%rsp)       size
	bit(3, 0x20)                             // extern   -> 0x20(%rsp)
	bit(4, 0x30)                             // constant -> 0x30(%rsp)
	c.op(0xc7, 0x44, 0x24, 0x38, 0, 0, 0, 0) // movl $0,0x38(%rsp)
	c.callExt(rt("RegisterVar"))
	c.jmp(l("next"))

	// Managed: RegisterManagedVar(h, aux_addr, addr, name, size, (i32)data).
	c.label(l("managed"))
	c.op(0x49, 0x89, 0xd0)             // mov  %rdx,%r8               addr
	c.op(0x48, 0x8b, 0x53, entryAux)   // mov  0x30(%rbx),%rdx        aux_addr
	c.op(0x48, 0x89, 0x44, 0x24, 0x20) // mov  %rax,0x20(%rsp)        size
	data(0x28)                         // data -> 0x28(%rsp)
	c.callExt(rt("RegisterManagedVar"))
	c.jmp(l("next"))

	if fl.surfTex {
		// Surface: RegisterSurface(h, addr, name, name, (i32)data, extern).
		c.label(l("surface"))
		data(0x20)
		bit(3, 0x28)
		c.callExt(rt("RegisterSurface"))
		c.jmp(l("next"))

		// Texture: RegisterTexture(h, addr, name, name, (i32)data, normalized, extern).
		c.label(l("texture"))
		data(0x20)
		bit(5, 0x28)
		bit(3, 0x30)
		c.callExt(rt("RegisterTexture"))
		c.jmp(l("next"))
	}

	c.label(l("next"))
	c.op(0x48, 0x83, 0xc3, entrySize) // add  $56,%rbx
	c.jmp(l("loop"))
	c.label(l("end"))
	c.op(0x48, 0x83, 0xc4, 0x50) // add  $0x50,%rsp
	c.op(0x5b)                   // pop  %rbx
	c.op(0x5f)                   // pop  %rdi
	c.op(0x5e)                   // pop  %rsi
	c.op(0xc3)                   // ret
	c.endFn()
}
