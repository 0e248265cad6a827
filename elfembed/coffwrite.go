package elfembed

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"strconv"

	"github.com/offload-kit/offload-kit/format"
)

const (
	coffSymClassStatic  = 3
	coffSymClassWeakExt = 105
	coffNrelocOvfl      = 0x01000000
	coffAlignMask       = 0x00F00000
	coffSelectAssoc     = 5
	coffMaxSections     = 0xFEFF // regular COFF; more needs bigobj
)

// coffSym is one symbol record with its aux records, raw.
type coffSym struct {
	old  int    // index of the primary record in the input table
	rec  []byte // primary record (copy)
	aux  [][]byte
	sec  int32 // SectionNumber
	drop bool
}

type coffOut struct {
	hdr     coffShdr
	name    string
	old     int // 0-based input section, -1 for added
	pieces  sectionData
	relocs  []byte
	nreloc  int
	changed bool   // contents changed: recompute section-symbol Length and CheckSum
	symAux  []byte // aux record of this section's definition symbol (output copy), if any
	crc     uint32 // JamCRC of the output contents (when changed)
	number  int    // 1-based output section number
}

// coffRewriter rewrites one COFF object, one method per phase; each phase
// reads what the earlier ones left in the struct.
type coffRewriter struct {
	f          *coffFile
	e          Edit
	ss         int // symbol record size (18, or 20 for bigobj)
	secNumSize int
	nsec       int
	names      []string // input section names

	syms    []*coffSym
	removed []bool
	newNum  []int // 1-based input -> 1-based output (0 if removed)
	outs    []*coffOut
	symMap  []int // input symbol index -> output index (-1: dropped)
	dropped bool  // some symbol was dropped, so indices changed

	strBase []byte
	st      *strtabAppender
	added   []*coffOut // new sections, which get section symbols

	symtab   []byte
	auxFix   []coffAuxRef // section-definition aux records to complete once the contents are written
	nOutSyms int
	strtab   []byte
	symPtr   int64
}

// coffAuxRef is the offset in the new symbol table of the aux record
// defining section so.
type coffAuxRef struct {
	so  *coffOut
	off int
}

var le = binary.LittleEndian

func rewriteCOFF(w io.Writer, f *coffFile, e Edit) error {
	if f.peOff != 0 || f.optSize != 0 {
		return unsupported(0, "COFF image files cannot be rewritten; only objects")
	}
	r := &coffRewriter{f: f, e: e, ss: f.symSize, secNumSize: 2, nsec: len(f.shdrs), names: f.obj.names()}
	if f.bigobj {
		r.secNumSize = 4
	}
	if err := runPhases(
		r.readSymbols,
		r.removal,
		r.outputSections,
		r.symbolMap,
		r.stringTable,
		r.additions,
		r.symbolTable,
		r.sectionNames,
		r.layOut,
	); err != nil {
		return err
	}
	return r.write(w)
}

// readSymbols copies the input symbol records with their aux records.
func (r *coffRewriter) readSymbols() error {
	f, ss := r.f, r.ss
	if f.nsyms == 0 {
		return nil
	}
	base := int64(f.symPtr)
	for i := 0; i < int(f.nsyms); {
		off := base + int64(i*ss)
		rec := f.buf[off : off+int64(ss)]
		naux := int(rec[ss-1])
		if i+1+naux > int(f.nsyms) {
			return format.Errorf(off, format.ErrCorrupt, "symbol %d: %d aux records run past the symbol table", i, naux)
		}
		s := &coffSym{old: i, rec: append([]byte{}, rec...)}
		if f.bigobj {
			s.sec = int32(le.Uint32(rec[12:]))
		} else {
			s.sec = int32(int16(le.Uint16(rec[12:])))
		}
		for k := 1; k <= naux; k++ {
			a := f.buf[off+int64(k*ss) : off+int64((k+1)*ss)]
			s.aux = append(s.aux, append([]byte{}, a...))
		}
		r.syms = append(r.syms, s)
		i += 1 + naux
	}
	return nil
}

// removal marks the sections named in Edit.Remove and the sections
// associated with them.
func (r *coffRewriter) removal() error {
	f, ss, nsec := r.f, r.ss, r.nsec
	r.removed = make([]bool, nsec)
	rm := r.e.removeSet()
	for i := range r.names {
		r.removed[i] = rm[r.names[i]]
	}
	// Sections associated (IMAGE_COMDAT_SELECT_ASSOCIATIVE) with a removed
	// section go with it, as llvm-objcopy does; associations can chain.
	for changed := true; changed; {
		changed = false
		for _, s := range r.syms {
			if s.sec <= 0 || int(s.sec) > nsec || r.removed[s.sec-1] || len(s.aux) == 0 {
				continue
			}
			rec, a := s.rec, s.aux[0]
			if rec[ss-2] != coffSymClassStatic || le.Uint32(rec[8:]) != 0 || a[14] != coffSelectAssoc {
				continue
			}
			num := int(le.Uint16(a[12:]))
			if f.bigobj {
				num |= int(le.Uint16(a[16:])) << 16
			}
			if num > 0 && num <= nsec && r.removed[num-1] {
				r.removed[s.sec-1], changed = true, true
			}
		}
	}
	return nil
}

// outputSections makes the output sections for the kept input sections,
// renamed, with their relocations.
func (r *coffRewriter) outputSections() error {
	f := r.f
	r.newNum = make([]int, r.nsec+1)
	for i := 0; i < r.nsec; i++ {
		if r.removed[i] {
			continue
		}
		so := &coffOut{hdr: f.shdrs[i], name: r.names[i], old: i}
		r.outs = append(r.outs, so)
		so.number = len(r.outs)
		r.newNum[i+1] = so.number
		if d := f.obj.Sections[i].Data; d != nil {
			so.pieces = []piece{{b: d}}
		}
		if nn, ok := r.e.RenameSection[so.name]; ok {
			so.name = nn
		}
		// Relocations.
		h := f.shdrs[i]
		n := int(h.nrel)
		hoff := f.hdrEnd + int64(i)*coffShdrSize
		if h.chars&coffNrelocOvfl != 0 && h.nrel == 0xffff {
			if !fits(int64(h.relPtr), 10, len(f.buf)) {
				return format.Errorf(hoff+24, format.ErrTruncated, "section %s: relocations past end of file", r.names[i])
			}
			n = int(le.Uint32(f.buf[h.relPtr:]))
		}
		if n > 0 {
			if !fits(int64(h.relPtr), int64(n)*10, len(f.buf)) {
				return format.Errorf(hoff+24, format.ErrTruncated, "section %s: %d relocations past end of file", r.names[i], n)
			}
			so.relocs = f.buf[h.relPtr : int64(h.relPtr)+int64(n)*10]
			so.nreloc = n
		}
		if h.nline != 0 {
			return unsupported(hoff+34, "section %s has COFF line numbers", r.names[i])
		}
	}
	return nil
}

// symbolMap drops the symbols of removed sections and renumbers the
// relocations and the address-significance table that refer to symbols.
func (r *coffRewriter) symbolMap() error {
	for _, s := range r.syms {
		if s.sec > 0 && int(s.sec) <= r.nsec && r.removed[s.sec-1] {
			s.drop, r.dropped = true, true
		}
	}
	r.symMap = make([]int, r.f.nsyms)
	next := 0
	for _, s := range r.syms {
		for k := 0; k <= len(s.aux); k++ {
			if s.drop {
				r.symMap[s.old+k] = -1
			} else {
				r.symMap[s.old+k] = next
				next++
			}
		}
	}
	if !r.dropped {
		return nil
	}
	for _, so := range r.outs {
		if so.nreloc == 0 {
			continue
		}
		rel := append([]byte{}, so.relocs...)
		start := 0
		if so.hdr.chars&coffNrelocOvfl != 0 && so.hdr.nrel == 0xffff {
			start = 1 // the first entry holds the count
		}
		for k := start; k < so.nreloc; k++ {
			v, err := r.mapSym(le.Uint32(rel[k*10+4:]), int64(so.hdr.relPtr)+int64(k*10))
			if err != nil {
				return err
			}
			le.PutUint32(rel[k*10+4:], v)
		}
		so.relocs = rel
	}
	// The address-significance table lists symbol indices.
	for _, so := range r.outs {
		if so.name != ".llvm_addrsig" || len(so.pieces) != 1 || so.pieces[0].b == nil {
			continue
		}
		nd, err := renumberAddrsig(so.pieces[0].b, r.symMap, int64(so.hdr.rawPtr))
		if err != nil {
			return err
		}
		so.pieces = []piece{{b: nd}}
		so.changed = true
	}
	return nil
}

func (r *coffRewriter) mapSym(idx uint32, where int64) (uint32, error) {
	if idx >= r.f.nsyms {
		return 0, format.Errorf(where, format.ErrCorrupt, "symbol index %d out of range", idx)
	}
	if r.symMap[idx] < 0 {
		return 0, unsupported(where, "reference to symbol %d defined in a removed section", idx)
	}
	return uint32(r.symMap[idx]), nil
}

// stringTable starts the output string table from the input one.
func (r *coffRewriter) stringTable() error {
	r.strBase = r.f.strtab
	if r.strBase == nil {
		r.strBase = []byte{4, 0, 0, 0}
	}
	r.st = &strtabAppender{base: r.strBase, min: 4}
	return nil
}

func (r *coffRewriter) symName(rec []byte) string {
	if le.Uint32(rec) == 0 {
		s, _ := cstr(r.strBase, le.Uint32(rec[4:]))
		return s
	}
	n := 0
	for n < 8 && rec[n] != 0 {
		n++
	}
	return string(rec[:n])
}

func (r *coffRewriter) setSymName(rec []byte, name string) {
	clear(rec[:8])
	if len(name) <= 8 {
		copy(rec, name)
		return
	}
	le.PutUint32(rec[4:], r.st.add(name))
}

// additions adds Edit.Add's sections, or appends them to a section of the
// same name with Edit.Concat. It runs before the symbol table is rebuilt,
// since new sections get section symbols.
func (r *coffRewriter) additions() error {
	for _, a := range r.e.Add {
		align := max(a.Align, 1)
		chars := uint32(a.Flags)
		if chars&coffAlignMask == 0 && a.Align > 0 {
			chars |= coffAlignBits(align)
		}
		var target *coffOut
		if r.e.Concat {
			for _, so := range r.outs {
				if so.name == a.Name {
					target = so
					break
				}
			}
		}
		if target != nil {
			if target.hdr.chars&coffCntUninit != 0 {
				return unsupported(0, "cannot append data to uninitialised section %s", a.Name)
			}
			target.pieces.appendSection(a)
			if coffAlign(target.hdr.chars) < align {
				target.hdr.chars = target.hdr.chars&^coffAlignMask | coffAlignBits(align)
			}
			target.changed = true
			continue
		}
		so := &coffOut{hdr: coffShdr{chars: chars}, name: a.Name, old: -1, changed: true}
		so.pieces = []piece{{r: a.Data, n: a.Size}}
		r.outs = append(r.outs, so)
		so.number = len(r.outs)
		r.added = append(r.added, so)
	}
	if !r.f.bigobj && len(r.outs) > coffMaxSections {
		return format.Errorf(0, format.ErrLimit, "%d sections need a bigobj COFF file", len(r.outs))
	}
	return nil
}

// symbolTable builds the new symbol table: kept symbols with section
// numbers mapped and names renamed, then a section symbol per new section.
func (r *coffRewriter) symbolTable() error {
	f, ss, nsec := r.f, r.ss, r.nsec
	bySec := map[int]*coffOut{}
	for _, so := range r.outs {
		if so.old >= 0 {
			bySec[so.old+1] = so
		}
	}
	for _, s := range r.syms {
		if s.drop {
			continue
		}
		rec := s.rec
		recOff := int64(f.symPtr) + int64(s.old*ss)
		if s.sec > 0 {
			if int(s.sec) > nsec {
				return format.Errorf(recOff+12, format.ErrCorrupt, "symbol %d: section number %d out of range", s.old, s.sec)
			}
			ns := r.newNum[s.sec]
			if f.bigobj {
				le.PutUint32(rec[12:], uint32(ns))
			} else {
				le.PutUint16(rec[12:], uint16(ns))
			}
		}
		name := r.symName(rec)
		class := rec[ss-2]
		typ := le.Uint16(rec[8+r.secNumSize+4:])
		value := le.Uint32(rec[8:])
		isSecDef := class == coffSymClassStatic && typ == 0 && value == 0 && s.sec > 0 && len(s.aux) > 0
		if isSecDef {
			so := bySec[int(s.sec)]
			if so != nil && name == r.names[s.sec-1] && so.name != name {
				r.setSymName(rec, so.name)
			}
			a := s.aux[0]
			num := uint32(le.Uint16(a[12:]))
			if f.bigobj {
				num |= uint32(le.Uint16(a[16:])) << 16
			}
			if num > 0 && int(num) <= nsec {
				nn := uint32(r.newNum[num])
				if nn == 0 && a[14] == coffSelectAssoc {
					return unsupported(recOff, "symbol %q: associated section %d is removed", name, num)
				}
				le.PutUint16(a[12:], uint16(nn))
				if f.bigobj {
					le.PutUint16(a[16:], uint16(nn>>16))
				}
			}
			if so != nil && so.changed {
				r.auxFix = append(r.auxFix, coffAuxRef{so, len(r.symtab) + ss})
			}
		} else if nn, ok := r.e.RenameSymbol[name]; ok {
			r.setSymName(rec, nn)
		}
		if class == coffSymClassWeakExt && len(s.aux) > 0 && r.dropped {
			v, err := r.mapSym(le.Uint32(s.aux[0]), recOff+int64(ss))
			if err != nil {
				return err
			}
			le.PutUint32(s.aux[0], v)
		}
		r.symtab = append(r.symtab, rec...)
		for _, a := range s.aux {
			r.symtab = append(r.symtab, a...)
		}
	}
	for _, so := range r.added {
		rec := make([]byte, ss)
		r.setSymName(rec, so.name)
		if f.bigobj {
			le.PutUint32(rec[12:], uint32(so.number))
		} else {
			le.PutUint16(rec[12:], uint16(so.number))
		}
		rec[ss-2] = coffSymClassStatic
		rec[ss-1] = 1
		r.symtab = append(r.symtab, rec...)
		aux := make([]byte, ss)
		le.PutUint16(aux[12:], uint16(so.number))
		if f.bigobj {
			le.PutUint16(aux[16:], uint16(so.number>>16))
		}
		r.auxFix = append(r.auxFix, coffAuxRef{so, len(r.symtab)})
		r.symtab = append(r.symtab, aux...)
	}
	r.nOutSyms = len(r.symtab) / ss
	return nil
}

// sectionNames writes the names of renamed and new sections, long ones
// as "/N" (or "//base64") references into the string table, and finishes
// the string table.
func (r *coffRewriter) sectionNames() error {
	for _, so := range r.outs {
		if so.old >= 0 && so.name == r.names[so.old] {
			continue
		}
		clear(so.hdr.name[:])
		if len(so.name) <= 8 {
			copy(so.hdr.name[:], so.name)
			continue
		}
		off := r.st.add(so.name)
		var ref string
		if off <= 9999999 {
			ref = "/" + strconv.Itoa(int(off))
		} else {
			ref = "//" + base64Name(uint64(off))
		}
		copy(so.hdr.name[:], ref)
	}
	r.strtab = append(append([]byte{}, r.st.base...), r.st.extra...)
	le.PutUint32(r.strtab, uint32(len(r.strtab)))
	return nil
}

// layOut assigns file offsets: headers, then each section's contents and
// relocations, then the symbol and string tables.
func (r *coffRewriter) layOut() error {
	hdrSize := int64(20)
	if r.f.bigobj {
		hdrSize = 56
	}
	off := hdrSize + int64(len(r.outs))*coffShdrSize
	for _, so := range r.outs {
		sz := so.pieces.size()
		if so.hdr.chars&coffCntUninit != 0 {
			so.hdr.rawPtr = 0
		} else {
			so.hdr.rawSize = uint32(sz)
			if sz > 0 {
				so.hdr.rawPtr = uint32(off)
			} else {
				so.hdr.rawPtr = 0
			}
			if int64(uint32(sz)) != sz {
				return format.Errorf(0, format.ErrLimit, "section %s of %d bytes exceeds COFF's 4 GiB limit", so.name, sz)
			}
			off += sz
		}
		so.hdr.relPtr, so.hdr.linePtr, so.hdr.nline = 0, 0, 0
		if so.nreloc > 0 {
			so.hdr.relPtr = uint32(off)
			off += int64(len(so.relocs))
		}
		if so.hdr.chars&coffNrelocOvfl == 0 {
			so.hdr.nrel = uint16(so.nreloc)
		}
	}
	r.symPtr = off
	if r.symPtr+int64(len(r.symtab))+int64(len(r.strtab)) > 0xffffffff {
		return format.Errorf(0, format.ErrLimit, "COFF output exceeds 4 GiB")
	}
	return nil
}

// write writes the file header, section headers, contents and relocations
// (computing the checksums of changed sections on the way), then the
// symbol table with the section-definition aux records completed, and the
// string table.
func (r *coffRewriter) write(w io.Writer) error {
	f := r.f
	var hdr []byte
	if f.bigobj {
		hdr = append([]byte{}, f.bigHdr...)
		le.PutUint32(hdr[44:], uint32(len(r.outs)))
		le.PutUint32(hdr[48:], uint32(r.symPtr))
		le.PutUint32(hdr[52:], uint32(r.nOutSyms))
	} else {
		hdr = append([]byte{}, f.buf[:20]...)
		le.PutUint16(hdr[2:], uint16(len(r.outs)))
		le.PutUint32(hdr[8:], uint32(r.symPtr))
		le.PutUint32(hdr[12:], uint32(r.nOutSyms))
	}
	if r.nOutSyms == 0 && f.symPtr == 0 {
		// keep "no symbol table" objects without one
		if f.bigobj {
			le.PutUint32(hdr[48:], 0)
		} else {
			le.PutUint32(hdr[8:], 0)
		}
	}
	wr := newWriter(w)
	wr.write(hdr)
	for _, so := range r.outs {
		wr.write(encodeCOFFShdr(so.hdr))
	}
	for _, so := range r.outs {
		if so.hdr.chars&coffCntUninit == 0 {
			if so.changed {
				h := &jamCRC{crc: 0xffffffff}
				wr.pieces(so.pieces, so.name, h)
				so.crc = ^h.crc
			} else {
				wr.pieces(so.pieces, so.name, nil)
			}
		}
		wr.write(so.relocs)
	}
	for _, a := range r.auxFix {
		aux := r.symtab[a.off:]
		le.PutUint32(aux[0:], a.so.hdr.rawSize)
		le.PutUint16(aux[4:], uint16(min(a.so.nreloc, 0xffff)))
		le.PutUint32(aux[8:], a.so.crc)
	}
	if r.nOutSyms > 0 || f.symPtr != 0 {
		wr.write(r.symtab)
		wr.write(r.strtab)
	}
	return wr.flush()
}

func coffAlignBits(align uint64) uint32 {
	n := uint32(1)
	for a := uint64(1); a < align && n < 14; a <<= 1 {
		n++
	}
	return n << 20
}

func encodeCOFFShdr(h coffShdr) []byte {
	le := binary.LittleEndian
	b := make([]byte, coffShdrSize)
	copy(b, h.name[:])
	le.PutUint32(b[8:], h.vsize)
	le.PutUint32(b[12:], h.vaddr)
	le.PutUint32(b[16:], h.rawSize)
	le.PutUint32(b[20:], h.rawPtr)
	le.PutUint32(b[24:], h.relPtr)
	le.PutUint32(b[28:], h.linePtr)
	le.PutUint16(b[32:], h.nrel)
	le.PutUint16(b[34:], h.nline)
	le.PutUint32(b[36:], h.chars)
	return b
}

func base64Name(v uint64) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b [6]byte
	for i := 5; i >= 0; i-- {
		b[i] = digits[v%64]
		v /= 64
	}
	return string(b[:])
}

// jamCRC computes the section checksum LLVM's COFF writer stores in
// section-definition aux records: JamCRC with initial value 0, i.e. the
// CRC-32 register started at 0xffffffff and inverted at the end.
type jamCRC struct{ crc uint32 }

func (j *jamCRC) Write(p []byte) (int, error) {
	j.crc = crc32.Update(j.crc, crc32.IEEETable, p)
	return len(p), nil
}
