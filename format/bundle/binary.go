package bundle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// Magic is the binary bundle magic, "__CLANG_OFFLOAD_BUNDLE__".
var Magic = format.BundleMagic

// Entry is one bundle entry. Data aliases the parsed buffer.
type Entry struct {
	ID     string
	Offset int64 // absolute offset of Data in the buffer given to Parse
	Size   int64
	Data   []byte
}

// Bundle is a parsed binary bundle.
type Bundle struct {
	Entries []Entry // in header order (duplicates kept)
	// HeaderSize is the size of the magic, count and entry table.
	HeaderSize int64
	// End is the offset just past this bundle: the end of the header or of
	// the furthest entry, whichever is larger.
	End int64
}

// Lookup returns the entry the reference tool associates with id: the
// last one with that exact ID (its StringMap overwrites earlier ones).
func (b *Bundle) Lookup(id string) (Entry, bool) {
	for i := len(b.Entries) - 1; i >= 0; i-- {
		if b.Entries[i].ID == id {
			return b.Entries[i], true
		}
	}
	return Entry{}, false
}

// ids returns the distinct entry IDs in the order the reference's
// -list prints them (llvm::StringMap bucket order).
func (b *Bundle) ids() []string {
	ids := make([]string, len(b.Entries))
	for i, e := range b.Entries {
		ids[i] = e.ID
	}
	return LLVMOrder(ids)
}

// Parse decodes a binary bundle at the start of buf. Entries alias buf.
// Any inconsistency is an error and yields a nil Bundle.
func Parse(buf []byte) (*Bundle, error) {
	b, err := parseBinary(buf, false)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// ParseLenient decodes buf the way clang-offload-bundler 22 does: a
// missing magic yields no entries, and decoding stops silently at the
// first entry that is truncated or points outside buf, keeping the entries
// read before it. The returned error (possibly nil) says why it stopped;
// the Bundle is never nil.
func ParseLenient(buf []byte) (*Bundle, error) {
	return parseBinary(buf, true)
}

// ParseHead parses the header of a binary bundle of total bytes from
// prefix, its first bytes, once HeaderLen(prefix, total) reports ok: the
// Bundle Parse (or, lenient, ParseLenient) would return for the whole
// bundle, except that an entry's Data is set only when prefix holds all
// of it. It lets a streamed bundle be listed without the rest of it.
func ParseHead(prefix []byte, total int64, lenient bool) (*Bundle, error) {
	prefix = prefix[:min(int64(len(prefix)), max(total, 0))]
	b, err := parseBinaryIn(prefix, total, lenient)
	if err != nil && !lenient {
		return nil, err
	}
	return b, err
}

func parseBinary(buf []byte, lenient bool) (*Bundle, error) {
	return parseBinaryIn(buf, int64(len(buf)), lenient)
}

// parseBinaryIn parses a bundle of total bytes whose first len(buf) bytes
// are buf (the header must lie within buf).
func parseBinaryIn(buf []byte, total int64, lenient bool) (*Bundle, error) {
	b := &Bundle{}
	if !bytes.HasPrefix(buf, Magic) {
		if len(buf) < len(Magic) {
			return b, format.Errorf(0, format.ErrTruncated, "bundle shorter than magic")
		}
		return b, format.Errorf(0, format.ErrMagic, "no %s magic", Magic)
	}
	c := binio.NewCursor(buf, 0)
	c.Skip(len(Magic), "magic")
	n := c.U64("number of bundles")
	if c.Err() != nil {
		return b, format.CursorError(c.Err(), "")
	}
	// Each table entry takes at least 24 bytes. (The reference reads as
	// many as fit, so the lenient mode does too; the loop is bounded by
	// the buffer either way.)
	if !lenient && n > uint64(total-c.Off())/24 {
		return b, format.Errorf(24, format.ErrTruncated, "%d entries do not fit in %d bytes", n, total)
	}
	b.End = int64(len(Magic) + 8)
	for i := uint64(0); i < n; i++ {
		start := c.Off()
		off := c.U64("entry offset")
		size := c.U64("entry size")
		idLen := c.U64("entry ID length")
		if c.Err() != nil {
			return b, format.CursorError(c.Err(), fmt.Sprintf("entry %d: ", i))
		}
		if idLen > uint64(total-c.Off()) {
			return b, format.Errorf(c.Off(), format.ErrTruncated, "entry %d: ID of %d bytes runs past end", i, idLen)
		}
		id := string(c.Bytes(int(idLen), "entry ID"))
		if c.Err() != nil {
			return b, format.CursorError(c.Err(), fmt.Sprintf("entry %d: ", i))
		}
		if off == 0 || !binio.InRange(off, size, uint64(total)) {
			return b, format.Errorf(start, format.ErrTruncated, "entry %d (%s): data [%#x, +%#x) outside the %d-byte bundle", i, id, off, size, total)
		}
		e := Entry{ID: id, Offset: int64(off), Size: int64(size)}
		if off+size <= uint64(len(buf)) {
			e.Data = buf[off : off+size : off+size]
		}
		b.Entries = append(b.Entries, e)
		b.End = max(b.End, int64(off+size))
	}
	b.HeaderSize = c.Off()
	b.End = max(b.End, b.HeaderSize)
	return b, nil
}

// HeaderLen tells how many leading bytes of a binary bundle of total
// bytes ParseLenient reads (magic, count and the entries it accepts),
// given only a prefix of the bundle: ok is false while the prefix is too
// short to know. A whole bundle (len(prefix) == total) always gives ok.
// It lets a streamed bundle be parsed as soon as its header has arrived.
func HeaderLen(prefix []byte, total int64) (n int64, ok bool) {
	have := min(int64(len(prefix)), total)
	whole := have == total
	if have < int64(len(Magic)) {
		return 0, whole
	}
	if !bytes.HasPrefix(prefix, Magic) {
		return 0, true
	}
	pos := int64(len(Magic))
	if pos+8 > have {
		return pos, whole || pos+8 > total
	}
	count := binary.LittleEndian.Uint64(prefix[pos:])
	pos += 8
	for i := uint64(0); i < count; i++ {
		if pos+24 > have {
			return pos, whole || pos+24 > total // the reference stops at a truncated entry
		}
		off := binary.LittleEndian.Uint64(prefix[pos:])
		size := binary.LittleEndian.Uint64(prefix[pos+8:])
		idLen := binary.LittleEndian.Uint64(prefix[pos+16:])
		if idLen > uint64(total-pos-24) {
			return pos + 24, true
		}
		if pos+24+int64(idLen) > have {
			return 0, false
		}
		pos += 24 + int64(idLen)
		if off == 0 || !binio.InRange(off, size, uint64(total)) {
			return pos, true
		}
	}
	return pos, true
}

// Input is one entry to write. Data must yield exactly Size bytes.
type Input struct {
	ID   string
	Size int64
	Data io.Reader
}

// BytesInput makes an Input from a byte slice.
func BytesInput(id string, data []byte) Input {
	return Input{ID: id, Size: int64(len(data)), Data: bytes.NewReader(data)}
}

func alignTo(v, a uint64) (uint64, bool) {
	if a == 0 {
		return 0, false
	}
	q := (v + a - 1) / a
	if v > math.MaxUint64-a+1 || q > math.MaxUint64/a {
		return 0, false
	}
	return q * a, true
}

// Layout computes the header size and each entry's offset for a binary
// bundle with the given IDs and sizes, as the reference lays it out.
func Layout(ids []string, sizes []int64, align uint64) (header int64, offsets []int64, total int64, err error) {
	if align == 0 {
		return 0, nil, 0, format.Errorf(0, format.ErrCorrupt, "bundle alignment must be at least 1")
	}
	h := uint64(len(Magic) + 8)
	for _, id := range ids {
		h += 24 + uint64(len(id))
	}
	pos := h
	offsets = make([]int64, len(ids))
	for i := range ids {
		p, ok := alignTo(pos, align)
		if !ok || sizes[i] < 0 || p > math.MaxInt64-uint64(sizes[i]) {
			return 0, nil, 0, format.Errorf(0, format.ErrLimit, "bundle larger than 2^63 bytes")
		}
		offsets[i] = int64(p)
		pos = p + uint64(sizes[i])
	}
	return int64(h), offsets, int64(pos), nil
}

// WriteBinary writes a binary bundle of entries (in the given order) to w,
// aligning each entry's data to align bytes (the reference's
// -bundle-align; 1 means packed). Entry data is streamed. It returns the
// number of bytes written.
func WriteBinary(w io.Writer, entries []Input, align uint64) (int64, error) {
	ids := make([]string, len(entries))
	sizes := make([]int64, len(entries))
	for i, e := range entries {
		ids[i], sizes[i] = e.ID, e.Size
	}
	_, offs, _, err := Layout(ids, sizes, align)
	if err != nil {
		return 0, err
	}
	hdr := append([]byte(nil), Magic...)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(entries)))
	for i, e := range entries {
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(offs[i]))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(e.Size))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(e.ID)))
		hdr = append(hdr, e.ID...)
	}
	cw := &countWriter{w: w}
	if _, err := cw.Write(hdr); err != nil {
		return cw.n, err
	}
	for i, e := range entries {
		if pad := offs[i] - cw.n; pad > 0 {
			if err := writeZeros(cw, pad); err != nil {
				return cw.n, err
			}
		}
		if e.Size == 0 {
			continue
		}
		if e.Data == nil {
			return cw.n, fmt.Errorf("bundle entry %s: no data", e.ID)
		}
		n, err := io.Copy(cw, io.LimitReader(e.Data, e.Size))
		if err != nil {
			return cw.n, err
		}
		if n != e.Size {
			return cw.n, fmt.Errorf("bundle entry %s: got %d of %d bytes: %w", e.ID, n, e.Size, io.ErrUnexpectedEOF)
		}
	}
	return cw.n, nil
}

// AppendBinary appends a binary bundle of ids/data to dst.
func AppendBinary(dst []byte, ids []string, data [][]byte, align uint64) ([]byte, error) {
	in := make([]Input, len(ids))
	for i := range ids {
		in[i] = BytesInput(ids[i], data[i])
	}
	var buf bytes.Buffer
	buf.Write(dst)
	if _, err := WriteBinary(&buf, in, align); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadFrom lets io.Copy reach the destination's own ReadFrom, so a file
// entry copied into a file output goes through copy_file_range.
func (c *countWriter) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.w.(io.ReaderFrom); ok {
		n, err := rf.ReadFrom(r)
		c.n += n
		return n, err
	}
	return io.Copy(struct{ io.Writer }{c}, r)
}

func writeZeros(w io.Writer, n int64) error {
	var z [4096]byte
	for n > 0 {
		k := min(n, int64(len(z)))
		if _, err := w.Write(z[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
