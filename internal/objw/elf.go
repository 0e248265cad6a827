package objw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/format"
)

const (
	ehdrSize = 64
	shdrSize = 64
	symSize  = 24
	relaSize = 24
)

// outSec is one section header as laid out for writing.
type outSec struct {
	name   uint32
	typ    format.SectionType
	flags  format.SectionFlag
	off    uint64
	size   uint64
	link   uint32
	info   uint32
	align  uint64
	ent    uint64
	chunks [][]byte // contents (nil for NOBITS and the null section)
}

// layout is the fully resolved object, ready to be written.
type layout struct {
	secs     []outSec
	shstrndx int
	shoff    uint64
	total    uint64
}

// WriteTo writes the object to w. It implements io.WriterTo.
func (o *Object) WriteTo(w io.Writer) (int64, error) {
	if o.coff {
		return o.writeCOFF(w)
	}
	l, err := o.layout()
	if err != nil {
		return 0, err
	}
	cw := &countWriter{w: w}
	le := binary.LittleEndian

	// ELF header.
	h := make([]byte, 0, ehdrSize)
	h = append(h, 0x7f, 'E', 'L', 'F', 2 /*ELFCLASS64*/, 1 /*LSB*/, 1 /*EV_CURRENT*/, 0 /*SYSV*/)
	h = append(h, make([]byte, 8)...)
	h = le.AppendUint16(h, format.ET_REL)
	h = le.AppendUint16(h, o.Machine)
	h = le.AppendUint32(h, 1) // EV_CURRENT
	h = le.AppendUint64(h, 0) // entry
	h = le.AppendUint64(h, 0) // phoff
	h = le.AppendUint64(h, l.shoff)
	h = le.AppendUint32(h, 0) // flags
	h = le.AppendUint16(h, ehdrSize)
	h = le.AppendUint16(h, 0) // phentsize
	h = le.AppendUint16(h, 0) // phnum
	h = le.AppendUint16(h, shdrSize)
	h = le.AppendUint16(h, uint16(len(l.secs)))
	h = le.AppendUint16(h, uint16(l.shstrndx))
	cw.write(h)

	for i := range l.secs {
		s := &l.secs[i]
		if s.typ == format.SHT_NOBITS || s.typ == format.SHT_NULL {
			continue
		}
		cw.zeros(s.off - cw.n)
		for _, c := range s.chunks {
			cw.write(c)
		}
	}
	cw.zeros(l.shoff - cw.n)
	sh := make([]byte, 0, shdrSize*len(l.secs))
	for _, s := range l.secs {
		sh = le.AppendUint32(sh, s.name)
		sh = le.AppendUint32(sh, uint32(s.typ))
		sh = le.AppendUint64(sh, uint64(s.flags))
		sh = le.AppendUint64(sh, 0) // addr
		sh = le.AppendUint64(sh, s.off)
		sh = le.AppendUint64(sh, s.size)
		sh = le.AppendUint32(sh, s.link)
		sh = le.AppendUint32(sh, s.info)
		sh = le.AppendUint64(sh, s.align)
		sh = le.AppendUint64(sh, s.ent)
	}
	cw.write(sh)
	if cw.err != nil {
		return int64(cw.n), fmt.Errorf("objw: write: %w", cw.err)
	}
	return int64(cw.n), nil
}

// Bytes returns the encoded object.
func (o *Object) Bytes() ([]byte, error) {
	var b bytes.Buffer
	if o.coff {
		if l, err := o.coffLayout(); err == nil {
			b.Grow(int(l.total))
		}
	} else if l, err := o.layout(); err == nil {
		b.Grow(int(l.total))
	}
	if _, err := o.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// layout assigns section indices, symbol indices, string offsets and file
// offsets. It does not modify the model.
func (o *Object) layout() (*layout, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	shstr := newStrtab()
	str := newStrtab()

	// Section indices: null, then each user section followed by its
	// .rela section, then .symtab, .strtab, .shstrtab.
	secIdx := make(map[*Section]int, len(o.sections))
	n := 1
	for _, s := range o.sections {
		secIdx[s] = n
		n++
		if len(s.relocs) > 0 {
			n++
		}
	}
	symtabIdx, strtabIdx, shstrtabIdx := n, n+1, n+2

	// Symbol order: null, FILE, locals in insertion order, then the rest.
	order := make([]*Symbol, 0, len(o.symbols))
	for _, s := range o.symbols {
		if s.Bind == format.STB_LOCAL {
			order = append(order, s)
		}
	}
	nLocal := 1 + len(order)
	if o.FileName != "" {
		nLocal++
	}
	for _, s := range o.symbols {
		if s.Bind != format.STB_LOCAL {
			order = append(order, s)
		}
	}
	symIdx := make(map[*Symbol]uint32, len(order))
	symtab := make([]byte, symSize, symSize*(len(order)+2))
	appendSym := func(name uint32, info, other uint8, shndx uint16, value, size uint64) {
		symtab = le.AppendUint32(symtab, name)
		symtab = append(symtab, info, other)
		symtab = le.AppendUint16(symtab, shndx)
		symtab = le.AppendUint64(symtab, value)
		symtab = le.AppendUint64(symtab, size)
	}
	next := uint32(1)
	if o.FileName != "" {
		appendSym(str.add(o.FileName), format.STB_LOCAL<<4|format.STT_FILE, format.STV_DEFAULT, format.SHN_ABS, 0, 0)
		next++
	}
	for _, s := range order {
		var shndx uint16
		switch {
		case s.Abs:
			shndx = format.SHN_ABS
		case s.Section != nil:
			shndx = uint16(secIdx[s.Section])
		}
		var name uint32
		if s.Type != format.STT_SECTION {
			name = str.add(s.Name)
		}
		appendSym(name, s.Bind<<4|s.Type&0xf, s.Vis&3, shndx, s.Value, s.Size)
		symIdx[s] = next
		next++
	}
	if n >= 0xff00 {
		return nil, fmt.Errorf("%w: too many sections (%d)", ErrInvalid, n)
	}

	secs := make([]outSec, 1, n+3)
	idxOf := func(s *Section) uint32 {
		if s == nil {
			return 0
		}
		return uint32(secIdx[s])
	}
	for _, s := range o.sections {
		secs = append(secs, outSec{
			name: shstr.add(s.Name), typ: s.Type, flags: s.Flags, size: s.size,
			link: idxOf(s.Link), info: idxOf(s.Info), align: s.Align, ent: s.EntSize,
			chunks: s.chunks,
		})
		if len(s.relocs) == 0 {
			continue
		}
		rela := make([]byte, 0, relaSize*len(s.relocs))
		for _, r := range s.relocs {
			rela = le.AppendUint64(rela, r.Off)
			rela = le.AppendUint64(rela, uint64(symIdx[r.Sym])<<32|uint64(r.Type))
			rela = le.AppendUint64(rela, uint64(r.Addend))
		}
		secs = append(secs, outSec{
			name: shstr.add(".rela" + s.Name), typ: format.SHT_RELA, flags: format.SHF_INFO_LINK,
			size: uint64(len(rela)), link: uint32(symtabIdx), info: uint32(secIdx[s]),
			align: 8, ent: relaSize, chunks: [][]byte{rela},
		})
	}
	secs = append(secs, outSec{
		name: shstr.add(".symtab"), typ: format.SHT_SYMTAB, size: uint64(len(symtab)),
		link: uint32(strtabIdx), info: uint32(nLocal), align: 8, ent: symSize,
		chunks: [][]byte{symtab},
	})
	secs = append(secs, outSec{
		name: shstr.add(".strtab"), typ: format.SHT_STRTAB, size: uint64(len(str.buf)),
		align: 1, chunks: [][]byte{str.buf},
	})
	shName := shstr.add(".shstrtab")
	secs = append(secs, outSec{
		name: shName, typ: format.SHT_STRTAB, size: uint64(len(shstr.buf)),
		align: 1, chunks: [][]byte{shstr.buf},
	})

	off := uint64(ehdrSize)
	for i := 1; i < len(secs); i++ {
		s := &secs[i]
		if a := s.align; a > 1 {
			off = (off + a - 1) &^ (a - 1)
		}
		s.off = off
		if s.typ != format.SHT_NOBITS {
			off += s.size
		}
	}
	off = (off + 7) &^ 7
	return &layout{
		secs: secs, shstrndx: shstrtabIdx, shoff: off,
		total: off + uint64(shdrSize*len(secs)),
	}, nil
}

type countWriter struct {
	w   io.Writer
	n   uint64
	err error
}

func (c *countWriter) write(b []byte) {
	if c.err != nil || len(b) == 0 {
		return
	}
	k, err := c.w.Write(b)
	c.n += uint64(k)
	c.err = err
}

func (c *countWriter) zeros(n uint64) {
	if n == 0 {
		return
	}
	z := make([]byte, min(n, 4096))
	for n > 0 && c.err == nil {
		k := min(n, uint64(len(z)))
		c.write(z[:k])
		n -= k
	}
}
