package format

import (
	"bytes"
	"encoding/binary"

	"github.com/offload-kit/offload-kit/internal/binio"
)

// ELF header values and symbol fields, with the ELF gABI's names. Section
// types are SectionType and section flags SectionFlag.
const (
	ET_REL  = 1
	ET_EXEC = 2
	ET_DYN  = 3

	EM_MIPS    = 8
	EM_PPC64   = 21
	EM_X86_64  = 62
	EM_AARCH64 = 183
	EM_CUDA    = 190
	EM_AMDGPU  = 224

	SHN_UNDEF     = 0
	SHN_LORESERVE = 0xff00
	SHN_ABS       = 0xfff1
	SHN_COMMON    = 0xfff2
	SHN_XINDEX    = 0xffff

	STB_LOCAL  = 0
	STB_GLOBAL = 1
	STB_WEAK   = 2
	// STB_GNU_UNIQUE is GNU's unique global binding (debug/elf does not
	// name it).
	STB_GNU_UNIQUE = 10

	STT_NOTYPE  = 0
	STT_OBJECT  = 1
	STT_FUNC    = 2
	STT_SECTION = 3
	STT_FILE    = 4

	STV_DEFAULT = 0
	STV_HIDDEN  = 2
)

// Section types the ELF reader looks for, beside those in section.go.
const (
	SHT_NOTE   SectionType = 7
	SHT_DYNSYM SectionType = 11
)

// ELFFile is an ELF file (32 or 64-bit, either byte order, any e_type)
// read by ParseELF: the header fields the tools use and the section
// headers with their names and contents. Section contents are zero-copy
// slices of the input.
type ELFFile struct {
	Class      int // 32 or 64
	ByteOrder  binary.ByteOrder
	ABIVersion uint8  // e_ident[EI_ABIVERSION]
	Type       uint16 // e_type
	Machine    uint16 // e_machine
	Flags      uint32 // e_flags
	PhNum      int    // e_phnum
	ShOff      uint64 // e_shoff
	// ShStrNdx is e_shstrndx, SHN_XINDEX resolved through section 0's
	// sh_link; 0: no section name table.
	ShStrNdx int
	Sections []ELFSection
}

// ELFSection is one section header. Section 0 has no contents (its size
// and offset, which may hold extended counts, read as 0).
type ELFSection struct {
	Name      string
	NameOff   uint32 // sh_name, Name's offset in the section name table
	Type      SectionType
	Flags     SectionFlag
	Addr      uint64
	Offset    uint64 // in the file; the contents are Data
	Size      uint64
	Link      uint32
	Info      uint32
	Addralign uint64
	Entsize   uint64
	// Data is nil for SHT_NULL and SHT_NOBITS sections and section 0.
	Data []byte
}

// ELFSymbol is one symbol table entry.
type ELFSymbol struct {
	Name        string
	Value, Size uint64
	Info, Other uint8
	// Section is st_shndx, an extended index (SHN_XINDEX) resolved
	// through the table's SHT_SYMTAB_SHNDX section when it has one.
	Section uint32
}

// Bind is the symbol's binding (STB_*), Type its type (STT_*), Visibility
// its visibility (STV_*).
func (s *ELFSymbol) Bind() uint8       { return s.Info >> 4 }
func (s *ELFSymbol) Type() uint8       { return s.Info & 0xf }
func (s *ELFSymbol) Visibility() uint8 { return s.Other & 3 }

// ParseELF reads the header and section headers of an ELF file. It is the
// one ELF reader of the tools' read paths (linker-wrapper's symbol
// resolution and --override-image, the registration-object describer,
// the code-object parsers): every offset and size read from the input is
// checked before use, so it never panics and allocates no more than the
// input justifies; errors are *FormatError with the offset of the failing
// field.
//
// elfembed.Parse reads ELF objects through it too; where the two readers
// differed, this one now takes the stricter side, LLVM's: (1) an ELF
// magic in fewer than 16 bytes is ErrTruncated, not ErrMagic; (2) an
// e_shnum without a section header table is reported at e_shoff; (3) a
// section name (sh_name other than 0) with no section name table
// (e_shstrndx 0) is an error, as LLVM's getSectionName finds it past the
// end of an empty table (elfembed's reader said so; this one gave empty
// names); (4) a zero-size section's sh_offset must lie within the file, as
// LLVM's getSectionContents requires (elfembed's reader did not check it);
// (5) names come only from a name table that has contents (not SHT_NULL
// or SHT_NOBITS; LLVM wants SHT_STRTAB), where elfembed's reader read the
// bytes of an SHT_NULL one. An extended section count larger than the file
// is ErrTruncated (elfembed said ErrLimit).
func ParseELF(data []byte) (*ELFFile, error) {
	if !bytes.HasPrefix(data, []byte("\x7fELF")) {
		return nil, Errorf(0, ErrMagic, "not an ELF file")
	}
	if len(data) < 16 {
		return nil, Errorf(0, ErrTruncated, "ELF identification of %d bytes, want 16", len(data))
	}
	f := &ELFFile{ABIVersion: data[8]}
	switch data[4] {
	case 1:
		f.Class = 32
	case 2:
		f.Class = 64
	default:
		return nil, Errorf(4, ErrCorrupt, "ELF class %d", data[4])
	}
	switch data[5] {
	case 1:
		f.ByteOrder = binary.LittleEndian
	case 2:
		f.ByteOrder = binary.BigEndian
	default:
		return nil, Errorf(5, ErrCorrupt, "ELF data encoding %d", data[5])
	}
	bo := f.ByteOrder
	ehsize, shentWant := 52, uint64(40)
	if f.Class == 64 {
		ehsize, shentWant = 64, 64
	}
	if len(data) < ehsize {
		return nil, Errorf(0, ErrTruncated, "ELF header of %d bytes in a file of %d", ehsize, len(data))
	}
	f.Type = bo.Uint16(data[16:])
	f.Machine = bo.Uint16(data[18:])
	var shoff uint64
	var shoffOff, shentOff int
	if f.Class == 64 {
		shoffOff, shentOff = 40, 58
		shoff = bo.Uint64(data[40:])
		f.Flags = bo.Uint32(data[48:])
	} else {
		shoffOff, shentOff = 32, 46
		shoff = uint64(bo.Uint32(data[32:]))
		f.Flags = bo.Uint32(data[36:])
	}
	shentsize := uint64(bo.Uint16(data[shentOff:]))
	shnum := uint64(bo.Uint16(data[shentOff+2:]))
	shstrndx := uint64(bo.Uint16(data[shentOff+4:]))
	f.PhNum = int(bo.Uint16(data[shentOff-2:]))
	f.ShOff = shoff
	if shoff == 0 {
		if shnum != 0 {
			return nil, Errorf(int64(shoffOff), ErrCorrupt, "e_shnum %d with no section header table", shnum)
		}
		return f, nil
	}
	if shentsize != shentWant {
		return nil, Errorf(int64(shentOff), ErrCorrupt, "e_shentsize %d, want %d", shentsize, shentWant)
	}
	if !binio.InRange(shoff, shentWant, uint64(len(data))) {
		if shnum != 0 {
			return nil, Errorf(int64(shoffOff), ErrTruncated, "%d section headers at 0x%x run past the end (%d bytes)", shnum, shoff, len(data))
		}
		return nil, Errorf(int64(shoffOff), ErrTruncated, "section header table at 0x%x runs past the end (%d bytes)", shoff, len(data))
	}
	first := f.readShdr(data[shoff:])
	if shnum == 0 { // extended numbering: the count is section 0's sh_size
		shnum = first.Size
	}
	if shstrndx == SHN_XINDEX {
		shstrndx = uint64(first.Link)
	}
	if shnum > uint64(len(data))/shentWant || !binio.InRange(shoff, shnum*shentWant, uint64(len(data))) {
		return nil, Errorf(int64(shoff), ErrTruncated, "%d section headers at 0x%x run past the end (%d bytes)", shnum, shoff, len(data))
	}
	f.Sections = make([]ELFSection, shnum)
	for i := range f.Sections {
		hoff := shoff + uint64(i)*shentWant
		s := f.readShdr(data[hoff:])
		if shstrndx == 0 && s.NameOff != 0 {
			return nil, Errorf(int64(hoff), ErrCorrupt, "section %d: name without a section name table", i)
		}
		if i == 0 {
			s.Offset, s.Size = 0, 0
		} else if s.Type != SHT_NOBITS && s.Type != SHT_NULL {
			if !binio.InRange(s.Offset, s.Size, uint64(len(data))) {
				return nil, Errorf(int64(hoff), ErrTruncated, "section %d: contents [0x%x, +0x%x) past the end of the file", i, s.Offset, s.Size)
			}
			s.Data = data[s.Offset : s.Offset+s.Size : s.Offset+s.Size]
		}
		f.Sections[i] = s
	}
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, Errorf(int64(shentOff+4), ErrCorrupt, "e_shstrndx %d out of range", shstrndx)
		}
		f.ShStrNdx = int(shstrndx)
		strs := f.Sections[shstrndx].Data
		for i := range f.Sections {
			n, ok := elfString(strs, uint64(f.Sections[i].NameOff))
			if !ok {
				return nil, Errorf(int64(shoff+uint64(i)*shentWant), ErrCorrupt, "section %d: name offset 0x%x out of range", i, f.Sections[i].NameOff)
			}
			f.Sections[i].Name = n
		}
	}
	return f, nil
}

// readShdr decodes a section header (b holds at least one header).
func (f *ELFFile) readShdr(b []byte) ELFSection {
	bo := f.ByteOrder
	if f.Class == 64 {
		return ELFSection{Type: SectionType(bo.Uint32(b[4:])), Flags: SectionFlag(bo.Uint64(b[8:])),
			Addr: bo.Uint64(b[16:]), Offset: bo.Uint64(b[24:]), Size: bo.Uint64(b[32:]), Link: bo.Uint32(b[40:]),
			Info: bo.Uint32(b[44:]), Addralign: bo.Uint64(b[48:]), Entsize: bo.Uint64(b[56:]), NameOff: bo.Uint32(b)}
	}
	return ELFSection{Type: SectionType(bo.Uint32(b[4:])), Flags: SectionFlag(bo.Uint32(b[8:])),
		Addr: uint64(bo.Uint32(b[12:])), Offset: uint64(bo.Uint32(b[16:])), Size: uint64(bo.Uint32(b[20:])),
		Link: bo.Uint32(b[24:]), Info: bo.Uint32(b[28:]), Addralign: uint64(bo.Uint32(b[32:])),
		Entsize: uint64(bo.Uint32(b[36:])), NameOff: bo.Uint32(b)}
}

// elfString is the NUL-terminated string at off in a string table; offset
// 0 of an empty or missing table is the empty name.
func elfString(b []byte, off uint64) (string, bool) {
	if off == 0 && len(b) == 0 {
		return "", true
	}
	return binio.CString(b, off)
}

// Section returns the first section with that name, or nil.
func (f *ELFFile) Section(name string) *ELFSection {
	for i := range f.Sections {
		if f.Sections[i].Name == name {
			return &f.Sections[i]
		}
	}
	return nil
}

// Symbols reads the first SHT_SYMTAB section; DynamicSymbols the first
// SHT_DYNSYM. Entry k of the result is symbol k, entry 0 the null symbol;
// a file without such a table gives none and no error.
func (f *ELFFile) Symbols() ([]ELFSymbol, error)        { return f.symbolsOfType(SHT_SYMTAB) }
func (f *ELFFile) DynamicSymbols() ([]ELFSymbol, error) { return f.symbolsOfType(SHT_DYNSYM) }

func (f *ELFFile) symbolsOfType(typ SectionType) ([]ELFSymbol, error) {
	for i := range f.Sections {
		if f.Sections[i].Type == typ {
			return f.SymbolTable(i)
		}
	}
	return nil, nil
}

// SymbolTable reads the symbol table in section i: every entry, names from
// the string table its sh_link names, extended section indices from the
// SHT_SYMTAB_SHNDX section that links to it.
func (f *ELFFile) SymbolTable(i int) ([]ELFSymbol, error) {
	if i <= 0 || i >= len(f.Sections) {
		return nil, Errorf(0, ErrCorrupt, "symbol table section %d out of range", i)
	}
	tab := &f.Sections[i]
	ent := uint64(16)
	if f.Class == 64 {
		ent = 24
	}
	at := int64(tab.Offset)
	if tab.Entsize != ent && tab.Entsize != 0 {
		return nil, Errorf(at, ErrCorrupt, "symbol table %s: entry size %d, want %d", tab.Name, tab.Entsize, ent)
	}
	if uint64(len(tab.Data))%ent != 0 {
		return nil, Errorf(at, ErrCorrupt, "symbol table %s: size %d is not a multiple of %d", tab.Name, len(tab.Data), ent)
	}
	if uint64(tab.Link) >= uint64(len(f.Sections)) {
		return nil, Errorf(at, ErrCorrupt, "symbol table %s: string table index %d out of range", tab.Name, tab.Link)
	}
	strs := f.Sections[tab.Link].Data
	if tab.Link == 0 {
		strs = nil
	}
	n := uint64(len(tab.Data)) / ent
	var xindex []byte
	for j := range f.Sections {
		if s := &f.Sections[j]; s.Type == SHT_SYMTAB_SHNDX && int(s.Link) == i {
			xindex = s.Data
			break
		}
	}
	bo := f.ByteOrder
	syms := make([]ELFSymbol, n)
	for k := uint64(0); k < n; k++ {
		e := tab.Data[k*ent:]
		var s ELFSymbol
		var shndx uint16
		if f.Class == 64 {
			s = ELFSymbol{Info: e[4], Other: e[5], Value: bo.Uint64(e[8:]), Size: bo.Uint64(e[16:])}
			shndx = bo.Uint16(e[6:])
		} else {
			s = ELFSymbol{Value: uint64(bo.Uint32(e[4:])), Size: uint64(bo.Uint32(e[8:])), Info: e[12], Other: e[13]}
			shndx = bo.Uint16(e[14:])
		}
		s.Section = uint32(shndx)
		if shndx == SHN_XINDEX && xindex != nil {
			if uint64(len(xindex))/4 <= k {
				return nil, Errorf(at+int64(k*ent), ErrCorrupt, "symbol %d: no entry in the extended section index table", k)
			}
			s.Section = bo.Uint32(xindex[k*4:])
		}
		name, ok := elfString(strs, uint64(bo.Uint32(e)))
		if !ok {
			return nil, Errorf(at+int64(k*ent), ErrCorrupt, "symbol %d: name offset 0x%x out of range", k, bo.Uint32(e))
		}
		s.Name = name
		syms[k] = s
	}
	return syms, nil
}
