package elfembed

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
)

// rebuildStringTables gives every string table that section or symbol
// names live in LLVM's layout (see format.StringTable), rewriting sh_name and
// st_name to match. strtab(i) returns the current contents of the string
// table with old index i.
func rebuildStringTables(f *elfFile, outs []*elfOut, byOld []*elfOut, strtab func(int) []byte, bo binary.ByteOrder, is64 bool) error {
	ent := 16
	if is64 {
		ent = 24
	}
	type user struct {
		so   *elfOut
		data []byte // symbol table bytes (nil: section headers)
	}
	tables := map[int][]user{}
	if f.shstrndx > 0 && byOld[f.shstrndx] != nil {
		tables[f.shstrndx] = append(tables[f.shstrndx], user{})
	}
	for _, so := range outs[1:] {
		if so.old < 0 || f.shdrs[so.old].typ != format.SHT_SYMTAB {
			continue
		}
		l := int(f.shdrs[so.old].link)
		if l <= 0 || l >= len(byOld) || byOld[l] == nil {
			continue
		}
		var d []byte
		for _, p := range so.pieces {
			if p.r != nil || p.pad != 0 {
				return nil // not in memory: keep the appended layout
			}
			d = append(d, p.b...)
		}
		if len(d)%ent != 0 {
			return format.Errorf(int64(f.shdrs[so.old].off), format.ErrCorrupt, "symbol table %s size %d is not a multiple of %d", so.name, len(d), ent)
		}
		tables[l] = append(tables[l], user{so: so, data: d})
	}
	for i, users := range tables {
		cur := strtab(i)
		var names []string
		for _, u := range users {
			if u.data == nil {
				for _, so := range outs {
					n, _ := cstr(cur, so.hdr.name)
					names = append(names, n)
				}
				continue
			}
			for k := 0; k < len(u.data); k += ent {
				n, _ := cstr(cur, bo.Uint32(u.data[k:]))
				names = append(names, n)
			}
		}
		table, offs := format.StringTable(names)
		for _, u := range users {
			if u.data == nil {
				for _, so := range outs {
					n, _ := cstr(cur, so.hdr.name)
					so.hdr.name = uint32(offs[n])
				}
				continue
			}
			for k := 0; k < len(u.data); k += ent {
				n, _ := cstr(cur, bo.Uint32(u.data[k:]))
				bo.PutUint32(u.data[k:], uint32(offs[n]))
			}
			u.so.pieces = []piece{{b: u.data}}
		}
		byOld[i].pieces = []piece{{b: table}}
	}
	return nil
}

const grpComdat = 1

// localSignature reports whether group section g (old index) has a
// signature symbol with STB_LOCAL binding.
func localSignature(f *elfFile, o *Object, g int, bo binary.ByteOrder, is64 bool) bool {
	h := f.shdrs[g]
	st := int(h.link)
	if st <= 0 || st >= len(o.Sections) {
		return false
	}
	ent := 16
	infoOff := 12
	if is64 {
		ent, infoOff = 24, 4
	}
	d := o.Sections[st].Data
	k := int(h.info) * ent
	if h.info == 0 || k+ent > len(d) {
		return false
	}
	return d[k+infoOff]>>4 == format.STB_LOCAL
}
