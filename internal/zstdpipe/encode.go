package zstdpipe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// Seq is one sequence to encode: LL literals, then ML bytes copied from
// Off bytes back (the real distance; Encoder picks repeat codes).
type Seq struct{ LL, ML, Off uint32 }

// MaxBlock is the most output one block may regenerate.
const MaxBlock = maxBlock

// Encoder writes the blocks of one zstd frame from literals and
// sequences chosen by the caller (RFC 8878 §3.1.1.3). Each compressed
// block carries its own Huffman and FSE tables (or uses the predefined
// or RLE modes), so blocks never depend on an earlier block's tables;
// only the repeat offsets run through the frame. The matches themselves
// are the caller's: this is the entropy stage of a compressor.
type Encoder struct {
	rep  [3]uint32
	huff huff0.Scratch
	lits []byte
	ov   []uint32
	code [3][]uint8
	enc  [3]fseEnc
	norm [3][64]int16
	cnt  [3][64]uint32
	bw   bitWriter
	tmp  []byte
}

// NewEncoder returns an Encoder at the start of a frame.
func NewEncoder() *Encoder {
	e := &Encoder{rep: [3]uint32{1, 4, 8}}
	e.huff.Reuse = huff0.ReusePolicyNone
	return e
}

// AppendFrameHeader appends the header of a single-segment frame of size
// bytes without checksum: the window is the whole content, as in a
// one-shot libzstd frame.
func AppendFrameHeader(dst []byte, size uint64) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, frameMagic)
	switch {
	case size < 256:
		return append(dst, 0x20, byte(size))
	case size < 256+1<<16:
		return binary.LittleEndian.AppendUint16(append(dst, 0x60), uint16(size-256))
	case size < 1<<32:
		return binary.LittleEndian.AppendUint32(append(dst, 0xA0), uint32(size))
	}
	return binary.LittleEndian.AppendUint64(append(dst, 0xE0), size)
}

// errBlock reports a block whose literals and sequences do not add up to
// its content.
var errBlock = errors.New("zstdpipe: block literals and sequences do not match its size")

// AppendBlock appends one block that regenerates src (at most MaxBlock
// bytes). lits are the literals of seqs in order followed by the
// trailing literals; len(lits)+ΣML must be len(src), and every offset
// must reach inside the frame's output. When compressing does not pay,
// the block is written raw (or RLE), and the repeat offsets stay as they
// were, since the decoder never sees the sequences.
func (e *Encoder) AppendBlock(dst, src, lits []byte, seqs []Seq, last bool) ([]byte, error) {
	if len(src) > MaxBlock {
		return dst, fmt.Errorf("zstdpipe: block of %d bytes exceeds %d", len(src), MaxBlock)
	}
	n := len(lits)
	for _, s := range seqs {
		n += int(s.ML)
		if s.ML < 3 || s.Off == 0 {
			return dst, fmt.Errorf("zstdpipe: invalid sequence %+v", s)
		}
	}
	if n != len(src) {
		return dst, errBlock
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0)
	rep := e.rep
	dst = e.literals(dst, lits)
	dst = e.sequences(dst, seqs, &rep)
	size := len(dst) - start - 3
	if size >= len(src) || len(src) == 0 {
		dst = dst[:start]
		kind := uint32(0)
		body := src
		if len(src) > 1 && allSame(src) {
			kind, body = 1, src[:1]
		}
		dst = appendBlockHeader(dst, last, kind, len(src))
		return append(dst, body...), nil
	}
	h := blockHeader(last, 2, size)
	dst[start], dst[start+1], dst[start+2] = byte(h), byte(h>>8), byte(h>>16)
	e.rep = rep
	return dst, nil
}

func allSame(b []byte) bool {
	for _, c := range b[1:] {
		if c != b[0] {
			return false
		}
	}
	return true
}

func blockHeader(last bool, kind uint32, size int) uint32 {
	h := kind<<1 | uint32(size)<<3
	if last {
		h |= 1
	}
	return h
}

func appendBlockHeader(dst []byte, last bool, kind uint32, size int) []byte {
	h := blockHeader(last, kind, size)
	return append(dst, byte(h), byte(h>>8), byte(h>>16))
}

// literals appends the literals section: Huffman-coded with a fresh table
// when that is smaller, else RLE or raw.
func (e *Encoder) literals(dst, lits []byte) []byte {
	n := len(lits)
	if n > 16 {
		var out []byte
		var err error
		single := n < 1024
		if single {
			out, _, err = huff0.Compress1X(lits, &e.huff)
		} else {
			out, _, err = huff0.Compress4X(lits, &e.huff)
		}
		switch {
		case err == nil && len(out)+5 < n:
			c := len(out)
			var h uint64
			var hl int
			switch {
			case single:
				h, hl = 2|uint64(n)<<4|uint64(c)<<14, 3
			case n < 1024 && c < 1024:
				h, hl = 2|1<<2|uint64(n)<<4|uint64(c)<<14, 3
			case n < 16384 && c < 16384:
				h, hl = 2|2<<2|uint64(n)<<4|uint64(c)<<18, 4
			default:
				h, hl = 2|3<<2|uint64(n)<<4|uint64(c)<<22, 5
			}
			for i := 0; i < hl; i++ {
				dst = append(dst, byte(h>>(8*i)))
			}
			return append(dst, out...)
		case err == huff0.ErrUseRLE:
			return append(appendLitHeader(dst, 1, n), lits[0])
		}
	} else if n > 1 && allSame(lits) {
		return append(appendLitHeader(dst, 1, n), lits[0])
	}
	return append(appendLitHeader(dst, 0, n), lits...)
}

// appendLitHeader writes a raw (0) or RLE (1) literals header.
func appendLitHeader(dst []byte, kind byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, kind|byte(n)<<3)
	case n < 4096:
		return append(dst, kind|1<<2|byte(n&15)<<4, byte(n>>4))
	}
	return append(dst, kind|3<<2|byte(n&15)<<4, byte(n>>4), byte(n>>12))
}

// offsetValue turns a distance into the offset value the decoder reads,
// using and updating the repeat offsets as RFC 8878 §3.1.2.5 does.
func offsetValue(rep *[3]uint32, off uint32, ll uint32) uint32 {
	r0, r1, r2 := rep[0], rep[1], rep[2]
	if ll > 0 {
		switch off {
		case r0:
			return 1
		case r1:
			rep[0], rep[1] = off, r0
			return 2
		case r2:
			*rep = [3]uint32{off, r0, r1}
			return 3
		}
	} else {
		switch {
		case off == r1:
			rep[0], rep[1] = off, r0
			return 1
		case off == r2:
			*rep = [3]uint32{off, r0, r1}
			return 2
		case off == r0-1:
			*rep = [3]uint32{off, r0, r1}
			return 3
		}
	}
	*rep = [3]uint32{off, r0, r1}
	return off + 3
}

// llCode and mlCode map lengths to codes (the inverse of codeValue).
func llCode(ll uint32) uint8 {
	if ll < 16 {
		return uint8(ll)
	}
	return 16 + uint8(searchBase(llBase[:], ll))
}

func mlCode(ml uint32) uint8 {
	if ml < 35 {
		return uint8(ml - 3)
	}
	return 32 + uint8(searchBase(mlBase[:], ml))
}

// searchBase returns the last index whose baseline is <= v.
func searchBase(base []uint32, v uint32) int {
	lo, hi := 0, len(base)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if base[mid] <= v {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Symbol compression modes.
const (
	modePredefined = 0
	modeRLE        = 1
	modeFSE        = 2
)

// sequences appends the sequences section.
func (e *Encoder) sequences(dst []byte, seqs []Seq, rep *[3]uint32) []byte {
	n := len(seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7F00:
		dst = append(dst, byte(n>>8)+128, byte(n))
	default:
		dst = append(dst, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return dst
	}
	e.ov = e.ov[:0]
	for f := range e.code {
		e.code[f] = e.code[f][:0]
		clear(e.cnt[f][:])
	}
	for _, s := range seqs {
		ov := offsetValue(rep, s.Off, s.LL)
		e.ov = append(e.ov, ov)
		lc, oc, mc := llCode(s.LL), uint8(bits.Len32(ov)-1), mlCode(s.ML)
		e.code[fieldLL] = append(e.code[fieldLL], lc)
		e.code[fieldOF] = append(e.code[fieldOF], oc)
		e.code[fieldML] = append(e.code[fieldML], mc)
		e.cnt[fieldLL][lc]++
		e.cnt[fieldOF][oc]++
		e.cnt[fieldML][mc]++
	}
	modeAt := len(dst)
	dst = append(dst, 0)
	var modes byte
	for _, f := range [3]field{fieldLL, fieldOF, fieldML} {
		var m byte
		dst, m = e.table(dst, f, n)
		modes |= m << (6 - 2*uint(f))
	}
	dst[modeAt] = modes

	// The bitstream, last sequence first (RFC 8878 §3.1.1.3.2.2.4).
	bw := &e.bw
	bw.reset(dst)
	last := n - 1
	e.enc[fieldML].init(e.code[fieldML][last])
	e.enc[fieldOF].init(e.code[fieldOF][last])
	e.enc[fieldLL].init(e.code[fieldLL][last])
	e.extra(last, seqs)
	for i := n - 2; i >= 0; i-- {
		e.enc[fieldOF].encode(bw, e.code[fieldOF][i])
		e.enc[fieldML].encode(bw, e.code[fieldML][i])
		e.enc[fieldLL].encode(bw, e.code[fieldLL][i])
		e.extra(i, seqs)
	}
	e.enc[fieldML].flush(bw)
	e.enc[fieldOF].flush(bw)
	e.enc[fieldLL].flush(bw)
	return bw.close()
}

// extra writes sequence i's extra bits: literal length, match length,
// offset.
func (e *Encoder) extra(i int, seqs []Seq) {
	s := seqs[i]
	bw := &e.bw
	lb, ln := codeValue(fieldLL, int(e.code[fieldLL][i]))
	bw.add(uint64(s.LL-lb), ln)
	mb, mn := codeValue(fieldML, int(e.code[fieldML][i]))
	bw.add(uint64(s.ML-mb), mn)
	oc := e.code[fieldOF][i]
	bw.add(uint64(e.ov[i]-1<<oc), oc)
}

// table picks field f's mode, appends its description and prepares its
// encoding table.
func (e *Encoder) table(dst []byte, f field, n int) ([]byte, byte) {
	cnt := e.cnt[f][:maxCode[f]+1]
	maxSym, distinct := 0, 0
	for s, c := range cnt {
		if c > 0 {
			maxSym = s
			distinct++
		}
	}
	enc := &e.enc[f]
	if distinct == 1 {
		enc.rle = true
		return append(dst, byte(maxSym)), modeRLE
	}
	enc.rle = false
	// Cost in bits of the predefined distribution (infinite when a code
	// is beyond it) against a fitted one plus its description.
	pre := costBits(cnt, defaultNorm[f], defaultLog[f])
	log := tableLog(n, maxSym, maxLog[f])
	norm := normalize(cnt[:maxSym+1], n, log, e.norm[f][:0])
	e.tmp = writeNCount(e.tmp[:0], norm, log)
	fit := costBits(cnt, norm, log) + 8*len(e.tmp)
	if pre >= 0 && pre <= fit {
		enc.build(defaultNorm[f], defaultLog[f])
		return dst, modePredefined
	}
	enc.build(norm, log)
	return append(dst, e.tmp...), modeFSE
}

// costBits estimates the bits spent on the codes under norm (-1 when a
// code has no probability there).
func costBits(cnt []uint32, norm []int16, log uint8) int {
	var bitsX16 int
	for s, c := range cnt {
		if c == 0 {
			continue
		}
		if s >= len(norm) || norm[s] == 0 {
			return -1
		}
		p := int(norm[s])
		if p < 0 {
			p = 1
		}
		// log2(size/p) in 1/16 bits, roughly.
		bitsX16 += int(c) * (16*int(log) - log2x16(p))
	}
	return bitsX16 / 16
}

func log2x16(v int) int {
	l := bits.Len(uint(v)) - 1
	frac := (v << 4 >> l) - 16 // linear between powers of two
	return 16*l + frac
}

// tableLog chooses an accuracy log as libzstd's FSE_optimalTableLog does.
func tableLog(n, maxSym int, limit uint8) uint8 {
	log := int(limit)
	if src := bits.Len(uint(n-1)) - 2; src < log {
		log = src
	}
	minBits := min(bits.Len(uint(n-1))+1, bits.Len(uint(maxSym))+2)
	if minBits > log {
		log = minBits
	}
	return uint8(max(5, min(log, int(limit))))
}

// normalize scales counts (summing to total) to 1<<log, giving every
// present symbol at least 1.
func normalize(cnt []uint32, total int, log uint8, norm []int16) []int16 {
	size := 1 << log
	sum, largest := 0, 0
	for s, c := range cnt {
		v := 0
		if c > 0 {
			v = max(1, int((uint64(c)*uint64(size)+uint64(total)/2)/uint64(total)))
			if c > cnt[largest] {
				largest = s
			}
		}
		norm = append(norm, int16(v))
		sum += v
	}
	for sum > size {
		// Take from the most probable symbols that can spare it.
		big := -1
		for s, v := range norm {
			if v > 1 && (big < 0 || v > norm[big]) {
				big = s
			}
		}
		d := min(sum-size, int(norm[big])-1, max(1, int(norm[big])/4))
		norm[big] -= int16(d)
		sum -= d
	}
	norm[largest] += int16(size - sum)
	return norm
}

// writeNCount appends an FSE table description (RFC 8878 §4.1.1).
func writeNCount(dst []byte, norm []int16, log uint8) []byte {
	var bs uint32
	var bc uint
	flush := func() {
		for bc >= 8 {
			dst = append(dst, byte(bs))
			bs >>= 8
			bc -= 8
		}
	}
	bs = uint32(log) - 5
	bc = 4
	size := 1 << log
	remaining := size + 1
	threshold := size
	nbBits := uint(log) + 1
	prev0 := false
	for s := 0; s < len(norm) && remaining > 1; {
		if prev0 {
			start := s
			for norm[s] == 0 {
				s++
			}
			for s >= start+3 {
				start += 3
				bs |= 3 << bc
				bc += 2
				flush()
			}
			bs |= uint32(s-start) << bc
			bc += 2
			flush()
		}
		count := int(norm[s])
		s++
		mx := 2*threshold - 1 - remaining
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		count++
		if count >= threshold {
			count += mx
		}
		bs |= uint32(count) << bc
		bc += nbBits
		if count < mx {
			bc--
		}
		prev0 = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		flush()
	}
	if bc > 0 {
		dst = append(dst, byte(bs))
	}
	return dst
}

// fseEnc is an FSE encoding table (libzstd's FSE_CTable layout).
type fseEnc struct {
	rle   bool
	log   uint8
	state [512]uint16
	tt    [64]struct {
		deltaNbBits    uint32
		deltaFindState int32
	}
	value uint32
}

// build fills the table from a normalized distribution, spreading the
// symbols exactly as the decoder's table.build does.
func (t *fseEnc) build(norm []int16, log uint8) {
	size := 1 << log
	t.log = log
	var sym [512]uint8
	high := size - 1
	var cumul [65]int
	for s, c := range norm {
		if c == -1 {
			sym[high] = uint8(s)
			high--
			cumul[s+1] = cumul[s] + 1
		} else {
			cumul[s+1] = cumul[s] + int(c)
		}
	}
	spreadSymbols(&sym, norm, size, high) // the caller's distribution is valid
	next := cumul
	for u := 0; u < size; u++ {
		s := sym[u]
		t.state[next[s]] = uint16(size + u)
		next[s]++
	}
	total := 0
	for s, c := range norm {
		switch {
		case c == 0:
			t.tt[s].deltaNbBits = (uint32(log)+1)<<16 - uint32(size)
		case c == -1 || c == 1:
			t.tt[s].deltaNbBits = uint32(log)<<16 - uint32(size)
			t.tt[s].deltaFindState = int32(total - 1)
			total++
		default:
			maxBitsOut := uint32(log) - uint32(bits.Len32(uint32(c-1))-1)
			minStatePlus := uint32(c) << maxBitsOut
			t.tt[s].deltaNbBits = maxBitsOut<<16 - minStatePlus
			t.tt[s].deltaFindState = int32(total - int(c))
			total += int(c)
		}
	}
}

func (t *fseEnc) init(s uint8) {
	if t.rle {
		return
	}
	tt := t.tt[s]
	nb := (tt.deltaNbBits + 1<<15) >> 16
	v := nb<<16 - tt.deltaNbBits
	t.value = uint32(t.state[int32(v>>nb)+tt.deltaFindState])
}

func (t *fseEnc) encode(bw *bitWriter, s uint8) {
	if t.rle {
		return
	}
	tt := t.tt[s]
	nb := (t.value + tt.deltaNbBits) >> 16
	bw.add(uint64(t.value), uint8(nb))
	t.value = uint32(t.state[int32(t.value>>nb)+tt.deltaFindState])
}

func (t *fseEnc) flush(bw *bitWriter) {
	if !t.rle {
		bw.add(uint64(t.value), t.log)
	}
}

// bitWriter writes a zstd bitstream forwards; the decoder reads it from
// the end.
type bitWriter struct {
	out []byte
	c   uint64
	n   uint8
}

func (w *bitWriter) reset(dst []byte) { w.out, w.c, w.n = dst, 0, 0 }

// add appends the low n (<= 32) bits of v.
func (w *bitWriter) add(v uint64, n uint8) {
	w.c |= (v & (1<<n - 1)) << w.n
	w.n += n
	if w.n >= 32 {
		w.out = binary.LittleEndian.AppendUint32(w.out, uint32(w.c))
		w.c >>= 32
		w.n -= 32
	}
}

// close writes the end mark and returns the output.
func (w *bitWriter) close() []byte {
	w.add(1, 1)
	for w.n > 0 {
		w.out = append(w.out, byte(w.c))
		w.c >>= 8
		w.n -= min(w.n, 8)
	}
	return w.out
}
