package zstdpipe

import "math/bits"

// The three sequence fields. Each has its own code table (baseline plus
// extra bits per code) and its own FSE distribution limits.
type field int

const (
	fieldLL field = iota
	fieldOF
	fieldML
)

var fieldNames = [3]string{"literal lengths", "offsets", "match lengths"}

// Per field: the largest code, the largest accuracy log, and the
// predefined distribution (RFC 8878 §3.1.1.3.2.2) with its accuracy log.
var (
	maxCode     = [3]int{35, 31, 52}
	maxLog      = [3]uint8{9, 8, 9}
	defaultLog  = [3]uint8{6, 5, 6}
	defaultNorm = [3][]int16{
		{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
			2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
			-1, -1, -1, -1},
		{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
			1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1},
		{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
			1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
			-1, -1, -1, -1, -1},
	}
)

// Literal-length codes 16..35 and match-length codes 32..52: baseline and
// number of extra bits (RFC 8878 §3.1.1.3.2.1.1). Lower codes are their
// own value (literal lengths) or value+3 (match lengths), with no extra bits.
var (
	llBase = [...]uint32{16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536}
	llBits = [...]uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlBase = [...]uint32{35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539}
	mlBits = [...]uint8{1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// predefined holds the decoding tables of the predefined distributions.
var predefined = func() (t [3]table) {
	for f := fieldLL; f <= fieldML; f++ {
		t[f].build(f, defaultNorm[f], defaultLog[f])
	}
	return t
}()

// codeValue returns the baseline and extra-bit count of a code.
func codeValue(f field, code int) (base uint32, extra uint8) {
	switch f {
	case fieldLL:
		if code < 16 {
			return uint32(code), 0
		}
		return llBase[code-16], llBits[code-16]
	case fieldML:
		if code < 32 {
			return uint32(code) + 3, 0
		}
		return mlBase[code-32], mlBits[code-32]
	}
	// Offsets: Offset_Value = (1 << code) + code extra bits.
	return 1 << uint(code), uint8(code)
}

// entry is one state of a sequence decoding table, packed in one word so
// that the decoding loop holds it in one register: the code's baseline
// (bits 0–31) and extra bits (32–39) folded in, plus the FSE transition:
// the next state is next (48–63) + the low nb (40–47) bits read from the
// stream.
type entry uint64

func mkEntry(base uint32, extra, nb uint8, next uint16) entry {
	return entry(base) | entry(extra)<<32 | entry(nb)<<40 | entry(next)<<48
}

// table is a decoding table for one field; log is its accuracy log (the
// bits read to initialise the state).
type table struct {
	e   [512]entry // states beyond 1<<log are unused
	log uint8
}

// spreadSymbols places the symbols with a count of one or more over the
// table's states below high (RFC 8878 §4.1.1), the one spread both the
// decoder's and the encoder's tables use. It reports whether the walk
// ended back at state 0, as a valid distribution does.
func spreadSymbols(sym *[512]uint8, norm []int16, size, high int) bool {
	step := size>>1 + size>>3 + 3
	mask := size - 1
	pos := 0
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			sym[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	return pos == 0
}

// build fills t from a normalized distribution whose counts sum to
// 1<<log (-1 meaning "less than one"). The caller has validated norm.
func (t *table) build(f field, norm []int16, log uint8) bool {
	size := 1 << log
	t.log = log
	var next [64]uint16
	var sym [512]uint8
	high := size - 1
	for s, c := range norm {
		if c == -1 {
			sym[high] = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = uint16(c)
		}
	}
	if !spreadSymbols(&sym, norm, size, high) {
		return false
	}
	for u := 0; u < size; u++ {
		s := sym[u]
		n := next[s]
		next[s]++
		nb := log - uint8(bits.Len16(n)-1)
		base, extra := codeValue(f, int(s))
		t.e[u] = mkEntry(base, extra, nb, uint16((int(n)<<nb)-size))
	}
	return true
}

// buildRLE makes the one-state table of RLE mode.
func (t *table) buildRLE(f field, code int) {
	t.log = 0
	base, extra := codeValue(f, code)
	t.e[0] = mkEntry(base, extra, 0, 0)
}

// readNCount reads an FSE table description (RFC 8878 §4.1.1) for field
// f from the front of in into norm, returning the accuracy log and the
// bytes consumed.
func readNCount(f field, in []byte, norm []int16) (n []int16, log uint8, used int, ok bool) {
	// Little-endian bit reader over in; reads past the end give zeros and
	// are caught by the final length check.
	var bitPos int
	peek := func(k int) uint32 {
		var v uint64
		byteAt := bitPos >> 3
		for i := 0; i < 5; i++ {
			if byteAt+i < len(in) {
				v |= uint64(in[byteAt+i]) << (8 * i)
			}
		}
		return uint32(v>>(bitPos&7)) & (1<<k - 1)
	}
	log = uint8(peek(4)) + 5
	bitPos = 4
	if log > maxLog[f] {
		return nil, 0, 0, false
	}
	norm = norm[:0]
	threshold := 1 << log
	remaining := threshold + 1
	nbBits := int(log) + 1
	prev0 := false
	for remaining > 1 {
		if prev0 {
			for {
				r := int(peek(2))
				bitPos += 2
				for i := 0; i < r; i++ {
					norm = append(norm, 0)
				}
				if len(norm) > maxCode[f]+1 {
					return nil, 0, 0, false
				}
				if r != 3 {
					break
				}
			}
		}
		if len(norm) > maxCode[f] {
			return nil, 0, 0, false
		}
		max := 2*threshold - 1 - remaining
		var count int
		if low := int(peek(nbBits - 1)); low < max {
			count = low
			bitPos += nbBits - 1
		} else {
			count = int(peek(nbBits))
			if count >= threshold {
				count -= max
			}
			bitPos += nbBits
		}
		count--
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		if remaining < 1 {
			return nil, 0, 0, false
		}
		norm = append(norm, int16(count))
		prev0 = count == 0
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		if bitPos > 8*len(in) {
			return nil, 0, 0, false
		}
	}
	if remaining != 1 || bitPos > 8*len(in) {
		return nil, 0, 0, false
	}
	return norm, log, (bitPos + 7) >> 3, true
}
