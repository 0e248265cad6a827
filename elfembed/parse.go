package elfembed

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Format is the object file format of a host object.
type Format int

const (
	ELF Format = iota
	COFF
)

var formatNames = []string{ELF: "ELF", COFF: "COFF"}

func (f Format) String() string { return enumname.Name(formatNames, f, "Format") }

// COFF section characteristics callers need when adding offload sections.
// (ELF section types and flags are format.SectionType and
// format.SectionFlag: format.SHT_LLVM_OFFLOADING, format.SHF_EXCLUDE.)
const (
	// COFFOffloadingFlags are the Characteristics clang gives
	// .llvm.offloading: IMAGE_SCN_ALIGN_8BYTES | IMAGE_SCN_LNK_REMOVE |
	// IMAGE_SCN_MEM_DISCARDABLE.
	COFFOffloadingFlags = 0x02400800
	// coffBundleFlags are the Characteristics llvm-objcopy gives a COFF
	// section for --set-section-flags=<s>=readonly,exclude:
	// IMAGE_SCN_MEM_READ | IMAGE_SCN_LNK_REMOVE. (ELF flag values must not
	// be passed for COFF hosts: 0x80000000 is IMAGE_SCN_MEM_WRITE there.)
	coffBundleFlags = 0x40000800
)

// ELF flags as the uint64 that Section.Flags and NewSection.Flags hold
// (they hold COFF Characteristics too).
const (
	shfExclude  = uint64(format.SHF_EXCLUDE)
	shfInfoLink = uint64(format.SHF_INFO_LINK)
	shfGroup    = uint64(format.SHF_GROUP)
)

// COFF section characteristics used by this package.
const (
	coffCntUninit     = 0x00000080
	coffLnkNRelocOvfl = 0x01000000
)

// Section describes one section of a host object.
type Section struct {
	Index int                // ELF section index (0 is the null section); COFF 1-based section number
	Name  string             // resolved name (ELF .shstrtab, COFF "/N" long names)
	Type  format.SectionType // ELF sh_type; 0 for COFF
	Flags uint64             // ELF sh_flags or COFF Characteristics
	// Offset and Size locate the contents in the file (for SHT_NOBITS and
	// uninitialised COFF data, Size is the memory size and no bytes exist).
	Offset int64
	Size   int64
	Align  uint64 // sh_addralign, or the COFF IMAGE_SCN_ALIGN_* value (0 if none)
	Data   []byte // zero-copy slice; nil for SHT_NOBITS / uninitialised COFF data
}

// Object is a parsed host object file.
type Object struct {
	Format    Format
	Class     int // 32 or 64
	ByteOrder binary.ByteOrder
	Machine   uint16 // e_machine or COFF Machine
	Type      uint16 // ELF e_type (ET_REL etc.); 0 for COFF
	Sections  []Section
}

// OffloadSections returns the sections LLVM's extractOffloadBinaries reads:
// on ELF every section of type SHT_LLVM_OFFLOADING whatever its name, on
// COFF every section whose name starts with ".llvm.offloading".
func (o *Object) OffloadSections() []Section {
	var out []Section
	for _, s := range o.Sections {
		switch o.Format {
		case ELF:
			if s.Type == format.SHT_LLVM_OFFLOADING {
				out = append(out, s)
			}
		case COFF:
			if strings.HasPrefix(s.Name, format.OffloadingSection) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Section returns the first section with the given name, or nil.
func (o *Object) Section(name string) *Section {
	for i := range o.Sections {
		if o.Sections[i].Name == name {
			return &o.Sections[i]
		}
	}
	return nil
}

// names returns the section names, indexed like Sections.
func (o *Object) names() []string {
	names := make([]string, len(o.Sections))
	for i := range o.Sections {
		names[i] = o.Sections[i].Name
	}
	return names
}

// Parse parses the section table of an ELF (32/64-bit, either byte order)
// or COFF object (regular, bigobj, or a PE image). It never panics; errors
// are *format.FormatError carrying the offset of the failing field.
func Parse(buf []byte) (*Object, error) {
	switch {
	case bytes.HasPrefix(buf, []byte("\x7fELF")):
		e, err := parseELF(buf)
		if err != nil {
			return nil, err
		}
		return e.obj, nil
	case format.Identify(buf) == format.KindCOFF:
		c, err := parseCOFF(buf)
		if err != nil {
			return nil, err
		}
		return c.obj, nil
	case format.Identify(buf) == format.KindCOFFImport:
		return nil, format.Errorf(0, format.ErrUnsupported, "a COFF short import member has no sections")
	}
	return nil, format.Errorf(0, format.ErrMagic, "not an ELF or COFF object")
}

// elfShdr is the full decoded section header (64-bit model).
type elfShdr struct {
	name      uint32
	typ       format.SectionType
	flags     uint64
	addr      uint64
	off       uint64
	size      uint64
	link      uint32
	info      uint32
	addralign uint64
	entsize   uint64
}

type elfFile struct {
	obj       *Object
	buf       []byte
	phnum     int
	shoff     uint64
	shentsize int
	shstrndx  int
	shdrs     []elfShdr
}

// elfClass is what differs between the ELF32 and ELF64 layouts for this
// package: the header sizes, the size of an address or offset, and the
// offsets of the ELF header fields it checks or sets.
type elfClass struct {
	ehsize, shentsize int64
	word              int64 // e_phoff and e_shoff; also the alignment of the section header table
	phoff, shoff      int64
	// the 16-bit fields e_ehsize, e_shentsize, e_shnum and e_shstrndx
	ehsizeOff, shentsizeOff, shnumOff, shstrndxOff int64
}

func elfClassOf(is64 bool) elfClass {
	if is64 {
		return elfClass{ehsize: 64, shentsize: 64, word: 8, phoff: 32, shoff: 40, ehsizeOff: 52, shentsizeOff: 58, shnumOff: 60, shstrndxOff: 62}
	}
	return elfClass{ehsize: 52, shentsize: 40, word: 4, phoff: 28, shoff: 32, ehsizeOff: 40, shentsizeOff: 46, shnumOff: 48, shstrndxOff: 50}
}

// putWord stores v in a word-sized field.
func (c elfClass) putWord(bo binary.ByteOrder, b []byte, v uint64) {
	if c.word == 8 {
		bo.PutUint64(b, v)
		return
	}
	bo.PutUint32(b, uint32(v))
}

// parseELF reads an ELF object through format.ParseELF, the one
// bounds-checked ELF reader, and keeps what the rewriter needs beside the
// Object: the raw section headers (sh_name included, for the names it
// keeps), e_shoff, e_phnum and the resolved e_shstrndx. format/elf.go's
// ParseELF lists where this package's own reader used to differ.
func parseELF(buf []byte) (*elfFile, error) {
	e, err := format.ParseELF(buf)
	if err != nil {
		return nil, err
	}
	o := &Object{Format: ELF, Class: e.Class, ByteOrder: e.ByteOrder, Type: e.Type, Machine: e.Machine}
	f := &elfFile{obj: o, buf: buf, phnum: e.PhNum, shoff: e.ShOff, shentsize: int(elfClassOf(e.Class == 64).shentsize),
		shstrndx: e.ShStrNdx}
	if len(e.Sections) == 0 {
		return f, nil
	}
	f.shdrs = make([]elfShdr, len(e.Sections))
	o.Sections = make([]Section, len(e.Sections))
	for i, h := range e.Sections {
		f.shdrs[i] = elfShdr{name: h.NameOff, typ: h.Type, flags: uint64(h.Flags), addr: h.Addr, off: h.Offset, size: h.Size,
			link: h.Link, info: h.Info, addralign: h.Addralign, entsize: h.Entsize}
		o.Sections[i] = Section{Index: i, Name: h.Name, Type: h.Type, Flags: uint64(h.Flags), Offset: int64(h.Offset),
			Size: int64(h.Size), Align: h.Addralign, Data: h.Data}
	}
	return f, nil
}
