package objw

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/offload-kit/offload-kit/format"
)

// COFF constants used by the writer and its callers.
const (
	IMAGE_FILE_MACHINE_AMD64 uint16 = 0x8664

	IMAGE_REL_AMD64_ADDR64   uint32 = 0x1
	IMAGE_REL_AMD64_ADDR32NB uint32 = 0x3
	IMAGE_REL_AMD64_REL32    uint32 = 0x4

	imageScnCntCode      = 0x20
	imageScnCntData      = 0x40
	imageScnCntBSS       = 0x80
	imageScnMemExecute   = 0x20000000
	imageScnMemRead      = 0x40000000
	imageScnMemWrite     = 0x80000000
	imageSymClassExtern  = 2
	imageSymClassStatic  = 3
	imageSymClassWeakExt = 0x69
	imageSymClassFile    = 0x67
	imageSymDebug        = 0xfffe // IMAGE_SYM_DEBUG (-2): the section number of .file
	imageSymDTypeFunc    = 0x20
	imageWeakExternAlias = 3

	coffHdrSize   = 20
	coffShdrSize  = 40
	coffSymSize   = 18
	coffRelocSize = 10
)

// coffSec is one section as laid out for writing.
type coffSec struct {
	s       *Section
	name    [8]byte
	chars   uint32
	dataOff uint32
	relOff  uint32
	chunks  [][]byte
}

type coffLayout struct {
	secs   []coffSec
	symtab []byte
	nsyms  uint32
	symOff uint32
	strtab []byte
	total  uint64
}

// Characteristics returns the COFF section characteristics of s: content
// and memory flags derived from Type and Flags, plus the alignment.
func (s *Section) Characteristics() uint32 {
	var c uint32
	switch {
	case s.Flags&format.SHF_EXECINSTR != 0:
		c = imageScnCntCode | imageScnMemExecute | imageScnMemRead
	case s.Type == format.SHT_NOBITS:
		c = imageScnCntBSS | imageScnMemRead | imageScnMemWrite
	default:
		c = imageScnCntData | imageScnMemRead
		if s.Flags&format.SHF_WRITE != 0 {
			c |= imageScnMemWrite
		}
	}
	if s.Align > 0 {
		c |= uint32(bits.TrailingZeros64(s.Align)+1) << 20
	}
	return c
}

func (o *Object) coffLayout() (*coffLayout, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Machine != IMAGE_FILE_MACHINE_AMD64 {
		return nil, fmt.Errorf("%w: COFF machine 0x%x is not supported", ErrInvalid, o.Machine)
	}
	le := binary.LittleEndian
	strtab := []byte{0, 0, 0, 0}
	strOff := map[string]uint32{}
	str := func(s string) uint32 {
		if off, ok := strOff[s]; ok {
			return off
		}
		off := uint32(len(strtab))
		strtab = append(strtab, s...)
		strtab = append(strtab, 0)
		strOff[s] = off
		return off
	}

	secIdx := make(map[*Section]int, len(o.sections))
	l := &coffLayout{}
	for i, s := range o.sections {
		if s.Align > 8192 {
			return nil, fmt.Errorf("%w: section %s: COFF alignment %d exceeds 8192", ErrInvalid, s.Name, s.Align)
		}
		if len(s.relocs) > 0xffff {
			return nil, fmt.Errorf("%w: section %s: %d relocations", ErrInvalid, s.Name, len(s.relocs))
		}
		secIdx[s] = i + 1
		cs := coffSec{s: s, chars: s.Characteristics(), chunks: s.chunks}
		if len(s.Name) <= 8 {
			copy(cs.name[:], s.Name)
		} else {
			copy(cs.name[:], fmt.Sprintf("/%d", str(s.Name)))
		}
		l.secs = append(l.secs, cs)
	}

	// Symbols: a static section symbol (+ aux section definition) per
	// section, then the model's symbols in order.
	symIdx := map[*Symbol]uint32{}
	var symtab []byte
	n := uint32(0)
	appendSym := func(name string, value uint32, secnum uint16, typ uint16, class uint8, naux uint8) {
		var nm [8]byte
		if len(name) <= 8 {
			copy(nm[:], name)
		} else {
			le.PutUint32(nm[4:], str(name))
		}
		symtab = append(symtab, nm[:]...)
		symtab = le.AppendUint32(symtab, value)
		symtab = le.AppendUint16(symtab, secnum)
		symtab = le.AppendUint16(symtab, typ)
		symtab = append(symtab, class, naux)
		n += 1 + uint32(naux)
	}
	secSymIdx := make(map[*Section]uint32, len(o.sections))
	for _, s := range o.sections {
		secSymIdx[s] = n
		appendSym(s.Name, 0, uint16(secIdx[s]), 0, imageSymClassStatic, 1)
		aux := le.AppendUint32(nil, uint32(s.size))
		aux = le.AppendUint16(aux, uint16(len(s.relocs)))
		aux = le.AppendUint16(aux, 0) // line numbers
		aux = le.AppendUint32(aux, 0) // checksum: set with the contents below
		aux = le.AppendUint16(aux, uint16(secIdx[s]))
		aux = append(aux, 0, 0, 0, 0) // selection, unused
		symtab = append(symtab, aux...)
	}
	for _, s := range o.symbols {
		if s.Type == format.STT_SECTION {
			symIdx[s] = secSymIdx[s.Section]
			continue
		}
		var typ uint16
		if s.Type == format.STT_FUNC {
			typ = imageSymDTypeFunc
		}
		var secnum uint16
		switch {
		case s.Abs:
			secnum = 0xffff
		case s.Section != nil:
			secnum = uint16(secIdx[s.Section])
		}
		switch {
		case s.Bind == format.STB_WEAK && s.Section != nil:
			// Weak definition: an undefined weak external whose aux
			// record (TagIndex) names the global default definition
			// ".weak.<name>.default" written right after it, as LLVM's
			// WinCOFFObjectWriter does.
			symIdx[s] = n
			appendSym(s.Name, 0, 0, typ, imageSymClassWeakExt, 1)
			// n is now the index of the default definition (the weak
			// symbol and its aux record come before it).
			aux := le.AppendUint32(nil, n)
			aux = le.AppendUint32(aux, imageWeakExternAlias)
			symtab = append(symtab, append(aux, make([]byte, 10)...)...)
			appendSym(".weak."+s.Name+".default", uint32(s.Value), secnum, typ, imageSymClassExtern, 0)
		case s.Bind == format.STB_LOCAL:
			symIdx[s] = n
			appendSym(s.Name, uint32(s.Value), secnum, typ, imageSymClassStatic, 0)
		default:
			symIdx[s] = n
			appendSym(s.Name, uint32(s.Value), secnum, typ, imageSymClassExtern, 0)
		}
	}

	// The file symbol comes last, as LLVM 22's writer places it: ".file"
	// (IMAGE_SYM_DEBUG, class FILE) with the name in 18-byte aux records.
	if o.FileName != "" {
		naux := (len(o.FileName) + coffSymSize - 1) / coffSymSize
		if naux > 255 {
			return nil, fmt.Errorf("%w: file name of %d bytes", ErrInvalid, len(o.FileName))
		}
		appendSym(".file", 0, imageSymDebug, 0, imageSymClassFile, uint8(naux))
		aux := make([]byte, naux*coffSymSize)
		copy(aux, o.FileName)
		symtab = append(symtab, aux...)
	}

	// Raw data (with relocation addends stored in place) and relocations.
	off := uint64(coffHdrSize + coffShdrSize*len(l.secs))
	for i := range l.secs {
		cs := &l.secs[i]
		s := cs.s
		if len(s.relocs) > 0 {
			b := s.Bytes()
			for _, r := range s.relocs {
				switch r.Type {
				case IMAGE_REL_AMD64_ADDR64:
					if r.Off+8 > uint64(len(b)) {
						return nil, fmt.Errorf("%w: section %s: relocation at 0x%x past the end", ErrInvalid, s.Name, r.Off)
					}
					le.PutUint64(b[r.Off:], le.Uint64(b[r.Off:])+uint64(r.Addend))
				default:
					if r.Off+4 > uint64(len(b)) {
						return nil, fmt.Errorf("%w: section %s: relocation at 0x%x past the end", ErrInvalid, s.Name, r.Off)
					}
					le.PutUint32(b[r.Off:], le.Uint32(b[r.Off:])+uint32(r.Addend))
				}
			}
			cs.chunks = [][]byte{b}
		}
		if s.Type != format.SHT_NOBITS {
			putChecksum(symtab, secSymIdx[s], jamCRC(cs.chunks))
		}
		if s.Type != format.SHT_NOBITS && s.size > 0 {
			off = (off + 3) &^ 3
			cs.dataOff = uint32(off)
			off += s.size
		}
		if len(s.relocs) > 0 {
			off = (off + 1) &^ 1
			cs.relOff = uint32(off)
			off += uint64(coffRelocSize * len(s.relocs))
		}
	}
	off = (off + 3) &^ 3
	if off > 0xffffffff {
		return nil, fmt.Errorf("%w: COFF object larger than 4 GiB", ErrInvalid)
	}
	l.symOff = uint32(off)
	l.symtab = symtab
	l.nsyms = n
	le.PutUint32(strtab, uint32(len(strtab)))
	l.strtab = strtab
	l.total = off + uint64(len(symtab)) + uint64(len(strtab))

	// Relocation records need the symbol indices.
	for i := range l.secs {
		cs := &l.secs[i]
		if len(cs.s.relocs) == 0 {
			continue
		}
		rb := make([]byte, 0, coffRelocSize*len(cs.s.relocs))
		for _, r := range cs.s.relocs {
			rb = le.AppendUint32(rb, uint32(r.Off))
			rb = le.AppendUint32(rb, symIdx[r.Sym])
			rb = le.AppendUint16(rb, uint16(r.Type))
		}
		cs.chunks = append(cs.chunks, nil, rb) // nil marks the start of the relocations
	}
	return l, nil
}

func (o *Object) writeCOFF(w io.Writer) (int64, error) {
	l, err := o.coffLayout()
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	cw := &countWriter{w: w}
	h := le.AppendUint16(nil, o.Machine)
	h = le.AppendUint16(h, uint16(len(l.secs)))
	h = le.AppendUint32(h, 0) // timestamp: 0 for reproducible output
	h = le.AppendUint32(h, l.symOff)
	h = le.AppendUint32(h, l.nsyms)
	h = le.AppendUint16(h, 0) // optional header size
	h = le.AppendUint16(h, 0) // characteristics
	for _, cs := range l.secs {
		h = append(h, cs.name[:]...)
		h = le.AppendUint32(h, 0) // virtual size
		h = le.AppendUint32(h, 0) // virtual address
		raw := uint32(cs.s.size)
		h = le.AppendUint32(h, raw)
		h = le.AppendUint32(h, cs.dataOff)
		h = le.AppendUint32(h, cs.relOff)
		h = le.AppendUint32(h, 0) // line numbers
		h = le.AppendUint16(h, uint16(len(cs.s.relocs)))
		h = le.AppendUint16(h, 0)
		h = le.AppendUint32(h, cs.chars)
	}
	cw.write(h)
	for _, cs := range l.secs {
		if cs.dataOff != 0 {
			cw.zeros(uint64(cs.dataOff) - cw.n)
		}
		inRelocs := false
		for _, c := range cs.chunks {
			if c == nil {
				inRelocs = true
				cw.zeros(uint64(cs.relOff) - cw.n)
				continue
			}
			if !inRelocs && cs.s.Type == format.SHT_NOBITS {
				continue
			}
			cw.write(c)
		}
	}
	cw.zeros(uint64(l.symOff) - cw.n)
	cw.write(l.symtab)
	cw.write(l.strtab)
	if cw.err != nil {
		return int64(cw.n), fmt.Errorf("objw: write: %w", cw.err)
	}
	return int64(cw.n), nil
}

// jamCRC is the section checksum LLVM's COFF writer stores in every
// section definition (not only COMDAT ones): CRC-32 (reflected, polynomial
// 0xEDB88320) of the section contents as written, relocation addends
// included, started at 0 and not inverted (llvm::JamCRC with Init 0). It is
// 0 for an empty section.
func jamCRC(chunks [][]byte) uint32 {
	crc := uint32(0)
	for _, c := range chunks {
		// crc32.Update inverts before and after; undo both.
		crc = ^crc32.Update(^crc, crc32.IEEETable, c)
	}
	return crc
}

// putChecksum stores crc in the CheckSum field (offset 8) of the section
// definition aux record that follows symbol idx.
func putChecksum(symtab []byte, idx uint32, crc uint32) {
	aux := symtab[(idx+1)*coffSymSize:]
	binary.LittleEndian.PutUint32(aux[8:], crc)
}
