// Package objw writes small relocatable objects, ELF64 (x86-64, AArch64)
// and x86-64 COFF: the registration ("wrapper") objects produced by
// internal/wrap.
//
// The writer is layout-first in the style of cmd/link: callers build a
// model (sections, symbols, relocations) that refers to sections and symbols
// by pointer; indices, string-table offsets and file offsets are assigned
// only when the object is written. Output is deterministic: the same model
// always gives the same bytes.
//
// Section contents are kept as a list of chunks, so a large device image
// passed to Section.Append is never copied until it is written.
package objw

import (
	"errors"
	"fmt"

	"github.com/offload-kit/offload-kit/format"
)

// Relocation types used by the writer and its callers (the ELF header and
// symbol values are format's: format.EM_X86_64, format.STB_LOCAL, ...;
// section types and flags are format.SectionType and format.SectionFlag).
const (
	R_X86_64_64    uint32 = 1
	R_X86_64_PC32  uint32 = 2
	R_X86_64_PLT32 uint32 = 4

	R_AARCH64_ABS64              uint32 = 257
	R_AARCH64_PREL32             uint32 = 261
	R_AARCH64_ADR_PREL_PG_HI21   uint32 = 275
	R_AARCH64_ADD_ABS_LO12_NC    uint32 = 277
	R_AARCH64_LDST64_ABS_LO12_NC uint32 = 286
	R_AARCH64_CALL26             uint32 = 283
)

// ErrInvalid is wrapped by errors about an inconsistent object model.
var ErrInvalid = errors.New("objw: invalid object")

// Object is the model of one relocatable object.
type Object struct {
	Machine  uint16
	FileName string // if non-empty: ELF, a STT_FILE symbol first; COFF, a .file record last
	coff     bool

	sections []*Section
	symbols  []*Symbol
}

// Section is one section of the object. Link and Info may point at other
// sections; they are resolved to indices when the object is written.
type Section struct {
	Name    string
	Type    format.SectionType
	Flags   format.SectionFlag
	Align   uint64
	EntSize uint64
	Link    *Section
	Info    *Section

	chunks [][]byte
	size   uint64 // total size, including NOBITS size
	relocs []Reloc
	secSym *Symbol
	obj    *Object
}

// Symbol is one symbol-table entry. A nil Section means undefined, unless
// Abs is set (SHN_ABS).
type Symbol struct {
	Name    string
	Section *Section
	Value   uint64
	Size    uint64
	Bind    uint8
	Type    uint8
	Vis     uint8
	Abs     bool
}

// Reloc is one RELA relocation in a section.
type Reloc struct {
	Off    uint64
	Type   uint32
	Sym    *Symbol
	Addend int64
}

// NewELF returns an empty ELF64 little-endian relocatable object for machine.
func NewELF(machine uint16) *Object {
	return &Object{Machine: machine}
}

// NewCOFF returns an empty COFF relocatable object for machine (e.g.
// IMAGE_FILE_MACHINE_AMD64). The same model is used, with these
// differences when written (see coff.go): section characteristics are
// derived from the ELF-style flags and the alignment; relocation addends
// are stored in place (COFF relocations have none); every section gets a
// static section symbol with an auxiliary section definition (with LLVM's
// JamCRC checksum of the contents); a weak defined symbol becomes a weak
// external aliasing ".weak.<name>.default", the symbol right after it, as
// the LLVM COFF writer does; symbols are written in model order (see
// OrderSymbols); visibility is ignored.
func NewCOFF(machine uint16) *Object {
	return &Object{Machine: machine, coff: true}
}

// IsCOFF reports whether o is written as COFF.
func (o *Object) IsCOFF() bool { return o.coff }

// AddSection adds a section holding data (not copied; may be nil).
func (o *Object) AddSection(name string, typ format.SectionType, flags format.SectionFlag, align uint64, data []byte) *Section {
	s := &Section{Name: name, Type: typ, Flags: flags, Align: align, obj: o}
	if len(data) > 0 {
		s.Append(data)
	}
	o.sections = append(o.sections, s)
	return s
}

// Sections returns the sections in the order they were added.
func (o *Object) Sections() []*Section { return o.sections }

// Symbols returns the symbols in the order they were added.
func (o *Object) Symbols() []*Symbol { return o.symbols }

// AddSymbol adds a symbol defined in sec (nil: undefined).
func (o *Object) AddSymbol(name string, sec *Section, value, size uint64, bind, typ, vis uint8) *Symbol {
	s := &Symbol{Name: name, Section: sec, Value: value, Size: size, Bind: bind, Type: typ, Vis: vis}
	o.symbols = append(o.symbols, s)
	return s
}

// OrderSymbols puts the symbols of first at the front of the symbol list,
// in that order, and keeps the others after them in the order they were
// added. A symbol of first that is not in o, or listed twice, is an error.
// The COFF writer emits symbols in model order (after the section
// symbols), so this is how a caller reproduces another writer's order.
func (o *Object) OrderSymbols(first []*Symbol) error {
	in := make(map[*Symbol]bool, len(o.symbols))
	for _, s := range o.symbols {
		in[s] = true
	}
	seen := make(map[*Symbol]bool, len(first))
	out := make([]*Symbol, 0, len(o.symbols))
	for _, s := range first {
		if !in[s] || seen[s] {
			name := "<nil>"
			if s != nil {
				name = s.Name
			}
			return fmt.Errorf("%w: OrderSymbols: symbol %q is not in this object or is listed twice", ErrInvalid, name)
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, s := range o.symbols {
		if !seen[s] {
			out = append(out, s)
		}
	}
	o.symbols = out
	return nil
}

// SectionSymbol returns the STT_SECTION symbol of sec, creating it on first
// use. Relocations against local data are expressed against it, as LLVM's
// assembler does.
func (o *Object) SectionSymbol(sec *Section) *Symbol {
	if sec.secSym == nil {
		sec.secSym = o.AddSymbol("", sec, 0, 0, format.STB_LOCAL, format.STT_SECTION, format.STV_DEFAULT)
	}
	return sec.secSym
}

// AddReloc adds a RELA relocation at offset off of sec.
func (o *Object) AddReloc(sec *Section, off uint64, typ uint32, sym *Symbol, addend int64) {
	sec.relocs = append(sec.relocs, Reloc{Off: off, Type: typ, Sym: sym, Addend: addend})
}

// Append adds b (not copied) at the end of the section and returns the
// offset at which it starts.
func (s *Section) Append(b []byte) uint64 {
	off := s.size
	if len(b) > 0 {
		s.chunks = append(s.chunks, b)
		s.size += uint64(len(b))
	}
	return off
}

// Pad appends zero bytes up to a multiple of align and returns the new size.
func (s *Section) Pad(align uint64) uint64 {
	if align > 1 {
		if n := (align - s.size%align) % align; n > 0 {
			s.Append(make([]byte, n))
		}
	}
	return s.size
}

// Reserve grows a format.SHT_NOBITS section by n bytes and returns the offset of
// the reserved space.
func (s *Section) Reserve(n uint64) uint64 {
	off := s.size
	s.size += n
	return off
}

// Size returns the section size in bytes.
func (s *Section) Size() uint64 { return s.size }

// Relocs returns the section's relocations in the order they were added.
func (s *Section) Relocs() []Reloc { return s.relocs }

// Bytes returns a copy of the section contents (nil for format.SHT_NOBITS).
func (s *Section) Bytes() []byte {
	if s.Type == format.SHT_NOBITS {
		return nil
	}
	b := make([]byte, 0, s.size)
	for _, c := range s.chunks {
		b = append(b, c...)
	}
	return b
}

func (o *Object) check() error {
	owned := make(map[*Section]bool, len(o.sections))
	for _, s := range o.sections {
		owned[s] = true
		if s.Align != 0 && s.Align&(s.Align-1) != 0 {
			return fmt.Errorf("%w: section %s: alignment %d is not a power of two", ErrInvalid, s.Name, s.Align)
		}
		if s.Type == format.SHT_NOBITS && len(s.chunks) > 0 {
			return fmt.Errorf("%w: section %s: SHT_NOBITS section has contents", ErrInvalid, s.Name)
		}
	}
	syms := make(map[*Symbol]bool, len(o.symbols))
	for _, sym := range o.symbols {
		syms[sym] = true
		if sym.Section != nil && !owned[sym.Section] {
			return fmt.Errorf("%w: symbol %q: section %s is not in this object", ErrInvalid, sym.Name, sym.Section.Name)
		}
	}
	for _, s := range o.sections {
		for i, r := range s.relocs {
			if !syms[r.Sym] {
				return fmt.Errorf("%w: section %s: relocation %d: symbol is not in this object", ErrInvalid, s.Name, i)
			}
			if r.Off >= s.size {
				return fmt.Errorf("%w: section %s: relocation %d at 0x%x is past the end (size 0x%x)", ErrInvalid, s.Name, i, r.Off, s.size)
			}
		}
		for _, l := range []*Section{s.Link, s.Info} {
			if l != nil && !owned[l] {
				return fmt.Errorf("%w: section %s: linked section %s is not in this object", ErrInvalid, s.Name, l.Name)
			}
		}
	}
	return nil
}
