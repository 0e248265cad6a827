package wrap

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/objw"
	"github.com/offload-kit/offload-kit/internal/release"
)

// gpuFlavor holds what differs between the CUDA and HIP registration code
// (spec §9.3, §9.4).
type gpuFlavor struct {
	prefix      string // ".cuda" / ".hip" (symbol prefix)
	rt          string // "__cuda" / "__hip" (runtime function prefix)
	magic       uint32
	fatbinSec   string
	segmentSec  string
	kind        uint16 // entry Kind to register
	relKind     string // release.KindCUDA / release.KindHIP
	callEnd     bool   // call __cudaRegisterFatBinaryEnd
	surfTex     bool   // register surfaces and textures
	fatbinAlign uint64 // 0: x86-64 default for a [n x i8] constant
}

func cudaFlavor() gpuFlavor {
	return gpuFlavor{prefix: ".cuda", rt: "__cuda", magic: 0x466243B1,
		fatbinSec: ".nv_fatbin", segmentSec: ".nvFatBinSegment", kind: kindCUDA, relKind: release.KindCUDA, callEnd: true}
}

func hipFlavor() gpuFlavor {
	return gpuFlavor{prefix: ".hip", rt: "__hip", magic: 0x48495046,
		fatbinSec: ".hip_fatbin", segmentSec: ".hipFatBinSegment", kind: kindHIP, relKind: release.KindHIP, surfTex: true}
}

// CUDA returns the registration object for a CUDA fat binary (spec §9.3).
// The fatbin bytes are wrapped as they are.
func CUDA(opts Options, fatbin []byte) ([]byte, error) {
	return encode(BuildCUDA(opts, fatbin))
}

// HIP returns the registration object for a HIP fat binary (an offload
// bundle, spec §9.4).
func HIP(opts Options, fatbin []byte) ([]byte, error) {
	return encode(BuildHIP(opts, fatbin))
}

// BuildCUDA is CUDA returning the object model.
func BuildCUDA(opts Options, fatbin []byte) (*objw.Object, error) {
	return buildGPU(opts, fatbin, cudaFlavor())
}

// BuildHIP is HIP returning the object model.
func BuildHIP(opts Options, fatbin []byte) (*objw.Object, error) {
	return buildGPU(opts, fatbin, hipFlavor())
}

func buildGPU(opts Options, fatbin []byte, fl gpuFlavor) (*objw.Object, error) {
	a := abiOf(opts)
	m, err := newKindModule(opts, a, fl.relKind)
	if err != nil {
		return nil, err
	}
	if !a.surfTexHIP {
		fl.surfTex = false
	}
	o := m.o

	// .fatbin_image: an [n x i8] constant with the default alignment: 16
	// once it is larger than 16 bytes (DataLayout::getPreferredAlign:
	// more than 128 bits), else 1.
	align := fl.fatbinAlign
	if align == 0 {
		align = 1
		if len(fatbin) > 16 {
			align = 16
		}
	}
	img := o.AddSection(fl.fatbinSec, format.SHT_PROGBITS, format.SHF_ALLOC, align, fatbin)
	o.AddSymbol(".fatbin_image", img, 0, uint64(len(fatbin)), format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)

	// .fatbin_wrapper = {i32 magic, i32 1, ptr image, ptr null}.
	segFlags := format.SHF_WRITE | format.SHF_ALLOC
	if m.coff {
		segFlags = format.SHF_ALLOC
	}
	seg := o.AddSection(fl.segmentSec, format.SHT_PROGBITS, segFlags, 8, nil)
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:], fl.magic)
	binary.LittleEndian.PutUint32(hdr[4:], 1)
	seg.Append(hdr[:])
	m.ptr(seg, m.secSym(img), 0)
	m.ptr(seg, nil, 0)
	o.AddSymbol(".fatbin_wrapper", seg, 0, 24, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	if m.entries == nil && a.entriesLate { // LLVM 16: the entry section follows the fatbin's
		m.addEntrySection()
	}

	// .<kind>.binary_handle: one pointer in .bss.
	bss := m.bss
	if bss == nil {
		bss = o.AddSection(".bss", format.SHT_NOBITS, format.SHF_WRITE|format.SHF_ALLOC, 8, nil)
	}
	bss.Align = 8
	bss.Reserve(8)
	o.AddSymbol(fl.prefix+".binary_handle", bss, 0, 8, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)

	segSym, bssSym := m.secSym(seg), m.secSym(bss)
	reg := fl.prefix + ".fatbin_reg"
	switch {
	case m.a64:
		emitGPUA64(m, fl, segSym, bssSym)
	case m.win:
		emitGPUWin(m, fl, segSym, bssSym)
	default:
		emitGPUX86(m, fl, segSym, bssSym)
	}

	m.ctorArray(a.ctorPrio, false, m.fnOff(reg))
	if _, err := m.finish(); err != nil {
		return nil, err
	}
	return o, nil
}

// emitGlobalsReg emits <prefix>.globals_reg(void *h): the walk over
// [__start_llvm_offload_entries, __stop_llvm_offload_entries) that
// registers every entry of the flavor's kind (spec §9.3 table), or, for
// LLVM 16-19 (a.legacy), over the flavor's own section of 32-byte
// __tgt_offload_entry records, decoded as that release's wrapper does.
//
// Registers: %rbx = h, %r15 = current entry, %r14 = stop; %rsi = addr,
// %rdx = name, %rax = size, %r10d = flags while dispatching. After the
// three pushes the stack is 16-byte aligned; every call keeps it so.
func emitGlobalsReg(c *code, name string, fl gpuFlavor, a regABI, start, stop *objw.Symbol, rt func(string) *objw.Symbol) {
	c.fn(name)
	c.op(0x41, 0x57) // push %r15
	c.cfaOffset(16)
	c.saved(dwX86R15, 16)
	c.op(0x41, 0x56) // push %r14
	c.cfaOffset(24)
	c.saved(dwX86R14, 24)
	c.op(0x53) // push %rbx
	c.cfaOffset(32)
	c.saved(dwX86RBX, 32)
	c.op(0x48, 0x89, 0xfb)   // mov  %rdi,%rbx                 h
	c.op(0x4c, 0x8d, 0x3d)   // lea  __start_llvm_offload_entries(%rip),%r15
	c.pcrel(start, 0)        //
	c.op(0x4c, 0x8d, 0x35)   // lea  __stop_llvm_offload_entries(%rip),%r14
	c.pcrel(stop, 0)         //
	c.label(name + ".loop")  // loop:
	c.op(0x4d, 0x39, 0xf7)   // cmp  %r14,%r15
	c.jcc(ccAE, name+".end") // jae  end                       entry >= stop
	if a.kindCheck {
		c.op(0x66, 0x41, 0x83, 0x7f, entryKind) // cmpw $kind,0xa(%r15)           entry->Kind
		c.op(byte(fl.kind))                     //
		c.jcc(ccNE, name+".next")               // jne  next
	}
	movR15(c, 0x77, a.entAddr)  // mov  addr(%r15),%rsi           addr
	movR15(c, 0x57, a.entName)  // mov  name(%r15),%rdx           name
	movR15(c, 0x47, a.entSize8) // mov  size(%r15),%rax           size
	c.op(0x48, 0x89, 0xdf)      // mov  %rbx,%rdi                 h
	c.op(0x48, 0x85, 0xc0)      // test %rax,%rax
	c.jcc(ccNE, name+".var")    // jne  var                       size != 0

	// Kernel: RegisterFunction(h, addr, name, name, -1, 0, 0, 0, 0, 0).
	c.op(0x48, 0x89, 0xd1)                   // mov  %rdx,%rcx
	c.op(0x41, 0xb8, 0xff, 0xff, 0xff, 0xff) // mov  $-1,%r8d
	c.op(0x45, 0x31, 0xc9)                   // xor  %r9d,%r9d
	c.op(0x6a, 0x00, 0x6a, 0x00)             // push $0 ; push $0
	c.cfaOffset(48)
	c.op(0x6a, 0x00, 0x6a, 0x00) // push $0 ; push $0           args 7-10
	c.cfaOffset(64)
	c.callExt(rt("RegisterFunction")) // call __{cuda,hip}RegisterFunction@PLT
	c.op(0x48, 0x83, 0xc4, 0x20)      // add  $32,%rsp
	c.cfaOffset(32)
	c.jmp(name + ".next") // jmp  next

	c.label(name + ".var")             // var:
	c.op(0x45, 0x8b, 0x57, a.entFlags) // mov  flags(%r15),%r10d        flags
	c.op(0x45, 0x89, 0xd3)             // mov  %r10d,%r11d
	if a.typeMask {
		c.op(0x41, 0x83, 0xe3, 0x07) // and  $7,%r11d                 type
	} else {
		c.op(0x45, 0x85, 0xdb) // test %r11d,%r11d              LLVM 16: the whole flags value is the type
	}
	c.jcc(ccE, name+".global") // je   global                   type 0
	if a.managed {
		c.op(0x41, 0x83, 0xfb, 0x01) // cmp  $1,%r11d
		c.jcc(ccE, name+".managed")  // je   managed
	}
	if fl.surfTex {
		c.op(0x41, 0x83, 0xfb, 0x02) // cmp  $2,%r11d
		c.jcc(ccE, name+".surface")  // je   surface
		c.op(0x41, 0x83, 0xfb, 0x03) // cmp  $3,%r11d
		c.jcc(ccE, name+".texture")  // je   texture
	}
	c.jmp(name + ".next") // jmp  next                     other types

	// Global: RegisterVar(h, addr, name, name, extern, size, constant, 0).
	c.label(name + ".global")
	c.op(0x48, 0x89, 0xd1)       // mov  %rdx,%rcx
	c.op(0x45, 0x89, 0xd0)       // mov  %r10d,%r8d
	c.op(0x41, 0xc1, 0xe8, 0x03) // shr  $3,%r8d
	c.op(0x41, 0x83, 0xe0, 0x01) // and  $1,%r8d                  extern
	c.op(0x49, 0x89, 0xc1)       // mov  %rax,%r9                 size
	c.op(0x44, 0x89, 0xd0)       // mov  %r10d,%eax
	c.op(0xc1, 0xe8, 0x04)       // shr  $4,%eax
	c.op(0x83, 0xe0, 0x01)       // and  $1,%eax                  constant
	c.op(0x6a, 0x00)             // push $0                       arg 8
	c.cfaOffset(40)
	c.op(0x50) // push %rax                     arg 7
	c.cfaOffset(48)
	c.callExt(rt("RegisterVar")) // call __{cuda,hip}RegisterVar@PLT
	c.op(0x48, 0x83, 0xc4, 0x10) // add  $16,%rsp
	c.cfaOffset(32)
	c.jmp(name + ".next")

	if a.managed {
		// Managed: RegisterManagedVar(h, aux_addr, addr, name, size, (i32)data).
		c.label(name + ".managed")
		c.op(0x48, 0x89, 0xd1)              // mov  %rdx,%rcx                name
		c.op(0x48, 0x89, 0xf2)              // mov  %rsi,%rdx                addr
		c.op(0x49, 0x8b, 0x77, entryAux)    // mov  0x30(%r15),%rsi          aux_addr
		c.op(0x49, 0x89, 0xc0)              // mov  %rax,%r8                 size
		c.op(0x45, 0x8b, 0x4f, entryData)   // mov  0x28(%r15),%r9d          data
		c.callExt(rt("RegisterManagedVar")) // call __{cuda,hip}RegisterManagedVar@PLT
		c.jmp(name + ".next")
	}

	if fl.surfTex {
		// surfTexArgs loads the arguments RegisterSurface and
		// RegisterTexture share after (h, addr): name twice, (i32)data
		// (Data, or LLVM 19's reserved field), then flags bit `bit` as the
		// sixth.
		surfTexArgs := func(bit byte) {
			c.op(0x48, 0x89, 0xd1)            // mov  %rdx,%rcx
			c.op(0x45, 0x8b, 0x47, a.entData) // mov  data(%r15),%r8d          data
			c.op(0x45, 0x89, 0xd1)            // mov  %r10d,%r9d
			c.op(0x41, 0xc1, 0xe9, bit)       // shr  $bit,%r9d
			c.op(0x41, 0x83, 0xe1, 0x01)      // and  $1,%r9d
		}

		// Surface: RegisterSurface(h, addr, name, name, (i32)data, extern).
		c.label(name + ".surface")
		surfTexArgs(3)                   // extern
		c.callExt(rt("RegisterSurface")) // call __hipRegisterSurface@PLT
		c.jmp(name + ".next")

		// Texture: RegisterTexture(h, addr, name, name, (i32)data, normalized, extern).
		c.label(name + ".texture")
		surfTexArgs(5)               // normalized
		c.op(0x44, 0x89, 0xd0)       // mov  %r10d,%eax
		c.op(0xc1, 0xe8, 0x03)       // shr  $3,%eax
		c.op(0x83, 0xe0, 0x01)       // and  $1,%eax                  extern
		c.op(0x48, 0x83, 0xec, 0x08) // sub  $8,%rsp                  keep alignment
		c.cfaOffset(40)
		c.op(0x50) // push %rax                     arg 7
		c.cfaOffset(48)
		c.callExt(rt("RegisterTexture")) // call __hipRegisterTexture@PLT
		c.op(0x48, 0x83, 0xc4, 0x10)     // add  $16,%rsp
		c.cfaOffset(32)
		c.jmp(name + ".next")
	}

	c.label(name + ".next")           // next:
	c.op(0x49, 0x83, 0xc7, a.entSize) // add  $56,%r15 (32 for LLVM 16-19)
	c.jmp(name + ".loop")             // jmp  loop
	c.label(name + ".end")            // end:
	c.op(0x5b)                        // pop  %rbx
	c.cfaOffset(24)
	c.op(0x41, 0x5e) // pop  %r14
	c.cfaOffset(16)
	c.op(0x41, 0x5f) // pop  %r15
	c.cfaOffset(8)
	c.op(0xc3) // ret
	c.endFn()
}

// emitGPUX86 emits <prefix>.fatbin_reg, .fatbin_unreg and .globals_reg
// for x86-64.
func emitGPUX86(m *module, fl gpuFlavor, segSym, bssSym *objw.Symbol) {
	rt := func(name string) *objw.Symbol { return m.extern(fl.rt + name) }
	reg, unreg, globals := fl.prefix+".fatbin_reg", fl.prefix+".fatbin_unreg", fl.prefix+".globals_reg"
	c := m.c

	// <prefix>.fatbin_reg: register the fatbin, then its entries.
	c.fn(reg)
	c.op(0x53) // push %rbx                 (aligns the stack)
	c.cfaOffset(16)
	c.saved(dwX86RBX, 16)
	c.op(0x48, 0x8d, 0x3d)             // lea  .fatbin_wrapper(%rip),%rdi
	c.pcrel(segSym, 0)                 //      R_X86_64_PC32 <segment>-4
	c.callExt(rt("RegisterFatBinary")) // call __{cuda,hip}RegisterFatBinary@PLT
	c.op(0x48, 0x89, 0xc3)             // mov  %rax,%rbx            (h)
	c.op(0x48, 0x89, 0x05)             // mov  %rax,binary_handle(%rip)
	c.pcrel(bssSym, 0)                 //      R_X86_64_PC32 .bss-4
	c.op(0x48, 0x89, 0xc7)             // mov  %rax,%rdi
	c.call(globals)                    // call <prefix>.globals_reg
	if fl.callEnd {
		c.op(0x48, 0x89, 0xdf) // mov  %rbx,%rdi
		c.callExt(m.extern("__cudaRegisterFatBinaryEnd"))
	}
	m.callAtexit(unreg) // atexit(<prefix>.fatbin_unreg)
	c.op(0x5b)          // pop  %rbx
	c.cfaOffset(8)
	c.op(0xc3) // ret
	c.endFn()

	// <prefix>.fatbin_unreg: unregister the handle.
	c.fn(unreg)
	c.op(0x50) // push %rax
	c.cfaOffset(16)
	c.op(0x48, 0x8b, 0x3d)               // mov  binary_handle(%rip),%rdi
	c.pcrel(bssSym, 0)                   //      R_X86_64_PC32 .bss-4
	c.callExt(rt("UnregisterFatBinary")) // call __{cuda,hip}UnregisterFatBinary@PLT
	c.op(0x58)                           // pop  %rax
	c.cfaOffset(8)
	c.op(0xc3) // ret
	c.endFn()

	start, stop := m.entryBounds()
	emitGlobalsReg(c, globals, fl, m.abi, start, stop, rt)

}

// movR15 emits mov off(%r15),%reg for a 64-bit load: modrm selects the
// destination (0x77 %rsi, 0x57 %rdx, 0x47 %rax, disp8 form), except that
// offset 0 uses the no-displacement form (mod 00), as an assembler would.
func movR15(c *code, modrm, off byte) {
	if off == 0 {
		c.op(0x49, 0x8b, modrm&^0x40) // mov  (%r15),%reg
		return
	}
	c.op(0x49, 0x8b, modrm, off) // mov  off(%r15),%reg
}
