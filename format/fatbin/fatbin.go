package fatbin

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/enumname"
)

// Magic is the first little-endian u32 of every fat binary container.
const Magic = 0xBA55ED50

// Container and entry header sizes.
const (
	HeaderSize      = 16 // container header
	EntryHeaderSize = 64 // fixed part of an entry header
)

// EntryKind is the kind of image an entry holds.
type EntryKind uint16

const (
	KindPTX EntryKind = 1 // PTX assembly text, NUL-terminated
	KindELF EntryKind = 2 // a cubin (NVIDIA ELF)
)

var entryKindNames = []string{KindPTX: "ptx", KindELF: "elf"}

func (k EntryKind) String() string { return enumname.Name(entryKindNames, k, "kind") }

// Entry flag bits. The ones marked "guess" come from public reverse
// engineering and are not confirmed by the fixtures (see docs/fatbin.md).
const (
	Flag64Bit          = 0x0001 // compiled for a 64-bit host
	FlagDebug          = 0x0002 // fatbinary -g
	FlagProducerCUDA   = 0x0004 // guess
	FlagProducerOpenCL = 0x0008 // guess
	FlagHostLinux      = 0x0010 // host is Linux
	FlagHostMac        = 0x0020 // guess
	FlagHostWindows    = 0x0040 // guess
	FlagCompressedLZ4  = 0x2000 // payload is an NVIDIA LZ4 block (--compress-mode=speed)
	FlagCompressedZstd = 0x8000 // payload is a zstd frame (the CUDA 13 default)
)

// Compression is the scheme an entry's payload is stored with.
type Compression int

const (
	CompressNone Compression = iota
	CompressLZ4
	CompressZstd
)

var compressionNames = []string{CompressNone: "none", CompressLZ4: "lz4", CompressZstd: "zstd"}

func (c Compression) String() string { return enumname.Name(compressionNames, c, "compression") }

// Entry is one image in a fat binary. Offsets are absolute within the
// buffer passed to Parse; Data aliases that buffer.
type Entry struct {
	Kind         EntryKind
	Version      uint16 // u16 at entry+2; always 0x0101 so far
	HeaderOffset int64  // absolute offset of the entry header
	HeaderSize   int    // entry header size (64, 80, 96, ...)

	// SM is the target architecture number (90 for sm_90).
	SM int
	// Major and Minor are the code version: the PTX ISA version for PTX
	// entries (8.0 for ".version 8.0"), the cubin format version for ELF
	// entries (CUDA 13.0 writes 1.8).
	Major, Minor uint16

	Offset int64 // absolute offset of the payload
	Size   int64 // payload size on disk, including padding to 8 bytes

	Compression      Compression
	Compressed       bool
	CompressedSize   int64 // bytes of compressed stream (0 when not compressed)
	UncompressedSize int64 // decoded size (0 when not compressed)

	Flags uint64

	// Ident is the identifier given to fatbinary --ident (an object name),
	// or "". PTXASOptions are the ptxas options recorded for a PTX entry
	// (fatbinary --cmdline, or nvcc's "--compile-only"), or "".
	Ident        string
	PTXASOptions string

	// Raw fields kept so that an entry can be re-emitted unchanged.
	OptionsOffset uint32 // u32 at entry+0x14: where the options record lives
	Reserved      uint64 // u64 at entry+0x30; zero in every fixture

	// Data is the payload exactly as stored (Size bytes, padding included);
	// for a compressed entry use Stream for the compressed bytes alone.
	Data []byte
}

// Stream returns the stored bytes that carry the image: the compressed
// stream of a compressed entry (CompressedSize bytes), else all of Data.
func (e *Entry) Stream() []byte {
	if e.Compressed && e.CompressedSize > 0 && e.CompressedSize <= int64(len(e.Data)) {
		return e.Data[:e.CompressedSize]
	}
	return e.Data
}

// File is one fat binary container.
type File struct {
	Offset  int64 // absolute offset of the container header
	Version uint16
	Size    int64 // bytes after the 16-byte header (the u64 at offset 8)
	Entries []Entry
}

// End returns the absolute offset just past the container.
func (f *File) End() int64 { return f.Offset + HeaderSize + f.Size }

// IsFatbin reports whether b starts with the fat binary magic.
func IsFatbin(b []byte) bool {
	return len(b) >= 4 && binary.LittleEndian.Uint32(b) == Magic
}

// Parse decodes every fat binary container in buf. Containers may be
// concatenated, as in an .nv_fatbin section of a linked program; zero bytes
// between or after containers are skipped. The first container must start at
// offset 0. On error the result is nil.
func Parse(buf []byte) ([]*File, error) {
	var files []*File
	off := 0
	for {
		f, err := parseOne(buf, off)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		off = int(f.End())
		for off < len(buf) && buf[off] == 0 {
			off++
		}
		if off >= len(buf) {
			return files, nil
		}
	}
}

// ParseFile decodes a single container at the start of buf and ignores what
// follows it.
func ParseFile(buf []byte) (*File, error) { return parseOne(buf, 0) }

// open reads the named file and parses it; errors carry the file name.
// (To parse a large file without copying it, map it with
// internal/mmapfile and call Parse on the mapping.)
func open(name string) ([]*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	files, err := Parse(data)
	if err != nil {
		return nil, format.WithPath(name, err)
	}
	return files, nil
}

func parseOne(buf []byte, off int) (*File, error) {
	c := binio.NewCursor(buf[off:], int64(off))
	magic := c.U32("fatbin magic")
	version := c.U16("fatbin version")
	hsize := c.U16("fatbin header size")
	size := c.U64("fatbin size")
	if err := c.Err(); err != nil {
		return nil, format.CursorError(err, "")
	}
	base := int64(off)
	if magic != Magic {
		return nil, format.Errorf(base, format.ErrMagic, "fatbin: magic 0x%08x, want 0x%08x", magic, uint32(Magic))
	}
	if version != 1 {
		return nil, format.Errorf(base+4, format.ErrVersion, "fatbin: container version %d", version)
	}
	if hsize < HeaderSize {
		return nil, format.Errorf(base+6, format.ErrCorrupt, "fatbin: header size %d is less than %d", hsize, HeaderSize)
	}
	rest := uint64(len(buf) - off)
	if !binio.InRange(uint64(hsize), size, rest) {
		return nil, format.Errorf(base+8, format.ErrTruncated,
			"fatbin: container of %d bytes after a %d-byte header exceeds the %d bytes available", size, hsize, rest)
	}
	f := &File{Offset: base, Version: version, Size: int64(size)}
	// The size counts from the end of the 16-byte header; a larger header
	// (never seen) is assumed to be included in it.
	end := off + HeaderSize + int(size)
	if int(hsize) > HeaderSize+int(size) {
		return nil, format.Errorf(base+6, format.ErrCorrupt, "fatbin: header size %d exceeds container size", hsize)
	}
	pos := off + int(hsize)
	for i := 0; pos < end; i++ {
		e, next, err := parseEntry(buf[:end], pos)
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
		pos = next
	}
	return f, nil
}

func parseEntry(buf []byte, pos int) (Entry, int, error) {
	at := int64(pos)
	c := binio.NewCursor(buf[pos:], at)
	var e Entry
	e.HeaderOffset = at
	e.Kind = EntryKind(c.U16("entry kind"))
	e.Version = c.U16("entry version")
	hsize := c.U32("entry header size")
	psize := c.U64("entry payload size")
	csize := c.U32("entry compressed size")
	e.OptionsOffset = c.U32("entry options offset")
	e.Minor = c.U16("entry minor version")
	e.Major = c.U16("entry major version")
	sm := c.U32("entry sm")
	nameOff := c.U32("entry identifier offset")
	nameLen := c.U32("entry identifier length")
	e.Flags = c.U64("entry flags")
	e.Reserved = c.U64("entry reserved")
	usize := c.U64("entry uncompressed size")
	if err := c.Err(); err != nil {
		return Entry{}, 0, format.CursorError(err, "")
	}
	avail := uint64(len(buf) - pos)
	if hsize < EntryHeaderSize || uint64(hsize) > avail {
		return Entry{}, 0, format.Errorf(at+4, format.ErrCorrupt,
			"fatbin: entry header size %d outside [%d, %d]", hsize, EntryHeaderSize, avail)
	}
	if !binio.InRange(uint64(hsize), psize, avail) {
		return Entry{}, 0, format.Errorf(at+8, format.ErrTruncated,
			"fatbin: entry payload of %d bytes runs past the container end", psize)
	}
	hdr := buf[pos : pos+int(hsize)]
	e.HeaderSize = int(hsize)
	e.SM = int(sm)
	e.Offset = at + int64(hsize)
	e.Size = int64(psize)
	e.Data = buf[pos+int(hsize) : pos+int(hsize)+int(psize) : pos+int(hsize)+int(psize)]

	lz, zs := e.Flags&FlagCompressedLZ4 != 0, e.Flags&FlagCompressedZstd != 0
	switch {
	case lz && zs:
		return Entry{}, 0, format.Errorf(at+0x28, format.ErrCorrupt, "fatbin: entry flags 0x%x mark both LZ4 and zstd compression", e.Flags)
	case lz:
		e.Compression = CompressLZ4
	case zs:
		e.Compression = CompressZstd
	}
	if e.Compression != CompressNone {
		e.Compressed = true
		e.CompressedSize = int64(csize)
		if e.CompressedSize == 0 {
			e.CompressedSize = e.Size
		}
		if e.CompressedSize > e.Size {
			return Entry{}, 0, format.Errorf(at+0x10, format.ErrCorrupt,
				"fatbin: compressed size %d exceeds payload size %d", csize, psize)
		}
		if usize > 1<<62 {
			return Entry{}, 0, format.Errorf(at+0x38, format.ErrLimit, "fatbin: uncompressed size %d", usize)
		}
		e.UncompressedSize = int64(usize)
	} else {
		e.CompressedSize = int64(csize)
		e.UncompressedSize = int64(usize)
	}

	if nameLen > 0 {
		if !binio.InRange(uint64(nameOff), uint64(nameLen), uint64(hsize)) {
			return Entry{}, 0, format.Errorf(at+0x20, format.ErrCorrupt,
				"fatbin: identifier [%d, +%d) outside the %d-byte entry header", nameOff, nameLen, hsize)
		}
		e.Ident = cstr(hdr[nameOff : nameOff+nameLen])
	}
	if e.OptionsOffset != 0 {
		o := uint64(e.OptionsOffset)
		if !binio.InRange(o, 8, uint64(hsize)) {
			return Entry{}, 0, format.Errorf(at+0x14, format.ErrCorrupt,
				"fatbin: options record at %d outside the %d-byte entry header", o, hsize)
		}
		soff := uint64(binary.LittleEndian.Uint32(hdr[o:]))
		slen := uint64(binary.LittleEndian.Uint32(hdr[o+4:]))
		if slen > 0 {
			if !binio.InRange(soff, slen, uint64(hsize)) {
				return Entry{}, 0, format.Errorf(at+int64(o), format.ErrCorrupt,
					"fatbin: ptxas options [%d, +%d) outside the %d-byte entry header", soff, slen, hsize)
			}
			e.PTXASOptions = cstr(hdr[soff : soff+slen])
		}
	}
	return e, pos + int(hsize) + int(psize), nil
}

// cstr returns b up to its first NUL.
func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// Decompressor decodes one complete compressed stream src whose decoded size
// is size, appending the result to dst. It is how callers plug in zstd.
type Decompressor func(dst, src []byte, size int64) ([]byte, error)

// Uncompressed returns the image as stored before compression: Data itself
// for an uncompressed entry (no copy, padding included), or a freshly
// decoded LZ4 payload of exactly UncompressedSize bytes. A zstd entry fails
// with an error wrapping format.ErrUnsupported; use UncompressedWith.
func (e *Entry) Uncompressed() ([]byte, error) { return e.UncompressedWith(nil) }

// UncompressedWith is Uncompressed with a zstd decoder for zstd entries.
// The decoder's output must be exactly UncompressedSize bytes long.
func (e *Entry) UncompressedWith(zstd Decompressor) ([]byte, error) {
	switch e.Compression {
	case CompressNone:
		return e.Data, nil
	case CompressLZ4:
		return decodeLZ4(e.Stream(), e.UncompressedSize, e.Offset)
	case CompressZstd:
		if zstd == nil {
			return nil, format.Errorf(e.HeaderOffset+0x28, format.ErrUnsupported,
				"fatbin: %s sm_%d entry is zstd-compressed; pass a zstd decoder to UncompressedWith", e.Kind, e.SM)
		}
		src := e.Stream()
		// A zstd frame cannot expand by more than a factor of about 2^17
		// per byte; refuse sizes no real input could decode to.
		if e.UncompressedSize > int64(len(src))<<17+1<<17 {
			return nil, format.Errorf(e.HeaderOffset+0x38, format.ErrLimit,
				"fatbin: uncompressed size %d is implausible for %d compressed bytes", e.UncompressedSize, len(src))
		}
		out, err := zstd(nil, src, e.UncompressedSize)
		if err != nil {
			return nil, &format.FormatError{Off: e.Offset, Msg: "fatbin: zstd: " + err.Error(), Err: format.ErrCorrupt}
		}
		if int64(len(out)) != e.UncompressedSize {
			return nil, format.Errorf(e.Offset, format.ErrCorrupt,
				"fatbin: zstd payload decoded to %d bytes, header says %d", len(out), e.UncompressedSize)
		}
		return out, nil
	}
	return nil, format.Errorf(e.HeaderOffset+0x28, format.ErrUnsupported, "fatbin: %v", e.Compression)
}

// Image returns the image the way cuobjdump -xelf/-xptx extracts it: the
// uncompressed payload, and for PTX cut at the first NUL (fatbinary stores
// PTX NUL-terminated and padded).
func (e *Entry) Image() ([]byte, error) { return e.ImageWith(nil) }

// ImageWith is Image with a zstd decoder.
func (e *Entry) ImageWith(zstd Decompressor) ([]byte, error) {
	b, err := e.UncompressedWith(zstd)
	if err != nil {
		return nil, err
	}
	if e.Kind == KindPTX {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
	}
	return b, nil
}

// String summarises the entry, e.g. "elf sm_90 4200 bytes".
func (e *Entry) String() string {
	s := fmt.Sprintf("%s sm_%d %d bytes", e.Kind, e.SM, e.Size)
	if e.Compressed {
		s += fmt.Sprintf(" (%s, %d uncompressed)", e.Compression, e.UncompressedSize)
	}
	return s
}
