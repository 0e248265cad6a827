package codeobj

import (
	"encoding/binary"
	"slices"
	"sort"

	"github.com/offload-kit/offload-kit/format"
)

// ELF constants the parsers need.
const (
	emX86_64 = 62
	emCUDA   = 190
	emAMDGPU = 224

	shtSymtab = 2
	shtNote   = 7
	shtNobits = 8
	shtDynsym = 11

	sttFunc   = 2
	sttObject = 1
)

// elfFile is a bounds-checked view of a 64-bit little-endian ELF file.
// Nothing is copied: sections are slices of the input.
type elfFile struct {
	data     []byte
	typ      uint16 // e_type
	machine  uint16
	flags    uint32 // e_flags
	abiVer   uint8
	sections []elfSection
}

type elfSection struct {
	name      string
	typ       uint32
	flags     uint64
	addr      uint64
	off, size uint64
	link      uint32
	info      uint32
	entsize   uint64
}

// bytes returns the section's contents (nil for NOBITS).
func (f *elfFile) bytes(s *elfSection) []byte {
	if s.typ == shtNobits {
		return nil
	}
	return f.data[s.off : s.off+s.size]
}

type elfSymbol struct {
	name  string
	value uint64
	size  uint64
	info  uint8
	other uint8
	shndx uint16
}

func (s *elfSymbol) typ() uint8  { return s.info & 0xf }
func (s *elfSymbol) bind() uint8 { return s.info >> 4 }

// maxSections bounds the section header table (each header is 64 bytes,
// so the input bounds it anyway; this keeps hostile counts cheap).
const maxSections = 1 << 16

func parseELF(data []byte) (*elfFile, error) {
	if len(data) < 64 || string(data[:4]) != "\x7fELF" {
		return nil, format.Errorf(0, format.ErrMagic, "not an ELF file")
	}
	if data[4] != 2 || data[5] != 1 {
		return nil, format.Errorf(4, format.ErrUnsupported, "only 64-bit little-endian ELF is read (class %d, data %d)", data[4], data[5])
	}
	le := binary.LittleEndian
	f := &elfFile{data: data, typ: le.Uint16(data[16:]), machine: le.Uint16(data[18:]), flags: le.Uint32(data[48:]), abiVer: data[8]}
	shoff := le.Uint64(data[40:])
	shentsize := uint64(le.Uint16(data[58:]))
	shnum := uint64(le.Uint16(data[60:]))
	shstrndx := uint64(le.Uint16(data[62:]))
	if shnum == 0 && shoff != 0 {
		if shoff > uint64(len(data)) || uint64(len(data))-shoff < 64 {
			return nil, format.Errorf(40, format.ErrTruncated, "section header table at 0x%x past the end", shoff)
		}
		shnum = le.Uint64(data[shoff+32:])
	}
	if shstrndx == 0xffff && shoff != 0 && shoff+64 <= uint64(len(data)) {
		shstrndx = uint64(le.Uint32(data[shoff+40:]))
	}
	if shnum == 0 {
		return f, nil
	}
	if shentsize != 64 {
		return nil, format.Errorf(58, format.ErrCorrupt, "section header size %d, want 64", shentsize)
	}
	if shnum > maxSections || shoff > uint64(len(data)) || (uint64(len(data))-shoff)/64 < shnum {
		return nil, format.Errorf(40, format.ErrTruncated, "%d section headers at 0x%x run past the end (%d bytes)", shnum, shoff, len(data))
	}
	f.sections = make([]elfSection, shnum)
	nameOff := make([]uint32, shnum)
	for i := range f.sections {
		h := data[shoff+uint64(i)*64:]
		s := &f.sections[i]
		nameOff[i] = le.Uint32(h)
		s.typ = le.Uint32(h[4:])
		s.flags = le.Uint64(h[8:])
		s.addr = le.Uint64(h[16:])
		s.off = le.Uint64(h[24:])
		s.size = le.Uint64(h[32:])
		s.link = le.Uint32(h[40:])
		s.info = le.Uint32(h[44:])
		s.entsize = le.Uint64(h[56:])
		if s.typ != shtNobits && i > 0 && (s.off > uint64(len(data)) || s.size > uint64(len(data))-s.off) {
			return nil, format.Errorf(int64(shoff)+int64(i)*64+24, format.ErrTruncated, "section %d (0x%x bytes at 0x%x) runs past the end", i, s.size, s.off)
		}
		if i == 0 {
			s.off, s.size = 0, 0
		}
	}
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, format.Errorf(62, format.ErrCorrupt, "section name table index %d out of range", shstrndx)
		}
		strs := f.bytes(&f.sections[shstrndx])
		for i := range f.sections {
			n, ok := cstring(strs, uint64(nameOff[i]))
			if !ok {
				return nil, format.Errorf(int64(shoff)+int64(i)*64, format.ErrCorrupt, "section %d name offset 0x%x out of range", i, nameOff[i])
			}
			f.sections[i].name = n
		}
	}
	return f, nil
}

// cstring is the NUL-terminated string at off in b.
func cstring(b []byte, off uint64) (string, bool) {
	if off >= uint64(len(b)) {
		return "", off == 0 && len(b) == 0
	}
	for i := off; i < uint64(len(b)); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}

// section returns the first section with that name.
func (f *elfFile) section(name string) *elfSection {
	for i := range f.sections {
		if f.sections[i].name == name {
			return &f.sections[i]
		}
	}
	return nil
}

// symbols reads the symbol table (.symtab, else .dynsym). visit is called
// for each symbol after the null one; names share no memory with the input
// (strings are copied, as they are small).
func (f *elfFile) symbols(visit func(i int, s *elfSymbol)) error {
	var tab *elfSection
	for _, want := range []uint32{shtSymtab, shtDynsym} {
		for i := range f.sections {
			if f.sections[i].typ == want {
				tab = &f.sections[i]
				break
			}
		}
		if tab != nil {
			break
		}
	}
	if tab == nil {
		return nil
	}
	if tab.entsize != 24 && tab.entsize != 0 {
		return format.Errorf(int64(tab.off), format.ErrCorrupt, "symbol table entry size %d, want 24", tab.entsize)
	}
	if uint64(tab.link) >= uint64(len(f.sections)) {
		return format.Errorf(int64(tab.off), format.ErrCorrupt, "symbol table's string table index %d out of range", tab.link)
	}
	strs := f.bytes(&f.sections[tab.link])
	b := f.bytes(tab)
	le := binary.LittleEndian
	for i := 1; (i+1)*24 <= len(b); i++ {
		e := b[i*24:]
		s := elfSymbol{value: le.Uint64(e[8:]), size: le.Uint64(e[16:]), info: e[4], other: e[5], shndx: le.Uint16(e[6:])}
		n, ok := cstring(strs, uint64(le.Uint32(e)))
		if !ok {
			return format.Errorf(int64(tab.off)+int64(i)*24, format.ErrCorrupt, "symbol %d name offset 0x%x out of range", i, le.Uint32(e))
		}
		s.name = n
		visit(i, &s)
	}
	return nil
}

// fileRange maps a symbol's value and size to a range of the file: for
// relocatable files the value is an offset in its section, for linked
// ones an address in it. ok is false for symbols outside any stored
// section.
func (f *elfFile) fileRange(s *elfSymbol) (off, size uint64, ok bool) {
	if s.shndx == 0 || uint64(s.shndx) >= uint64(len(f.sections)) {
		return 0, 0, false
	}
	sec := &f.sections[s.shndx]
	if sec.typ == shtNobits {
		return 0, 0, false
	}
	rel := s.value
	if f.typ != 1 { // not ET_REL
		if s.value < sec.addr {
			return 0, 0, false
		}
		rel = s.value - sec.addr
	}
	if rel > sec.size || s.size > sec.size-rel {
		return 0, 0, false
	}
	return sec.off + rel, s.size, true
}

// note is one ELF note.
type note struct {
	name string
	typ  uint32
	desc []byte
	off  int64 // of the note header in the file
}

// notes reads the notes of every SHT_NOTE section.
func (f *elfFile) notes(visit func(n note) error) error {
	le := binary.LittleEndian
	for i := range f.sections {
		s := &f.sections[i]
		if s.typ != shtNote {
			continue
		}
		b := f.bytes(s)
		for p := uint64(0); p+12 <= uint64(len(b)); {
			namesz, descsz, typ := uint64(le.Uint32(b[p:])), uint64(le.Uint32(b[p+4:])), le.Uint32(b[p+8:])
			nameEnd := p + 12 + namesz
			descOff := p + 12 + (namesz+3)&^3
			if namesz > uint64(len(b)) || descsz > uint64(len(b)) || descOff+descsz > uint64(len(b)) || nameEnd > uint64(len(b)) {
				return format.Errorf(int64(s.off+p), format.ErrTruncated, "note in %s runs past the end of its section", s.name)
			}
			name := b[p+12 : nameEnd]
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			if err := visit(note{name: string(name), typ: typ, desc: b[descOff : descOff+descsz], off: int64(s.off + p)}); err != nil {
				return err
			}
			p = descOff + (descsz+3)&^3
		}
	}
	return nil
}

// layoutSizes gives each defined function symbol of syms with st_size 0
// the size its section's layout implies: up to the next function symbol
// of the same section at a higher address, else to the section's end
// (hand-written assembly such as Tensile's code objects has no .size
// directives). It returns where each size comes from.
func (f *elfFile) layoutSizes(syms []elfSymbol) []SizeSource {
	from := make([]SizeSource, len(syms))
	starts := map[uint16][]uint64{}
	need := false
	for i := range syms {
		s := &syms[i]
		if s.size != 0 {
			from[i] = SizeSymbol
			continue
		}
		need = true
	}
	if !need {
		return from
	}
	for i := range syms {
		s := &syms[i]
		if s.typ() == sttFunc && s.shndx != 0 && uint64(s.shndx) < uint64(len(f.sections)) {
			starts[s.shndx] = append(starts[s.shndx], s.value)
		}
	}
	for k, v := range starts {
		slices.Sort(v)
		starts[k] = slices.Compact(v)
	}
	for i := range syms {
		s := &syms[i]
		if s.size != 0 || s.shndx == 0 || uint64(s.shndx) >= uint64(len(f.sections)) {
			continue
		}
		sec := &f.sections[s.shndx]
		if sec.typ == shtNobits {
			continue
		}
		end := sec.size
		if f.typ != 1 { // not ET_REL: values are addresses
			end += sec.addr
		}
		v := starts[s.shndx]
		if j := sort.Search(len(v), func(j int) bool { return v[j] > s.value }); j < len(v) {
			end = v[j]
		}
		if end > s.value {
			s.size = end - s.value
			from[i] = SizeLayout
		}
	}
	return from
}
