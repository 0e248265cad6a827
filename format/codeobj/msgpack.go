package codeobj

import (
	"encoding/binary"
	"math"

	"github.com/offload-kit/offload-kit/format"
)

// mpReader is a bounded MessagePack reader over one buffer: the subset
// the AMDGPU metadata note uses (nil, bool, ints, floats, str, bin,
// array, map; ext is skipped). Nothing is allocated from a count read
// from the input: containers are walked element by element, so every
// count is bounded by the bytes that remain, and nesting is bounded by
// maxDepth.
type mpReader struct {
	b    []byte
	p    int
	base int64 // file offset of b, for errors
	err  error
}

const mpMaxDepth = 64

// mp kinds returned by next.
const (
	mpNil = iota
	mpBool
	mpInt
	mpUint
	mpFloat
	mpStr
	mpBin
	mpArray
	mpMap
	mpExt
)

// mpItem is one decoded head: scalars carry their value, str/bin their
// bytes (a slice of the input), array/map their element count.
type mpItem struct {
	kind int
	i    int64
	u    uint64
	f    float64
	b    []byte
	n    int
}

func (r *mpReader) fail(msg string, sentinel error) {
	if r.err == nil {
		r.err = format.Errorf(r.base+int64(r.p), sentinel, "msgpack: %s", msg)
	}
}

func (r *mpReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.p {
		r.fail("value runs past the end", format.ErrTruncated)
		return nil
	}
	v := r.b[r.p : r.p+n]
	r.p += n
	return v
}

func (r *mpReader) u8() uint64 {
	if b := r.take(1); b != nil {
		return uint64(b[0])
	}
	return 0
}
func (r *mpReader) u16() uint64 {
	if b := r.take(2); b != nil {
		return uint64(binary.BigEndian.Uint16(b))
	}
	return 0
}
func (r *mpReader) u32() uint64 {
	if b := r.take(4); b != nil {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return 0
}
func (r *mpReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// count checks an array or map length against the bytes left (each
// element takes at least one byte).
func (r *mpReader) count(n uint64, per int) int {
	if r.err == nil && n > uint64(len(r.b)-r.p)/uint64(per) {
		r.fail("container count larger than the data", format.ErrCorrupt)
		return 0
	}
	return int(n)
}

// next decodes one head.
func (r *mpReader) next() mpItem {
	c := r.u8()
	if r.err != nil {
		return mpItem{}
	}
	switch {
	case c <= 0x7f:
		return mpItem{kind: mpUint, u: c, i: int64(c)}
	case c >= 0xe0:
		return mpItem{kind: mpInt, i: int64(int8(c))}
	case c >= 0x80 && c <= 0x8f:
		return mpItem{kind: mpMap, n: r.count(c&0xf, 2)}
	case c >= 0x90 && c <= 0x9f:
		return mpItem{kind: mpArray, n: r.count(c&0xf, 1)}
	case c >= 0xa0 && c <= 0xbf:
		return mpItem{kind: mpStr, b: r.take(int(c & 0x1f))}
	}
	switch c {
	case 0xc0:
		return mpItem{kind: mpNil}
	case 0xc2, 0xc3:
		return mpItem{kind: mpBool, u: c - 0xc2}
	case 0xc4, 0xc5, 0xc6, 0xd9, 0xda, 0xdb:
		var n uint64
		switch c {
		case 0xc4, 0xd9:
			n = r.u8()
		case 0xc5, 0xda:
			n = r.u16()
		default:
			n = r.u32()
		}
		k := mpStr
		if c <= 0xc6 {
			k = mpBin
		}
		if n > uint64(len(r.b)) {
			r.fail("string runs past the end", format.ErrTruncated)
			return mpItem{}
		}
		return mpItem{kind: k, b: r.take(int(n))}
	case 0xc7, 0xc8, 0xc9:
		var n uint64
		switch c {
		case 0xc7:
			n = r.u8()
		case 0xc8:
			n = r.u16()
		default:
			n = r.u32()
		}
		if n > uint64(len(r.b)) {
			r.fail("ext runs past the end", format.ErrTruncated)
			return mpItem{}
		}
		r.take(1 + int(n))
		return mpItem{kind: mpExt}
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		r.take(1 + 1<<(c-0xd4))
		return mpItem{kind: mpExt}
	case 0xca:
		return mpItem{kind: mpFloat, f: float64(math.Float32frombits(uint32(r.u32())))}
	case 0xcb:
		return mpItem{kind: mpFloat, f: math.Float64frombits(r.u64())}
	case 0xcc:
		v := r.u8()
		return mpItem{kind: mpUint, u: v, i: int64(v)}
	case 0xcd:
		v := r.u16()
		return mpItem{kind: mpUint, u: v, i: int64(v)}
	case 0xce:
		v := r.u32()
		return mpItem{kind: mpUint, u: v, i: int64(v)}
	case 0xcf:
		v := r.u64()
		return mpItem{kind: mpUint, u: v, i: int64(min(v, math.MaxInt64))}
	case 0xd0:
		return mpItem{kind: mpInt, i: int64(int8(r.u8()))}
	case 0xd1:
		return mpItem{kind: mpInt, i: int64(int16(r.u16()))}
	case 0xd2:
		return mpItem{kind: mpInt, i: int64(int32(r.u32()))}
	case 0xd3:
		return mpItem{kind: mpInt, i: int64(r.u64())}
	case 0xdc:
		return mpItem{kind: mpArray, n: r.count(r.u16(), 1)}
	case 0xdd:
		return mpItem{kind: mpArray, n: r.count(r.u32(), 1)}
	case 0xde:
		return mpItem{kind: mpMap, n: r.count(r.u16(), 2)}
	case 0xdf:
		return mpItem{kind: mpMap, n: r.count(r.u32(), 2)}
	}
	r.p--
	r.fail("reserved byte 0xc1", format.ErrCorrupt)
	return mpItem{}
}

// skipItem skips the elements of an item already read by next.
func (r *mpReader) skipItem(it mpItem, depth int) {
	if it.kind != mpArray && it.kind != mpMap {
		return
	}
	if depth >= mpMaxDepth {
		r.fail("nesting too deep", format.ErrLimit)
		return
	}
	n := it.n
	if it.kind == mpMap {
		n *= 2
	}
	for i := 0; i < n && r.err == nil; i++ {
		r.skipItem(r.next(), depth+1)
	}
}

// skip skips one whole value.
func (r *mpReader) skip() { r.skipItem(r.next(), 0) }

// intValue reads an integer (negative or unsigned); ok is false for other kinds.
func (it mpItem) intValue() (int64, bool) {
	switch it.kind {
	case mpInt, mpUint:
		return it.i, true
	}
	return 0, false
}
