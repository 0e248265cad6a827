package ar

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
)

const (
	headerSize = 60
	magicSize  = 8
)

// Member is one archive member. Symbol tables and the GNU long-name table
// are not members.
type Member struct {
	// Name is the resolved member name: the GNU "//" table entry or short
	// name without its trailing '/', or the BSD "#1/N" name. For thin
	// archives it is the path as stored (relative to the archive's
	// directory unless absolute).
	Name string
	// Offset is the absolute offset of the member's data in the archive
	// buffer, or -1 for thin members.
	Offset int64
	// Size is the data size (for thin members, the external file's size as
	// recorded in the header).
	Size int64
	// Data is a zero-copy slice of the archive buffer; nil for thin
	// members, whose data lives in the external file named by Name. Data
	// need not be 8-aligned.
	Data []byte
}

// Archive is a parsed archive.
type Archive struct {
	Thin    bool
	Kind    string // "gnu", "bsd" (BSD and Darwin) or "thin"
	Members []Member
}

// IsArchive reports whether head starts with the regular or thin archive
// magic.
func IsArchive(head []byte) bool {
	return bytes.HasPrefix(head, format.ArchiveMagic) || bytes.HasPrefix(head, format.ThinArchiveMagic)
}

// header is the decoded fixed 60-byte member header.
type header struct {
	off  int64  // offset of the header
	name string // raw name field with trailing spaces removed
	size int64
}

func parseHeader(buf []byte, off int64) (header, error) {
	if !fits(off, headerSize, len(buf)) {
		return header{}, format.Errorf(off, format.ErrTruncated, "member header")
	}
	h := buf[off : off+headerSize]
	if h[58] != '`' || h[59] != '\n' {
		return header{}, format.Errorf(off+58, format.ErrCorrupt, "member header terminator %q", h[58:60])
	}
	sz := strings.TrimRight(string(h[48:58]), " ")
	size, err := strconv.ParseUint(sz, 10, 63)
	if err != nil {
		return header{}, format.Errorf(off+48, format.ErrCorrupt, "member size %q", h[48:58])
	}
	return header{off: off, name: strings.TrimRight(string(h[:16]), " "), size: int64(size)}, nil
}

// fits reports whether [off, off+n) lies inside a buffer of length limit.
func fits(off, n int64, limit int) bool {
	return off >= 0 && n >= 0 && off <= int64(limit) && n <= int64(limit)-off
}

func isSymtab(name string) bool {
	switch name {
	case "/", "/SYM64/", "/SYM64", "/<ECSYMBOLS>/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED":
		return true
	}
	return false
}

// Parse parses a whole archive held in buf. Symbol tables ("/", "/SYM64/",
// "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64") and the GNU "//"
// long-name table are skipped. Errors are *format.FormatError with the
// offset of the failing header.
func Parse(buf []byte) (*Archive, error) {
	a := &Archive{Kind: "gnu"}
	switch {
	case bytes.HasPrefix(buf, format.ArchiveMagic):
	case bytes.HasPrefix(buf, format.ThinArchiveMagic):
		a.Thin, a.Kind = true, "thin"
	case bytes.HasPrefix(buf, []byte("<bigaf>\n")):
		return nil, format.Errorf(0, format.ErrUnsupported, "AIX big archive")
	default:
		return nil, format.Errorf(0, format.ErrMagic, "not an ar archive")
	}
	var strtab []byte
	bsdSeen := false
	off := int64(magicSize)
	for off < int64(len(buf)) {
		// GNU pads members to 2 bytes with '\n'; tolerate a final pad byte.
		if off == int64(len(buf))-1 && buf[off] == '\n' {
			break
		}
		h, err := parseHeader(buf, off)
		if err != nil {
			return nil, err
		}
		dataOff := off + headerSize
		size := h.size
		thinMember := false
		var name string
		switch {
		case h.name == "//":
			if strtab != nil {
				return nil, format.Errorf(off, format.ErrCorrupt, "second long-name table")
			}
			if !fits(dataOff, size, len(buf)) {
				return nil, format.Errorf(off, format.ErrTruncated, "long-name table of %d bytes", size)
			}
			strtab = buf[dataOff : dataOff+size]
			off = next(dataOff, size)
			continue
		case isSymtab(h.name):
			if strings.HasPrefix(h.name, "__.") {
				bsdSeen = true
			}
			if !fits(dataOff, size, len(buf)) {
				return nil, format.Errorf(off, format.ErrTruncated, "symbol table of %d bytes", size)
			}
			off = next(dataOff, size)
			continue
		case strings.HasPrefix(h.name, "#1/"):
			n, err := strconv.ParseUint(h.name[3:], 10, 31)
			if err != nil || int64(n) > size {
				return nil, format.Errorf(off, format.ErrCorrupt, "BSD long name %q", h.name)
			}
			if !fits(dataOff, int64(n), len(buf)) {
				return nil, format.Errorf(dataOff, format.ErrTruncated, "BSD long name of %d bytes", n)
			}
			name = strings.TrimRight(string(buf[dataOff:dataOff+int64(n)]), "\x00")
			dataOff += int64(n)
			size -= int64(n)
			bsdSeen = true
			if isSymtab(name) {
				if !fits(dataOff, size, len(buf)) {
					return nil, format.Errorf(h.off, format.ErrTruncated, "symbol table of %d bytes", size)
				}
				off = next(dataOff, size)
				continue
			}
		case len(h.name) > 1 && h.name[0] == '/' && isDigits(h.name[1:]):
			if strtab == nil {
				return nil, format.Errorf(off, format.ErrCorrupt, "long name %q without a long-name table", h.name)
			}
			n, err := strconv.ParseUint(h.name[1:], 10, 31)
			if err != nil || n >= uint64(len(strtab)) {
				return nil, format.Errorf(off, format.ErrCorrupt, "long name offset %q out of range", h.name)
			}
			rest := strtab[n:]
			// GNU ends names with "/\n"; COFF (MSVC lib) archives with NUL.
			end := bytes.IndexAny(rest, "\n\x00")
			if end < 0 {
				return nil, format.Errorf(off, format.ErrCorrupt, "long name %q not terminated", h.name)
			}
			name = strings.TrimSuffix(string(rest[:end]), "/")
		case strings.HasSuffix(h.name, "/"):
			name = strings.TrimSuffix(h.name, "/")
		default:
			name = h.name
			bsdSeen = true
		}
		if a.Thin {
			thinMember = true
		}
		m := Member{Name: name, Offset: dataOff, Size: size}
		if thinMember {
			m.Offset = -1
			a.Members = append(a.Members, m)
			off = dataOff
			continue
		}
		if !fits(dataOff, size, len(buf)) {
			return nil, format.Errorf(off, format.ErrTruncated, "member %q of %d bytes", name, size)
		}
		m.Data = buf[dataOff : dataOff+size : dataOff+size]
		a.Members = append(a.Members, m)
		off = next(dataOff, size)
	}
	if bsdSeen && !a.Thin {
		a.Kind = "bsd"
	}
	return a, nil
}

// next returns the offset of the header after a payload at off of size n
// (payloads are padded to 2 bytes).
func next(off, n int64) int64 {
	e := off + n
	return e + e&1
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
