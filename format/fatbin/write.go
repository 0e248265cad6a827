package fatbin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// DefaultFlags are the entry flags fatbinary -64 writes on Linux.
const DefaultFlags = Flag64Bit | FlagHostLinux

// WriteEntry describes one image for Write/AppendFatbin. Images are stored
// uncompressed.
type WriteEntry struct {
	Kind EntryKind
	SM   int
	// Data is the cubin, or the PTX text (a terminating NUL is added when
	// missing).
	Data []byte
	// Major.Minor is the code version. Zero means: for ELF 1.8 (what CUDA
	// 13.0's fatbinary records for sm_90 cubins), for PTX the ".version"
	// directive of the text.
	Major, Minor uint16
	// Flags; zero means DefaultFlags. Compression bits are not allowed.
	Flags uint64
	// Ident is recorded like fatbinary --ident; PTXASOptions like
	// fatbinary --cmdline (PTX entries only, as fatbinary does).
	Ident        string
	PTXASOptions string
}

// Write writes one fat binary container holding entries to w.
func Write(w io.Writer, entries []WriteEntry) error {
	b, err := AppendFatbin(nil, entries)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendFatbin appends one fat binary container holding entries to dst.
// For uncompressed inputs the bytes are identical to CUDA 13.0 fatbinary's
// (checked against the fixtures in testdata/).
func AppendFatbin(dst []byte, entries []WriteEntry) ([]byte, error) {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, Magic)
	dst = binary.LittleEndian.AppendUint16(dst, 1)
	dst = binary.LittleEndian.AppendUint16(dst, HeaderSize)
	dst = binary.LittleEndian.AppendUint64(dst, 0) // patched below
	for i := range entries {
		var err error
		dst, err = appendEntry(dst, &entries[i])
		if err != nil {
			return dst[:start], fmt.Errorf("fatbin: entry %d: %w", i, err)
		}
	}
	binary.LittleEndian.PutUint64(dst[start+8:], uint64(len(dst)-start-HeaderSize))
	return dst, nil
}

func appendEntry(dst []byte, e *WriteEntry) ([]byte, error) {
	switch e.Kind {
	case KindPTX, KindELF:
	default:
		return dst, format.Errorf(0, format.ErrUnsupported, "kind %v", e.Kind)
	}
	if e.SM < 0 || e.SM > 1<<31-1 {
		return dst, format.Errorf(0, format.ErrCorrupt, "sm %d out of range", e.SM)
	}
	flags := e.Flags
	if flags == 0 {
		flags = DefaultFlags
	}
	if flags&(FlagCompressedLZ4|FlagCompressedZstd) != 0 {
		return dst, format.Errorf(0, format.ErrUnsupported, "writing compressed entries")
	}
	major, minor := e.Major, e.Minor
	if major == 0 && minor == 0 {
		if e.Kind == KindELF {
			major, minor = 1, 8
		} else {
			major, minor = ptxVersion(e.Data)
		}
	}
	payload := e.Data
	if e.Kind == KindPTX && (len(payload) == 0 || payload[len(payload)-1] != 0) {
		payload = append(payload[:len(payload):len(payload)], 0)
	}
	if bytes.IndexByte([]byte(e.Ident), 0) >= 0 || bytes.IndexByte([]byte(e.PTXASOptions), 0) >= 0 {
		return dst, format.Errorf(0, format.ErrCorrupt, "identifier or options contain a NUL")
	}
	if len(e.Ident) > 1<<20 || len(e.PTXASOptions) > 1<<20 {
		return dst, format.Errorf(0, format.ErrLimit, "identifier or options longer than 1 MiB")
	}

	// Variable tail of the header: identifier, then the options record.
	hsize := uint64(EntryHeaderSize)
	var nameOff, nameLen uint32
	if e.Ident != "" {
		nameOff, nameLen = uint32(hsize), uint32(len(e.Ident))
		hsize += binio.Align(uint64(len(e.Ident))+1, 8)
	}
	var optRec uint32
	if e.Kind == KindPTX || e.PTXASOptions != "" {
		optRec = uint32(hsize)
		hsize += 8 + binio.Align(uint64(len(e.PTXASOptions))+1, 8)
	}
	psize := binio.Align(uint64(len(payload)), 8)

	h := dst
	h = binary.LittleEndian.AppendUint16(h, uint16(e.Kind))
	h = binary.LittleEndian.AppendUint16(h, 0x0101)
	h = binary.LittleEndian.AppendUint32(h, uint32(hsize))
	h = binary.LittleEndian.AppendUint64(h, psize)
	h = binary.LittleEndian.AppendUint32(h, 0) // compressed size
	h = binary.LittleEndian.AppendUint32(h, optRec)
	h = binary.LittleEndian.AppendUint16(h, minor)
	h = binary.LittleEndian.AppendUint16(h, major)
	h = binary.LittleEndian.AppendUint32(h, uint32(e.SM))
	h = binary.LittleEndian.AppendUint32(h, nameOff)
	h = binary.LittleEndian.AppendUint32(h, nameLen)
	h = binary.LittleEndian.AppendUint64(h, flags)
	h = binary.LittleEndian.AppendUint64(h, 0) // reserved
	h = binary.LittleEndian.AppendUint64(h, 0) // uncompressed size
	if e.Ident != "" {
		h = appendPadded(h, e.Ident)
	}
	if optRec != 0 {
		h = binary.LittleEndian.AppendUint32(h, optRec+8)
		h = binary.LittleEndian.AppendUint32(h, uint32(len(e.PTXASOptions)))
		h = appendPadded(h, e.PTXASOptions)
	}
	h = append(h, payload...)
	h = append(h, make([]byte, psize-uint64(len(payload)))...)
	return h, nil
}

// appendPadded appends s, a NUL, and zeros up to a multiple of 8 bytes.
func appendPadded(b []byte, s string) []byte {
	n := binio.Align(uint64(len(s))+1, 8)
	b = append(b, s...)
	return append(b, make([]byte, n-uint64(len(s)))...)
}

// ptxVersion reads the ".version X.Y" directive of PTX text; 0.0 if absent.
func ptxVersion(ptx []byte) (major, minor uint16) {
	i := bytes.Index(ptx, []byte(".version"))
	if i < 0 {
		return 0, 0
	}
	rest := ptx[i+len(".version"):]
	rest = bytes.TrimLeft(rest, " \t")
	end := 0
	for end < len(rest) && (rest[end] == '.' || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	maj, min, ok := bytes.Cut(rest[:end], []byte("."))
	if !ok {
		return 0, 0
	}
	a, err1 := strconv.ParseUint(string(maj), 10, 16)
	b, err2 := strconv.ParseUint(string(min), 10, 16)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return uint16(a), uint16(b)
}
