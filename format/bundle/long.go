package bundle

import (
	"cmp"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

// Long-distance matching. clang-offload-bundler compresses with libzstd's
// long-distance matching on (OffloadBundler.cpp passes zstdEnableLdm):
// one frame whose window (up to 128 MiB) covers the input, so the second
// of two near-identical code objects (an xnack+/xnack- pair) costs almost
// nothing. klauspost has no long-distance matcher, and its frames here
// are independent 16 MiB chunks with 8 MiB windows. For inputs up to
// LongMax, CompressTo therefore looks for long matches beside compressing
// (compressHeld); when they cover bytes the independent frames cannot
// reach, it writes one frame instead: chunks with far matches are
// compressed around them (klauspost's local matches, read back with
// zstdpipe.Sequences and merged, written by zstdpipe.Encoder), the
// others keep klauspost's blocks as they are. The search costs about
// 1 ns a byte whatever it finds; the rest of the long-distance work is
// spent only on chunks where it found far matches.
const (
	// LongMax is the largest input given one long-distance frame: the
	// reference's 128 MiB window plus room for the bundle header and
	// alignment of two 64 MiB objects. Larger inputs are buffered only a
	// few chunks at a time, as independent frames.
	LongMax = 128<<20 + 1<<20
	// ldmMinMatch is the shortest long match kept (libzstd's default).
	ldmMinMatch = 64
	// After a long match ends, the same distance is tried again up to
	// ldmResync bytes further, for at least ldmResyncLen bytes.
	ldmResync, ldmResyncLen = 16, 12
	// ldmSampleLog: one position in 1<<ldmSampleLog is hashed, chosen by
	// its content, so that shifted copies sample the same positions.
	ldmSampleLog = 6
	// klausWindow is how far back klauspost's frames can match (within
	// a chunk). (Counting matches from 1 MiB back as far, since its hash
	// tables lose most matches beyond that, sent librocrand's 7 objects
	// through the long-distance frame: no faster, 1.030x instead of
	// 1.015x the reference's size.)
	klausWindow = 8 << 20
)

// longMatch is data[pos:pos+n] == data[pos-off:pos-off+n].
type longMatch struct{ pos, n, off int }

func (m longMatch) end() int { return m.pos + m.n }

// findLong returns the long matches of data in order, not overlapping,
// and how many bytes of them lie beyond the reach of independent frames
// of chunk bytes.
func findLong(data []byte, chunk int) (ms []longMatch, beyond int) {
	s := newScanner(data, chunk)
	s.scan(data, len(data))
	return s.ms, s.beyond
}

// scanner finds long matches in a buffer as it fills: each scan looks at
// the positions up to a limit, among the bytes read so far, so the
// search runs beside reading and compressing instead of before them.
//
// Its cost is the table: one random access per sampled position, which
// misses the cache on large inputs. So the sampled positions of a stretch
// are hashed first and their table entries touched together (the
// processor overlaps the misses), and each entry carries 32 bits of the
// hash, so a candidate is read from the input only when it is likely to
// match.
type scanner struct {
	chunk   int
	tb      int
	table   []uint64 // hash of 32 sampled bytes -> tag<<32 | latest position + 1
	next    int      // the next position to look at
	end     int      // the end of the last match
	ms      []longMatch
	beyond  int                   // bytes of far matches (see far)
	far     []int                 // far bytes by chunk
	batch   [scanBatch + 3]anchor // (a group of 4 may add 4 to scanBatch-1)
	touched uint64
}

// anchor is a sampled position and the hash of its 32 bytes.
type anchor struct {
	pos int
	h   uint64
}

const scanBatch = 64

func newScanner(data []byte, chunk int) *scanner {
	n := len(data)
	tb := min(max(bits.Len(uint(n>>(ldmSampleLog+1))), 12), 22)
	return &scanner{chunk: chunk, tb: tb, table: make([]uint64, 1<<tb), far: make([]int, (n+chunk-1)/max(chunk, 1)+1)}
}

// isFar says whether independent frames of s.chunk bytes cannot reach
// m's source: another chunk, or beyond klauspost's window.
func (s *scanner) isFar(m longMatch) bool {
	return m.off > klausWindow || m.pos/s.chunk != (m.pos-m.off)/s.chunk
}

func (s *scanner) add(data []byte, m longMatch) {
	s.ms = append(s.ms, m)
	s.end = m.end()
	if !s.isFar(m) || periodic(data[m.pos:m.end()]) {
		return
	}
	s.beyond += m.n
	for p := m.pos; p < m.end(); {
		k := p / s.chunk
		e := min(m.end(), (k+1)*s.chunk)
		s.far[k] += e - p
		p = e
	}
}

// periodic says whether b (its first 64 bytes) repeats itself with a
// period of at most 16 bytes, like a run of zeros: independent frames
// encode such a run just as well from nearby, so a far match over it
// does not count as one they cannot reach.
func periodic(b []byte) bool {
	if len(b) < 64 {
		return false // the rest of a match after a mismatch
	}
	for _, p := range [...]int{1, 2, 4, 8, 16} {
		if matchLen(b[p:64], b[:64-p]) == 64-p {
			return true
		}
	}
	return false
}

// scan looks at the positions before upto; data holds the bytes read so
// far (matches extend no further). A match never starts before the
// positions of this scan, so the matches of a finished stretch are final.
func (s *scanner) scan(data []byte, upto int) {
	n := len(data)
	lim := min(upto, n-31)      // positions with 32 bytes to hash
	floor := max(s.end, s.next) // backward extension stops here
	le := binary.LittleEndian
	shift := 64 - uint(s.tb)
	mask := uint64(1)<<s.tb - 1
	table := s.table
	i := s.next
	if i >= lim {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(data))
	for i < lim {
		// Sample a batch of positions, then touch their table entries.
		na := 0
		for i < lim && na < scanBatch {
			// The sampling test runs at every position, four at a time:
			// loads without bounds checks (i+3+8 <= lim+31 <= n). It
			// samples where the top bits are 1, not 0, so that runs of
			// zeros are never sampled.
			if i+4 <= lim {
				const k, top = 0x9E3779B185EBCA87, 64 - ldmSampleLog
				v0 := *(*uint64)(unsafe.Add(base, i))
				v1 := *(*uint64)(unsafe.Add(base, i+1))
				v2 := *(*uint64)(unsafe.Add(base, i+2))
				v3 := *(*uint64)(unsafe.Add(base, i+3))
				if (v0*k)>>top != 1 && (v1*k)>>top != 1 && (v2*k)>>top != 1 && (v3*k)>>top != 1 {
					i += 4
					continue
				}
			}
			for end := min(i+4, lim); i < end; i++ {
				v := *(*uint64)(unsafe.Add(base, i))
				if (v*0x9E3779B185EBCA87)>>(64-ldmSampleLog) != 1 {
					continue
				}
				h := v*0xC2B2AE3D27D4EB4F ^ le.Uint64(data[i+8:])*0x165667B19E3779F9 ^
					le.Uint64(data[i+16:])*0xD6E8FEB86659FD93 ^ le.Uint64(data[i+24:])*0x9FB21C651E98DF25
				s.batch[na] = anchor{i, h}
				na++
			}
		}
		var touch uint64
		for _, a := range s.batch[:na] {
			touch += table[(a.h>>shift)&mask]
		}
		s.touched += touch // (keeps the loads)
		for _, a := range s.batch[:na] {
			p := a.pos
			if p < s.end {
				continue // inside a match found in this batch
			}
			k := (a.h >> shift) & mask
			e := table[k]
			table[k] = a.h<<32 | uint64(p+1)
			cand := int(uint32(e)) - 1
			if cand < 0 || uint32(e>>32) != uint32(a.h) {
				continue
			}
			f := matchLen(data[p:], data[cand:])
			if f < 32 {
				continue
			}
			b := 0
			for p-b > floor && cand-b > 0 && data[p-b-1] == data[cand-b-1] {
				b++
			}
			if f+b < ldmMinMatch {
				continue
			}
			m := longMatch{pos: p - b, n: f + b, off: p - cand}
			for {
				s.add(data, m)
				end := m.end()
				// Near-duplicates differ in a byte here and there: after a
				// mismatch, the same distance usually matches again (a
				// repeat offset for the encoder), so continue it, however
				// short.
				m.n = 0
				for k := 1; k <= ldmResync && end+k+ldmResyncLen <= n; k++ {
					if l := matchLen(data[end+k:], data[end+k-m.off:]); l >= ldmResyncLen {
						m.pos, m.n = end+k, l
						break
					}
				}
				if m.n == 0 {
					break
				}
			}
			floor = s.end
		}
		i = max(i, s.end)
	}
	s.next = max(i, s.next)
}

// matchLen is the length of the common prefix of a and b.
func matchLen(a, b []byte) int {
	n := 0
	for len(a) >= 8 && len(b) >= 8 {
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		a, b, n = a[8:], b[8:], n+8
	}
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		n++
	}
	return n
}

// useLong says whether long matches are worth one frame: they cover at
// least 1% of the input (and 64 KiB) that independent frames cannot.
func useLong(size int64, beyond int) bool {
	return beyond >= 64<<10 && int64(beyond) >= size/100
}

// longChunk says whether a chunk of n bytes, far bytes of which are
// covered by far matches, is compressed around them (for a long-distance
// frame) rather than as a whole (which serves both ways): they must cover
// a sixteenth of it. Below that, what the long frame would gain on the
// chunk is not worth compressing it twice if the frame is not chosen.
func longChunk(n, far int) bool { return far >= 64<<10 && far >= n/16 }

// chunkResult is what a worker made of one chunk: klauspost's frame of
// all of it (plain), or, for a chunk with far matches, the local matches
// klauspost found in what the long matches leave (ks).
type chunkResult struct {
	frame []byte
	ks    []longMatch
	long  bool
	err   error
}

// compressHeld compresses the size bytes of in (at most LongMax) as
// independent frames, or as one long-distance frame when far long
// matches pay. Three stages overlap: a reader fills one buffer with the
// input, a scanner looks for long matches in each chunk as soon as it has
// been read, and the workers compress each chunk as soon as it has been
// scanned: as an independent frame, or, when the chunk has far matches
// of its own, only the bytes they leave. Once the whole input is scanned
// the choice is made. Independent frames are written as they are. One
// frame takes the chunks with far matches through zstdpipe.Encoder (long
// matches merged with klauspost's local ones) and splices the blocks of
// the other chunks' frames unchanged (zstdpipe.AppendBlocks), so a chunk
// without long matches costs klauspost's time and nothing more. Memory:
// the input, the frames finished before the choice, the scanner's table
// (8 bytes per 64 to 128 input bytes) and klauspost's state.
func compressHeld(ow *offsetWriter, in io.Reader, size int64, o CompressOptions) error {
	n := int(size)
	chunk, workers := o.chunkSize(), o.workers()
	// (Cutting inputs under two chunks into one chunk per worker made
	// librocrand's 12 MiB take the long-distance frame, at 1.7x the CPU
	// time: their chunks reach each other only through long matches.)
	nch := (n + chunk - 1) / chunk
	bounds := func(k int) (int, int) { return k * chunk, min((k+1)*chunk, n) }
	// (An anonymous mapping with huge pages instead of the Go heap cost
	// more system time here: with THP defrag on madvise, each fault
	// compacts memory.)
	data := make([]byte, n)
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(done)
		wg.Wait()
	}()

	// Reader.
	read := make([]chan struct{}, nch)
	for k := range read {
		read[k] = make(chan struct{})
	}
	var got int
	var readErr error
	readOK := make([]bool, nch) // set before read[k] is closed
	go func() {
		k := 0
		defer func() {
			for ; k < nch; k++ {
				close(read[k])
			}
		}()
		for ; k < nch; k++ {
			lo, hi := bounds(k)
			m, err := io.ReadFull(in, data[lo:hi])
			got = lo + m
			if err != nil {
				readErr = err
				return
			}
			readOK[k] = true
			close(read[k])
		}
	}()

	// Scanner.
	type plan struct {
		ms   []longMatch // the long matches so far (final up to the chunk's end)
		long bool        // the chunk has far matches enough to pay
		ok   bool        // scanned (not stopped by a read error)
	}
	plans := make([]plan, nch)
	scanned := make([]chan struct{}, nch)
	for k := range scanned {
		scanned[k] = make(chan struct{})
	}
	sc := newScanner(data, chunk)
	wg.Add(1)
	go func() {
		defer wg.Done()
		k := 0
		defer func() {
			for ; k < nch; k++ {
				close(scanned[k])
			}
		}()
		for ; k < nch; k++ {
			select {
			case <-read[k]:
			case <-done:
				return
			}
			if !readOK[k] {
				return
			}
			lo, hi := bounds(k)
			sc.scan(data[:hi], hi)
			plans[k] = plan{ms: sc.ms, long: longChunk(hi-lo, sc.far[k]), ok: true}
			close(scanned[k])
		}
	}()

	// Workers, taking the chunks in order.
	results := make([]chan chunkResult, nch)
	for k := range results {
		results[k] = make(chan chunkResult, 1)
	}
	frames := make(chan []byte, nch) // frame buffers to reuse
	// At most workers+2 results wait to be written (none is written
	// before the choice), so memory stays the input and a few frames.
	slots := make(chan struct{}, workers+2)
	next := make(chan int)
	go func() {
		defer close(next)
		for k := 0; k < nch; k++ {
			select {
			case slots <- struct{}{}:
			case <-done:
				return
			}
			select {
			case next <- k:
			case <-done:
				return
			}
		}
	}()
	skip := o.Level <= 4
	for range min(workers, nch) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc, err := newEncoder(o.Level, size)
			if enc != nil {
				defer enc.Close()
			}
			var scratch []byte
			for k := range next {
				select {
				case <-scanned[k]:
				case <-done:
					return
				}
				p := plans[k]
				if err != nil || !p.ok {
					results[k] <- chunkResult{err: err}
					continue
				}
				lo, hi := bounds(k)
				if !p.long {
					var buf []byte
					select {
					case buf = <-frames:
					default:
						buf = make([]byte, 0, chunk+chunk/64+1024)
					}
					results[k] <- chunkResult{frame: enc.EncodeAll(data[lo:hi], buf[:0])}
					continue
				}
				var ks []longMatch
				var e error
				scratch, ks, e = localMatches(enc, data, lo, hi, p.ms, skip, scratch[:0])
				results[k] <- chunkResult{ks: ks, long: true, err: e}
			}
		}()
	}

	// The choice, once everything is scanned.
	<-scanned[nch-1]
	if readErr != nil {
		ow.in = int64(got)
		if readErr == io.EOF || readErr == io.ErrUnexpectedEOF {
			return nil // CompressTo reports the short input
		}
		return readErr
	}
	anyLong := false
	for _, p := range plans {
		anyLong = anyLong || p.long
	}
	if !anyLong || !useLong(size, sc.beyond) {
		var enc *zstd.Encoder
		for k := range results {
			r := <-results[k]
			<-slots
			if r.err != nil {
				return r.err
			}
			lo, hi := bounds(k)
			if r.long { // far matches here, too few overall
				if enc == nil {
					var err error
					if enc, err = newEncoder(o.Level, size); err != nil {
						return err
					}
					defer enc.Close()
				}
				r.frame = enc.EncodeAll(data[lo:hi], nil)
			}
			if _, err := ow.Write(r.frame); err != nil {
				return err
			}
			ow.in += int64(hi - lo)
			o.progress(hi - lo)
			frames <- r.frame
		}
		return nil
	}
	em := &emitter{enc: zstdpipe.NewEncoder(), data: data, w: ow, progress: o.progress}
	em.out = zstdpipe.AppendFrameHeader(em.out, uint64(n))
	for k := range results {
		r := <-results[k]
		<-slots
		if r.err != nil {
			return r.err
		}
		lo, hi := bounds(k)
		last := k == nch-1
		ms := clipMatches(sc.ms, lo, hi)
		if !r.long {
			free, err := zstdpipe.RepeatFree(r.frame)
			if err != nil {
				return err
			}
			if free {
				if em.out, err = zstdpipe.AppendBlocks(em.out, r.frame, last); err != nil {
					return err
				}
				em.enc.ForgetRepeats()
				em.progress(hi - lo)
				if err := em.write(last); err != nil {
					return err
				}
				frames <- r.frame
				continue
			}
			// The frame uses the initial repeat offsets: write its
			// matches again.
			if r.ks, err = frameMatches(r.frame, lo, hi-lo); err != nil {
				return err
			}
			frames <- r.frame
		}
		if err := em.chunk(lo, hi, ms, r.ks, last); err != nil {
			return err
		}
	}
	ow.in = size
	return nil
}

// clipMatches returns the parts of ms (in order, not overlapping) that
// lie in [lo, hi).
func clipMatches(ms []longMatch, lo, hi int) []longMatch {
	i, _ := slices.BinarySearchFunc(ms, lo, func(m longMatch, p int) int { return cmp.Compare(m.end(), p+1) })
	var out []longMatch
	for _, m := range ms[i:] {
		if m.pos >= hi {
			break
		}
		if m.pos < lo {
			m.n -= lo - m.pos
			m.pos = lo
		}
		m.n = min(m.n, hi-m.pos)
		out = append(out, m)
	}
	return out
}

// frameMatches returns the matches of frame, which encodes the size
// bytes at position base.
func frameMatches(frame []byte, base, size int) ([]longMatch, error) {
	var ks []longMatch
	p := base
	err := zstdpipe.Sequences(frame, size, func(n int, seqs []zstdpipe.Seq) error {
		q := p
		for _, s := range seqs {
			q += int(s.LL)
			ks = append(ks, longMatch{pos: q, n: int(s.ML), off: int(s.Off)})
			q += int(s.ML)
		}
		p += n
		return nil
	})
	return ks, err
}

// emitter writes one frame's blocks: for the chunks it encodes itself
// (chunk), the long matches merged with klauspost's local ones, cut into
// blocks of at most zstdpipe.MaxBlock that never cross a chunk's end;
// the caller may append other blocks to out between chunks.
type emitter struct {
	enc        *zstdpipe.Encoder
	data       []byte
	w          io.Writer
	out        []byte
	start, end int // the block being filled
	limit      int // the end of the chunk
	cursor     int // data before it is covered
	seqs       []zstdpipe.Seq
	lits       []byte
	progress   func(int)
}

// chunk encodes data[lo:hi]: the long matches ms (clipped to it) win
// where they overlap klauspost's matches ks.
func (e *emitter) chunk(lo, hi int, ms, ks []longMatch, last bool) error {
	e.start, e.cursor, e.limit = lo, lo, hi
	e.end = min(lo+zstdpipe.MaxBlock, hi)
	li, lastEnd := 0, lo
	var err error
	for _, k := range ks {
		kp, kend := k.pos, k.end()
		for err == nil {
			for li < len(ms) && ms[li].pos <= kp {
				err = e.match(ms[li])
				lastEnd = ms[li].end()
				li++
			}
			kp = max(kp, lastEnd)
			if kp >= kend || err != nil {
				break
			}
			limit := kend
			if li < len(ms) && ms[li].pos < kend {
				limit = ms[li].pos
			}
			err = e.match(longMatch{pos: kp, n: limit - kp, off: k.off})
			kp = limit
		}
		if err != nil {
			return err
		}
	}
	for ; err == nil && li < len(ms); li++ {
		err = e.match(ms[li])
	}
	for err == nil {
		end := e.end == e.limit
		err = e.flush(last && end)
		if end {
			break
		}
	}
	return err
}

// match adds data[m.pos:m.end()] as a copy from m.off back; pieces too
// short to be a match stay literals.
func (e *emitter) match(m longMatch) error {
	if m.pos < e.cursor {
		m.n -= e.cursor - m.pos
		m.pos = e.cursor
	}
	for m.n > 0 {
		for m.pos >= e.end {
			if err := e.flush(false); err != nil {
				return err
			}
		}
		take := min(m.n, e.end-m.pos)
		if take >= 3 {
			e.lits = append(e.lits, e.data[e.cursor:m.pos]...)
			e.seqs = append(e.seqs, zstdpipe.Seq{LL: uint32(m.pos - e.cursor), ML: uint32(take), Off: uint32(m.off)})
			e.cursor = m.pos + take
		}
		m.pos += take
		m.n -= take
	}
	return nil
}

func (e *emitter) flush(last bool) error {
	e.lits = append(e.lits, e.data[e.cursor:e.end]...)
	var err error
	e.out, err = e.enc.AppendBlock(e.out, e.data[e.start:e.end], e.lits, e.seqs, last)
	if err != nil {
		return err
	}
	e.progress(e.end - e.start)
	e.start, e.cursor = e.end, e.end
	e.end = min(e.start+zstdpipe.MaxBlock, e.limit)
	e.seqs, e.lits = e.seqs[:0], e.lits[:0]
	return e.write(last)
}

// write writes out what has been encoded once it is 1 MiB, or at the end.
func (e *emitter) write(last bool) error {
	if len(e.out) >= 1<<20 || last {
		if _, err := e.w.Write(e.out); err != nil {
			return err
		}
		e.out = e.out[:0]
	}
	return nil
}

// localMatches has klauspost find the matches of data[base:end] that the
// long matches ms leave uncovered: it compresses the uncovered gaps
// joined together (so they keep each other as context and no time goes
// into bytes already matched), reads the matches back and maps them to
// positions in data, cutting any that cross from one gap to another.
func localMatches(enc *zstd.Encoder, data []byte, base, end int, ms []longMatch, skip bool, frame []byte) ([]byte, []longMatch, error) {
	type gap struct{ at, real, n int }
	var gaps []gap
	cur, at := base, 0
	if !skip {
		ms = nil
	}
	first, _ := slices.BinarySearchFunc(ms, base, func(m longMatch, p int) int { return cmp.Compare(m.end(), p+1) })
	for _, m := range ms[first:] {
		if m.pos >= end {
			break
		}
		if m.pos > cur {
			gaps = append(gaps, gap{at, cur, m.pos - cur})
			at += m.pos - cur
		}
		cur = max(cur, m.end())
	}
	if cur < end {
		gaps = append(gaps, gap{at, cur, end - cur})
		at += end - cur
	}
	if at == 0 {
		return frame, nil, nil
	}
	src := data[base:end]
	if at != end-base {
		src = make([]byte, 0, at)
		for _, g := range gaps {
			src = append(src, data[g.real:g.real+g.n]...)
		}
	}
	frame = enc.EncodeAll(src, frame)
	starts := make([]int, len(gaps))
	for i, g := range gaps {
		starts[i] = g.at
	}
	// gapAt is the gap holding position p of src, looked for from hint.
	gapAt := func(p, hint int) int {
		if g := gaps[hint]; p >= g.at && p < g.at+g.n {
			return hint
		}
		i, _ := slices.BinarySearch(starts, p+1)
		return i - 1
	}
	dg := 0
	var ks []longMatch
	p := 0
	err := zstdpipe.Sequences(frame, len(src), func(size int, seqs []zstdpipe.Seq) error {
		q := p
		for _, s := range seqs {
			q += int(s.LL)
			d, n, off := q, int(s.ML), int(s.Off)
			q += n
			for n > 0 {
				dg = gapAt(d, dg)
				sg := gapAt(d-off, dg)
				take := min(n, gaps[dg].at+gaps[dg].n-d, gaps[sg].at+gaps[sg].n-(d-off))
				if take >= 3 {
					rd := gaps[dg].real + d - gaps[dg].at
					rs := gaps[sg].real + d - off - gaps[sg].at
					ks = append(ks, longMatch{pos: rd, n: take, off: rd - rs})
				}
				d += take
				n -= take
			}
		}
		p += size
		return nil
	})
	return frame, ks, err
}
