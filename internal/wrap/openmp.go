package wrap

import (
	"encoding/binary"
	"fmt"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/objw"
)

// offloadMagic starts every OffloadBinary.
const offloadMagic = "\x10\xff\x10\xad"

// isOffloadBinary reports whether b starts with the OffloadBinary magic.
func isOffloadBinary(b []byte) bool { return len(b) >= 4 && string(b[:4]) == offloadMagic }

// imageRange returns where the device image lies inside img: the payload
// [ImageOffset, ImageOffset+ImageSize) if img is a version-1 OffloadBinary,
// otherwise the whole buffer. Only the header fields needed for that are
// decoded (offload-binary.md §3); a buffer that starts with the magic but
// has an inconsistent header is an error.
func imageRange(img []byte) (start, end uint64, err error) {
	if !isOffloadBinary(img) {
		return 0, uint64(len(img)), nil
	}
	c := binio.NewCursor(img, 0)
	c.Skip(4, "magic")
	version := c.U32("version")
	size := c.U64("size")
	entryOff := c.U64("entry offset")
	c.U64("entry size")
	if err := c.Err(); err != nil {
		return 0, 0, &format.FormatError{Off: c.Off(), Msg: "offload binary header", Err: format.ErrTruncated}
	}
	if version != 1 {
		return 0, 0, format.Errorf(4, format.ErrVersion, "offload binary version %d", version)
	}
	if size > uint64(len(img)) {
		return 0, 0, format.Errorf(8, format.ErrTruncated, "offload binary size 0x%x exceeds buffer size 0x%x", size, len(img))
	}
	if entryOff > size || size-entryOff < 40 {
		return 0, 0, format.Errorf(16, format.ErrCorrupt, "offload binary entry offset 0x%x out of range", entryOff)
	}
	e := img[entryOff:]
	imgOff := binary.LittleEndian.Uint64(e[24:])
	imgSize := binary.LittleEndian.Uint64(e[32:])
	if imgOff > size || imgSize > size-imgOff {
		return 0, 0, format.Errorf(int64(entryOff)+24, format.ErrCorrupt,
			"offload binary image [0x%x, +0x%x) exceeds binary size 0x%x", imgOff, imgSize, size)
	}
	return imgOff, imgOff + imgSize, nil
}

// OpenMP returns the registration object for OpenMP offloading (spec §9.2).
// Each element of images is placed in .llvm.offloading (or
// .llvm.offloading.relocatable) unchanged; if it is an OffloadBinary the
// registered image range is its payload.
func OpenMP(opts Options, images [][]byte) ([]byte, error) {
	return encode(BuildOpenMP(opts, images))
}

// BuildOpenMP is OpenMP returning the object model, so that large images
// can be streamed with (*objw.Object).WriteTo without another copy.
func BuildOpenMP(opts Options, images [][]byte) (*objw.Object, error) {
	m, err := newModule(opts)
	if err != nil {
		return nil, err
	}
	if m.coff && opts.Relocatable {
		return nil, fmt.Errorf("wrap: Relocatable linking is not supported on COFF targets: %w", format.ErrUnsupported)
	}
	o := m.o
	secName := format.OffloadingSection
	if opts.Relocatable {
		secName = format.OffloadingSection + ".relocatable"
	}
	imgSec := o.AddSection(secName, format.SHT_LLVM_OFFLOADING, format.SHF_ALLOC, 8, nil)
	rel := m.dataRelRO()

	type placed struct{ off, start, end uint64 }
	pl := make([]placed, len(images))
	for i, img := range images {
		s, e, err := imageRange(img)
		if err != nil {
			return nil, fmt.Errorf("wrap: openmp image %d: %w", i, err)
		}
		off := imgSec.Pad(8)
		imgSec.Append(img)
		pl[i] = placed{off: off, start: off + s, end: off + e}
		name := ".omp_offloading.device_image"
		if i > 0 {
			name = fmt.Sprintf("%s.%d", name, i)
		}
		o.AddSymbol(name, imgSec, off, uint64(len(img)), objw.STB_LOCAL, objw.STT_OBJECT, objw.STV_DEFAULT)
	}
	start, stop := m.entryBounds()

	// __tgt_device_image[N] at .data.rel.ro+0, then __tgt_bin_desc.
	imgsSym := m.secSym(imgSec)
	for _, p := range pl {
		m.ptr(rel, imgsSym, int64(p.start))
		m.ptr(rel, imgsSym, int64(p.end))
		m.ptr(rel, start, 0)
		m.ptr(rel, stop, 0)
	}
	relSym := m.secSym(rel)
	descOff := rel.Size()
	o.AddSymbol(".omp_offloading.device_images", rel, 0, descOff, objw.STB_LOCAL, objw.STT_OBJECT, objw.STV_DEFAULT)
	var n [8]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(images)))
	rel.Append(n[:])
	m.ptr(rel, relSym, 0)
	m.ptr(rel, start, 0)
	m.ptr(rel, stop, 0)
	o.AddSymbol(".omp_offloading.descriptor", rel, descOff, 32, objw.STB_LOCAL, objw.STT_OBJECT, objw.STV_DEFAULT)

	emitDescFuncs(m, relSym, int64(descOff), ".omp_offloading.descriptor_reg", ".omp_offloading.descriptor_unreg",
		"__tgt_register_lib", "__tgt_unregister_lib", true)

	m.ctorArray(101, false, m.fnOff(".omp_offloading.descriptor_reg"))
	if _, err := m.finish(); err != nil {
		return nil, err
	}
	return o, nil
}

// emitDescFuncs emits the register and unregister functions shared by
// OpenMP and SYCL: reg calls regRT(&desc) and, if atexit is set, registers
// unreg with atexit; unreg calls unregRT(&desc). desc is at descSym+descOff.
func emitDescFuncs(m *module, descSym *objw.Symbol, descOff int64, reg, unreg, regRT, unregRT string, atexit bool) {
	if m.win {
		emitDescFuncsWin(m, descSym, descOff, reg, unreg, regRT, unregRT, atexit)
		return
	}
	c := m.c
	for _, f := range []struct {
		name, rt string
		atexit   bool
	}{{reg, regRT, atexit}, {unreg, unregRT, false}} {
		c.fn(f.name)
		if m.a64 {
			c.ins(a64PushLR) // str  x30, [sp, #-16]!
			c.cfaOffset(16)
			c.saved(dwA64LR, 16)
			c.a64AdrpAdd(0, descSym, descOff) // adrp x0, desc ; add x0, x0, :lo12:desc
			c.a64Bl(m.extern(f.rt))           // bl   <rt>
			if f.atexit {
				c.a64Adr(0, unreg)          // adr  x0, <unreg>
				c.a64Bl(m.extern("atexit")) // bl   atexit
			}
			c.ins(a64PopLR) // ldr  x30, [sp], #16
			c.cfaOffset(0)
			c.restored(dwA64LR)
			c.ins(a64Ret) // ret
		} else {
			c.op(0x50) // push %rax            (align the stack)
			c.cfaOffset(16)
			c.op(0x48, 0x8d, 0x3d)    // lea  desc(%rip),%rdi
			c.pcrel(descSym, descOff) //      R_X86_64_PC32 desc-4
			c.callExt(m.extern(f.rt)) // call <rt>@PLT
			if f.atexit {
				c.op(0x48, 0x8d, 0x3d)        // lea  <unreg>(%rip),%rdi
				c.rel32(unreg)                //
				c.callExt(m.extern("atexit")) // call atexit@PLT
			}
			c.op(0x58) // pop  %rax
			c.cfaOffset(8)
			c.op(0xc3) // ret
		}
		c.endFn()
	}
}

// emitDescFuncsWin is emitDescFuncs for the Windows x64 ABI (argument in
// %rcx, 32 bytes of shadow space, unwind information).
func emitDescFuncsWin(m *module, descSym *objw.Symbol, descOff int64, reg, unreg, regRT, unregRT string, atexit bool) {
	c := m.c
	for _, f := range []struct {
		name, rt string
		atexit   bool
	}{{reg, regRT, atexit}, {unreg, unregRT, false}} {
		c.fn(f.name)
		c.op(0x48, 0x83, 0xec, 0x28) // sub  $0x28,%rsp          shadow space, alignment
		c.winUnwind(4, [3]byte{4, uwopAllocSmall, (0x28 - 8) / 8})
		c.op(0x48, 0x8d, 0x0d)    // lea  desc(%rip),%rcx
		c.pcrel(descSym, descOff) //      REL32
		c.callExt(m.extern(f.rt)) // call <rt>
		if f.atexit {
			c.op(0x48, 0x8d, 0x0d)        // lea  <unreg>(%rip),%rcx
			c.rel32(unreg)                //
			c.callExt(m.extern("atexit")) // call atexit
		}
		c.op(0x90)                   // nop                     (no call right before the epilog)
		c.op(0x48, 0x83, 0xc4, 0x28) // add  $0x28,%rsp
		c.op(0xc3)                   // ret
		c.endFn()
	}
}
