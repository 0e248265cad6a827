package fatbin

import (
	"github.com/offload-kit/offload-kit/format"
)

// decodeLZ4 decodes an LZ4 block (the raw block format, no frame) into
// exactly size bytes. fatbinary --compress-mode=speed writes this format
// (flag 0x2000). Every length and back-reference is checked, and the output
// never grows past size, so a hostile stream costs at most size bytes, and
// size itself is checked against what the input could expand to.
//
// base is the absolute offset of src, for error messages.
func decodeLZ4(src []byte, size int64, base int64) ([]byte, error) {
	// Each input byte expands to at most 255 output bytes (a run-length
	// extension byte of 0xff), plus the small constant of a final match.
	if size < 0 || size > int64(len(src))*255+64 {
		return nil, format.Errorf(base, format.ErrLimit,
			"fatbin: lz4: uncompressed size %d is implausible for %d compressed bytes", size, len(src))
	}
	out := make([]byte, 0, size)
	ip := 0
	fail := func(msg string) ([]byte, error) {
		return nil, format.Errorf(base+int64(ip), format.ErrCorrupt, "fatbin: lz4: %s", msg)
	}
	for ip < len(src) {
		token := src[ip]
		ip++
		// Literals.
		n := int(token >> 4)
		if n == 15 {
			var msg string
			n, ip, msg = lz4Length(src, ip, n, int64(len(src)),
				"literal length runs past the end", "literal length exceeds the input")
			if msg != "" {
				return fail(msg)
			}
		}
		if n > len(src)-ip {
			return fail("literals run past the end")
		}
		if int64(n) > size-int64(len(out)) {
			return fail("output exceeds the uncompressed size")
		}
		out = append(out, src[ip:ip+n]...)
		ip += n
		if ip == len(src) {
			break // the last sequence has literals only
		}
		// Match.
		if len(src)-ip < 2 {
			return fail("match offset runs past the end")
		}
		off := int(src[ip]) | int(src[ip+1])<<8
		ip += 2
		if off == 0 || off > len(out) {
			return fail("match offset outside the output so far")
		}
		m := int(token & 15)
		if m == 15 {
			var msg string
			m, ip, msg = lz4Length(src, ip, m, size,
				"match length runs past the end", "match length exceeds the uncompressed size")
			if msg != "" {
				return fail(msg)
			}
		}
		m += 4
		if int64(m) > size-int64(len(out)) {
			return fail("output exceeds the uncompressed size")
		}
		from := len(out) - off
		for i := 0; i < m; i++ { // may overlap: copy byte by byte
			out = append(out, out[from+i])
		}
	}
	if int64(len(out)) != size {
		return nil, format.Errorf(base+int64(ip), format.ErrCorrupt,
			"fatbin: lz4: decoded %d bytes, header says %d", len(out), size)
	}
	return out, nil
}

// lz4Length finishes a length whose 4-bit token field is 15: the bytes at
// src[ip:] each add their value, up to and including the first that is not
// 0xff. It returns the length and the position after it, or the message
// for a failure: past when src ends first, over when the length passes
// limit.
func lz4Length(src []byte, ip, n int, limit int64, past, over string) (int, int, string) {
	for {
		if ip >= len(src) {
			return n, ip, past
		}
		b := src[ip]
		ip++
		n += int(b)
		if int64(n) > limit {
			return n, ip, over
		}
		if b != 0xff {
			return n, ip, ""
		}
	}
}
