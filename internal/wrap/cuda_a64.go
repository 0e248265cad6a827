package wrap

import "github.com/offload-kit/offload-kit/internal/objw"

// emitGPUA64 emits <prefix>.fatbin_reg, .fatbin_unreg and .globals_reg for
// AArch64 (AAPCS64: arguments in x0-x7, then on the stack; x19-x21 are
// callee-saved and hold h, stop and the current entry).
func emitGPUA64(m *module, fl gpuFlavor, segSym, bssSym *objw.Symbol) {
	rt := func(name string) *objw.Symbol { return m.extern(fl.rt + name) }
	reg, unreg, globals := fl.prefix+".fatbin_reg", fl.prefix+".fatbin_unreg", fl.prefix+".globals_reg"
	c := m.c

	c.fn(reg)
	c.ins(a64PushLRX19) // stp  x30, x19, [sp, #-16]!
	c.cfaOffset(16)
	c.saved(dwA64LR, 16)
	c.saved(dwA64X19, 8)
	c.a64AdrpAdd(0, segSym, 0)                                                 // adrp x0, .fatbin_wrapper ; add x0, x0, :lo12:
	c.a64Bl(rt("RegisterFatBinary"))                                           // bl   __{cuda,hip}RegisterFatBinary
	c.ins(a64MovX(19, 0))                                                      // mov  x19, x0                 h
	c.insReloc(0x90000000|8, objw.R_AARCH64_ADR_PREL_PG_HI21, bssSym, 0)       // adrp x8, binary_handle
	c.insReloc(a64StrX(0, 8, 0), objw.R_AARCH64_LDST64_ABS_LO12_NC, bssSym, 0) // str x0, [x8, :lo12:binary_handle]
	c.a64BlLocal(globals)                                                      // bl   <prefix>.globals_reg    (x0 = h)
	if fl.callEnd {
		c.ins(a64MovX(0, 19))                           // mov  x0, x19
		c.a64Bl(m.extern("__cudaRegisterFatBinaryEnd")) // bl   __cudaRegisterFatBinaryEnd
	}
	m.callAtexit(unreg) // atexit(<prefix>.fatbin_unreg)
	c.ins(a64PopLRX19)  // ldp  x30, x19, [sp], #16
	c.cfaOffset(0)
	c.restored(dwA64LR)
	c.restored(dwA64X19)
	c.ins(a64Ret) // ret
	c.endFn()

	c.fn(unreg)
	c.ins(a64PushLR) // str  x30, [sp, #-16]!
	c.cfaOffset(16)
	c.saved(dwA64LR, 16)
	c.insReloc(0x90000000|8, objw.R_AARCH64_ADR_PREL_PG_HI21, bssSym, 0)       // adrp x8, binary_handle
	c.insReloc(a64LdrX(0, 8, 0), objw.R_AARCH64_LDST64_ABS_LO12_NC, bssSym, 0) // ldr  x0, [x8, :lo12:binary_handle]
	c.a64Bl(rt("UnregisterFatBinary"))                                         // bl   __{cuda,hip}UnregisterFatBinary
	c.ins(a64PopLR)                                                            // ldr  x30, [sp], #16
	c.cfaOffset(0)
	c.restored(dwA64LR)
	c.ins(a64Ret) // ret
	c.endFn()

	start, stop := m.entryBounds()
	a := m.abi
	l := func(s string) string { return globals + "." + s }
	c.fn(globals)
	c.ins(a64SubImm(sp, sp, 48)) // sub  sp, sp, #48           [sp, sp+16): stack args
	c.cfaOffset(48)
	c.ins(a64Stp(30, 21, sp, 16)) // stp  x30, x21, [sp, #16]
	c.saved(dwA64LR, 32)
	c.saved(dwA64X21, 24)
	c.ins(a64Stp(20, 19, sp, 32)) // stp  x20, x19, [sp, #32]
	c.saved(dwA64X20, 16)
	c.saved(dwA64X19, 8)
	c.ins(a64MovX(19, 0))        // mov  x19, x0               h
	c.a64AdrpAdd(21, start, 0)   // adrp/add x21, __start_llvm_offload_entries
	c.a64AdrpAdd(20, stop, 0)    // adrp/add x20, __stop_llvm_offload_entries
	c.label(l("loop"))           // loop:
	c.ins(a64CmpX(21, 20))       // cmp  x21, x20
	c.a64BCond(condHS, l("end")) // b.hs end                   entry >= stop
	if a.kindCheck {
		c.ins(a64LdrH(8, 21, entryKind))      // ldrh w8, [x21, #10]        Kind
		c.ins(a64CmpWImm(8, uint32(fl.kind))) // cmp  w8, #kind
		c.a64BCond(condNE, l("next"))         // b.ne next
	}
	c.ins(a64LdrX(1, 21, uint32(a.entAddr)))  // ldr  x1, [x21, #addr]      addr
	c.ins(a64LdrX(2, 21, uint32(a.entName)))  // ldr  x2, [x21, #name]      name
	c.ins(a64LdrX(8, 21, uint32(a.entSize8))) // ldr  x8, [x21, #size]      size
	c.ins(a64MovX(0, 19))                     // mov  x0, x19               h
	c.ins(a64CmpXImm(8, 0))                   // cmp  x8, #0
	c.a64BCond(condNE, l("var"))              // b.ne var

	// Kernel: RegisterFunction(h, addr, name, name, -1, 0, 0, 0, [sp]=0, [sp+8]=0).
	c.ins(a64MovX(3, 2))            // mov  x3, x2
	c.ins(a64MovW4Minus)            // mov  w4, #-1
	c.ins(a64MovX(5, xzr))          // mov  x5, xzr
	c.ins(a64MovX(6, xzr))          // mov  x6, xzr
	c.ins(a64MovX(7, xzr))          // mov  x7, xzr
	c.ins(a64Stp(xzr, xzr, sp, 0))  // stp  xzr, xzr, [sp]       args 9, 10
	c.a64Bl(rt("RegisterFunction")) // bl __{cuda,hip}RegisterFunction
	c.a64B(l("next"))

	c.label(l("var"))
	c.ins(a64LdrW(9, 21, uint32(a.entFlags))) // ldr  w9, [x21, #flags]    flags
	if a.typeMask {
		c.ins(a64Ubfx(10, 9, 0, 3)) // ubfx w10, w9, #0, #3      type
	} else {
		c.ins(a64MovW(10, 9)) // mov  w10, w9              LLVM 16: the whole flags value is the type
	}
	c.ins(a64CmpWImm(10, 0)) // cmp  w10, #0
	c.a64BCond(condEQ, l("global"))
	if a.managed {
		c.ins(a64CmpWImm(10, 1)) // cmp  w10, #1
		c.a64BCond(condEQ, l("managed"))
	}
	if fl.surfTex {
		c.ins(a64CmpWImm(10, 2)) // cmp  w10, #2
		c.a64BCond(condEQ, l("surface"))
		c.ins(a64CmpWImm(10, 3)) // cmp  w10, #3
		c.a64BCond(condEQ, l("texture"))
	}
	c.a64B(l("next")) // other types

	// Global: RegisterVar(h, addr, name, name, extern, size, constant, 0).
	c.label(l("global"))
	c.ins(a64MovX(3, 2))       // mov  x3, x2
	c.ins(a64Ubfx(4, 9, 3, 1)) // ubfx w4, w9, #3, #1       extern
	c.ins(a64MovX(5, 8))       // mov  x5, x8               size
	c.ins(a64Ubfx(6, 9, 4, 1)) // ubfx w6, w9, #4, #1       constant
	c.ins(a64MovW(7, xzr))     // mov  w7, wzr
	c.a64Bl(rt("RegisterVar"))
	c.a64B(l("next"))

	if a.managed {
		// Managed: RegisterManagedVar(h, aux_addr, addr, name, size, (i32)data).
		c.label(l("managed"))
		c.ins(a64MovX(3, 2))             // mov  x3, x2               name
		c.ins(a64MovX(2, 1))             // mov  x2, x1               addr
		c.ins(a64LdrX(1, 21, entryAux))  // ldr  x1, [x21, #48]       aux_addr
		c.ins(a64MovX(4, 8))             // mov  x4, x8               size
		c.ins(a64LdrW(5, 21, entryData)) // ldr  w5, [x21, #40]      data
		c.a64Bl(rt("RegisterManagedVar"))
		c.a64B(l("next"))
	}

	if fl.surfTex {
		// Surface: RegisterSurface(h, addr, name, name, (i32)data, extern).
		c.label(l("surface"))
		c.ins(a64MovX(3, 2))                     // mov  x3, x2
		c.ins(a64LdrW(4, 21, uint32(a.entData))) // ldr  w4, [x21, #data]    data (LLVM 19: reserved)
		c.ins(a64Ubfx(5, 9, 3, 1))               // ubfx w5, w9, #3, #1      extern
		c.a64Bl(rt("RegisterSurface"))
		c.a64B(l("next"))

		// Texture: RegisterTexture(h, addr, name, name, (i32)data, normalized, extern).
		c.label(l("texture"))
		c.ins(a64MovX(3, 2))                     // mov  x3, x2
		c.ins(a64LdrW(4, 21, uint32(a.entData))) // ldr  w4, [x21, #data]    data (LLVM 19: reserved)
		c.ins(a64Ubfx(5, 9, 5, 1))               // ubfx w5, w9, #5, #1      normalized
		c.ins(a64Ubfx(6, 9, 3, 1))               // ubfx w6, w9, #3, #1      extern
		c.a64Bl(rt("RegisterTexture"))
		c.a64B(l("next"))
	}

	c.label(l("next"))
	c.ins(a64AddImm(21, 21, uint32(a.entSize))) // add  x21, x21, #56 (32 for LLVM 16-19)
	c.a64B(l("loop"))
	c.label(l("end"))
	c.ins(a64Ldp(20, 19, sp, 32)) // ldp  x20, x19, [sp, #32]
	c.ins(a64Ldp(30, 21, sp, 16)) // ldp  x30, x21, [sp, #16]
	c.ins(a64AddImm(sp, sp, 48))  // add  sp, sp, #48
	c.cfaOffset(0)
	c.restored(dwA64LR)
	c.restored(dwA64X21)
	c.restored(dwA64X20)
	c.restored(dwA64X19)
	c.ins(a64Ret) // ret
	c.endFn()
}
