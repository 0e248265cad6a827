package elfembed

import (
	"encoding/binary"
	"io"
	"sort"

	"github.com/offload-kit/offload-kit/format"
)

const (
	// maxAlign bounds the alignment honoured when laying out sections, so
	// a hostile sh_addralign cannot make the writer emit huge padding.
	maxAlign = 1 << 24
)

// elfOut is one output section.
type elfOut struct {
	hdr    elfShdr // output header; off and size filled in by layout
	name   string
	old    int // input index, or -1 for an added section
	pieces sectionData
	nobits bool
	order  int64 // layout key: input offset, or after everything for new sections
}

// elfRewriter rewrites one relocatable ELF object, one method per phase;
// each phase reads what the earlier ones left in the struct.
type elfRewriter struct {
	f     *elfFile
	o     *Object
	e     Edit
	bo    binary.ByteOrder
	is64  bool
	cls   elfClass
	n     int      // input sections
	names []string // input section names

	removed []bool // removal set
	newIdx  []int  // input index -> output index (-1: removed)
	outs    []*elfOut
	byOld   []*elfOut // input index -> output section (nil: removed)
	strtabs map[int]*strtabAppender
	shstr   *strtabAppender

	layout []*elfOut // outs[1:] in file order
	shoff  int64
}

func rewriteELF(w io.Writer, f *elfFile, e Edit) error {
	r, err := newELFRewriter(f, e)
	if err != nil {
		return err
	}
	if err := runPhases(
		r.removalSet,
		r.outputSections,
		r.renames,
		r.symbolTables,
		r.groups,
		r.sectionNames,
		r.additions,
		r.stringTables,
		r.layOut,
	); err != nil {
		return err
	}
	return r.write(w)
}

func newELFRewriter(f *elfFile, e Edit) (*elfRewriter, error) {
	o := f.obj
	if o.Type != format.ET_REL {
		return nil, unsupported(16, "ELF type %d: only relocatable objects (ET_REL) can be rewritten", o.Type)
	}
	if f.phnum != 0 {
		return nil, unsupported(0, "relocatable object with program headers")
	}
	if len(f.shdrs) == 0 {
		return nil, unsupported(0, "object without a section header table")
	}
	r := &elfRewriter{f: f, o: o, e: e, bo: o.ByteOrder, is64: o.Class == 64, cls: elfClassOf(o.Class == 64),
		n: len(f.shdrs), names: o.names(), strtabs: map[int]*strtabAppender{}}
	return r, nil
}

func (r *elfRewriter) shdrOff(i int) int64 { return int64(r.f.shoff) + int64(i*r.f.shentsize) }

// removalSet marks the sections to remove: those named in Edit.Remove,
// their relocation sections, and groups left without members.
func (r *elfRewriter) removalSet() error {
	f, o, n, bo := r.f, r.o, r.n, r.bo
	r.removed = make([]bool, n)
	rmName := r.e.removeSet()
	for i := 1; i < n; i++ {
		if rmName[r.names[i]] {
			if i == f.shstrndx {
				return unsupported(r.shdrOff(i), "cannot remove the section name table %s", r.names[i])
			}
			r.removed[i] = true
		}
	}
	for i := 1; i < n; i++ {
		h := f.shdrs[i]
		if (h.typ == format.SHT_REL || h.typ == format.SHT_RELA) && h.info > 0 && int(h.info) < n && r.removed[h.info] {
			r.removed[i] = true
		}
	}
	// A group whose members are all removed goes too (llvm-objcopy does
	// the same), which also frees its signature symbol.
	for i := 1; i < n; i++ {
		h := f.shdrs[i]
		d := o.Sections[i].Data
		if h.typ != format.SHT_GROUP || r.removed[i] || len(d) < 8 || len(d)%4 != 0 {
			continue
		}
		all := true
		for k := 4; k < len(d); k += 4 {
			m := int(bo.Uint32(d[k:]))
			if m <= 0 || m >= n || !r.removed[m] {
				all = false
				break
			}
		}
		r.removed[i] = all
	}
	// The index map.
	r.newIdx = make([]int, n)
	next := 0
	for i := 0; i < n; i++ {
		if r.removed[i] {
			r.newIdx[i] = -1
			continue
		}
		r.newIdx[i] = next
		next++
	}
	return nil
}

// mapSec maps section from's reference to section to (sh_link, sh_info).
func (r *elfRewriter) mapSec(from, to int, what string) (uint32, error) {
	if to == 0 {
		return 0, nil
	}
	if to < 0 || to >= r.n {
		return 0, format.Errorf(r.shdrOff(from), format.ErrCorrupt, "section %d (%s): %s %d out of range", from, r.names[from], what, to)
	}
	if r.removed[to] {
		return 0, unsupported(r.shdrOff(from), "section %s: %s refers to removed section %s", r.names[from], what, r.names[to])
	}
	return uint32(r.newIdx[to]), nil
}

// outputSections makes the output sections for the kept input sections.
func (r *elfRewriter) outputSections() error {
	f, o, n, bo := r.f, r.o, r.n, r.bo
	r.byOld = make([]*elfOut, n)
	for i := 0; i < n; i++ {
		if r.removed[i] {
			continue
		}
		h := f.shdrs[i]
		if i > 0 && h.addralign > 1 && (h.addralign&(h.addralign-1) != 0 || h.addralign > maxAlign) {
			return format.Errorf(r.shdrOff(i), format.ErrLimit, "section %d (%s): alignment %d", i, r.names[i], h.addralign)
		}
		so := &elfOut{hdr: h, name: r.names[i], old: i, order: int64(h.off), nobits: h.typ == format.SHT_NOBITS || h.typ == format.SHT_NULL}
		if i > 0 && !so.nobits {
			so.pieces = []piece{{b: o.Sections[i].Data}}
		}
		if i > 0 {
			l, err := r.mapSec(i, int(h.link), "sh_link")
			if err != nil {
				return err
			}
			so.hdr.link = l
			if h.typ == format.SHT_REL || h.typ == format.SHT_RELA || h.flags&shfInfoLink != 0 {
				inf, err := r.mapSec(i, int(h.info), "sh_info")
				if err != nil {
					return err
				}
				so.hdr.info = inf
			}
		}
		r.outs = append(r.outs, so)
		r.byOld[i] = so
	}

	// Members of a removed group that stay lose SHF_GROUP (llvm-objcopy
	// does the same).
	for i := 1; i < n; i++ {
		d := o.Sections[i].Data
		if f.shdrs[i].typ != format.SHT_GROUP || !r.removed[i] || len(d)%4 != 0 {
			continue
		}
		for k := 4; k+4 <= len(d); k += 4 {
			if m := int(bo.Uint32(d[k:])); m > 0 && m < n && r.byOld[m] != nil {
				r.byOld[m].hdr.flags &^= shfGroup
			}
		}
	}
	return nil
}

// renames applies Edit.RenameSection, to relocation sections too.
func (r *elfRewriter) renames() error {
	for _, so := range r.outs[1:] {
		h := r.f.shdrs[so.old]
		if nn, ok := r.e.RenameSection[so.name]; ok {
			so.name = nn
			continue
		}
		if (h.typ == format.SHT_REL || h.typ == format.SHT_RELA) && h.info > 0 && int(h.info) < r.n {
			target := r.names[h.info]
			if nn, ok := r.e.RenameSection[target]; ok {
				for _, pre := range []string{".rela", ".rel"} {
					if so.name == pre+target {
						so.name = pre + nn
						break
					}
				}
			}
		}
	}
	return nil
}

// appender returns the appender of string table i, made on first use.
func (r *elfRewriter) appender(i int) *strtabAppender {
	if a, ok := r.strtabs[i]; ok {
		return a
	}
	a := &strtabAppender{base: r.o.Sections[i].Data}
	r.strtabs[i] = a
	return a
}

// symbolTables rewrites every symbol table (see rewriteSymbols).
func (r *elfRewriter) symbolTables() error {
	return rewriteSymbols(r.f, r.e, r.removed, r.newIdx, r.byOld, r.appender, r.shdrOff, r.is64)
}

// groups renumbers group members and drops removed ones.
func (r *elfRewriter) groups() error {
	f, o, n, bo := r.f, r.o, r.n, r.bo
	for _, so := range r.outs[1:] {
		if f.shdrs[so.old].typ != format.SHT_GROUP {
			continue
		}
		d := o.Sections[so.old].Data
		if len(d)%4 != 0 || len(d) < 4 {
			return format.Errorf(r.shdrOff(so.old), format.ErrCorrupt, "group section %s of %d bytes", so.name, len(d))
		}
		changed := false
		nd := append([]byte{}, d[:4]...)
		if r.e.ObjcopyCompat && bo.Uint32(nd)&grpComdat != 0 && localSignature(f, o, so.old, bo, r.is64) {
			bo.PutUint32(nd, bo.Uint32(nd)&^grpComdat)
			changed = true
		}
		for k := 4; k < len(d); k += 4 {
			m := int(bo.Uint32(d[k:]))
			if m <= 0 || m >= n {
				return format.Errorf(int64(f.shdrs[so.old].off)+int64(k), format.ErrCorrupt, "group %s: member %d out of range", so.name, m)
			}
			if r.removed[m] {
				changed = true
				continue
			}
			if r.newIdx[m] != m {
				changed = true
			}
			nd = app32(bo, nd, uint32(r.newIdx[m]))
		}
		if changed {
			so.pieces = []piece{{b: nd}}
		}
	}
	return nil
}

// sectionNames adds renamed sections' names to the section name table;
// the others keep their sh_name.
func (r *elfRewriter) sectionNames() error {
	f := r.f
	needNames := len(r.e.Add) > 0
	for _, so := range r.outs[1:] {
		needNames = needNames || so.name != r.names[so.old]
	}
	if needNames && (f.shstrndx == 0 || f.shdrs[f.shstrndx].typ != format.SHT_STRTAB) {
		return unsupported(0, "object has no section name string table to add names to")
	}
	r.shstr = r.appender(f.shstrndx)
	for _, so := range r.outs[1:] {
		if so.name != r.names[so.old] {
			so.hdr.name = r.shstr.add(so.name)
		}
	}
	return nil
}

// additions adds Edit.Add's sections, or appends them to a section of the
// same name and type with Edit.Concat.
func (r *elfRewriter) additions() error {
	for _, a := range r.e.Add {
		align := int64(max(a.Align, 1))
		var target *elfOut
		if r.e.Concat {
			for _, so := range r.outs[1:] {
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
			target.pieces.appendSection(a)
			target.hdr.addralign = max(target.hdr.addralign, uint64(align))
			continue
		}
		so := &elfOut{
			hdr:    elfShdr{typ: a.Type, flags: a.Flags, addralign: uint64(align), name: r.shstr.add(a.Name)},
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
		r.outs = append(r.outs, so)
	}
	return nil
}

// stringTables gives the string tables that grew their new contents and,
// with ObjcopyCompat, LLVM's layout (rebuildStringTables).
func (r *elfRewriter) stringTables() error {
	for i, a := range r.strtabs {
		if so := r.byOld[i]; so != nil && len(a.extra) > 0 {
			so.pieces = a.pieces()
		}
	}
	if !r.e.ObjcopyCompat {
		return nil
	}
	cur := func(i int) []byte {
		if a, ok := r.strtabs[i]; ok && len(a.extra) > 0 {
			return append(append([]byte{}, a.base...), a.extra...)
		}
		return r.o.Sections[i].Data
	}
	return rebuildStringTables(r.f, r.outs, r.byOld, cur, r.bo, r.is64)
}

// layOut assigns file offsets: input sections in their input order, new
// ones after them, then the section header table.
func (r *elfRewriter) layOut() error {
	r.layout = append([]*elfOut{}, r.outs[1:]...)
	sort.SliceStable(r.layout, func(i, j int) bool {
		a, b := r.layout[i], r.layout[j]
		if (a.order < 0) != (b.order < 0) {
			return b.order < 0
		}
		return a.order < b.order
	})
	off := r.cls.ehsize
	for _, so := range r.layout {
		off = alignUp(off, int64(max(so.hdr.addralign, 1)))
		so.hdr.off = uint64(off)
		if so.nobits {
			if so.old >= 0 {
				so.hdr.off = uint64(off)
			}
			continue
		}
		sz := so.pieces.size()
		so.hdr.size = uint64(sz)
		off += sz
	}
	r.shoff = alignUp(off, r.cls.word)
	total := r.shoff + int64(len(r.outs))*r.cls.shentsize
	if !r.is64 && total > 0xffffffff {
		return format.Errorf(0, format.ErrLimit, "ELF32 output of %d bytes exceeds 4 GiB", total)
	}
	return nil
}

// write writes the header (section 0 carries extended numbering), the
// section contents and the section header table.
func (r *elfRewriter) write(w io.Writer) error {
	bo, f := r.bo, r.f
	count := len(r.outs)
	strIdx := r.newIdx[f.shstrndx]
	s0 := r.outs[0]
	s0.hdr.size, s0.hdr.link = 0, 0
	eShnum, eShstrndx := count, strIdx
	if count >= format.SHN_LORESERVE {
		eShnum = 0
		s0.hdr.size = uint64(count)
	}
	if strIdx >= format.SHN_LORESERVE {
		eShstrndx = format.SHN_XINDEX
		s0.hdr.link = uint32(strIdx)
	}
	c := r.cls
	hdr := append([]byte{}, f.buf[:c.ehsize]...)
	c.putWord(bo, hdr[c.phoff:], 0)
	c.putWord(bo, hdr[c.shoff:], uint64(r.shoff))
	bo.PutUint16(hdr[c.ehsizeOff:], uint16(c.ehsize))
	bo.PutUint16(hdr[c.shentsizeOff:], uint16(c.shentsize))
	bo.PutUint16(hdr[c.shnumOff:], uint16(eShnum))
	bo.PutUint16(hdr[c.shstrndxOff:], uint16(eShstrndx))

	wr := newWriter(w)
	wr.write(hdr)
	for _, so := range r.layout {
		if so.nobits {
			continue
		}
		wr.padTo(int64(so.hdr.off))
		wr.pieces(so.pieces, so.name, nil)
	}
	wr.padTo(r.shoff)
	for _, so := range r.outs {
		wr.write(encodeShdr(so.hdr, bo, r.is64))
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
