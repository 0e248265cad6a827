// Package binio provides a bounds-checked little/big-endian cursor over a
// byte slice and capped reads from io.ReaderAt. Every field decoded through
// it is checked against the buffer, so parsers built on it never index out
// of range, and every error carries the offset at which decoding failed.
package binio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// ErrShort is returned (wrapped in *Error) when a read runs past the buffer.
var ErrShort = errors.New("unexpected end of data")

// Error records where in the input decoding failed.
type Error struct {
	Off int64  // absolute offset of the failing field
	Msg string // what was being read
	Err error  // sentinel
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%v at offset 0x%x", e.Err, e.Off)
	}
	return fmt.Sprintf("%s: %v at offset 0x%x", e.Msg, e.Err, e.Off)
}

func (e *Error) Unwrap() error { return e.Err }

// Cursor is a consuming reader over a byte slice. Base is the absolute offset
// of Buf[0] in the enclosing input, used only for error messages.
// A Cursor has a sticky error: after the first failure every read returns
// zero values and Err reports the first failure.
type Cursor struct {
	Buf   []byte
	Pos   int
	Base  int64
	Order binary.ByteOrder
	err   error
}

// NewCursor returns a little-endian cursor over b.
func NewCursor(b []byte, base int64) *Cursor {
	return &Cursor{Buf: b, Base: base, Order: binary.LittleEndian}
}

// Err returns the first error encountered.
func (c *Cursor) Err() error { return c.err }

// Off returns the absolute offset of the next byte.
func (c *Cursor) Off() int64 { return c.Base + int64(c.Pos) }

// Remaining returns how many bytes are left.
func (c *Cursor) Remaining() int { return len(c.Buf) - c.Pos }

func (c *Cursor) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.Buf)-c.Pos {
		c.err = &Error{Off: c.Off(), Msg: what, Err: ErrShort}
		return nil
	}
	b := c.Buf[c.Pos : c.Pos+n : c.Pos+n]
	c.Pos += n
	return b
}

// Bytes consumes n bytes (no copy).
func (c *Cursor) Bytes(n int, what string) []byte { return c.take(n, what) }

// Skip consumes n bytes.
func (c *Cursor) Skip(n int, what string) { c.take(n, what) }

// U8 consumes one byte.
func (c *Cursor) U8(what string) uint8 {
	b := c.take(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

// U16 consumes a 16-bit integer in c.Order.
func (c *Cursor) U16(what string) uint16 {
	b := c.take(2, what)
	if b == nil {
		return 0
	}
	return c.Order.Uint16(b)
}

// U32 consumes a 32-bit integer in c.Order.
func (c *Cursor) U32(what string) uint32 {
	b := c.take(4, what)
	if b == nil {
		return 0
	}
	return c.Order.Uint32(b)
}

// U64 consumes a 64-bit integer in c.Order.
func (c *Cursor) U64(what string) uint64 {
	b := c.take(8, what)
	if b == nil {
		return 0
	}
	return c.Order.Uint64(b)
}

// Fail records err at the current offset unless an error is already set.
func (c *Cursor) Fail(msg string, sentinel error) {
	if c.err == nil {
		c.err = &Error{Off: c.Off(), Msg: msg, Err: sentinel}
	}
}

// InRange reports whether [off, off+size) lies inside [0, limit) without
// overflow.
func InRange(off, size, limit uint64) bool {
	return off <= limit && size <= limit-off
}

// CString returns the NUL-terminated string starting at off in b.
// ok is false if off is out of range or no NUL follows.
func CString(b []byte, off uint64) (s string, ok bool) {
	if off >= uint64(len(b)) {
		return "", false
	}
	rest := b[off:]
	for i, ch := range rest {
		if ch == 0 {
			return string(rest[:i]), true
		}
	}
	return "", false
}

// chunk is the largest single allocation ReadAtCapped makes before it has
// seen that the input really holds that many bytes.
const chunk = 10 << 20

// ReadAtCapped reads n bytes at off from r without trusting n: it grows the
// buffer in chunks, so a corrupt size costs at most one chunk before the
// short read is detected (the saferio idea).
func ReadAtCapped(r io.ReaderAt, off, n int64) ([]byte, error) {
	if n < 0 || off < 0 {
		return nil, &Error{Off: off, Msg: "read", Err: ErrShort}
	}
	if n <= chunk {
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, off); err != nil && !(err == io.EOF && n == 0) {
			return nil, &Error{Off: off, Msg: fmt.Sprintf("reading %d bytes", n), Err: ErrShort}
		}
		return buf, nil
	}
	var buf []byte
	for done := int64(0); done < n; {
		m := min(n-done, chunk)
		buf = append(buf, make([]byte, m)...)
		if _, err := r.ReadAt(buf[done:done+m], off+done); err != nil {
			return nil, &Error{Off: off + done, Msg: fmt.Sprintf("reading %d bytes", n), Err: ErrShort}
		}
		done += m
	}
	return buf, nil
}

// Align rounds v up to a multiple of a (a power of two).
func Align(v, a uint64) uint64 { return (v + a - 1) &^ (a - 1) }

// OffsetIn returns where inner starts within outer when inner is a
// sub-slice of outer (the same backing array), e.g. a payload parsed out
// of a memory-mapped file, so callers can copy it file-to-file instead.
func OffsetIn(outer, inner []byte) (int64, bool) {
	if len(inner) == 0 || len(outer) == 0 {
		return 0, false
	}
	o := uintptr(unsafe.Pointer(unsafe.SliceData(outer)))
	i := uintptr(unsafe.Pointer(unsafe.SliceData(inner)))
	if i < o || i-o > uintptr(len(outer)) || uintptr(len(inner)) > uintptr(len(outer))-(i-o) {
		return 0, false
	}
	return int64(i - o), true
}
