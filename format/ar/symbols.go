package ar

import (
	"bytes"
	"encoding/binary"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// ObjectSymbols returns the symbol names LLVM's archive writer puts in the
// archive symbol table for a member, and whether the member counts as an
// object file (an archive with at least one object gets a symbol table,
// even an empty one).
//
// Indexed are the symbols LLVM's isArchiveSymbol accepts: global or weak,
// defined (or common), not section/file symbols; on COFF, external symbols
// that are defined or common, and weak externals of the search-alias kind; a
// COFF short import member defines __imp_<name> (and <name> unless it
// imports data). ELF (.symtab), COFF objects and import members are read; bitcode, Mach-O and anything else are treated as
// plain data (LLVM would index bitcode's IR symbols; WriteGNU cannot, see
// WriteGNUWith). It is the default SymbolFunc.
func ObjectSymbols(data []byte) ([]string, bool, error) {
	switch format.Identify(data) {
	case format.KindELF:
		s, err := elfSymbols(data)
		return s, true, err
	case format.KindCOFF:
		if bytes.HasPrefix(data, []byte("MZ")) {
			return nil, false, nil
		}
		s, err := coffSymbols(data)
		return s, true, err
	case format.KindCOFFImport:
		// A short import member: LLVM's archive writer indexes what
		// COFFImportFile defines (__imp_<name>, and <name> for code).
		imp, err := format.ParseCOFFImport(data)
		if err != nil {
			return nil, true, err
		}
		return imp.Symbols(), true, nil
	}
	return nil, false, nil
}

func elfSymbols(b []byte) ([]string, error) {
	if len(b) < 16 {
		return nil, format.Errorf(0, format.ErrTruncated, "ELF header")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if b[5] == 2 {
		bo = binary.BigEndian
	}
	is64 := b[4] == 2
	c := binio.NewCursor(b, 0)
	c.Order = bo
	c.Skip(16, "e_ident")
	c.Skip(8, "e_type, e_machine, e_version")
	var shoff uint64
	if is64 {
		c.Skip(16, "e_entry, e_phoff")
		shoff = c.U64("e_shoff")
	} else {
		c.Skip(8, "e_entry, e_phoff")
		shoff = uint64(c.U32("e_shoff"))
	}
	c.Skip(4+2+2+2, "e_flags .. e_phnum")
	shentsize := uint64(c.U16("e_shentsize"))
	shnum := uint64(c.U16("e_shnum"))
	if err := c.Err(); err != nil {
		return nil, &format.FormatError{Off: c.Off(), Msg: "ELF header", Err: format.ErrTruncated}
	}
	want := uint64(40)
	if is64 {
		want = 64
	}
	if shoff == 0 {
		return nil, nil
	}
	if shentsize != want || !binio.InRange(shoff, want, uint64(len(b))) {
		return nil, format.Errorf(int64(shoff), format.ErrCorrupt, "section header table")
	}
	type shdr struct {
		typ, link          uint32
		off, size, entsize uint64
	}
	read := func(i uint64) shdr {
		h := b[shoff+i*want:]
		if is64 {
			return shdr{bo.Uint32(h[4:]), bo.Uint32(h[40:]), bo.Uint64(h[24:]), bo.Uint64(h[32:]), bo.Uint64(h[56:])}
		}
		return shdr{bo.Uint32(h[4:]), bo.Uint32(h[24:]), uint64(bo.Uint32(h[16:])), uint64(bo.Uint32(h[20:])), uint64(bo.Uint32(h[36:]))}
	}
	if shnum == 0 {
		shnum = read(0).size
	}
	if shnum > uint64(len(b)) || !binio.InRange(shoff, shnum*want, uint64(len(b))) {
		return nil, format.Errorf(int64(shoff), format.ErrTruncated, "section header table of %d entries", shnum)
	}
	for i := uint64(1); i < shnum; i++ {
		h := read(i)
		if h.typ != 2 { // SHT_SYMTAB
			continue
		}
		ent := uint64(16)
		if is64 {
			ent = 24
		}
		if !binio.InRange(h.off, h.size, uint64(len(b))) || uint64(h.link) >= shnum {
			return nil, format.Errorf(int64(shoff+i*want), format.ErrCorrupt, "symbol table")
		}
		st := read(uint64(h.link))
		if !binio.InRange(st.off, st.size, uint64(len(b))) {
			return nil, format.Errorf(int64(shoff+uint64(h.link)*want), format.ErrCorrupt, "symbol string table")
		}
		strs := b[st.off : st.off+st.size]
		syms := b[h.off : h.off+h.size]
		var names []string
		for k := ent; k+ent <= uint64(len(syms)); k += ent {
			s := syms[k:]
			var info byte
			var shndx uint16
			if is64 {
				info, shndx = s[4], bo.Uint16(s[6:])
			} else {
				info, shndx = s[12], bo.Uint16(s[14:])
			}
			bind, typ := info>>4, info&0xf
			if bind == 0 || shndx == 0 || typ == 3 || typ == 4 { // local, undefined, section, file
				continue
			}
			name, ok := binio.CString(strs, uint64(bo.Uint32(s)))
			if !ok {
				return nil, format.Errorf(int64(h.off+k), format.ErrCorrupt, "symbol name")
			}
			names = append(names, name)
		}
		return names, nil
	}
	return nil, nil
}

func coffSymbols(b []byte) ([]string, error) {
	le := binary.LittleEndian
	var symPtr, nsyms uint64
	ss := uint64(18)
	if format.IsCOFFBigObj(b) {
		if len(b) < 56 {
			return nil, format.Errorf(0, format.ErrTruncated, "bigobj header")
		}
		symPtr, nsyms, ss = uint64(le.Uint32(b[48:])), uint64(le.Uint32(b[52:])), 20
	} else {
		if len(b) < 20 {
			return nil, format.Errorf(0, format.ErrTruncated, "COFF header")
		}
		symPtr, nsyms = uint64(le.Uint32(b[8:])), uint64(le.Uint32(b[12:]))
	}
	if symPtr == 0 || nsyms == 0 {
		return nil, nil
	}
	if !binio.InRange(symPtr, nsyms*ss, uint64(len(b))) {
		return nil, format.Errorf(int64(symPtr), format.ErrTruncated, "symbol table of %d records", nsyms)
	}
	strOff := symPtr + nsyms*ss
	var strs []byte
	if binio.InRange(strOff, 4, uint64(len(b))) {
		n := uint64(le.Uint32(b[strOff:]))
		if binio.InRange(strOff, n, uint64(len(b))) {
			strs = b[strOff : strOff+n]
		}
	}
	var names []string
	for i := uint64(0); i < nsyms; {
		r := b[symPtr+i*ss:]
		var sec int32
		if ss == 20 {
			sec = int32(le.Uint32(r[12:]))
		} else {
			sec = int32(int16(le.Uint16(r[12:])))
		}
		value := le.Uint32(r[8:])
		class := r[ss-2]
		naux := uint64(r[ss-1])
		include := class == 2 && (sec != 0 || value != 0) // IMAGE_SYM_CLASS_EXTERNAL, defined or common
		if class == 105 && naux > 0 && i+1 < nsyms {
			// A weak external counts as defined when it searches an alias
			// (IMAGE_WEAK_EXTERN_SEARCH_ALIAS = 3).
			aux := b[symPtr+(i+1)*ss:]
			include = le.Uint32(aux[4:]) == 3
		}
		if include {
			var name string
			if le.Uint32(r) == 0 {
				s, ok := binio.CString(strs, uint64(le.Uint32(r[4:])))
				if !ok {
					return nil, format.Errorf(int64(symPtr+i*ss), format.ErrCorrupt, "symbol name")
				}
				name = s
			} else {
				n := bytes.IndexByte(r[:8], 0)
				if n < 0 {
					n = 8
				}
				name = string(r[:n])
			}
			names = append(names, name)
		}
		i += 1 + naux
	}
	return names, nil
}
