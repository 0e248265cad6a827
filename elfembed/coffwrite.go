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
	pieces  []piece
	relocs  []byte
	nreloc  int
	changed bool   // contents changed: recompute section-symbol Length and CheckSum
	symAux  []byte // aux record of this section's definition symbol (output copy), if any
	crc     uint32 // JamCRC of the output contents (when changed)
	number  int    // 1-based output section number
}

func rewriteCOFF(w io.Writer, f *coffFile, e Edit) error {
	le := binary.LittleEndian
	if f.peOff != 0 || f.optSize != 0 {
		return unsupported(0, "COFF image files cannot be rewritten; only objects")
	}
	ss := f.symSize
	secNumSize := 2
	if f.bigobj {
		secNumSize = 4
	}
	nsec := len(f.shdrs)
	names := make([]string, nsec)
	for i := range f.obj.Sections {
		names[i] = f.obj.Sections[i].Name
	}

	// Symbols.
	var syms []*coffSym
	if f.nsyms > 0 {
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
			syms = append(syms, s)
			i += 1 + naux
		}
	}

	// Removal.
	removed := make([]bool, nsec)
	rm := map[string]bool{}
	for _, r := range e.Remove {
		rm[r] = true
	}
	for i := range names {
		removed[i] = rm[names[i]]
	}
	// Sections associated (IMAGE_COMDAT_SELECT_ASSOCIATIVE) with a removed
	// section go with it, as llvm-objcopy does; associations can chain.
	for changed := true; changed; {
		changed = false
		for _, s := range syms {
			if s.sec <= 0 || int(s.sec) > nsec || removed[s.sec-1] || len(s.aux) == 0 {
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
			if num > 0 && num <= nsec && removed[num-1] {
				removed[s.sec-1], changed = true, true
			}
		}
	}
	newNum := make([]int, nsec+1) // 1-based input -> 1-based output (0 if removed)
	var outs []*coffOut
	for i := 0; i < nsec; i++ {
		if removed[i] {
			continue
		}
		so := &coffOut{hdr: f.shdrs[i], name: names[i], old: i}
		outs = append(outs, so)
		so.number = len(outs)
		newNum[i+1] = so.number
		if d := f.obj.Sections[i].Data; d != nil {
			so.pieces = []piece{{b: d}}
		}
		if nn, ok := e.RenameSection[so.name]; ok {
			so.name = nn
		}
		// Relocations.
		h := f.shdrs[i]
		n := int(h.nrel)
		hoff := f.hdrEnd + int64(i)*coffShdrSize
		if h.chars&coffNrelocOvfl != 0 && h.nrel == 0xffff {
			if !fits(int64(h.relPtr), 10, len(f.buf)) {
				return format.Errorf(hoff+24, format.ErrTruncated, "section %s: relocations past end of file", names[i])
			}
			n = int(le.Uint32(f.buf[h.relPtr:]))
		}
		if n > 0 {
			if !fits(int64(h.relPtr), int64(n)*10, len(f.buf)) {
				return format.Errorf(hoff+24, format.ErrTruncated, "section %s: %d relocations past end of file", names[i], n)
			}
			so.relocs = f.buf[h.relPtr : int64(h.relPtr)+int64(n)*10]
			so.nreloc = n
		}
		if h.nline != 0 {
			return unsupported(hoff+34, "section %s has COFF line numbers", names[i])
		}
	}

	// Symbol map.
	dropped := false
	for _, s := range syms {
		if s.sec > 0 && int(s.sec) <= nsec && removed[s.sec-1] {
			s.drop, dropped = true, true
		}
	}
	symMap := make([]int, f.nsyms)
	next := 0
	for _, s := range syms {
		for k := 0; k <= len(s.aux); k++ {
			if s.drop {
				symMap[s.old+k] = -1
			} else {
				symMap[s.old+k] = next
				next++
			}
		}
	}
	mapSym := func(idx uint32, where int64) (uint32, error) {
		if idx >= f.nsyms {
			return 0, format.Errorf(where, format.ErrCorrupt, "symbol index %d out of range", idx)
		}
		if symMap[idx] < 0 {
			return 0, unsupported(where, "reference to symbol %d defined in a removed section", idx)
		}
		return uint32(symMap[idx]), nil
	}
	if dropped {
		for _, so := range outs {
			if so.nreloc == 0 {
				continue
			}
			r := append([]byte{}, so.relocs...)
			start := 0
			if so.hdr.chars&coffNrelocOvfl != 0 && so.hdr.nrel == 0xffff {
				start = 1 // the first entry holds the count
			}
			for k := start; k < so.nreloc; k++ {
				v, err := mapSym(le.Uint32(r[k*10+4:]), int64(so.hdr.relPtr)+int64(k*10))
				if err != nil {
					return err
				}
				le.PutUint32(r[k*10+4:], v)
			}
			so.relocs = r
		}
		// The address-significance table lists symbol indices.
		for _, so := range outs {
			if so.name != ".llvm_addrsig" || len(so.pieces) != 1 || so.pieces[0].b == nil {
				continue
			}
			nd, err := renumberAddrsig(so.pieces[0].b, symMap, int64(so.hdr.rawPtr))
			if err != nil {
				return err
			}
			so.pieces = []piece{{b: nd}}
			so.changed = true
		}
	}

	// String table.
	strBase := f.strtab
	if strBase == nil {
		strBase = []byte{4, 0, 0, 0}
	}
	st := &strtabAppender{base: strBase, min: 4}
	symName := func(rec []byte) string {
		if le.Uint32(rec) == 0 {
			s, _ := cstr(strBase, le.Uint32(rec[4:]))
			return s
		}
		n := 0
		for n < 8 && rec[n] != 0 {
			n++
		}
		return string(rec[:n])
	}
	setSymName := func(rec []byte, name string) {
		clear(rec[:8])
		if len(name) <= 8 {
			copy(rec, name)
			return
		}
		le.PutUint32(rec[4:], st.add(name))
	}

	// Additions (before the symbol table is rebuilt, since new sections
	// get section symbols).
	type newSym struct {
		so *coffOut
	}
	var added []newSym
	for _, a := range e.Add {
		align := max(a.Align, 1)
		chars := uint32(a.Flags)
		if chars&coffAlignMask == 0 && a.Align > 0 {
			chars |= coffAlignBits(align)
		}
		var target *coffOut
		if e.Concat {
			for _, so := range outs {
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
			cur := target.dataSize()
			target.pieces = append(target.pieces, piece{pad: alignUp(cur, int64(align)) - cur, r: a.Data, n: a.Size})
			if coffAlign(target.hdr.chars) < align {
				target.hdr.chars = target.hdr.chars&^coffAlignMask | coffAlignBits(align)
			}
			target.changed = true
			continue
		}
		so := &coffOut{hdr: coffShdr{chars: chars}, name: a.Name, old: -1, changed: true}
		so.pieces = []piece{{r: a.Data, n: a.Size}}
		outs = append(outs, so)
		so.number = len(outs)
		added = append(added, newSym{so})
	}
	if !f.bigobj && len(outs) > coffMaxSections {
		return format.Errorf(0, format.ErrLimit, "%d sections need a bigobj COFF file", len(outs))
	}

	// New symbol table.
	var symtab []byte
	bySec := map[int]*coffOut{}
	for _, so := range outs {
		if so.old >= 0 {
			bySec[so.old+1] = so
		}
	}
	type auxRef struct {
		so  *coffOut
		off int
	}
	var auxFix []auxRef
	for _, s := range syms {
		if s.drop {
			continue
		}
		rec := s.rec
		recOff := int64(f.symPtr) + int64(s.old*ss)
		if s.sec > 0 {
			if int(s.sec) > nsec {
				return format.Errorf(recOff+12, format.ErrCorrupt, "symbol %d: section number %d out of range", s.old, s.sec)
			}
			ns := newNum[s.sec]
			if f.bigobj {
				le.PutUint32(rec[12:], uint32(ns))
			} else {
				le.PutUint16(rec[12:], uint16(ns))
			}
		}
		name := symName(rec)
		class := rec[ss-2]
		typ := le.Uint16(rec[8+secNumSize+4:])
		value := le.Uint32(rec[8:])
		isSecDef := class == coffSymClassStatic && typ == 0 && value == 0 && s.sec > 0 && len(s.aux) > 0
		if isSecDef {
			so := bySec[int(s.sec)]
			if so != nil && name == names[s.sec-1] && so.name != name {
				setSymName(rec, so.name)
			}
			a := s.aux[0]
			num := uint32(le.Uint16(a[12:]))
			if f.bigobj {
				num |= uint32(le.Uint16(a[16:])) << 16
			}
			if num > 0 && int(num) <= nsec {
				nn := uint32(newNum[num])
				if nn == 0 && a[14] == coffSelectAssoc {
					return unsupported(recOff, "symbol %q: associated section %d is removed", name, num)
				}
				le.PutUint16(a[12:], uint16(nn))
				if f.bigobj {
					le.PutUint16(a[16:], uint16(nn>>16))
				}
			}
			if so != nil && so.changed {
				auxFix = append(auxFix, auxRef{so, len(symtab) + ss})
			}
		} else if nn, ok := e.RenameSymbol[name]; ok {
			setSymName(rec, nn)
		}
		if class == coffSymClassWeakExt && len(s.aux) > 0 && dropped {
			v, err := mapSym(le.Uint32(s.aux[0]), recOff+int64(ss))
			if err != nil {
				return err
			}
			le.PutUint32(s.aux[0], v)
		}
		symtab = append(symtab, rec...)
		for _, a := range s.aux {
			symtab = append(symtab, a...)
		}
	}
	for _, ns := range added {
		rec := make([]byte, ss)
		setSymName(rec, ns.so.name)
		if f.bigobj {
			le.PutUint32(rec[12:], uint32(ns.so.number))
		} else {
			le.PutUint16(rec[12:], uint16(ns.so.number))
		}
		rec[ss-2] = coffSymClassStatic
		rec[ss-1] = 1
		symtab = append(symtab, rec...)
		aux := make([]byte, ss)
		le.PutUint16(aux[12:], uint16(ns.so.number))
		if f.bigobj {
			le.PutUint16(aux[16:], uint16(ns.so.number>>16))
		}
		auxFix = append(auxFix, auxRef{ns.so, len(symtab)})
		symtab = append(symtab, aux...)
	}
	nOutSyms := len(symtab) / ss

	// Section names.
	for _, so := range outs {
		if so.old >= 0 && so.name == names[so.old] {
			continue
		}
		clear(so.hdr.name[:])
		if len(so.name) <= 8 {
			copy(so.hdr.name[:], so.name)
			continue
		}
		off := st.add(so.name)
		var ref string
		if off <= 9999999 {
			ref = "/" + strconv.Itoa(int(off))
		} else {
			ref = "//" + base64Name(uint64(off))
		}
		copy(so.hdr.name[:], ref)
	}
	strtab := append(append([]byte{}, st.base...), st.extra...)
	le.PutUint32(strtab, uint32(len(strtab)))

	// Layout.
	hdrSize := int64(20)
	if f.bigobj {
		hdrSize = 56
	}
	off := hdrSize + int64(len(outs))*coffShdrSize
	for _, so := range outs {
		sz := so.dataSize()
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
	symPtr := off
	if symPtr+int64(len(symtab))+int64(len(strtab)) > 0xffffffff {
		return format.Errorf(0, format.ErrLimit, "COFF output exceeds 4 GiB")
	}

	// Header.
	var hdr []byte
	if f.bigobj {
		hdr = append([]byte{}, f.bigHdr...)
		le.PutUint32(hdr[44:], uint32(len(outs)))
		le.PutUint32(hdr[48:], uint32(symPtr))
		le.PutUint32(hdr[52:], uint32(nOutSyms))
	} else {
		hdr = append([]byte{}, f.buf[:20]...)
		le.PutUint16(hdr[2:], uint16(len(outs)))
		le.PutUint32(hdr[8:], uint32(symPtr))
		le.PutUint32(hdr[12:], uint32(nOutSyms))
	}
	if nOutSyms == 0 && f.symPtr == 0 {
		// keep "no symbol table" objects without one
		if f.bigobj {
			le.PutUint32(hdr[48:], 0)
		} else {
			le.PutUint32(hdr[8:], 0)
		}
	}
	wr := newWriter(w)
	wr.write(hdr)
	for _, so := range outs {
		wr.write(encodeCOFFShdr(so.hdr))
	}
	for _, so := range outs {
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
	for _, a := range auxFix {
		aux := symtab[a.off:]
		le.PutUint32(aux[0:], a.so.hdr.rawSize)
		le.PutUint16(aux[4:], uint16(min(a.so.nreloc, 0xffff)))
		le.PutUint32(aux[8:], a.so.crc)
	}
	if nOutSyms > 0 || f.symPtr != 0 {
		wr.write(symtab)
		wr.write(strtab)
	}
	return wr.flush()
}

func (s *coffOut) dataSize() int64 {
	var n int64
	for _, p := range s.pieces {
		n += p.size()
	}
	return n
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
