package wrap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/syclprop"
	"github.com/offload-kit/offload-kit/internal/objw"
	"github.com/offload-kit/offload-kit/internal/release"
)

// SYCLImage is one device image for SYCL registration (spec §9.5).
type SYCLImage struct {
	Triple  string   // target triple, stored as a C string (TargetSpec)
	Image   []byte   // the device image (inner bytes, not the OffloadBinary)
	Symbols []string // kernel (entry point) names
	// ImageKind is the Format byte of __sycl.tgt_device_image: the
	// OffloadBinary's ImageKind (0, IMG_None, from clang-sycl-linker 22).
	ImageKind uint8
	// CompileOptions and LinkOptions are the SYCL JIT options; the
	// linker-wrapper leaves both empty.
	CompileOptions, LinkOptions string
	// PropertySets are registered in intel's runtime layout (spec sycl.md
	// §9.1; see syclProps), with PropertiesBegin/End pointing at the set
	// array. Without sets both stay null, as LLVM 22 leaves them.
	PropertySets syclprop.Sets
}

// syclImageFromBinary decodes the version-1 OffloadBinary that
// clang-sycl-linker writes (strings triple, arch, symbols; symbols joined by
// "\n") into a SYCLImage. The image bytes are not copied. The string
// "properties" (intel's .prop text from our sycl-linker) is not decoded
// here: the linker-wrapper parses it with syclprop.ParseText and sets
// PropertySets.
func syclImageFromBinary(b []byte) (SYCLImage, error) {
	if !bytes.HasPrefix(b, format.OffloadBinaryMagic) {
		return SYCLImage{}, format.Errorf(0, format.ErrMagic, "not an offload binary")
	}
	bin, err := parseV1(b)
	if err != nil {
		return SYCLImage{}, err
	}
	img := SYCLImage{Triple: bin.Triple(), Image: bin.Image, ImageKind: uint8(bin.ImageKind)}
	if s := bin.Get("symbols"); s != "" {
		img.Symbols = strings.Split(s, "\n")
	}
	return img, nil
}

// SYCL returns the registration object for SYCL device images (spec §9.5).
func SYCL(opts Options, images []SYCLImage) ([]byte, error) {
	return encode(BuildSYCL(opts, images))
}

// Sizes of the SYCL runtime structures.
const (
	syclImageSize = 80
	syclDescSize  = 32
)

// BuildSYCL is SYCL returning the object model.
func BuildSYCL(opts Options, images []SYCLImage) (*objw.Object, error) {
	if len(images) > 0xffff {
		return nil, fmt.Errorf("wrap: sycl: %d images exceed the 16-bit image count", len(images))
	}
	// On COFF the object follows LLVM 22's for the same images: no
	// entry-bound sections, the strings in .rdata before the arrays
	// (unless there are property sets, which LLVM 22 does not have), large
	// globals 16-aligned, and pointers relocated against the local symbols
	// they point into (localPtr).
	m, err := newKindModuleBounds(opts, abiOf(Options{}), release.KindSYCL, false)
	if err != nil {
		return nil, err
	}
	o := m.o
	local := func(name string, sec *objw.Section, off, size uint64) *objw.Symbol {
		return o.AddSymbol(name, sec, off, size, format.STB_LOCAL, format.STT_OBJECT, format.STV_DEFAULT)
	}
	hasProps := false
	for _, im := range images {
		hasProps = hasProps || len(im.PropertySets) > 0
	}
	var strs, rel *objw.Section
	llvmCOFF := m.coff && !hasProps
	if llvmCOFF {
		rel = m.dataRelRO()
		strs = rel
	}
	switch {
	case llvmCOFF:
	case m.coff:
		strs = o.AddSection(".rdata$str", format.SHT_PROGBITS, format.SHF_ALLOC, 1, nil)
	default:
		strs = o.AddSection(".rodata.str1.1", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_MERGE|format.SHF_STRINGS, 1, nil)
		strs.EntSize = 1
	}
	data := o.AddSection(format.OffloadingSection, format.SHT_LLVM_OFFLOADING, format.SHF_ALLOC, 1, nil)
	names := o.AddSection(".llvm.rodata.offloading", format.SHT_PROGBITS, format.SHF_ALLOC|format.SHF_MERGE|format.SHF_STRINGS, 1, nil)
	names.EntSize = 1
	if rel == nil {
		rel = m.dataRelRO()
	}
	strSym, dataSym, nameSym, relSym := m.secSym(strs), m.secSym(data), m.secSym(names), m.secSym(rel)
	// big16 is the preferred alignment of a constant array without one of
	// its own (DataLayout::getPreferredAlign): 16 once it is larger than
	// 16 bytes, which llc gives these globals on COFF.
	big16 := func(sec *objw.Section, n int) {
		if llvmCOFF && n > 16 {
			sec.Pad(16)
			if sec.Align < 16 {
				sec.Align = 16
			}
		}
	}
	symAt := map[uint64]*objw.Symbol{} // COFF: the local symbol of each string, by offset

	cstr := func(sym string, s string) uint64 {
		big16(strs, len(s)+1)
		off := strs.Append(append([]byte(s), 0))
		symAt[off] = local(sym, strs, off, uint64(len(s)+1))
		return off
	}
	type placed struct {
		target, compile, link uint64
		start, end            uint64
		entries, nEntries     uint64
		dataSym, arrSym       *objw.Symbol
		props, propsEnd       uint64 // set array in rel, when hasProps
		hasProps              bool
	}
	props := &syclProps{m: m, rel: rel, strSym: strSym, relSym: relSym, uses: map[string]int{}, cstr: cstr, local: func(name string, sec *objw.Section, off, size uint64) { local(name, sec, off, size) }}
	pl := make([]placed, len(images))
	nameIdx, entryIdx := 0, map[string]int{}
	for i, im := range images {
		if strings.IndexByte(im.Triple, 0) >= 0 || strings.IndexByte(im.CompileOptions, 0) >= 0 || strings.IndexByte(im.LinkOptions, 0) >= 0 {
			return nil, fmt.Errorf("wrap: sycl image %d: triple or options contain NUL", i)
		}
		p := &pl[i]
		p.target = cstr(fmt.Sprintf(".sycl_offloading.target.%d", i), im.Triple)
		p.compile = cstr(fmt.Sprintf(".sycl_offloading.opts.compile.%d", i), im.CompileOptions)
		p.link = cstr(fmt.Sprintf(".sycl_offloading.opts.link.%d", i), im.LinkOptions)
		big16(data, len(im.Image))
		p.start = data.Append(im.Image)
		p.end = p.start + uint64(len(im.Image))
		p.dataSym = local(fmt.Sprintf(".sycl_offloading.%d.data", i), data, p.start, uint64(len(im.Image)))

		// Entries: a weak .offloading.entry.<name> in llvm_offload_entries
		// and a copy in this image's entries array.
		rel.Pad(8)
		p.entries = rel.Size()
		for _, sym := range im.Symbols {
			if strings.IndexByte(sym, 0) >= 0 {
				return nil, fmt.Errorf("wrap: sycl image %d: symbol %q contains NUL", i, sym)
			}
			nm := ".offloading.entry_name"
			if nameIdx > 0 {
				nm = fmt.Sprintf("%s.%d", nm, nameIdx)
			}
			nameIdx++
			noff := names.Append(append([]byte(sym), 0))
			nmSym := local(nm, names, noff, uint64(len(sym)+1))
			nameRef, nameAdd := nameSym, int64(noff)
			if llvmCOFF {
				nameRef, nameAdd = nmSym, 0
			}

			entries := m.entrySection()
			eoff := m.syclEntry(entries, nameRef, uint64(nameAdd))
			en := ".offloading.entry." + sym
			if k := entryIdx[sym]; k > 0 {
				en = fmt.Sprintf("%s.%d", en, k)
			}
			entryIdx[sym]++
			o.AddSymbol(en, entries, eoff, entrySize, format.STB_WEAK, format.STT_OBJECT, format.STV_DEFAULT)
			m.syclEntry(rel, nameRef, uint64(nameAdd))
		}
		p.nEntries = uint64(len(im.Symbols))
		arr := ".sycl_offloading.entries_arr"
		if i > 0 {
			arr = fmt.Sprintf("%s.%d", arr, i)
		}
		p.arrSym = local(arr, rel, p.entries, p.nEntries*entrySize)
		if p.props, p.propsEnd, p.hasProps, err = props.emit(i, im.PropertySets); err != nil {
			return nil, err
		}
	}

	// __sycl.tgt_device_image[N].
	rel.Pad(16)
	imgsOff := rel.Size()
	for i, p := range pl {
		var h [8]byte
		binary.LittleEndian.PutUint16(h[0:], 3) // Version
		h[2] = kindSYCL                         // OffloadKind
		h[3] = images[i].ImageKind              // Format
		rel.Append(h[:])
		if llvmCOFF {
			m.localPtr(rel, strSym, symAt[p.target], int64(p.target))
			m.localPtr(rel, strSym, symAt[p.compile], int64(p.compile))
			m.localPtr(rel, strSym, symAt[p.link], int64(p.link))
			m.localPtr(rel, dataSym, p.dataSym, int64(p.start))
			m.localPtr(rel, dataSym, p.dataSym, int64(p.end))
			m.localPtr(rel, relSym, p.arrSym, int64(p.entries))
			m.localPtr(rel, relSym, p.arrSym, int64(p.entries+p.nEntries*entrySize))
		} else {
			m.ptr(rel, strSym, int64(p.target))
			m.ptr(rel, strSym, int64(p.compile))
			m.ptr(rel, strSym, int64(p.link))
			m.ptr(rel, dataSym, int64(p.start))
			m.ptr(rel, dataSym, int64(p.end))
			m.ptr(rel, relSym, int64(p.entries))
			m.ptr(rel, relSym, int64(p.entries+p.nEntries*entrySize))
		}
		if p.hasProps {
			m.ptr(rel, relSym, int64(p.props))    // PropertiesBegin
			m.ptr(rel, relSym, int64(p.propsEnd)) // PropertiesEnd
		} else {
			m.ptr(rel, nil, 0)
			m.ptr(rel, nil, 0)
		}
	}
	imgsSym := local(".sycl_offloading.device_images", rel, imgsOff, uint64(len(images))*syclImageSize)

	// __sycl.tgt_bin_desc.
	descOff := rel.Size()
	var h [8]byte
	binary.LittleEndian.PutUint16(h[0:], 1)
	binary.LittleEndian.PutUint16(h[2:], uint16(len(images)))
	rel.Append(h[:])
	if llvmCOFF {
		m.localPtr(rel, relSym, imgsSym, int64(imgsOff))
	} else {
		m.ptr(rel, relSym, int64(imgsOff))
	}
	m.ptr(rel, nil, 0)
	m.ptr(rel, nil, 0)
	local(".sycl_offloading.descriptor", rel, descOff, syclDescSize)

	emitDescFuncs(m, relSym, int64(descOff), "sycl.descriptor_reg", "sycl.descriptor_unreg",
		"__sycl_register_lib", "__sycl_unregister_lib", false)
	m.ctorArray(1, false, m.fnOff("sycl.descriptor_reg"))
	m.ctorArray(1, true, m.fnOff("sycl.descriptor_unreg"))
	if _, err := m.finish(); err != nil {
		return nil, err
	}
	return o, nil
}

// syclEntry appends the entry {0, 1, 8, 0, null, name, 0, 0, null} to sec
// and returns its offset.
func (m *module) syclEntry(sec *objw.Section, nameSym *objw.Symbol, nameOff uint64) uint64 {
	var e [entrySize]byte
	binary.LittleEndian.PutUint16(e[entryVersion:], 1)
	binary.LittleEndian.PutUint16(e[entryKind:], kindSYCL)
	off := sec.Append(e[:])
	m.o.AddReloc(sec, off+entryName, m.abs64, nameSym, int64(nameOff))
	return off
}

// entrySection returns the section that holds offload entries defined by
// the wrapper itself: llvm_offload_entries (made writable, as clang's host
// objects have it) on ELF, llvm_offload_entries$OE on COFF.
func (m *module) entrySection() *objw.Section {
	if m.entries == nil {
		m.entries = m.o.AddSection("llvm_offload_entries$OE", format.SHT_PROGBITS, format.SHF_ALLOC, 8, nil)
	}
	if !m.coff {
		m.entries.Flags |= format.SHF_WRITE
	}
	return m.entries
}
