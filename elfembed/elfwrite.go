package elfembed

import (
	"encoding/binary"
	"io"
	"sort"

	"github.com/offload-kit/offload-kit/format"
)

const (
	shnLoreserve = 0xff00
	shnXindex    = 0xffff
	emMIPS       = 8

	// maxAlign bounds the alignment honoured when laying out sections, so
	// a hostile sh_addralign cannot make the writer emit huge padding.
	maxAlign = 1 << 24
)

// elfOut is one output section.
type elfOut struct {
	hdr    elfShdr // output header; off and size filled in by layout
	name   string
	old    int // input index, or -1 for an added section
	pieces []piece
	nobits bool
	order  int64 // layout key: input offset, or after everything for new sections
}

func (s *elfOut) dataSize() int64 {
	var n int64
	for _, p := range s.pieces {
		n += p.size()
	}
	return n
}

func unsupported(off int64, f string, args ...any) error {
	return format.Errorf(off, format.ErrUnsupported, f, args...)
}

func rewriteELF(w io.Writer, f *elfFile, e Edit) error {
	o := f.obj
	bo := o.ByteOrder
	is64 := o.Class == 64
	if o.Type != etRel {
		return unsupported(16, "ELF type %d: only relocatable objects (ET_REL) can be rewritten", o.Type)
	}
	if f.phnum != 0 {
		return unsupported(0, "relocatable object with program headers")
	}
	if len(f.shdrs) == 0 {
		return unsupported(0, "object without a section header table")
	}
	shdrOff := func(i int) int64 { return int64(f.shoff) + int64(i*f.shentsize) }
	n := len(f.shdrs)
	names := make([]string, n)
	for i := range o.Sections {
		names[i] = o.Sections[i].Name
	}

	// 1. Removal set.
	removed := make([]bool, n)
	rmName := map[string]bool{}
	for _, r := range e.Remove {
		rmName[r] = true
	}
	for i := 1; i < n; i++ {
		if rmName[names[i]] {
			if i == f.shstrndx {
				return unsupported(shdrOff(i), "cannot remove the section name table %s", names[i])
			}
			removed[i] = true
		}
	}
	for i := 1; i < n; i++ {
		h := f.shdrs[i]
		if (h.typ == format.SHT_REL || h.typ == format.SHT_RELA) && h.info > 0 && int(h.info) < n && removed[h.info] {
			removed[i] = true
		}
	}
	// A group whose members are all removed goes too (llvm-objcopy does
	// the same), which also frees its signature symbol.
	for i := 1; i < n; i++ {
		h := f.shdrs[i]
		d := o.Sections[i].Data
		if h.typ != format.SHT_GROUP || removed[i] || len(d) < 8 || len(d)%4 != 0 {
			continue
		}
		all := true
		for k := 4; k < len(d); k += 4 {
			m := int(bo.Uint32(d[k:]))
			if m <= 0 || m >= n || !removed[m] {
				all = false
				break
			}
		}
		removed[i] = all
	}
	// 2. Index map.
	newIdx := make([]int, n)
	next := 0
	for i := 0; i < n; i++ {
		if removed[i] {
			newIdx[i] = -1
			continue
		}
		newIdx[i] = next
		next++
	}
	mapSec := func(from, to int, what string) (uint32, error) {
		if to == 0 {
			return 0, nil
		}
		if to < 0 || to >= n {
			return 0, format.Errorf(shdrOff(from), format.ErrCorrupt, "section %d (%s): %s %d out of range", from, names[from], what, to)
		}
		if removed[to] {
			return 0, unsupported(shdrOff(from), "section %s: %s refers to removed section %s", names[from], what, names[to])
		}
		return uint32(newIdx[to]), nil
	}

	// 3. Output sections for the kept input sections.
	var outs []*elfOut
	byOld := make([]*elfOut, n)
	for i := 0; i < n; i++ {
		if removed[i] {
			continue
		}
		h := f.shdrs[i]
		if i > 0 && h.addralign > 1 && (h.addralign&(h.addralign-1) != 0 || h.addralign > maxAlign) {
			return format.Errorf(shdrOff(i), format.ErrLimit, "section %d (%s): alignment %d", i, names[i], h.addralign)
		}
		so := &elfOut{hdr: h, name: names[i], old: i, order: int64(h.off), nobits: h.typ == format.SHT_NOBITS || h.typ == format.SHT_NULL}
		if i > 0 && !so.nobits {
			so.pieces = []piece{{b: o.Sections[i].Data}}
		}
		if i > 0 {
			l, err := mapSec(i, int(h.link), "sh_link")
			if err != nil {
				return err
			}
			so.hdr.link = l
			if h.typ == format.SHT_REL || h.typ == format.SHT_RELA || h.flags&shfInfoLink != 0 {
				inf, err := mapSec(i, int(h.info), "sh_info")
				if err != nil {
					return err
				}
				so.hdr.info = inf
			}
		}
		outs = append(outs, so)
		byOld[i] = so
	}

	// Members of a removed group that stay lose SHF_GROUP (llvm-objcopy
	// does the same).
	for i := 1; i < n; i++ {
		d := o.Sections[i].Data
		if f.shdrs[i].typ != format.SHT_GROUP || !removed[i] || len(d)%4 != 0 {
			continue
		}
		for k := 4; k+4 <= len(d); k += 4 {
			if m := int(bo.Uint32(d[k:])); m > 0 && m < n && byOld[m] != nil {
				byOld[m].hdr.flags &^= shfGroup
			}
		}
	}

	// 4. Renames.
	for _, so := range outs[1:] {
		h := f.shdrs[so.old]
		if nn, ok := e.RenameSection[so.name]; ok {
			so.name = nn
			continue
		}
		if (h.typ == format.SHT_REL || h.typ == format.SHT_RELA) && h.info > 0 && int(h.info) < n {
			target := names[h.info]
			if nn, ok := e.RenameSection[target]; ok {
				for _, pre := range []string{".rela", ".rel"} {
					if so.name == pre+target {
						so.name = pre + nn
						break
					}
				}
			}
		}
	}

	// 5. Symbol tables.
	strtabs := map[int]*strtabAppender{}
	appender := func(i int) *strtabAppender {
		if a, ok := strtabs[i]; ok {
			return a
		}
		a := &strtabAppender{base: o.Sections[i].Data}
		strtabs[i] = a
		return a
	}
	if err := rewriteSymbols(f, e, removed, newIdx, byOld, appender, shdrOff, is64); err != nil {
		return err
	}

	// 6. Groups.
	for _, so := range outs[1:] {
		if f.shdrs[so.old].typ != format.SHT_GROUP {
			continue
		}
		d := o.Sections[so.old].Data
		if len(d)%4 != 0 || len(d) < 4 {
			return format.Errorf(shdrOff(so.old), format.ErrCorrupt, "group section %s of %d bytes", so.name, len(d))
		}
		changed := false
		nd := append([]byte{}, d[:4]...)
		if e.ObjcopyCompat && bo.Uint32(nd)&grpComdat != 0 && localSignature(f, o, so.old, bo, is64) {
			bo.PutUint32(nd, bo.Uint32(nd)&^grpComdat)
			changed = true
		}
		for k := 4; k < len(d); k += 4 {
			m := int(bo.Uint32(d[k:]))
			if m <= 0 || m >= n {
				return format.Errorf(int64(f.shdrs[so.old].off)+int64(k), format.ErrCorrupt, "group %s: member %d out of range", so.name, m)
			}
			if removed[m] {
				changed = true
				continue
			}
			if newIdx[m] != m {
				changed = true
			}
			nd = app32(bo, nd, uint32(newIdx[m]))
		}
		if changed {
			so.pieces = []piece{{b: nd}}
		}
	}

	// 7. Section name table: renamed sections keep their sh_name if unchanged.
	needNames := len(e.Add) > 0
	for _, so := range outs[1:] {
		needNames = needNames || so.name != names[so.old]
	}
	if needNames && (f.shstrndx == 0 || f.shdrs[f.shstrndx].typ != format.SHT_STRTAB) {
		return unsupported(0, "object has no section name string table to add names to")
	}
	shstr := appender(f.shstrndx)
	for _, so := range outs[1:] {
		if so.name != names[so.old] {
			so.hdr.name = shstr.add(so.name)
		}
	}

	// 8. Additions.
	for _, a := range e.Add {
		align := int64(max(a.Align, 1))
		var target *elfOut
		if e.Concat {
			for _, so := range outs[1:] {
				if so.name == a.Name && so.hdr.typ == a.Type {
					target = so
					break
				}
			}
		}
		if target != nil {
			if target.nobits {
				return unsupported(0, "cannot append data to SHT_NOBITS section %s", a.Name)
			}
			cur := target.dataSize()
			target.pieces = append(target.pieces, piece{pad: alignUp(cur, align) - cur, r: a.Data, n: a.Size})
			target.hdr.addralign = max(target.hdr.addralign, uint64(align))
			continue
		}
		so := &elfOut{
			hdr:    elfShdr{typ: a.Type, flags: a.Flags, addralign: uint64(align), name: shstr.add(a.Name)},
			name:   a.Name,
			old:    -1,
			order:  -1,
			nobits: a.Type == format.SHT_NOBITS,
		}
		if !so.nobits {
			so.pieces = []piece{{r: a.Data, n: a.Size}}
		} else {
			so.hdr.size = uint64(a.Size)
		}
		outs = append(outs, so)
	}

	// 9. String tables that grew.
	for i, a := range strtabs {
		if so := byOld[i]; so != nil && len(a.extra) > 0 {
			so.pieces = a.pieces()
		}
	}

	if e.ObjcopyCompat {
		cur := func(i int) []byte {
			if a, ok := strtabs[i]; ok && len(a.extra) > 0 {
				return append(append([]byte{}, a.base...), a.extra...)
			}
			return o.Sections[i].Data
		}
		if err := rebuildStringTables(f, outs, byOld, cur, bo, is64); err != nil {
			return err
		}
	}

	// 10. Layout.
	ehsize := int64(64)
	entsz := int64(64)
	if !is64 {
		ehsize, entsz = 52, 40
	}
	layout := append([]*elfOut{}, outs[1:]...)
	sort.SliceStable(layout, func(i, j int) bool {
		a, b := layout[i], layout[j]
		if (a.order < 0) != (b.order < 0) {
			return b.order < 0
		}
		return a.order < b.order
	})
	off := ehsize
	for _, so := range layout {
		off = alignUp(off, int64(max(so.hdr.addralign, 1)))
		so.hdr.off = uint64(off)
		if so.nobits {
			if so.old >= 0 {
				so.hdr.off = uint64(off)
			}
			continue
		}
		sz := so.dataSize()
		so.hdr.size = uint64(sz)
		off += sz
	}
	shoff := alignUp(off, 8)
	if !is64 {
		shoff = alignUp(off, 4)
	}
	total := shoff + int64(len(outs))*entsz
	if !is64 && total > 0xffffffff {
		return format.Errorf(0, format.ErrLimit, "ELF32 output of %d bytes exceeds 4 GiB", total)
	}

	// Header and section 0 (extended numbering).
	count := len(outs)
	strIdx := newIdx[f.shstrndx]
	s0 := outs[0]
	s0.hdr.size, s0.hdr.link = 0, 0
	eShnum, eShstrndx := count, strIdx
	if count >= shnLoreserve {
		eShnum = 0
		s0.hdr.size = uint64(count)
	}
	if strIdx >= shnLoreserve {
		eShstrndx = shnXindex
		s0.hdr.link = uint32(strIdx)
	}
	hdr := append([]byte{}, f.buf[:ehsize]...)
	if is64 {
		bo.PutUint64(hdr[32:], 0)
		bo.PutUint64(hdr[40:], uint64(shoff))
		bo.PutUint16(hdr[52:], uint16(ehsize))
		bo.PutUint16(hdr[58:], uint16(entsz))
		bo.PutUint16(hdr[60:], uint16(eShnum))
		bo.PutUint16(hdr[62:], uint16(eShstrndx))
	} else {
		bo.PutUint32(hdr[28:], 0)
		bo.PutUint32(hdr[32:], uint32(shoff))
		bo.PutUint16(hdr[40:], uint16(ehsize))
		bo.PutUint16(hdr[46:], uint16(entsz))
		bo.PutUint16(hdr[48:], uint16(eShnum))
		bo.PutUint16(hdr[50:], uint16(eShstrndx))
	}

	wr := newWriter(w)
	wr.write(hdr)
	for _, so := range layout {
		if so.nobits {
			continue
		}
		wr.padTo(int64(so.hdr.off))
		wr.pieces(so.pieces, so.name, nil)
	}
	wr.padTo(shoff)
	for _, so := range outs {
		wr.write(encodeShdr(so.hdr, bo, is64))
	}
	return wr.flush()
}

func encodeShdr(h elfShdr, bo binary.ByteOrder, is64 bool) []byte {
	if is64 {
		b := make([]byte, 64)
		bo.PutUint32(b[0:], h.name)
		bo.PutUint32(b[4:], uint32(h.typ))
		bo.PutUint64(b[8:], h.flags)
		bo.PutUint64(b[16:], h.addr)
		bo.PutUint64(b[24:], h.off)
		bo.PutUint64(b[32:], h.size)
		bo.PutUint32(b[40:], h.link)
		bo.PutUint32(b[44:], h.info)
		bo.PutUint64(b[48:], h.addralign)
		bo.PutUint64(b[56:], h.entsize)
		return b
	}
	b := make([]byte, 40)
	bo.PutUint32(b[0:], h.name)
	bo.PutUint32(b[4:], uint32(h.typ))
	bo.PutUint32(b[8:], uint32(h.flags))
	bo.PutUint32(b[12:], uint32(h.addr))
	bo.PutUint32(b[16:], uint32(h.off))
	bo.PutUint32(b[20:], uint32(h.size))
	bo.PutUint32(b[24:], h.link)
	bo.PutUint32(b[28:], h.info)
	bo.PutUint32(b[32:], uint32(h.addralign))
	bo.PutUint32(b[36:], uint32(h.entsize))
	return b
}
