package elfembed

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
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
	ehsize    int
	phoff     uint64
	phnum     int
	phentsize int
	shoff     uint64
	shentsize int
	shstrndx  int
	flags     uint32
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

func parseELF(buf []byte) (*elfFile, error) {
	if len(buf) < 16 {
		return nil, format.Errorf(0, format.ErrTruncated, "ELF identification")
	}
	o := &Object{Format: ELF}
	switch buf[4] {
	case 1:
		o.Class = 32
	case 2:
		o.Class = 64
	default:
		return nil, format.Errorf(4, format.ErrCorrupt, "ELF class %d", buf[4])
	}
	switch buf[5] {
	case 1:
		o.ByteOrder = binary.LittleEndian
	case 2:
		o.ByteOrder = binary.BigEndian
	default:
		return nil, format.Errorf(5, format.ErrCorrupt, "ELF data encoding %d", buf[5])
	}
	c := binio.NewCursor(buf, 0)
	c.Order = o.ByteOrder
	c.Skip(16, "e_ident")
	f := &elfFile{obj: o, buf: buf}
	o.Type = c.U16("e_type")
	o.Machine = c.U16("e_machine")
	c.U32("e_version")
	var shnum int
	if o.Class == 64 {
		c.U64("e_entry")
		f.phoff = c.U64("e_phoff")
		f.shoff = c.U64("e_shoff")
	} else {
		c.U32("e_entry")
		f.phoff = uint64(c.U32("e_phoff"))
		f.shoff = uint64(c.U32("e_shoff"))
	}
	f.flags = c.U32("e_flags")
	f.ehsize = int(c.U16("e_ehsize"))
	f.phentsize = int(c.U16("e_phentsize"))
	f.phnum = int(c.U16("e_phnum"))
	f.shentsize = int(c.U16("e_shentsize"))
	shnum = int(c.U16("e_shnum"))
	f.shstrndx = int(c.U16("e_shstrndx"))
	if err := c.Err(); err != nil {
		return nil, format.CursorError(err, "")
	}
	cls := elfClassOf(o.Class == 64)
	want := int(cls.shentsize)
	if f.shoff == 0 {
		if shnum != 0 {
			return nil, format.Errorf(cls.shoff, format.ErrCorrupt, "e_shnum %d with no section header table", shnum)
		}
		return f, nil
	}
	if f.shentsize != want {
		return nil, format.Errorf(cls.shentsizeOff, format.ErrCorrupt, "e_shentsize %d, want %d", f.shentsize, want)
	}
	if !binio.InRange(f.shoff, uint64(want), uint64(len(buf))) {
		return nil, format.Errorf(cls.shoff, format.ErrTruncated, "section header table at 0x%x past end of file", f.shoff)
	}
	first := f.readShdr(f.shoff)
	if shnum == 0 {
		// Extended numbering: the real count is in section 0's sh_size.
		if first.size > uint64(len(buf)) {
			return nil, format.Errorf(int64(f.shoff), format.ErrLimit, "section count %d", first.size)
		}
		shnum = int(first.size)
	}
	if f.shstrndx == 0xffff {
		f.shstrndx = int(first.link)
	}
	if !binio.InRange(f.shoff, uint64(shnum)*uint64(want), uint64(len(buf))) {
		return nil, format.Errorf(int64(f.shoff), format.ErrTruncated, "section header table of %d entries", shnum)
	}
	f.shdrs = make([]elfShdr, shnum)
	for i := range f.shdrs {
		f.shdrs[i] = f.readShdr(f.shoff + uint64(i*want))
	}
	var shstr []byte
	if f.shstrndx != 0 {
		if f.shstrndx >= shnum {
			return nil, format.Errorf(cls.shstrndxOff, format.ErrCorrupt, "e_shstrndx %d out of range", f.shstrndx)
		}
		h := f.shdrs[f.shstrndx]
		if h.typ != format.SHT_NOBITS {
			if !binio.InRange(h.off, h.size, uint64(len(buf))) {
				return nil, format.Errorf(int64(f.shoff)+int64(f.shstrndx*want), format.ErrTruncated, "section name table past end of file")
			}
			shstr = buf[h.off : h.off+h.size]
		}
	}
	o.Sections = make([]Section, shnum)
	for i, h := range f.shdrs {
		hoff := int64(f.shoff) + int64(i*want)
		s := Section{Index: i, Type: h.typ, Flags: h.flags, Offset: int64(h.off), Size: int64(h.size), Align: h.addralign}
		if i != 0 || h.name != 0 {
			if shstr == nil {
				if h.name != 0 {
					return nil, format.Errorf(hoff, format.ErrCorrupt, "section %d: name without a section name table", i)
				}
			} else {
				name, ok := binio.CString(shstr, uint64(h.name))
				if !ok {
					return nil, format.Errorf(hoff, format.ErrCorrupt, "section %d: bad name offset %d", i, h.name)
				}
				s.Name = name
			}
		}
		if i == 0 {
			// Section 0 may hold extended counts; it has no contents.
			s.Size = 0
			o.Sections[i] = s
			continue
		}
		if h.typ != format.SHT_NOBITS && h.typ != format.SHT_NULL && h.size != 0 {
			if !binio.InRange(h.off, h.size, uint64(len(buf))) || h.off > 1<<62 || h.size > 1<<62 {
				return nil, format.Errorf(hoff, format.ErrTruncated, "section %d (%s): contents [0x%x, +0x%x) past end of file", i, s.Name, h.off, h.size)
			}
			s.Data = buf[h.off : h.off+h.size : h.off+h.size]
		}
		o.Sections[i] = s
	}
	return f, nil
}

func (f *elfFile) readShdr(off uint64) elfShdr {
	bo := f.obj.ByteOrder
	b := f.buf[off:]
	if f.obj.Class == 64 {
		return elfShdr{
			name: bo.Uint32(b[0:]), typ: format.SectionType(bo.Uint32(b[4:])), flags: bo.Uint64(b[8:]),
			addr: bo.Uint64(b[16:]), off: bo.Uint64(b[24:]), size: bo.Uint64(b[32:]),
			link: bo.Uint32(b[40:]), info: bo.Uint32(b[44:]), addralign: bo.Uint64(b[48:]), entsize: bo.Uint64(b[56:]),
		}
	}
	return elfShdr{
		name: bo.Uint32(b[0:]), typ: format.SectionType(bo.Uint32(b[4:])), flags: uint64(bo.Uint32(b[8:])),
		addr: uint64(bo.Uint32(b[12:])), off: uint64(bo.Uint32(b[16:])), size: uint64(bo.Uint32(b[20:])),
		link: bo.Uint32(b[24:]), info: bo.Uint32(b[28:]), addralign: uint64(bo.Uint32(b[32:])), entsize: uint64(bo.Uint32(b[36:])),
	}
}
