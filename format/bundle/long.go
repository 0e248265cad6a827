package bundle

import (
	"cmp"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

// Long-distance matching. clang-offload-bundler compresses with libzstd's
// long-distance matching on (OffloadBundler.cpp passes zstdEnableLdm):
// one frame whose window (up to 128 MiB) covers the input, so the second
// of two near-identical code objects (an xnack+/xnack- pair) costs almost
// nothing. klauspost has no long-distance matcher, and its frames here
// are independent 16 MiB chunks with 8 MiB windows. For inputs up to
// LongMax, CompressTo therefore looks for long matches first; when they
// cover bytes the independent frames cannot reach, it writes one frame
// instead: klauspost still finds the local matches (chunks in parallel),
// zstdpipe.Sequences reads them back, the long matches replace what they
// overlap, and zstdpipe.Encoder writes the merged sequences.
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
	// a chunk).
	klausWindow = 8 << 20
)

// longMatch is data[pos:pos+n] == data[pos-off:pos-off+n].
type longMatch struct{ pos, n, off int }

func (m longMatch) end() int { return m.pos + m.n }

// findLong returns the long matches of data in order, not overlapping,
// and how many bytes of them lie beyond the reach of independent frames
// of chunk bytes.
func findLong(data []byte, chunk int) (ms []longMatch, beyond int) {
	n := len(data)
	if n < 2*ldmMinMatch {
		return nil, 0
	}
	tb := min(max(bits.Len(uint(n>>ldmSampleLog))+1, 12), 26)
	table := make([]uint32, 1<<tb)
	end := 0
	le := binary.LittleEndian
	for i := 0; i+32 <= n; i++ {
		v := le.Uint64(data[i:])
		if (v*0x9E3779B185EBCA87)>>(64-ldmSampleLog) != 0 {
			continue
		}
		k := (v*0xC2B2AE3D27D4EB4F ^ le.Uint64(data[i+8:])*0x165667B19E3779F9 ^
			le.Uint64(data[i+16:])*0xD6E8FEB86659FD93 ^ le.Uint64(data[i+24:])*0x9FB21C651E98DF25) >> (64 - tb)
		cand := int(table[k]) - 1
		table[k] = uint32(i + 1)
		if cand < 0 {
			continue
		}
		f := matchLen(data[i:], data[cand:])
		if f < 32 {
			continue
		}
		b := 0
		for i-b > end && cand-b > 0 && data[i-b-1] == data[cand-b-1] {
			b++
		}
		if f+b < ldmMinMatch {
			continue
		}
		m := longMatch{pos: i - b, n: f + b, off: i - cand}
		far := m.off > klausWindow || m.pos/chunk != (m.pos-m.off)/chunk
		for {
			ms = append(ms, m)
			if far {
				beyond += m.n
			}
			end = m.end()
			// Near-duplicates differ in a byte here and there: after a
			// mismatch, the same distance usually matches again (a repeat
			// offset for the encoder), so continue it, however short.
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
		i = end - 1
	}
	return ms, beyond
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

// compressLong writes data as one zstd frame: klauspost's local matches
// (chunks compressed in parallel, then parsed back) merged with the long
// matches ms, which win where they overlap.
func compressLong(ow *offsetWriter, data []byte, ms []longMatch, o CompressOptions) error {
	chunk, workers := o.chunkSize(), o.workers()
	type result struct {
		ks  []longMatch
		err error
	}
	size := int64(len(data))
	uncovered := size
	for _, m := range ms {
		uncovered -= int64(m.n)
	}
	nchunks := (len(data) + chunk - 1) / chunk
	results := make([]chan result, nchunks)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// Workers take chunks in order; at most workers+1 results wait.
	sem := make(chan struct{}, workers+1)
	next := make(chan int)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The level for what klauspost compresses: the bytes the long
			// matches leave (zstdLevel picks a faster speed for 32 MiB and
			// more at the default level).
			enc, err := newEncoder(o.Level, uncovered)
			if enc != nil {
				defer enc.Close()
			}
			// At levels up to 4, klauspost skips what the long matches
			// cover; from 5 (its best level) it sees every byte, as the
			// context the gaps lose costs up to 3% there.
			skip := o.Level <= 4
			var frame []byte
			for i := range next {
				if err != nil {
					results[i] <- result{err: err}
					continue
				}
				base := i * chunk
				var ks []longMatch
				var e error
				frame, ks, e = localMatches(enc, data, base, min(base+chunk, len(data)), ms, skip, frame[:0])
				results[i] <- result{ks: ks, err: e}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range results {
			select {
			case sem <- struct{}{}:
			case <-done:
				return
			}
			select {
			case next <- i:
			case <-done:
				return
			}
		}
	}()
	defer func() {
		close(done)
		wg.Wait()
	}()

	em := &emitter{enc: zstdpipe.NewEncoder(), data: data, w: ow, end: min(zstdpipe.MaxBlock, len(data)), progress: o.progress}
	em.out = zstdpipe.AppendFrameHeader(em.out, uint64(len(data)))
	li, lastEnd := 0, 0
	var err error
	for i := range results {
		r := <-results[i]
		<-sem
		if r.err != nil {
			err = r.err
			break
		}
		for _, k := range r.ks {
			kp, kend := k.pos, k.end()
			for err == nil {
				for li < len(ms) && ms[li].pos <= kp {
					err = em.match(ms[li])
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
				err = em.match(longMatch{pos: kp, n: limit - kp, off: k.off})
				kp = limit
			}
		}
		if err != nil {
			break
		}
	}
	for ; err == nil && li < len(ms); li++ {
		err = em.match(ms[li])
	}
	if err == nil {
		err = em.finish()
	}
	if err == nil {
		ow.in = size
	}
	return err
}

// emitter cuts matches into blocks of at most zstdpipe.MaxBlock and
// writes them.
type emitter struct {
	enc        *zstdpipe.Encoder
	data       []byte
	w          io.Writer
	out        []byte
	start, end int // the block being filled
	cursor     int // data before it is covered
	seqs       []zstdpipe.Seq
	lits       []byte
	progress   func(int)
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
	e.end = min(e.start+zstdpipe.MaxBlock, len(e.data))
	e.seqs, e.lits = e.seqs[:0], e.lits[:0]
	if len(e.out) >= 1<<20 || last {
		if _, err := e.w.Write(e.out); err != nil {
			return err
		}
		e.out = e.out[:0]
	}
	return nil
}

func (e *emitter) finish() error {
	for {
		last := e.end == len(e.data)
		if err := e.flush(last); err != nil || last {
			return err
		}
	}
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
