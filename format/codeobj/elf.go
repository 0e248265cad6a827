package codeobj

import (
	"encoding/binary"
	"slices"
	"sort"

	"github.com/offload-kit/offload-kit/format"
)

// ELF constants the parsers need, by their short local names (the values
// are format's, the one set the ELF readers share).
const (
	emX86_64 = format.EM_X86_64
	emCUDA   = format.EM_CUDA
	emAMDGPU = format.EM_AMDGPU

	shtNote   = uint32(format.SHT_NOTE)
	shtNobits = uint32(format.SHT_NOBITS)

	sttFunc   = format.STT_FUNC
	sttObject = format.STT_OBJECT
)

// elfFile is the view of a 64-bit little-endian ELF file the parsers
// use, read by format.ParseELF (the one bounds-checked ELF reader).
// Nothing is copied: sections are slices of the input.
type elfFile struct {
	elf      *format.ELFFile
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
	data      []byte // nil for NOBITS and section 0
}

// bytes returns the section's contents (nil for NOBITS).
func (f *elfFile) bytes(s *elfSection) []byte { return s.data }

type elfSymbol struct {
	name  string
	value uint64
	size  uint64
	info  uint8
	other uint8
	shndx uint32 // extended indices resolved
}

func (s *elfSymbol) typ() uint8  { return s.info & 0xf }
func (s *elfSymbol) bind() uint8 { return s.info >> 4 }

func parseELF(data []byte) (*elfFile, error) {
	if len(data) < 64 || string(data[:4]) != "\x7fELF" {
		return nil, format.Errorf(0, format.ErrMagic, "not an ELF file")
	}
	if data[4] != 2 || data[5] != 1 {
		return nil, format.Errorf(4, format.ErrUnsupported, "only 64-bit little-endian ELF is read (class %d, data %d)", data[4], data[5])
	}
	ef, err := format.ParseELF(data)
	if err != nil {
		return nil, err
	}
	f := &elfFile{elf: ef, typ: ef.Type, machine: ef.Machine, flags: ef.Flags, abiVer: ef.ABIVersion,
		sections: make([]elfSection, len(ef.Sections))}
	for i, s := range ef.Sections {
		f.sections[i] = elfSection{name: s.Name, typ: uint32(s.Type), flags: uint64(s.Flags), addr: s.Addr,
			off: s.Offset, size: s.Size, link: s.Link, info: s.Info, entsize: s.Entsize, data: s.Data}
	}
	return f, nil
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
// for each symbol after the null one.
func (f *elfFile) symbols(visit func(i int, s *elfSymbol)) error {
	syms, err := f.elf.Symbols()
	if err == nil && syms == nil {
		syms, err = f.elf.DynamicSymbols()
	}
	if err != nil {
		return err
	}
	for i := 1; i < len(syms); i++ {
		s := &syms[i]
		visit(i, &elfSymbol{name: s.Name, value: s.Value, size: s.Size, info: s.Info, other: s.Other, shndx: s.Section})
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
	if uint64(len(sec.data)) != sec.size {
		// SHT_NOBITS and SHT_NULL sections have no contents in the
		// file: their offset and size were never checked against it.
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
	starts := map[uint32][]uint64{}
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
