package elfembed

import (
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
)

// rewriteSymbols updates every SHT_SYMTAB: it drops symbols defined in
// removed sections, maps section indices, renames symbols, and renumbers
// the relocations, groups and address-significance tables that refer to
// the symbols by index.
func rewriteSymbols(f *elfFile, e Edit, removed []bool, newIdx []int, byOld []*elfOut,
	appender func(int) *strtabAppender, shdrOff func(int) int64, is64 bool) error {
	o := f.obj
	bo := o.ByteOrder
	n := len(f.shdrs)
	for i := 1; i < n; i++ {
		if f.shdrs[i].typ != format.SHT_SYMTAB || removed[i] {
			continue
		}
		so := byOld[i]
		h := f.shdrs[i]
		ent := 16
		if is64 {
			ent = 24
		}
		d := o.Sections[i].Data
		if len(d)%ent != 0 {
			return format.Errorf(shdrOff(i), format.ErrCorrupt, "symbol table %s size %d is not a multiple of %d", so.name, len(d), ent)
		}
		nsym := len(d) / ent
		strIdx := int(h.link)
		if strIdx <= 0 || strIdx >= n || f.shdrs[strIdx].typ != format.SHT_STRTAB {
			return format.Errorf(shdrOff(i), format.ErrCorrupt, "symbol table %s: bad string table index %d", so.name, strIdx)
		}
		strData := o.Sections[strIdx].Data
		// Extended section indices.
		xIdx := -1
		for j := 1; j < n; j++ {
			if f.shdrs[j].typ == format.SHT_SYMTAB_SHNDX && int(f.shdrs[j].link) == i {
				xIdx = j
				break
			}
		}
		if xIdx >= 0 && removed[xIdx] {
			// The kept symbols would keep SHN_XINDEX with no table to
			// resolve it (found by FuzzRewrite).
			return unsupported(shdrOff(xIdx), "cannot remove %s: it holds the extended section indices of %s", o.Sections[xIdx].Name, so.name)
		}
		var xdata []byte
		if xIdx >= 0 {
			xdata = o.Sections[xIdx].Data
			if len(xdata) < nsym*4 {
				return format.Errorf(shdrOff(xIdx), format.ErrCorrupt, "extended section index table too short")
			}
		}
		nameOff, shndxOff := 0, 14
		if is64 {
			shndxOff = 6
		}
		symSec := func(k int) (sec int, x bool, err error) {
			sh := int(bo.Uint16(d[k*ent+shndxOff:]))
			if sh == format.SHN_XINDEX {
				if xdata == nil {
					return 0, true, format.Errorf(int64(h.off)+int64(k*ent), format.ErrCorrupt, "symbol %d: SHN_XINDEX without an index table", k)
				}
				sec, x = int(bo.Uint32(xdata[k*4:])), true
			} else if sh >= format.SHN_LORESERVE {
				return 0, false, nil
			} else {
				sec = sh
			}
			if sec >= n {
				return 0, x, format.Errorf(int64(h.off)+int64(k*ent), format.ErrCorrupt, "symbol %d: section index %d out of range", k, sec)
			}
			return sec, x, nil
		}
		symMap := make([]int, nsym)
		dropped, shifted, renamed := false, false, false
		kept := 0
		for k := 0; k < nsym; k++ {
			sec, _, err := symSec(k)
			if err != nil {
				return err
			}
			if k > 0 && sec > 0 && removed[sec] {
				symMap[k] = -1
				dropped = true
				continue
			}
			if sec > 0 && newIdx[sec] != sec {
				shifted = true
			}
			if len(e.RenameSymbol) > 0 {
				nm, _ := cstr(strData, bo.Uint32(d[k*ent+nameOff:]))
				if _, ok := e.RenameSymbol[nm]; ok && k > 0 {
					renamed = true
				}
			}
			symMap[k] = kept
			kept++
		}
		if !dropped && !shifted && !renamed {
			continue
		}
		// New symbol table (and index table).
		nd := make([]byte, 0, kept*ent)
		var nx []byte
		locals := 0
		for k := 0; k < nsym; k++ {
			if symMap[k] < 0 {
				continue
			}
			if k < int(h.info) {
				locals++
			}
			s := append([]byte{}, d[k*ent:(k+1)*ent]...)
			if k > 0 && len(e.RenameSymbol) > 0 {
				nm, _ := cstr(strData, bo.Uint32(s[nameOff:]))
				if nn, ok := e.RenameSymbol[nm]; ok {
					bo.PutUint32(s[nameOff:], appender(strIdx).add(nn))
				}
			}
			sec, x, _ := symSec(k)
			ns := sec
			if sec > 0 {
				ns = newIdx[sec]
			}
			if ns < 0 {
				// Only the null symbol (0), never dropped, can name a
				// removed section; it names none now. Written as -1 it
				// read back as SHN_XINDEX (found by FuzzRewrite).
				ns = 0
			}
			if x {
				nx = app32(bo, nx, uint32(ns))
			} else {
				if sec > 0 {
					if ns >= format.SHN_LORESERVE {
						return unsupported(int64(h.off)+int64(k*ent), "symbol %d: section index %d needs SHN_XINDEX", k, ns)
					}
					bo.PutUint16(s[shndxOff:], uint16(ns))
				}
				if xdata != nil {
					nx = app32(bo, nx, bo.Uint32(xdata[k*4:]))
				}
			}
			nd = append(nd, s...)
		}
		so.pieces = []piece{{b: nd}}
		so.hdr.info = uint32(locals)
		if xIdx >= 0 && byOld[xIdx] != nil {
			byOld[xIdx].pieces = []piece{{b: nx}}
		}
		if !dropped {
			continue
		}
		// Renumber users of symbol indices.
		for j := 1; j < n; j++ {
			uh := f.shdrs[j]
			us := byOld[j]
			if us == nil || int(uh.link) != i {
				continue
			}
			ud := o.Sections[j].Data
			switch uh.typ {
			case format.SHT_REL, format.SHT_RELA:
				nd, err := renumberRelocs(f, j, ud, symMap, is64, shdrOff)
				if err != nil {
					return err
				}
				us.pieces = []piece{{b: nd}}
			case format.SHT_GROUP:
				sig := int(uh.info)
				if sig >= nsym || symMap[sig] < 0 {
					return unsupported(shdrOff(j), "group %s: signature symbol %d is removed", us.name, sig)
				}
				us.hdr.info = uint32(symMap[sig])
			case format.SHT_LLVM_ADDRSIG:
				nd, err := renumberAddrsig(ud, symMap, int64(uh.off))
				if err != nil {
					return err
				}
				us.pieces = []piece{{b: nd}}
			}
		}
	}
	return nil
}

func cstr(b []byte, off uint32) (string, bool) {
	if int64(off) >= int64(len(b)) {
		return "", false
	}
	for i := int(off); i < len(b); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}

func renumberRelocs(f *elfFile, j int, d []byte, symMap []int, is64 bool, shdrOff func(int) int64) ([]byte, error) {
	bo := f.obj.ByteOrder
	h := f.shdrs[j]
	ent := 8
	infoOff := 4
	if is64 {
		ent, infoOff = 16, 8
	}
	if h.typ == format.SHT_RELA {
		ent += ent / 2
	}
	if len(d)%ent != 0 {
		return nil, format.Errorf(shdrOff(j), format.ErrCorrupt, "relocation section size %d is not a multiple of %d", len(d), ent)
	}
	mips64 := is64 && f.obj.Machine == format.EM_MIPS
	out := append([]byte{}, d...)
	for k := 0; k+ent <= len(out); k += ent {
		p := out[k+infoOff:]
		var sym int
		switch {
		case mips64:
			sym = int(bo.Uint32(p))
		case is64:
			sym = int(bo.Uint64(p) >> 32)
		default:
			sym = int(bo.Uint32(p) >> 8)
		}
		if sym == 0 {
			continue
		}
		if sym >= len(symMap) {
			return nil, format.Errorf(int64(h.off)+int64(k), format.ErrCorrupt, "relocation %d: symbol %d out of range", k/ent, sym)
		}
		ns := symMap[sym]
		if ns < 0 {
			return nil, unsupported(int64(h.off)+int64(k), "relocation %d refers to symbol %d defined in a removed section", k/ent, sym)
		}
		switch {
		case mips64:
			bo.PutUint32(p, uint32(ns))
		case is64:
			bo.PutUint64(p, uint64(ns)<<32|bo.Uint64(p)&0xffffffff)
		default:
			bo.PutUint32(p, uint32(ns)<<8|bo.Uint32(p)&0xff)
		}
	}
	return out, nil
}

func renumberAddrsig(d []byte, symMap []int, base int64) ([]byte, error) {
	var out []byte
	for i := 0; i < len(d); {
		var v uint64
		var shift uint
		start := i
		for {
			if i >= len(d) || shift > 63 {
				return nil, format.Errorf(base+int64(start), format.ErrCorrupt, "bad ULEB128 in address-significance table")
			}
			c := d[i]
			i++
			v |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				break
			}
		}
		if v >= uint64(len(symMap)) {
			return nil, format.Errorf(base+int64(start), format.ErrCorrupt, "address-significance symbol %d out of range", v)
		}
		if symMap[v] < 0 {
			continue
		}
		u := uint64(symMap[v])
		for {
			c := byte(u & 0x7f)
			u >>= 7
			if u != 0 {
				out = append(out, c|0x80)
				continue
			}
			out = append(out, c)
			break
		}
	}
	return out, nil
}

func app32(bo binary.ByteOrder, b []byte, v uint32) []byte {
	var t [4]byte
	bo.PutUint32(t[:], v)
	return append(b, t[:]...)
}
