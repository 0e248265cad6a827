package bundle

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"io"
	"runtime"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/enumname"
)

// CCOBMagic starts a compressed bundle.
var CCOBMagic = format.CCOBMagic

// ErrChecksum reports that a decompressed bundle does not have the size or
// the MD5 hash its CCOB header records.
var ErrChecksum = errors.New("compressed bundle size or hash mismatch")

// Method is the CCOB compression method (llvm::compression::Format).
type Method uint16

const (
	Zlib Method = 0
	Zstd Method = 1
)

var methodNames = []string{Zlib: "zlib", Zstd: "zstd"}

func (m Method) String() string { return enumname.Name(methodNames, m, "Method") }

// Name returns the method's name ("zlib", "zstd") and whether it has one.
func (m Method) Name() (string, bool) { return enumname.Lookup(methodNames, m) }

// DefaultVersion is the CCOB version clang-offload-bundler 22 writes.
const DefaultVersion = 3

// Header is a decoded CCOB header.
type Header struct {
	Version          uint16
	Method           Method
	TotalFileSize    uint64 // v2/v3: header + payload; 0 for v1 (payload runs to the end)
	UncompressedSize uint64
	Hash             uint64 // low 8 bytes of MD5(uncompressed), little-endian
}

// HeaderSize returns the header length of a CCOB version (0 if unknown).
func HeaderSize(version uint16) int {
	switch version {
	case 1:
		return 20
	case 2:
		return 24
	case 3:
		return 32
	}
	return 0
}

// Size is the header length.
func (h Header) Size() int { return HeaderSize(h.Version) }

// ParseHeader decodes the CCOB header at the start of buf.
func ParseHeader(buf []byte) (Header, error) {
	var h Header
	if len(buf) < 8 {
		return h, format.Errorf(0, format.ErrTruncated, "compressed bundle header needs 8 bytes, have %d", len(buf))
	}
	if !bytes.HasPrefix(buf, CCOBMagic) {
		return h, format.Errorf(0, format.ErrMagic, "no CCOB magic")
	}
	le := binary.LittleEndian
	h.Version = le.Uint16(buf[4:])
	h.Method = Method(le.Uint16(buf[6:]))
	n := HeaderSize(h.Version)
	if n == 0 {
		return Header{}, format.Errorf(4, format.ErrVersion, "Unknown compressed bundle version %d", h.Version)
	}
	if len(buf) < n {
		return Header{}, format.Errorf(int64(len(buf)), format.ErrTruncated, "Compressed bundle header size too small: version %d needs %d bytes, have %d", h.Version, n, len(buf))
	}
	switch h.Version {
	case 1:
		h.UncompressedSize = uint64(le.Uint32(buf[8:]))
		h.Hash = le.Uint64(buf[12:])
	case 2:
		h.TotalFileSize = uint64(le.Uint32(buf[8:]))
		h.UncompressedSize = uint64(le.Uint32(buf[12:]))
		h.Hash = le.Uint64(buf[16:])
	case 3:
		h.TotalFileSize = le.Uint64(buf[8:])
		h.UncompressedSize = le.Uint64(buf[16:])
		h.Hash = le.Uint64(buf[24:])
	}
	if h.Method != Zlib && h.Method != Zstd {
		return Header{}, format.Errorf(6, format.ErrUnsupported, "Unknown compressing method %d", uint16(h.Method))
	}
	if h.Version >= 2 {
		if h.TotalFileSize < uint64(n) {
			return Header{}, format.Errorf(8, format.ErrCorrupt, "total file size %d is smaller than the %d-byte header", h.TotalFileSize, n)
		}
		if h.TotalFileSize > uint64(len(buf)) {
			return Header{}, format.Errorf(8, format.ErrTruncated, "total file size %d exceeds the %d bytes available", h.TotalFileSize, len(buf))
		}
	}
	return h, nil
}

// Len is how many bytes of buf (which starts with the blob h was parsed
// from) the blob occupies: TotalFileSize for v2/v3 (ParseHeader has
// checked it fits), all of buf for v1.
func (h Header) Len(buf []byte) int {
	if h.Version >= 2 {
		return int(h.TotalFileSize)
	}
	return len(buf)
}

// payload is the compressed data of the blob at the start of buf.
func (h Header) payload(buf []byte) []byte { return buf[h.Size():h.Len(buf)] }

// AppendHeader appends the encoded header.
func (h Header) AppendHeader(dst []byte) []byte {
	le := binary.LittleEndian
	dst = append(dst, CCOBMagic...)
	dst = le.AppendUint16(dst, h.Version)
	dst = le.AppendUint16(dst, uint16(h.Method))
	switch h.Version {
	case 1:
		dst = le.AppendUint32(dst, uint32(h.UncompressedSize))
	case 2:
		dst = le.AppendUint32(dst, uint32(h.TotalFileSize))
		dst = le.AppendUint32(dst, uint32(h.UncompressedSize))
	default:
		dst = le.AppendUint64(dst, h.TotalFileSize)
		dst = le.AppendUint64(dst, h.UncompressedSize)
	}
	return le.AppendUint64(dst, h.Hash)
}

// truncatedMD5 is the hash CCOB stores: MD5's first 8 bytes as a
// little-endian integer.
func truncatedMD5(data []byte) uint64 {
	s := md5.Sum(data)
	return binary.LittleEndian.Uint64(s[:8])
}

// Limits bounds decompression of hostile input.
type Limits struct {
	// MaxSize caps UncompressedSize (default 64 GiB).
	MaxSize uint64
	// SkipVerify disables the size and hash check (the reference only
	// reports a hash mismatch in verbose mode).
	SkipVerify bool
	// Hash says what to do with the MD5 of the output.
	Hash HashCheck
}

// HashCheck is what a decoder does with the truncated MD5 a CCOB header
// records. clang-offload-bundler computes it only with -verbose, and then
// only prints whether it matches.
type HashCheck uint8

const (
	HashVerify  HashCheck = iota // compute it; a mismatch is an ErrChecksum error
	HashCompute                  // compute it (Reader.Sum, Decompressed.Hash), never fail on it
	HashSkip                     // neither: Sum is 0
)

const defaultMaxSize = 64 << 30

// maxRatio bounds how much one compressed byte can expand: a zstd RLE
// block is 4 bytes for 128 KiB; deflate tops out near 1032:1.
func maxRatio(m Method) uint64 {
	if m == Zlib {
		return 1100
	}
	return 33000
}

// Decompressed is the result of Decompress.
type Decompressed struct {
	Header     Header
	Data       []byte // the uncompressed bundle
	Compressed int64  // payload bytes consumed
	Hash       uint64 // recomputed truncated MD5
}

// Decompress decodes the CCOB blob at the start of buf. For v2/v3 only
// TotalFileSize bytes are used; for v1 the payload runs to the end of
// buf. Size and hash are verified unless lim.SkipVerify; a mismatch wraps
// ErrChecksum. Allocation grows with the real output, never past
// UncompressedSize, which is rejected with ErrLimit when it exceeds
// lim.MaxSize or an impossible compression ratio.
func Decompress(buf []byte, lim Limits) (*Decompressed, error) {
	if h, err := ParseHeader(buf); err == nil && checkLimits(h, int64(len(h.payload(buf))), lim) == nil {
		if d, ok, err := decompressPiped(h, h.payload(buf), lim); ok {
			return d, err
		}
	}
	r, err := NewReader(buf, lim)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	limit := r.Header.UncompressedSize
	out := make([]byte, 0, min(limit, 64<<20))
	for {
		if len(out) == cap(out) {
			// Grow, but never beyond the declared size (+1 so that excess
			// output is detected by the verifying reader).
			grow := min(uint64(max(cap(out), 4096)), limit+1-uint64(len(out)))
			out = append(out, make([]byte, grow)...)[:len(out)]
		}
		n, err := r.Read(out[len(out):cap(out)])
		out = out[:len(out)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return &Decompressed{Header: r.Header, Data: out, Compressed: int64(len(r.Header.payload(buf))), Hash: r.Sum()}, nil
}

// CompressOptions controls Compress.
type CompressOptions struct {
	Version uint16 // 1, 2 or 3; 0 means 3
	// Zlib selects zlib (method 0) instead of the default zstd.
	Zlib bool
	// Level is the zstd (1..22, <=0 = 3) or zlib (0..9, <0 = 6) level.
	Level int
	// Concurrency is the number of goroutines compressing independent
	// zstd frames for large inputs (0 = GOMAXPROCS).
	Concurrency int
	// ChunkSize is the uncompressed size of each zstd frame when an input
	// is split for parallel compression (0 = 16 MiB).
	ChunkSize int
	// External, when set, compresses at levels of ExternalFrom and up,
	// where libzstd's optimal parser is far ahead of anything klauspost
	// has: it reads size bytes from src and writes zstd frames to dst.
	// (The bundler runs the zstd program.)
	External func(dst io.Writer, src io.Reader, size int64, level int) error
	// Progress, when set, is called with the number of input bytes each
	// step has compressed (for a progress report).
	Progress func(n int64)
}

// chunkSize is ChunkSize with its default.
func (o CompressOptions) chunkSize() int {
	if o.ChunkSize <= 0 {
		return 16 << 20
	}
	return o.ChunkSize
}

// workers is Concurrency with its default.
func (o CompressOptions) workers() int {
	if o.Concurrency <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Concurrency
}

func (o CompressOptions) progress(n int) {
	if o.Progress != nil && n > 0 {
		o.Progress(int64(n))
	}
}

// ExternalFrom is the first level CompressOptions.External serves.
const ExternalFrom = 9

// zstdLevel maps a libzstd level to a klauspost encoder level for an
// input of size bytes. klauspost has four speeds; each libzstd level gets
// the fastest one whose output stays within 5% of libzstd's at that level,
// measured on code against clang-offload-bundler 22.1.8 (which enables
// long-distance matching): up to 3 → better (default for independent
// frames of inputs of 32 MiB and more, where compression time dominates:
// 64 MiB of libLLVM compresses to 1.043x the reference's size in 0.58x its
// time, while on small inputs "default" is 6% larger), 4 → better, 5 and
// up → best. Measured on 8 MiB of libLLVM (ours/theirs): level 5 1.021
// (better would be 1.052), 6 1.049, 7 1.051, 8 1.03. From 9 libzstd's
// lazy and optimal parsers pull away on near-duplicate code (1.06–1.2 at
// 9–16 on librocrand's objects, 1.23–1.33 at 17–22), which no klauspost
// level reaches (see CompressOptions.External, which the bundler fills
// with the zstd program). 0 is libzstd's default (3); negative levels are
// the fastest setting. The long-distance frame (long.go) always uses the
// small-input mapping.
func zstdLevel(l int, size int64) zstd.EncoderLevel {
	switch {
	case l < 0:
		return zstd.SpeedFastest
	case l == 1:
		return zstd.SpeedDefault
	case l <= 3 && size >= 32<<20:
		return zstd.SpeedDefault
	case l <= 4:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}

func (o CompressOptions) version() uint16 {
	if o.Version == 0 {
		return DefaultVersion
	}
	return o.Version
}

// Compress compresses src into a CCOB blob appended to dst.
func Compress(dst, src []byte, o CompressOptions) ([]byte, Header, error) {
	w := &bufWriterAt{buf: dst, base: len(dst)}
	h, err := CompressTo(w, bytes.NewReader(src), int64(len(src)), o)
	if err != nil {
		return nil, Header{}, err
	}
	return w.buf, h, nil
}

// bufWriterAt is an in-memory io.WriterAt whose offset 0 is buf[base].
type bufWriterAt struct {
	buf  []byte
	base int
}

func (b *bufWriterAt) WriteAt(p []byte, off int64) (int, error) {
	end := b.base + int(off) + len(p)
	if end > len(b.buf) {
		b.buf = append(b.buf, make([]byte, end-len(b.buf))...)
	}
	copy(b.buf[b.base+int(off):], p)
	return len(p), nil
}

func newEncoder(level int, size int64) (*zstd.Encoder, error) {
	return zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstdLevel(level, size)),
		zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(8<<20),
		zstd.WithZeroFrames(true))
}
