// Package zstdpipe decodes zstd frames (RFC 8878) into a caller's buffer
// on two goroutines: one entropy-decodes each block (literals and
// sequences, with every offset and length validated), the other executes
// the sequences into the output, which is itself the history. Nothing is
// copied besides the output, so a caller decoding into a large mapping
// can release history more than a window behind Progress.Out, and a
// caller that also consumes the output keeps one extra core busy.
//
// It exists for one job: unbundling large CCOB payloads, where
// klauspost/compress's one-goroutine DecodeAll is the slowest step and its
// streaming decoder keeps twice the window resident. Dictionaries are not
// supported (CCOB never uses them); content checksums are verified.
package zstdpipe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/huff0"

	"github.com/offload-kit/offload-kit/internal/xxhash"
)

// Slack is how many bytes past limit Decode may write scratch bytes to:
// dst must be at least limit+Slack long.
const Slack = 32

const maxBlock = 128 << 10

// Error describes malformed input: In is the input offset of the part
// that is wrong, Out the output bytes final before it. TooLarge marks
// output beyond the limit (or a window beyond MaxWindow).
type Error struct {
	In, Out  int64
	Msg      string
	TooLarge bool
}

func (e *Error) Error() string { return e.Msg }

// Progress is updated while Decode runs, for a goroutine that follows it.
type Progress struct {
	Out atomic.Int64 // dst[:Out] is final
	In  atomic.Int64 // src[:In] will not be read again
	// dst[:Keep] will not be read again: the decoder's matches reach back
	// one window at most, and never before the current frame.
	Keep atomic.Int64
}

// Options for Decode.
type Options struct {
	MaxWindow uint64    // largest window accepted; 0 means 1 GiB
	Progress  *Progress // optional
	// AfterBlock, when set, runs on the executing goroutine after each
	// block, with Progress updated: nothing in dst at or past out+Slack has
	// been touched yet, so the caller may rearrange pages there. Returning
	// false stops decoding (Decode returns ErrStopped).
	AfterBlock func(out int) bool
}

// ErrStopped is returned by Decode when AfterBlock asked it to stop.
var ErrStopped = errors.New("zstd decoding stopped by the caller")

// Frame magic numbers.
const (
	frameMagic     = 0xFD2FB528
	skippableMagic = 0x184D2A50 // low four bits free
)

// seq is one sequence as decoded: literal length, match length and the
// raw offset value (repeat offsets are resolved by the executor).
type seq struct{ ll, ml, off uint32 }

const (
	blkRaw = iota
	blkRLE
	blkCompressed
)

// blk is one block on its way from the parser to the executor.
type blk struct {
	kind  int
	data  []byte // raw: the block's bytes in src
	rle   byte
	size  int    // output size
	lits  []byte // the literals, with at least Slack readable bytes after them
	own   []byte // literal buffer owned by the block
	nlit  int
	seqs  []seq
	start int // output offset of the block
	end   int
	keep  int // output before this offset is out of reach after the block
	// For the executor's offset checks: where the block's frame starts in
	// the output, its window, and the input offset of the sequences.
	frameStart, window int
	seqAt              int64
	inEnd              int64
	// Frame bookkeeping for the content checksum.
	newFrame, checked, last bool
	want                    uint32
	err                     *Error
}

// Decode decodes every frame in src into dst and returns the output size.
// Output beyond limit is an error (TooLarge); dst must hold limit+Slack
// bytes. Errors are *Error values.
func Decode(dst, src []byte, limit int, o Options) (int, error) {
	if len(dst) < limit+Slack {
		return 0, &Error{Msg: "output buffer shorter than limit+Slack"}
	}
	if o.MaxWindow == 0 {
		o.MaxWindow = 1 << 30
	}
	p := startParser(src, limit, o.MaxWindow)

	var x xxhash.Digest
	n := 0
	var err *Error
	stopped := false
	var rep [3]int // repeat offsets, carried across a frame's blocks
	for b := range p.full {
		if b.err != nil {
			err = b.err
			break
		}
		if b.newFrame {
			x.Reset()
			rep = [3]int{1, 4, 8}
		}
		switch b.kind {
		case blkRaw:
			copy(dst[b.start:b.end], b.data)
		case blkRLE:
			fill(dst[b.start:b.end], b.rle)
		default:
			if e := execute(dst, b, &rep); e != nil {
				e.Out = int64(n)
				err = e
			}
		}
		if err != nil {
			break
		}
		if b.checked {
			x.Write(dst[b.start:b.end])
			if b.last && uint32(x.Sum64()) != b.want {
				err = &Error{In: b.inEnd - 4, Out: int64(n), Msg: fmt.Sprintf("content checksum %#08x, frame says %#08x", uint32(x.Sum64()), b.want)}
				break
			}
		}
		n = b.end
		if o.Progress != nil {
			o.Progress.Out.Store(int64(n))
			o.Progress.In.Store(b.inEnd)
			o.Progress.Keep.Store(int64(b.keep))
		}
		if o.AfterBlock != nil && !o.AfterBlock(n) {
			stopped = true
			p.free <- b
			break
		}
		p.free <- b
	}
	if err != nil || stopped {
		p.abandon()
		if err == nil {
			return n, ErrStopped
		}
		return n, err
	}
	return n, nil
}

func fill(p []byte, v byte) {
	if len(p) == 0 {
		return
	}
	p[0] = v
	for k := 1; k < len(p); k *= 2 {
		copy(p[k:], p[:k])
	}
}

// execute writes a compressed block's output. It resolves the repeat
// offsets (rep, carried across the frame's blocks) and checks each offset
// against the frame's output so far and the window; the parser has
// checked the lengths. 16-byte moves may write up to 15 bytes past the
// sequence they belong to, into output that is not final yet (or Slack).
func execute(dst []byte, b *blk, rep *[3]int) *Error {
	lits := b.lits
	op, lp := b.start, 0
	dbase, lbase := unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(lits))
	r0, r1, r2 := rep[0], rep[1], rep[2]
	fs, win := b.frameStart, b.window
	for n, s := range b.seqs {
		ll := int(s.ll)
		var off int
		if ofv := int(s.off); ofv > 3 {
			off = ofv - 3
			r0, r1, r2 = off, r0, r1
		} else {
			if ll == 0 {
				ofv++
			}
			switch ofv {
			case 1:
				off = r0
			case 2:
				off = r1
				r0, r1 = off, r0
			case 3:
				off = r2
				r0, r1, r2 = off, r0, r1
			default:
				off = r0 - 1
				r0, r1, r2 = off, r0, r1
			}
		}
		if off <= 0 || off > op+ll-fs || off > win {
			return &Error{In: b.seqAt, Msg: fmt.Sprintf("sequence %d: offset %d reaches before the frame's output or window", n, off)}
		}
		// The common case (short literals, a short match at least 16 back)
		// in two 16-byte moves, with one combined bounds check instead of
		// one per slice: the moves stay inside dst and lits.
		if ml := int(s.ml); ll <= 16 && ml <= 16 && off >= 16 && off <= op+ll && op+ll+16 <= len(dst) && lp+16 <= len(lits) {
			*(*[16]byte)(unsafe.Add(dbase, op)) = *(*[16]byte)(unsafe.Add(lbase, lp))
			op += ll
			lp += ll
			*(*[16]byte)(unsafe.Add(dbase, op)) = *(*[16]byte)(unsafe.Add(dbase, op-off))
			op += ml
			continue
		}
		if ll <= 16 {
			*(*[16]byte)(dst[op:]) = *(*[16]byte)(lits[lp:])
		} else {
			copy(dst[op:op+ll], lits[lp:lp+ll])
		}
		op += ll
		lp += ll
		ml := int(s.ml)
		from := op - off
		switch {
		case off >= 16 && ml <= 16:
			*(*[16]byte)(dst[op:]) = *(*[16]byte)(dst[from:])
		case off >= 16 && ml <= 32:
			*(*[16]byte)(dst[op:]) = *(*[16]byte)(dst[from:])
			*(*[16]byte)(dst[op+16:]) = *(*[16]byte)(dst[from+16:])
		case off >= ml:
			copy(dst[op:op+ml], dst[from:from+ml])
		case off >= 16:
			for i := 0; i < ml; i += 16 {
				*(*[16]byte)(dst[op+i:]) = *(*[16]byte)(dst[from+i:])
			}
		default:
			// Overlapping: the bytes from `from` repeat with period off;
			// each copy doubles the repeated run.
			end := op + ml
			for p := op; p < end; {
				p += copy(dst[p:end], dst[from:p])
			}
		}
		op += ml
	}
	copy(dst[op:b.end], lits[lp:b.nlit])
	*rep = [3]int{r0, r1, r2}
	return nil
}

// parser is the entropy-decoding goroutine.
type parser struct {
	src       []byte
	limit     int
	maxWindow uint64
	free      chan *blk
	full      chan *blk
	stop      chan struct{}

	out int // output bytes produced by earlier blocks

	// Per-frame state.
	window   int
	blockMax int
	frameOut int
	// The tables in use, one after the other (field f's states are
	// f*512 + state, and its entries' next states carry the offset), so
	// the decoding loop needs one base pointer; 2048 entries so that a
	// masked index needs no bounds check.
	work    [2048]entry
	log     [3]uint8
	have    [3]bool
	scratch table
	huff    *huff0.Scratch
	huffDec *huff0.Decoder
	norm    [64]int16
}

// startParser starts the parser goroutine over src with six blocks in
// flight. The caller receives the decoded blocks from p.full, hands each
// back through p.free, and calls p.abandon if it stops before the end.
func startParser(src []byte, limit int, maxWindow uint64) *parser {
	const nbuf = 6
	p := &parser{src: src, limit: limit, maxWindow: maxWindow,
		free: make(chan *blk, nbuf), full: make(chan *blk, nbuf), stop: make(chan struct{})}
	for range nbuf {
		p.free <- &blk{}
	}
	go p.run()
	return p
}

// abandon stops the parser and waits until it no longer uses src.
func (p *parser) abandon() {
	close(p.stop)
	for range p.full {
	}
}

func (p *parser) errAt(in int, format string, a ...any) *Error {
	return &Error{In: int64(in), Out: int64(p.out), Msg: fmt.Sprintf(format, a...)}
}

// send hands b to the executor; false when Decode stopped listening.
func (p *parser) send(b *blk) bool {
	select {
	case p.full <- b:
		return true
	case <-p.stop:
		return false
	}
}

func (p *parser) get() *blk {
	select {
	case b := <-p.free:
		b.newFrame, b.checked, b.last, b.err = false, false, false, nil
		b.data, b.seqs = nil, b.seqs[:0]
		return b
	case <-p.stop:
		return nil
	}
}

func (p *parser) fail(e *Error) {
	if b := p.get(); b != nil {
		b.err = e
		p.send(b)
	}
}

func (p *parser) run() {
	defer close(p.full)
	src := p.src
	pos := 0
	for pos < len(src) {
		if len(src)-pos < 4 {
			p.fail(p.errAt(pos, "truncated frame magic"))
			return
		}
		magic := binary.LittleEndian.Uint32(src[pos:])
		if magic&^0xF == skippableMagic {
			if len(src)-pos < 8 {
				p.fail(p.errAt(pos, "truncated skippable frame"))
				return
			}
			size := uint64(binary.LittleEndian.Uint32(src[pos+4:]))
			if size > uint64(len(src)-pos-8) {
				p.fail(p.errAt(pos, "skippable frame of %d bytes past the end of the input", size))
				return
			}
			pos += 8 + int(size)
			continue
		}
		if magic != frameMagic {
			p.fail(p.errAt(pos, "not a zstd frame (magic %#08x)", magic))
			return
		}
		next, e := p.frame(pos)
		if e != nil {
			p.fail(e)
			return
		}
		if next < 0 {
			return // stopped
		}
		pos = next
	}
}

// frame decodes the frame at src[pos:] and returns the offset after it
// (-1 when Decode stopped listening).
func (p *parser) frame(pos int) (int, *Error) {
	src := p.src
	start := pos
	if len(src)-pos < 6 {
		return 0, p.errAt(pos, "truncated frame header")
	}
	fhd := src[pos+4]
	pos += 5
	if fhd&0x08 != 0 {
		return 0, p.errAt(start+4, "reserved bit set in the frame header")
	}
	single := fhd&0x20 != 0
	checked := fhd&0x04 != 0
	var window uint64
	if !single {
		wd := src[pos]
		pos++
		base := uint64(1) << (10 + wd>>3)
		window = base + base/8*uint64(wd&7)
	}
	dictLen := [4]int{0, 1, 2, 4}[fhd&3]
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcsLen = 1
	}
	if len(src)-pos < dictLen+fcsLen {
		return 0, p.errAt(start, "truncated frame header")
	}
	var dictID uint64
	for i := 0; i < dictLen; i++ {
		dictID |= uint64(src[pos+i]) << (8 * i)
	}
	pos += dictLen
	if dictID != 0 {
		return 0, p.errAt(start+5, "frame needs dictionary %d", dictID)
	}
	fcs := int64(-1)
	if fcsLen > 0 {
		var v uint64
		for i := 0; i < fcsLen; i++ {
			v |= uint64(src[pos+i]) << (8 * i)
		}
		if fcsLen == 2 {
			v += 256
		}
		pos += fcsLen
		if v > uint64(p.limit-p.out) {
			e := p.errAt(start, "frame content size %d exceeds the output limit", v)
			e.TooLarge = true
			return 0, e
		}
		fcs = int64(v)
	}
	if single {
		window = uint64(fcs)
	}
	if window > p.maxWindow {
		e := p.errAt(start, "window of %d bytes exceeds the limit of %d", window, p.maxWindow)
		e.TooLarge = true
		return 0, e
	}
	p.window = int(window)
	p.blockMax = min(p.window, maxBlock)
	p.frameOut = 0
	p.have = [3]bool{}
	p.huffDec = nil
	first := true
	for {
		if len(src)-pos < 3 {
			return 0, p.errAt(pos, "truncated block header")
		}
		bh := uint32(src[pos]) | uint32(src[pos+1])<<8 | uint32(src[pos+2])<<16
		hdr := pos
		pos += 3
		last := bh&1 != 0
		size := int(bh >> 3)
		b := p.get()
		if b == nil {
			return -1, nil
		}
		b.newFrame, b.checked, b.last = first, checked, last
		first = false
		b.start = p.out
		b.frameStart, b.window = p.out-p.frameOut, p.window
		switch (bh >> 1) & 3 {
		case 0:
			if size > p.blockMax {
				return 0, p.errAt(hdr, "raw block of %d bytes exceeds the block maximum %d", size, p.blockMax)
			}
			if size > len(src)-pos {
				return 0, p.errAt(hdr, "raw block of %d bytes past the end of the input", size)
			}
			b.kind, b.data, b.size = blkRaw, src[pos:pos+size], size
			pos += size
		case 1:
			if size > p.blockMax {
				return 0, p.errAt(hdr, "RLE block of %d bytes exceeds the block maximum %d", size, p.blockMax)
			}
			if len(src)-pos < 1 {
				return 0, p.errAt(hdr, "truncated RLE block")
			}
			b.kind, b.rle, b.size = blkRLE, src[pos], size
			pos++
		case 2:
			if size > p.blockMax {
				return 0, p.errAt(hdr, "compressed block of %d bytes exceeds the block maximum %d", size, p.blockMax)
			}
			if size > len(src)-pos {
				return 0, p.errAt(hdr, "compressed block of %d bytes past the end of the input", size)
			}
			b.kind = blkCompressed
			if e := p.compressed(b, pos, src[pos:pos+size]); e != nil {
				return 0, e
			}
			pos += size
		default:
			return 0, p.errAt(hdr, "reserved block type")
		}
		if b.size > p.limit-p.out {
			e := p.errAt(hdr, "output exceeds the limit of %d bytes", p.limit)
			e.TooLarge = true
			return 0, e
		}
		p.out += b.size
		p.frameOut += b.size
		b.end = p.out
		b.keep = max(p.out-p.frameOut, p.out-p.window)
		if last {
			b.keep = p.out
		}
		if fcs >= 0 && int64(p.frameOut) > fcs {
			return 0, p.errAt(hdr, "frame output exceeds its content size %d", fcs)
		}
		if last {
			if fcs >= 0 && int64(p.frameOut) != fcs {
				return 0, p.errAt(hdr, "frame output of %d bytes, its header says %d", p.frameOut, fcs)
			}
			if checked {
				if len(src)-pos < 4 {
					return 0, p.errAt(pos, "truncated content checksum")
				}
				b.want = binary.LittleEndian.Uint32(src[pos:])
				pos += 4
			}
		}
		b.inEnd = int64(pos)
		if !p.send(b) {
			return -1, nil
		}
		if last {
			return pos, nil
		}
	}
}

// compressed entropy-decodes a compressed block (in, at input offset at)
// into b: literals, sequences and the block's output size.
func (p *parser) compressed(b *blk, at int, in []byte) *Error {
	if len(in) < 1 {
		return p.errAt(at, "empty compressed block")
	}
	h0 := in[0]
	lt, sf := h0&3, (h0>>2)&3
	if len(b.own) < p.blockMax+Slack {
		b.own = make([]byte, p.blockMax+Slack) // (allocated per frame size)
	}
	lits := b.own
	b.lits = lits
	var regen int
	switch lt {
	case 0, 1: // raw, RLE
		hl := 1
		switch sf {
		case 0, 2:
			regen = int(h0 >> 3)
		case 1:
			if len(in) < 2 {
				return p.errAt(at, "truncated literals header")
			}
			regen, hl = int(h0>>4)|int(in[1])<<4, 2
		case 3:
			if len(in) < 3 {
				return p.errAt(at, "truncated literals header")
			}
			regen, hl = int(h0>>4)|int(in[1])<<4|int(in[2])<<12, 3
		}
		if regen > p.blockMax {
			return p.errAt(at, "%d literals exceed the block maximum %d", regen, p.blockMax)
		}
		if lt == 0 {
			if len(in)-hl < regen {
				return p.errAt(at, "raw literals past the end of the block")
			}
			if end := at + hl + regen + Slack; end <= len(p.src) {
				b.lits = p.src[at+hl : end] // read in place
			} else {
				copy(lits, in[hl:hl+regen])
			}
			in = in[hl+regen:]
			at += hl + regen
		} else {
			if len(in)-hl < 1 {
				return p.errAt(at, "truncated RLE literals")
			}
			fill(lits[:regen], in[hl])
			in = in[hl+1:]
			at += hl + 1
		}
	default: // Huffman-compressed, with a new tree or the previous one
		hl, sizeBits := 3, 10
		switch sf {
		case 2:
			hl, sizeBits = 4, 14
		case 3:
			hl, sizeBits = 5, 18
		}
		if len(in) < hl {
			return p.errAt(at, "truncated literals header")
		}
		var v uint64
		for i := 0; i < hl; i++ {
			v |= uint64(in[i]) << (8 * i)
		}
		v >>= 4
		mask := uint64(1)<<sizeBits - 1
		regen = int(v & mask)
		comp := int(v >> sizeBits & mask)
		if regen > p.blockMax {
			return p.errAt(at, "%d literals exceed the block maximum %d", regen, p.blockMax)
		}
		if comp > len(in)-hl {
			return p.errAt(at, "compressed literals past the end of the block")
		}
		ls := in[hl : hl+comp]
		if lt == 2 {
			s, rest, err := huff0.ReadTable(ls, p.huff)
			if err != nil {
				return p.errAt(at+hl, "Huffman table: %v", err)
			}
			p.huff, p.huffDec, ls = s, s.Decoder(), rest
		} else if p.huffDec == nil {
			return p.errAt(at, "treeless literals without a previous Huffman table")
		}
		var out []byte
		var err error
		if sf == 0 {
			out, err = p.huffDec.Decompress1X(lits[:0:regen], ls)
		} else {
			out, err = p.huffDec.Decompress4X(lits[:0:regen], ls)
		}
		if err != nil || len(out) != regen {
			if err == nil {
				err = fmt.Errorf("%d literals, header says %d", len(out), regen)
			}
			return p.errAt(at+hl, "literals: %v", err)
		}
		in = in[hl+comp:]
		at += hl + comp
	}
	b.nlit = regen

	// Sequences section header.
	if len(in) < 1 {
		return p.errAt(at, "missing sequences section")
	}
	nseq, i := int(in[0]), 1
	if nseq >= 128 {
		if nseq < 255 {
			if len(in) < 2 {
				return p.errAt(at, "truncated sequence count")
			}
			nseq, i = (nseq-128)<<8|int(in[1]), 2
		} else {
			if len(in) < 3 {
				return p.errAt(at, "truncated sequence count")
			}
			nseq, i = int(in[1])|int(in[2])<<8+0x7F00, 3
		}
	}
	if nseq == 0 {
		if len(in) != i {
			return p.errAt(at+i, "%d bytes after an empty sequences section", len(in)-i)
		}
		b.size = regen
		return nil
	}
	if nseq*3 > p.blockMax {
		return p.errAt(at, "%d sequences cannot fit the block maximum %d", nseq, p.blockMax)
	}
	if len(in) < i+1 {
		return p.errAt(at, "truncated sequence modes")
	}
	modes := in[i]
	i++
	if modes&3 != 0 {
		return p.errAt(at+i-1, "reserved bits set in the sequence modes")
	}
	for f := fieldLL; f <= fieldML; f++ {
		switch (modes >> (6 - 2*uint(f))) & 3 {
		case 0:
			p.install(f, &predefined[f])
		case 1:
			if len(in) < i+1 {
				return p.errAt(at+i, "truncated RLE %s code", fieldNames[f])
			}
			c := int(in[i])
			if c > maxCode[f] {
				return p.errAt(at+i, "RLE %s code %d out of range", fieldNames[f], c)
			}
			i++
			p.scratch.buildRLE(f, c)
			p.install(f, &p.scratch)
		case 2:
			norm, log, used, ok := readNCount(f, in[i:], p.norm[:0])
			if !ok || !p.scratch.build(f, norm, log) {
				return p.errAt(at+i, "bad FSE table for %s", fieldNames[f])
			}
			i += used
			p.install(f, &p.scratch)
		case 3:
			if !p.have[f] {
				return p.errAt(at+i, "repeated %s table without a previous one", fieldNames[f])
			}
		}
	}
	stream := in[i:]
	if len(stream) == 0 || stream[len(stream)-1] == 0 {
		return p.errAt(at+len(in)-1, "bad sequence bitstream end")
	}
	return p.sequences(b, at+i, stream, nseq)
}

// install makes t the table in use for field f.
func (p *parser) install(f field, t *table) {
	base := uint16(f) * 512
	dst := p.work[base : base+512]
	for i, e := range t.e[:1<<t.log] {
		dst[i] = e + entry(base)<<48
	}
	p.log[f] = t.log
	p.have[f] = true
}

// sequences decodes nseq sequences from the backward bitstream stream,
// resolving repeat offsets and validating each against the literals,
// the block maximum, the window and the output so far.
func (p *parser) sequences(b *blk, at int, stream []byte, nseq int) *Error {
	// The stream with the eight input bytes before it (there are always at
	// least the frame and block headers), so that 64-bit loads never run
	// off the start; reading into them is caught at the end. Bits are
	// read from the top of val, bc of them already used. Shift counts are
	// masked to 63 (bc < 64 while the stream lasts; past it the values are
	// garbage and the final length check fails), and n-bit reads shift by
	// 1 then 63-n so that n = 0 reads nothing.
	if at < 8 {
		return p.errAt(at, "sequence bitstream before the first block") // (cannot happen)
	}
	buf := p.src[at-8 : at+len(stream)]
	ptr := len(buf) - 8
	val := binary.LittleEndian.Uint64(buf[ptr:])
	bc := uint(bits.LeadingZeros8(stream[len(stream)-1])) + 1
	work := &p.work
	llS := (val << (bc & 63)) >> 1 >> ((63 - uint(p.log[fieldLL])) & 63)
	bc += uint(p.log[fieldLL])
	ofS := 512 + (val<<(bc&63))>>1>>((63-uint(p.log[fieldOF]))&63)
	bc += uint(p.log[fieldOF])
	mlS := 1024 + (val<<(bc&63))>>1>>((63-uint(p.log[fieldML]))&63)
	bc += uint(p.log[fieldML])
	val, ptr, bc = refill(buf, ptr, bc)
	seqs := b.seqs[:0]
	if cap(seqs) < nseq {
		seqs = make([]seq, 0, nseq)
	}
	seqs = seqs[:nseq]
	last := nseq - 1
	var llSum, mlSum uint64
	for n := range seqs {
		le, oe, me := uint64(work[llS&2047]), uint64(work[ofS&2047]), uint64(work[mlS&2047])
		// Extra bits: offset, match length, literal length, in that order.
		// The offset value is stored raw: the executor resolves repeat
		// offsets and checks offsets (fewer live values here, on the
		// critical path).
		ofv := uint64(uint32(oe)) + (val<<(bc&63))>>1>>((63-(oe>>32&0xff))&63)
		bc += uint(oe >> 32 & 0xff)
		if bc > 32 {
			val, ptr, bc = refill(buf, ptr, bc)
		}
		mlv := uint64(uint32(me)) + (val<<(bc&63))>>1>>((63-(me>>32&0xff))&63)
		bc += uint(me >> 32 & 0xff)
		llv := uint64(uint32(le)) + (val<<(bc&63))>>1>>((63-(le>>32&0xff))&63)
		bc += uint(le >> 32 & 0xff)
		if bc > 38 {
			val, ptr, bc = refill(buf, ptr, bc)
		}
		llSum += llv
		mlSum += mlv
		seqs[n] = seq{uint32(llv), uint32(mlv), uint32(ofv)}
		if n < last { // no state update after the last sequence
			llS = le>>48 + (val<<(bc&63))>>1>>((63-(le>>40&0xff))&63)
			bc += uint(le >> 40 & 0xff)
			mlS = me>>48 + (val<<(bc&63))>>1>>((63-(me>>40&0xff))&63)
			bc += uint(me >> 40 & 0xff)
			ofS = oe>>48 + (val<<(bc&63))>>1>>((63-(oe>>40&0xff))&63)
			bc += uint(oe >> 40 & 0xff)
			val, ptr, bc = refill(buf, ptr, bc)
		}
	}
	b.seqs = seqs
	b.seqAt = int64(at)
	if consumed := (len(buf)-8-ptr)*8 + int(bc); consumed != 8*len(stream) {
		return p.errAt(at, "sequence bitstream: %d bits used of %d", consumed, 8*len(stream))
	}
	if llSum > uint64(b.nlit) {
		return p.errAt(at, "sequences take %d literals, the block has %d", llSum, b.nlit)
	}
	if size := uint64(b.nlit) + mlSum; size > uint64(p.blockMax) {
		return p.errAt(at, "block output of %d bytes exceeds the block maximum %d", size, p.blockMax)
	}
	b.size = b.nlit + int(mlSum)
	return nil
}

// refill moves the 64-bit window of a backward bitstream down past the
// whole bytes already used (not below the start of buf).
func refill(buf []byte, ptr int, bc uint) (uint64, int, uint) {
	k := min(int(bc>>3), ptr)
	ptr -= k
	bc -= uint(k) << 3
	return binary.LittleEndian.Uint64(buf[ptr : ptr+8]), ptr, bc
}
