package elfembed

import (
	"encoding/binary"
	"strconv"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// coffShdr is a raw COFF section header.
type coffShdr struct {
	name    [8]byte
	vsize   uint32
	vaddr   uint32
	rawSize uint32
	rawPtr  uint32
	relPtr  uint32
	linePtr uint32
	nrel    uint16
	nline   uint16
	chars   uint32
}

type coffFile struct {
	obj      *Object
	buf      []byte
	bigobj   bool
	peOff    int64 // offset of the COFF file header (0 for objects)
	hdrEnd   int64 // offset of the first section header
	optSize  int   // SizeOfOptionalHeader
	symPtr   uint32
	nsyms    uint32
	symSize  int // 18, or 20 for bigobj
	strtab   []byte
	strOff   int64
	shdrs    []coffShdr
	timeDate uint32
	chars    uint16
	bigHdr   []byte // the 56-byte bigobj header, copied verbatim when rewriting
}

const coffShdrSize = 40

func coffAlign(chars uint32) uint64 {
	n := (chars >> 20) & 0xF
	if n == 0 || n > 14 {
		return 0
	}
	return 1 << (n - 1)
}

func parseCOFF(buf []byte) (*coffFile, error) {
	f := &coffFile{buf: buf, symSize: 18}
	o := &Object{Format: COFF, ByteOrder: binary.LittleEndian}
	f.obj = o
	c := binio.NewCursor(buf, 0)
	var nsec uint32
	switch {
	case len(buf) >= 4 && binary.LittleEndian.Uint32(buf) == 0xFFFF0000 && !format.IsCOFFBigObj(buf):
		// Sig1=0, Sig2=0xFFFF without the bigobj class ID: a short import
		// member (or a cl /GL object), which has no section table.
		if format.Identify(buf) == format.KindCOFFImport {
			return nil, format.Errorf(0, format.ErrUnsupported, "a COFF short import member has no sections")
		}
		return nil, format.Errorf(12, format.ErrUnsupported, "not a bigobj COFF object (class ID)")
	case format.IsCOFFBigObj(buf):
		f.bigobj, f.symSize = true, 20
		c.Skip(4, "bigobj signature")
		ver := c.U16("bigobj version")
		o.Machine = c.U16("Machine")
		f.timeDate = c.U32("TimeDateStamp")
		c.Skip(16, "ClassID")
		c.Skip(16, "SizeOfData, Flags, MetaDataSize, MetaDataOffset")
		nsec = c.U32("NumberOfSections")
		f.symPtr = c.U32("PointerToSymbolTable")
		f.nsyms = c.U32("NumberOfSymbols")
		if err := c.Err(); err != nil {
			return nil, format.CursorError(err, "")
		}
		if ver < 2 {
			return nil, format.Errorf(4, format.ErrUnsupported, "bigobj version %d", ver)
		}
		f.bigHdr = buf[:56]
	default:
		if len(buf) >= 0x40 && buf[0] == 'M' && buf[1] == 'Z' {
			pe := int64(binary.LittleEndian.Uint32(buf[0x3c:]))
			if !fits(pe, 4, len(buf)) || string(buf[pe:pe+4]) != "PE\x00\x00" {
				return nil, format.Errorf(0x3c, format.ErrMagic, "bad PE signature offset 0x%x", pe)
			}
			f.peOff = pe + 4
			c.Pos = int(f.peOff)
		}
		o.Machine = c.U16("Machine")
		nsec = uint32(c.U16("NumberOfSections"))
		f.timeDate = c.U32("TimeDateStamp")
		f.symPtr = c.U32("PointerToSymbolTable")
		f.nsyms = c.U32("NumberOfSymbols")
		f.optSize = int(c.U16("SizeOfOptionalHeader"))
		f.chars = c.U16("Characteristics")
		c.Skip(f.optSize, "optional header")
		if err := c.Err(); err != nil {
			return nil, format.CursorError(err, "")
		}
	}
	switch o.Machine {
	case 0x8664, 0xaa64, 0xa641, 0xa64e, 0x200:
		o.Class = 64
	default:
		o.Class = 32
	}
	f.hdrEnd = int64(c.Pos)
	if !fits(f.hdrEnd, int64(nsec)*coffShdrSize, len(buf)) {
		return nil, format.Errorf(f.hdrEnd, format.ErrTruncated, "%d section headers", nsec)
	}
	// String table: after the symbol table. Its absence is not an error
	// unless a name refers to it.
	if f.symPtr == 0 {
		f.nsyms = 0 // no symbol table, whatever the count says
	}
	if f.symPtr != 0 {
		st := int64(f.symPtr) + int64(f.nsyms)*int64(f.symSize)
		if !fits(int64(f.symPtr), int64(f.nsyms)*int64(f.symSize), len(buf)) {
			return nil, format.Errorf(int64(f.symPtr), format.ErrTruncated, "symbol table of %d symbols", f.nsyms)
		}
		f.strOff = st
		if fits(st, 4, len(buf)) {
			n := int64(binary.LittleEndian.Uint32(buf[st:]))
			if n < 4 || !fits(st, n, len(buf)) {
				return nil, format.Errorf(st, format.ErrTruncated, "string table of %d bytes", n)
			}
			f.strtab = buf[st : st+n]
		}
	}
	f.shdrs = make([]coffShdr, nsec)
	o.Sections = make([]Section, nsec)
	for i := range f.shdrs {
		hoff := f.hdrEnd + int64(i)*coffShdrSize
		b := buf[hoff : hoff+coffShdrSize]
		h := coffShdr{
			vsize: le32(b[8:]), vaddr: le32(b[12:]), rawSize: le32(b[16:]), rawPtr: le32(b[20:]),
			relPtr: le32(b[24:]), linePtr: le32(b[28:]), nrel: le16(b[32:]), nline: le16(b[34:]), chars: le32(b[36:]),
		}
		copy(h.name[:], b[:8])
		f.shdrs[i] = h
		name, err := f.sectionName(h.name[:], hoff)
		if err != nil {
			return nil, err
		}
		s := Section{Index: i + 1, Name: name, Flags: uint64(h.chars), Offset: int64(h.rawPtr), Size: int64(h.rawSize), Align: coffAlign(h.chars)}
		if h.chars&coffCntUninit == 0 && h.rawPtr != 0 && h.rawSize != 0 {
			if !fits(int64(h.rawPtr), int64(h.rawSize), len(buf)) {
				return nil, format.Errorf(hoff+16, format.ErrTruncated, "section %d (%s): contents [0x%x, +0x%x) past end of file", i+1, name, h.rawPtr, h.rawSize)
			}
			s.Data = buf[h.rawPtr : h.rawPtr+h.rawSize : h.rawPtr+h.rawSize]
		} else if h.rawPtr == 0 {
			s.Offset = 0
		}
		o.Sections[i] = s
	}
	return f, nil
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// sectionName resolves an 8-byte COFF name field, including "/N" decimal
// and "//BASE64" string-table references.
func (f *coffFile) sectionName(raw []byte, hoff int64) (string, error) {
	n := 0
	for n < len(raw) && raw[n] != 0 {
		n++
	}
	s := string(raw[:n])
	if len(s) < 2 || s[0] != '/' {
		return s, nil
	}
	var off uint64
	if s[1] == '/' {
		v, ok := decodeBase64Name(s[2:])
		if !ok {
			return "", format.Errorf(hoff, format.ErrCorrupt, "bad base-64 section name %q", s)
		}
		off = v
	} else {
		v, err := strconv.ParseUint(s[1:], 10, 32)
		if err != nil {
			return "", format.Errorf(hoff, format.ErrCorrupt, "bad long section name %q", s)
		}
		off = v
	}
	if f.strtab == nil {
		return "", format.Errorf(hoff, format.ErrCorrupt, "long section name %q without a string table", s)
	}
	name, ok := binio.CString(f.strtab, off)
	if !ok || off < 4 {
		return "", format.Errorf(hoff, format.ErrCorrupt, "long section name %q: offset out of string table at 0x%x", s, f.strOff)
	}
	return name, nil
}

func decodeBase64Name(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 6 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		ch := s[i]
		var d uint64
		switch {
		case ch >= 'A' && ch <= 'Z':
			d = uint64(ch - 'A')
		case ch >= 'a' && ch <= 'z':
			d = uint64(ch-'a') + 26
		case ch >= '0' && ch <= '9':
			d = uint64(ch-'0') + 52
		case ch == '+':
			d = 62
		case ch == '/':
			d = 63
		default:
			return 0, false
		}
		v = v*64 + d
	}
	return v, true
}

func fits(off, n int64, limit int) bool {
	return off >= 0 && n >= 0 && off <= int64(limit) && n <= int64(limit)-off
}
