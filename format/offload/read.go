package offload

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// On-disk sizes.
const (
	headerSizeV1      = 32 // v1 and v2 header
	headerSizeV3      = 40 // v3 header (adds InflatedSize)
	entrySize         = 40
	stringEntrySizeV1 = 16
	stringEntrySizeV2 = 24 // v2 and v3: adds ValueSize
	minSizeV1         = headerSizeV1 + entrySize

	// DefaultMaxInflated caps a v3 binary's inflated size when
	// ReadOptions.MaxInflated is 0.
	DefaultMaxInflated = 4 << 30
)

// KV is one string-map entry.
type KV struct{ Key, Value string }

// Binary is one offload image (one entry) read from an OffloadBinary.
type Binary struct {
	Version     uint32
	Offset      int64  // absolute offset of this binary in the buffer passed to ParseAll
	Size        uint64 // Header.Size (for v3, the compressed size)
	ImageKind   format.ImageKind
	OffloadKind format.OffloadKind
	Flags       uint32
	Strings     []KV   // on-disk order
	ImageOffset uint64 // relative to the start of this binary
	Image       []byte // zero-copy slice of the payload (for v3: slice of the decompressed body)
	// InflatedSize is a compressed v3 binary's InflatedSize (its size once
	// inflated); 0 when the binary was not compressed (v3.go).
	InflatedSize uint64
}

// Get returns the value of key, or "" if it is missing (LLVM's getString).
// When a key occurs more than once, the last value wins, as in LLVM's
// MapVector-based reader.
func (b *Binary) Get(key string) string {
	for i := len(b.Strings) - 1; i >= 0; i-- {
		if b.Strings[i].Key == key {
			return b.Strings[i].Value
		}
	}
	return ""
}

// Triple returns Get("triple").
func (b *Binary) Triple() string { return b.Get("triple") }

// Arch returns Get("arch").
func (b *Binary) Arch() string { return b.Get("arch") }

// ReadOptions controls ParseAll.
type ReadOptions struct {
	// Align8 selects the newer-main step from one binary to the next,
	// align8(offset+Size); false is LLVM 22.1.8's offset+Size, where any
	// trailing byte (even padding) is an error.
	Align8 bool
	// MaxInflated caps the inflated size of the compressed (v3) binaries
	// in one ParseAll call, all of them together, so that many small
	// decompression bombs cannot add up; 0 means DefaultMaxInflated.
	MaxInflated int64
}

// LLVM 22 error classes (object_error messages).
const (
	msgParseFailed   = "Invalid data was encountered while parsing the file"
	msgUnexpectedEOF = "The end of the file was unexpectedly encountered"
)

type llvmClass uint8

const (
	classParseFailed llvmClass = iota
	classEOF
)

// classErr is the Err of our *format.FormatError values: it wraps a format
// sentinel (so errors.Is works) and remembers LLVM 22's error class.
type classErr struct {
	sentinel error
	class    llvmClass
}

func (e *classErr) Error() string { return e.sentinel.Error() }
func (e *classErr) Unwrap() error { return e.sentinel }

// LLVMError returns the message LLVM 22.1.8 prints for the failure that err
// (from Parse or ParseAll) reports: "Invalid data was encountered while
// parsing the file" (object_error::parse_failed) or "The end of the file was
// unexpectedly encountered" (object_error::unexpected_eof). Any failure
// inside a version 2 or 3 binary maps to parse_failed, since LLVM 22 rejects
// those versions outright. It returns "" for nil and err.Error() for errors
// that did not come from this package.
func LLVMError(err error) string {
	if err == nil {
		return ""
	}
	var ce *classErr
	if !errors.As(err, &ce) {
		return err.Error()
	}
	if ce.class == classEOF {
		return msgUnexpectedEOF
	}
	return msgParseFailed
}

// Parse reads the OffloadBinary whose header is at buf[0]. A version 1
// binary yields one *Binary; versions 2 and 3 yield one per entry. It
// returns Header.Size, the number of bytes the binary claims; every offset
// inside the binary is checked against Header.Size (after checking that
// Size <= len(buf)), as LLVM's section walker does. buf need not be
// 8-aligned in memory.
func Parse(buf []byte) ([]*Binary, int64, error) {
	return parseAt(buf, 0, DefaultMaxInflated)
}

// ParseAll reads every binary in buf, a section holding concatenated
// OffloadBinaries. Binary.Offset and error offsets are relative to buf.
func ParseAll(buf []byte, opt ReadOptions) ([]*Binary, error) {
	maxInfl := opt.MaxInflated
	if maxInfl <= 0 {
		maxInfl = DefaultMaxInflated
	}
	var all []*Binary
	for off := uint64(0); off < uint64(len(buf)); {
		rest := buf[off:]
		bins, n, err := parseAt(rest, int64(off), maxInfl)
		if err != nil {
			return nil, err
		}
		if len(rest) >= headerSizeV3 && le.Uint32(rest[4:]) == 3 {
			maxInfl -= int64(min(le.Uint64(rest[32:]), uint64(maxInfl))) // the budget is shared
			if maxInfl <= 0 {
				maxInfl = 1 // any further compressed body is over the limit
			}
		}
		all = append(all, bins...)
		next := off + uint64(n)
		if opt.Align8 {
			next = binio.Align(next, 8)
		} else if len(rest) >= 8 && le.Uint32(rest[4:]) >= 2 {
			next = v2Step(buf, next)
		}
		off = next
	}
	return all, nil
}

// v2Step is where the binary after a v2/v3 one (newer LLVM main) starts
// without ReadOptions.Align8: right after it, unless only zero padding up
// to the 8-byte boundary follows (what a v3 writer leaves, at the end of a
// raw package or before the next binary).
func v2Step(buf []byte, next uint64) uint64 {
	a := binio.Align(next, 8)
	if a == next || a > uint64(len(buf)) {
		return next
	}
	for _, c := range buf[next:a] {
		if c != 0 {
			return next
		}
	}
	return a
}

func parseAt(buf []byte, base int64, maxInfl int64) (bins []*Binary, n int64, err error) {
	p := parser{buf: buf, base: base, budget: stringBudget(len(buf))}
	if len(buf) >= 8 && bytes.Equal(buf[:4], format.OffloadBinaryMagic) {
		v := le.Uint32(buf[4:])
		if (v == 2 || v == 3) && len(buf) >= headerSizeV3 {
			return p.parseMulti(v, maxInfl)
		}
	}
	p.v1 = true // the checks below are LLVM 22's own
	if len(buf) < minSizeV1 {
		return nil, 0, p.failf(0, format.ErrTruncated, classParseFailed,
			"buffer of %d bytes is shorter than the 72-byte header and entry", len(buf))
	}
	if !bytes.Equal(buf[:4], format.OffloadBinaryMagic) {
		return nil, 0, p.failf(0, format.ErrMagic, classParseFailed, "bad magic % x", buf[:4])
	}
	if v := le.Uint32(buf[4:]); v != 1 {
		return nil, 0, p.failf(4, format.ErrVersion, classParseFailed, "unsupported version %d", v)
	}
	return p.parseV1()
}

// stringBudget bounds the bytes copied into (and scanned for) strings, so a
// table of many entries pointing at one long string cannot make the reader
// allocate or scan quadratically.
func stringBudget(n int) int64 { return 16*int64(n) + 1<<20 }

type parser struct {
	buf    []byte
	base   int64 // absolute offset of buf[0]
	budget int64
	memo   map[uint64]string
	v1     bool
}

func (p *parser) failf(off uint64, sentinel error, class llvmClass, f string, args ...any) error {
	if !p.v1 {
		// LLVM 22 rejects every v2/v3 binary at its version check.
		class = classParseFailed
	}
	fe := format.Errorf(p.base+int64(off), sentinel, f, args...).(*format.FormatError)
	fe.Err = &classErr{sentinel, class}
	return fe
}

func (p *parser) u16(off uint64) uint16 { return le.Uint16(p.buf[off:]) }
func (p *parser) u32(off uint64) uint32 { return le.Uint32(p.buf[off:]) }
func (p *parser) u64(off uint64) uint64 { return le.Uint64(p.buf[off:]) }

func (p *parser) parseV1() ([]*Binary, int64, error) {
	p.v1 = true
	limit := uint64(len(p.buf))
	size := p.u64(8)
	entOff := p.u64(16)
	entSize := p.u64(24)
	if size > limit {
		return nil, 0, p.failf(8, format.ErrTruncated, classEOF,
			"size 0x%x exceeds the 0x%x bytes available", size, limit)
	}
	if size < entrySize {
		return nil, 0, p.failf(8, format.ErrCorrupt, classEOF, "size 0x%x is too small", size)
	}
	if entOff > size-entrySize {
		return nil, 0, p.failf(16, format.ErrTruncated, classEOF,
			"entry offset 0x%x leaves no room for the entry within size 0x%x", entOff, size)
	}
	if entSize > size-headerSizeV1 {
		return nil, 0, p.failf(24, format.ErrTruncated, classEOF,
			"entry size 0x%x exceeds size 0x%x", entSize, size)
	}
	// LLVM 22's extraction parses take_front(Size) of the section, so every
	// offset is bounded by Size (checked: an ImageOffset past Size but inside
	// the section fails with unexpected_eof).
	p.budget = stringBudget(int(size))
	b, err := p.entry(entOff, size, stringEntrySizeV1)
	if err != nil {
		return nil, 0, err
	}
	b.Version = 1
	b.Size = size
	b.Offset = p.base
	return []*Binary{b}, int64(size), nil
}

// entry decodes the 40-byte entry at off; limit bounds every offset.
func (p *parser) entry(off, limit, strEntSize uint64) (*Binary, error) {
	b := &Binary{
		ImageKind:   format.ImageKind(p.u16(off)),
		OffloadKind: format.OffloadKind(p.u16(off + 2)),
		Flags:       p.u32(off + 4),
	}
	strOff := p.u64(off + 8)
	numStr := p.u64(off + 16)
	imgOff := p.u64(off + 24)
	imgSize := p.u64(off + 32)
	// LLVM's checks first (ImageOffset, then StringOffset), then ours.
	if imgOff > limit {
		return nil, p.failf(off+24, format.ErrTruncated, classEOF,
			"image offset 0x%x is past the end (0x%x)", imgOff, limit)
	}
	if strOff > limit {
		return nil, p.failf(off+8, format.ErrTruncated, classEOF,
			"string offset 0x%x is past the end (0x%x)", strOff, limit)
	}
	if numStr > (limit-strOff)/strEntSize {
		return nil, p.failf(off+16, format.ErrTruncated, classEOF,
			"%d string entries at 0x%x run past the end (0x%x)", numStr, strOff, limit)
	}
	if imgSize > limit-imgOff {
		return nil, p.failf(off+32, format.ErrTruncated, classEOF,
			"image of 0x%x bytes at 0x%x runs past the end (0x%x)", imgSize, imgOff, limit)
	}
	b.ImageOffset = imgOff
	b.Image = p.buf[imgOff : imgOff+imgSize : imgOff+imgSize]
	if numStr > 0 {
		b.Strings = make([]KV, 0, numStr)
	}
	for i := uint64(0); i < numStr; i++ {
		se := strOff + i*strEntSize
		key, err := p.cstring(p.u64(se), se, limit)
		if err != nil {
			return nil, err
		}
		var val string
		if strEntSize == stringEntrySizeV1 {
			val, err = p.cstring(p.u64(se+8), se+8, limit)
		} else {
			val, err = p.sized(p.u64(se+8), p.u64(se+16), se+8, limit)
		}
		if err != nil {
			return nil, err
		}
		b.Strings = append(b.Strings, KV{key, val})
	}
	return b, nil
}

func (p *parser) spend(n uint64, at uint64) error {
	if n > uint64(p.budget) {
		return p.failf(at, format.ErrLimit, classEOF, "string data exceeds the reader's limit")
	}
	p.budget -= int64(n)
	return nil
}

// cstring reads the NUL-terminated string at off (< limit); at is the
// offset of the field that points to it, used in errors.
func (p *parser) cstring(off, at, limit uint64) (string, error) {
	if s, ok := p.memo[off]; ok {
		return s, nil
	}
	if off >= limit {
		return "", p.failf(at, format.ErrTruncated, classEOF,
			"string offset 0x%x is past the end (0x%x)", off, limit)
	}
	i := bytes.IndexByte(p.buf[off:limit], 0)
	if i < 0 {
		return "", p.failf(at, format.ErrTruncated, classEOF,
			"string at 0x%x is not NUL-terminated", off)
	}
	if err := p.spend(uint64(i)+1, at); err != nil {
		return "", err
	}
	s := string(p.buf[off : off+uint64(i)])
	if p.memo == nil {
		p.memo = make(map[uint64]string)
	}
	p.memo[off] = s
	return s, nil
}

// sized reads the v2/v3 value of n bytes at off.
func (p *parser) sized(off, n, at, limit uint64) (string, error) {
	if off > limit || n > limit-off {
		return "", p.failf(at, format.ErrTruncated, classParseFailed,
			"value of 0x%x bytes at 0x%x runs past the end (0x%x)", n, off, limit)
	}
	if err := p.spend(n, at); err != nil {
		return "", err
	}
	return string(p.buf[off : off+n]), nil
}

// parseMulti reads a version 2 or 3 binary (newer LLVM main). LLVM 22
// rejects these, so every error here is of class parse_failed.
func (p *parser) parseMulti(version uint32, maxInfl int64) ([]*Binary, int64, error) {
	limit := uint64(len(p.buf))
	size := p.u64(8)
	if size > limit || size < headerSizeV3 {
		return nil, 0, p.failf(8, format.ErrTruncated, classParseFailed,
			"size 0x%x is outside [0x28, 0x%x]", size, limit)
	}
	body := p.buf[:size]
	onDiskSize := size
	if version == 3 {
		if infl := p.u64(32); infl != 0 {
			var err error
			body, err = p.inflate(size, infl, maxInfl)
			if err != nil {
				return nil, 0, err
			}
		}
	}
	q := parser{buf: body, base: p.base, budget: stringBudget(len(body))}
	bins, err := q.multi(version)
	if err != nil {
		return nil, 0, err
	}
	for _, b := range bins {
		b.Size = onDiskSize
		if version == 3 {
			b.InflatedSize = p.u64(32)
		}
		b.Offset = p.base
	}
	return bins, int64(onDiskSize), nil
}

func (p *parser) multi(version uint32) ([]*Binary, error) {
	size := uint64(len(p.buf))
	if size < entrySize {
		return nil, p.failf(8, format.ErrTruncated, classParseFailed, "size 0x%x is too small", size)
	}
	entOff := p.u64(16)
	count := p.u64(24)
	if count > size/entrySize {
		return nil, p.failf(24, format.ErrTruncated, classParseFailed,
			"%d entries do not fit in 0x%x bytes", count, size)
	}
	entsSize := count * entrySize
	if entOff > size-entsSize || entsSize > size-headerSizeV1 {
		return nil, p.failf(16, format.ErrTruncated, classParseFailed,
			"%d entries at 0x%x run past size 0x%x", count, entOff, size)
	}
	bins := make([]*Binary, 0, count)
	for i := uint64(0); i < count; i++ {
		b, err := p.entry(entOff+i*entrySize, size, stringEntrySizeV2)
		if err != nil {
			return nil, err
		}
		b.Version = version
		bins = append(bins, b)
	}
	return bins, nil
}

// Bounds on the compression ratio of a v3 body: code and data sections of
// device images compress 3-20:1, zero-filled ones far better, so anything
// beyond 256:1 on top of a 64 MiB allowance is treated as hostile.
const (
	maxRatio      = 256
	maxRatioSlack = 64 << 20
)

// zstdMagic is the zstd frame magic LLVM's identify_magic recognises.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// inflate decompresses a v3 body and returns the equivalent uncompressed
// binary: the on-disk header (with Size = InflatedSize and InflatedSize = 0)
// followed by the inflated bytes.
func (p *parser) inflate(size, infl uint64, maxInfl int64) ([]byte, error) {
	entOff := p.u64(16)
	if entOff != headerSizeV3 || entOff > size {
		return nil, p.failf(16, format.ErrCorrupt, classParseFailed,
			"entries offset 0x%x of a compressed binary is not 0x28 (size 0x%x)", entOff, size)
	}
	if infl < entOff {
		return nil, p.failf(32, format.ErrCorrupt, classParseFailed,
			"inflated size 0x%x is smaller than the entries offset 0x%x", infl, entOff)
	}
	if infl > uint64(maxInfl) {
		return nil, p.failf(32, format.ErrLimit, classParseFailed,
			"inflated size 0x%x exceeds the limit 0x%x", infl, maxInfl)
	}
	comp := p.buf[entOff:size]
	want := infl - entOff
	if want > maxRatioSlack+maxRatio*uint64(len(comp)) {
		// A decompression bomb: no real device image compresses this well.
		return nil, p.failf(32, format.ErrLimit, classParseFailed,
			"inflated size 0x%x is implausible for 0x%x compressed bytes (more than %d:1 plus %d MiB)",
			infl, len(comp), maxRatio, maxRatioSlack>>20)
	}
	// Size the buffer from what the compressed bytes can plausibly give and
	// let it grow, rather than trusting the header's claim.
	out := make([]byte, entOff, entOff+min(want, 4*uint64(len(comp))+1<<20))
	copy(out, p.buf[:entOff])
	le.PutUint64(out[8:], infl)
	le.PutUint64(out[32:], 0)
	var err error
	if bytes.HasPrefix(comp, zstdMagic) {
		out, err = inflateZstd(out, comp, want)
	} else {
		out, err = inflateZlib(out, comp, want)
	}
	if err != nil {
		return nil, p.failf(entOff, format.ErrCorrupt, classParseFailed, "decompressing: %v", err)
	}
	if uint64(len(out)) != infl {
		return nil, p.failf(32, format.ErrCorrupt, classParseFailed,
			"inflated body is 0x%x bytes, header says 0x%x", uint64(len(out))-entOff, want)
	}
	return out, nil
}

func inflateZstd(dst, comp []byte, want uint64) ([]byte, error) {
	// The decoder caps its window at the memory limit, and encoders may
	// declare windows larger than a small body, so keep an 8 MiB floor; the
	// exact size is checked by the caller.
	limit := max(uint64(len(dst))+want+1, 8<<20)
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderLowmem(true))
	if err != nil {
		return dst, err
	}
	defer dec.Close()
	return dec.DecodeAll(comp, dst)
}

func inflateZlib(dst, comp []byte, want uint64) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(comp))
	if err != nil {
		return dst, err
	}
	defer zr.Close()
	buf := bytes.NewBuffer(dst)
	_, err = io.Copy(buf, io.LimitReader(zr, int64(want)+1))
	return buf.Bytes(), err
}

// CheckHeader applies only LLVM 22.1.8's own OffloadBinary::create checks
// (§6.4) to the binary at buf[0], bounding ImageOffset and StringOffset by
// len(buf) instead of Size. That is the whole-file parse llvm-objdump
// --offloading makes of a raw OffloadBinary file before it walks it: when
// CheckHeader fails, LLVM prints LLVMError(err) with no "while extracting
// offloading files: " prefix; when it passes and ParseAll then fails, LLVM
// prints the prefix. It makes none of this package's stricter checks, and
// it rejects versions 2 and 3 as LLVM 22 does.
func CheckHeader(buf []byte) error {
	p := parser{buf: buf, v1: true}
	if len(buf) < minSizeV1 {
		return p.failf(0, format.ErrTruncated, classParseFailed,
			"buffer of %d bytes is shorter than the 72-byte header and entry", len(buf))
	}
	if !bytes.Equal(buf[:4], format.OffloadBinaryMagic) {
		return p.failf(0, format.ErrMagic, classParseFailed, "bad magic % x", buf[:4])
	}
	if v := p.u32(4); v != 1 {
		return p.failf(4, format.ErrVersion, classParseFailed, "unsupported version %d", v)
	}
	limit := uint64(len(buf))
	size, entOff, entSize := p.u64(8), p.u64(16), p.u64(24)
	switch {
	case size > limit:
		return p.failf(8, format.ErrTruncated, classEOF, "size 0x%x exceeds the 0x%x bytes available", size, limit)
	case size < entrySize:
		return p.failf(8, format.ErrCorrupt, classEOF, "size 0x%x is too small", size)
	case entOff > size-entrySize:
		return p.failf(16, format.ErrTruncated, classEOF, "entry offset 0x%x leaves no room for the entry", entOff)
	case entSize > size-headerSizeV1:
		return p.failf(24, format.ErrTruncated, classEOF, "entry size 0x%x exceeds size 0x%x", entSize, size)
	case p.u64(entOff+24) > limit:
		return p.failf(entOff+24, format.ErrTruncated, classEOF, "image offset is past the end")
	case p.u64(entOff+8) > limit:
		return p.failf(entOff+8, format.ErrTruncated, classEOF, "string offset is past the end")
	}
	return nil
}
