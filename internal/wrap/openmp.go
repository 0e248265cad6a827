package wrap

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/objw"
	"github.com/offload-kit/offload-kit/internal/release"
)

// OpenMPImage is one device image for OpenMP registration: Data is placed
// in .llvm.offloading unchanged, and Data[Start:End] is the range
// registered as the device image (an OffloadBinary's payload, or all of a
// raw image).
type OpenMPImage struct {
	Data       []byte
	Start, End uint64
}

// OpenMPImageOf returns b as an OpenMPImage: if b is a version-1
// OffloadBinary (read through format/offload) the registered range is its
// payload, otherwise b is registered whole. A buffer that starts with the
// OffloadBinary magic but does not parse is an error.
func OpenMPImageOf(b []byte) (OpenMPImage, error) {
	if !bytes.HasPrefix(b, format.OffloadBinaryMagic) {
		return OpenMPImage{Data: b, End: uint64(len(b))}, nil
	}
	bin, err := parseV1(b)
	if err != nil {
		return OpenMPImage{}, err
	}
	return OpenMPImage{Data: b, Start: bin.ImageOffset, End: bin.ImageOffset + uint64(len(bin.Image))}, nil
}

// parseV1 reads the version-1 OffloadBinary at the start of b, the only
// version LLVM 22's runtimes register.
func parseV1(b []byte) (*offload.Binary, error) {
	if len(b) >= 8 {
		if v := binary.LittleEndian.Uint32(b[4:]); v != 1 {
			return nil, format.Errorf(4, format.ErrVersion, "offload binary version %d", v)
		}
	}
	bins, _, err := offload.Parse(b)
	if err != nil {
		return nil, err
	}
	return bins[0], nil
}

// OpenMP returns the registration object for OpenMP offloading (spec §9.2)
// for images read with OpenMPImageOf.
func OpenMP(opts Options, images [][]byte) ([]byte, error) {
	return encode(BuildOpenMP(opts, images))
}

// OpenMPImages is OpenMP for images whose registered ranges the caller
// knows (the linker-wrapper, which has just written the OffloadBinaries).
func OpenMPImages(opts Options, images []OpenMPImage) ([]byte, error) {
	return encode(buildOpenMP(opts, images))
}

// BuildOpenMP is OpenMP returning the object model, so that large images
// can be streamed with (*objw.Object).WriteTo without another copy.
func BuildOpenMP(opts Options, images [][]byte) (*objw.Object, error) {
	ims := make([]OpenMPImage, len(images))
	for i, b := range images {
		var err error
		if ims[i], err = OpenMPImageOf(b); err != nil {
			return nil, fmt.Errorf("wrap: openmp image %d: %w", i, err)
		}
	}
	return buildOpenMP(opts, ims)
}

func buildOpenMP(opts Options, images []OpenMPImage) (*objw.Object, error) {
	a := abiOf(opts)
	m, err := newKindModule(opts, a, release.KindOpenMP)
	if err != nil {
		return nil, err
	}
	// Relocatable on COFF: LLVM 22's wrapper still writes the object (its
	// images in .llvm.offloading.relocatable); its clang-linker-wrapper
	// refuses only after the host link, in the step that would rename the
	// sections ("Relocatable linking is not supported on COFF targets"),
	// and linkwrap does the same.
	o := m.o
	secName := format.OffloadingSection
	if opts.Relocatable && a.relocOK { // LLVM 16's wrapper ignores -r
		secName = format.OffloadingSection + ".relocatable"
	}
	imgSec := o.AddSection(secName, format.SHT_LLVM_OFFLOADING, format.SHF_ALLOC, 8, nil)
	rel := m.dataRelRO()

	type placed struct {
		off, start, end uint64
		sym             *objw.Symbol
	}
	pl := make([]placed, len(images))
	for i, img := range images {
		if img.Start > img.End || img.End > uint64(len(img.Data)) {
			return nil, fmt.Errorf("wrap: openmp image %d: registered range [0x%x, 0x%x) outside its %d bytes: %w",
				i, img.Start, img.End, len(img.Data), format.ErrCorrupt)
		}
		off := imgSec.Pad(8)
		imgSec.Append(img.Data)
		pl[i] = placed{off: off, start: off + img.Start, end: off + img.End}
		if !a.ompPayload { // LLVM 16 registers the whole buffer, OffloadBinary header included
			pl[i].start, pl[i].end = off, off+uint64(len(img.Data))
		}
		name := ".omp_offloading.device_image"
		if i > 0 {
			name = fmt.Sprintf("%s.%d", name, i)
		}
		pl[i].sym = o.AddSymbol(name, imgSec, off, uint64(len(img.Data)), format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	}
	start, stop := m.entryBounds()

	// __tgt_device_image[N] at .data.rel.ro+0, then __tgt_bin_desc.
	imgsSym := m.secSym(imgSec)
	for _, p := range pl {
		m.localPtr(rel, imgsSym, p.sym, int64(p.start))
		m.localPtr(rel, imgsSym, p.sym, int64(p.end))
		m.ptr(rel, start, 0)
		m.ptr(rel, stop, 0)
	}
	relSym := m.secSym(rel)
	descOff := rel.Size()
	o.AddSymbol(".omp_offloading.device_images", rel, 0, descOff, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	var n [8]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(images)))
	rel.Append(n[:])
	m.ptr(rel, relSym, 0)
	m.ptr(rel, start, 0)
	m.ptr(rel, stop, 0)
	o.AddSymbol(".omp_offloading.descriptor", rel, descOff, 32, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)

	// LLVM 18 and later: a priority-101 constructor that registers and
	// hands the unregistration to atexit. LLVM 16: a priority-1
	// constructor and a priority-1 destructor.
	emitDescFuncs(m, relSym, int64(descOff), ".omp_offloading.descriptor_reg", ".omp_offloading.descriptor_unreg",
		"__tgt_register_lib", "__tgt_unregister_lib", a.ompAtexit)

	m.ctorArray(a.ctorPrio, false, m.fnOff(".omp_offloading.descriptor_reg"))
	if !a.ompAtexit {
		m.ctorArray(a.ctorPrio, true, m.fnOff(".omp_offloading.descriptor_unreg"))
	}
	if _, err := m.finish(); err != nil {
		return nil, err
	}
	return o, nil
}

// emitDescFuncs emits the register and unregister functions shared by
// OpenMP and SYCL: reg calls regRT(&desc) and, if atexit is set, registers
// unreg with atexit; unreg calls unregRT(&desc). desc is at descSym+descOff.
// On Windows x64 the argument goes in %rcx, below 32 bytes of shadow
// space, and each function gets unwind information.
func emitDescFuncs(m *module, descSym *objw.Symbol, descOff int64, reg, unreg, regRT, unregRT string, atexit bool) {
	emitRegFuncs(m, descSym, descOff, nil, reg, unreg, regRT, unregRT, atexit)
}

// emitRegFuncs is emitDescFuncs with an optional second argument: when
// size is not nil, each runtime call also gets *size in the second
// argument register (x1, %rdx, %rsi), as LLVM main's SYCL blob
// registration passes (blob, size).
func emitRegFuncs(m *module, descSym *objw.Symbol, descOff int64, size *uint64, reg, unreg, regRT, unregRT string, atexit bool) {
	c := m.c
	for _, f := range []struct {
		name, rt string
		atexit   bool
	}{{reg, regRT, atexit}, {unreg, unregRT, false}} {
		c.fn(f.name)
		switch {
		case m.a64:
			c.ins(a64PushLR) // str  x30, [sp, #-16]!
			c.cfaOffset(16)
			c.saved(dwA64LR, 16)
			c.a64AdrpAdd(0, descSym, descOff) // adrp x0, desc ; add x0, x0, :lo12:desc
			if size != nil {
				a64MovImm64(c, 1, *size) // mov  x1, #size (movz/movk)
			}
			c.a64Bl(m.extern(f.rt)) // bl   <rt>
			if f.atexit {
				m.callAtexit(unreg)
			}
			c.ins(a64PopLR) // ldr  x30, [sp], #16
			c.cfaOffset(0)
			c.restored(dwA64LR)
			c.ins(a64Ret) // ret
		case m.win:
			c.op(0x48, 0x83, 0xec, 0x28) // sub  $0x28,%rsp          shadow space, alignment
			c.winUnwind(4, [3]byte{4, uwopAllocSmall, (0x28 - 8) / 8})
			c.op(0x48, 0x8d, 0x0d)    // lea  desc(%rip),%rcx
			c.pcrel(descSym, descOff) //      REL32
			if size != nil {
				x86MovImm(c, 2, *size) // mov  $size,%edx / movabs $size,%rdx
			}
			c.callExt(m.extern(f.rt)) // call <rt>
			if f.atexit {
				m.callAtexit(unreg)
			}
			c.op(0x90)                   // nop                     (no call right before the epilog)
			c.op(0x48, 0x83, 0xc4, 0x28) // add  $0x28,%rsp
			c.op(0xc3)                   // ret
		default:
			c.op(0x50) // push %rax            (align the stack)
			c.cfaOffset(16)
			c.op(0x48, 0x8d, 0x3d)    // lea  desc(%rip),%rdi
			c.pcrel(descSym, descOff) //      R_X86_64_PC32 desc-4
			if size != nil {
				x86MovImm(c, 6, *size) // mov  $size,%esi / movabs $size,%rsi
			}
			c.callExt(m.extern(f.rt)) // call <rt>@PLT
			if f.atexit {
				m.callAtexit(unreg)
			}
			c.op(0x58) // pop  %rax
			c.cfaOffset(8)
			c.op(0xc3) // ret
		}
		c.endFn()
	}
}
