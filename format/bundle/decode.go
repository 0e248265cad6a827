package bundle

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/zstdpipe"
)

// Sink receives the decompressed bytes of a CCOB blob in order: off is
// the offset of p in the decompressed stream, and p is valid only during
// the call. An error from the sink is returned by DecodeTo unchanged (no
// further bytes are delivered; a decompression error further on still
// wins, as it would with the reference, which decompresses first). A sink
// that has seen all it needs returns ErrStop, which also stops decoding.
type Sink func(off int64, p []byte) error

// ErrStop is what a Sink returns to end decoding early; DecodeTo returns
// it as it is (the size and hash are not checked then).
var ErrStop = errors.New("decoding stopped by the sink")

// DecodeOptions control DecodeTo.
type DecodeOptions struct {
	Limits
	// InputMapped says the blob is a read-only file mapping: its pages may
	// be dropped once read (they fault back in from the file), so a large
	// compressed input does not stay resident either.
	InputMapped bool
}

// Windowed decoding applies from this uncompressed size up; below it the
// streaming Reader is as fast and simpler.
const windowedMin = 16 << 20

// DecodeTo decompresses the CCOB blob at the start of blob and hands the
// result to sink in order, verifying size and hash (as o.Limits asks)
// after the last byte. Errors are *format.FormatError values as NewReader
// and Reader.Read give them, or the sink's error.
//
// Memory stays near the compression window, however large the output.
// For zstd (on Linux), the payload is decoded by internal/zstdpipe, on two
// goroutines, straight into a reserved, uncommitted anonymous mapping the
// size of the output, so that the output itself is the history and is
// never copied (klauspost's streaming decoder either shifts its history
// buffer or keeps twice the window resident; for the 128 MiB window
// clang-offload-bundler writes that is 3× slower or twice the memory). A
// third goroutine follows the decoder: what it has finished is hashed and
// passed to sink; pages out of the decoder's reach are recycled ahead of
// it (see recycler), so at most about one window of output is resident.
func DecodeTo(blob []byte, o DecodeOptions, sink Sink) (Header, error) {
	h, err := ParseHeader(blob)
	if err != nil {
		return h, err
	}
	payload := h.payload(blob)
	if err := checkLimits(h, int64(len(payload)), o.Limits); err != nil {
		return h, err
	}
	if h.Method == Zstd && h.UncompressedSize >= windowedMin {
		if done, err := decodeWindowed(h, payload, o, sink); done {
			return h, err
		}
	}
	r, err := newReader(h, bytes.NewReader(payload), int64(len(payload)), o.Limits)
	if err != nil {
		return h, err
	}
	defer r.Close()
	sw := &sinkWriter{sink: sink}
	if _, err := r.WriteTo(sw); err != nil {
		if sw.err != nil {
			return h, sw.err
		}
		return h, err
	}
	return h, nil
}

// WriteAtSink returns a Sink that writes each piece at its offset to w,
// except stretches of zeros (whole 64 KiB blocks, or pieces that are all
// zero): when w is a file that starts empty and is truncated to the full
// size at the end, they are holes, so a bomb of zeros costs neither disk
// nor time.
func WriteAtSink(w io.WriterAt) Sink {
	const blk = len(zeroBlock)
	return func(off int64, p []byte) error {
		for len(p) > 0 {
			n := min(len(p), blk-int(off%int64(blk)))
			if !allZero(p[:n]) {
				// Write the run of non-zero blocks at once.
				for n < len(p) {
					m := min(len(p)-n, blk)
					if allZero(p[n : n+m]) {
						break
					}
					n += m
				}
				if _, err := w.WriteAt(p[:n], off); err != nil {
					return err
				}
			}
			off += int64(n)
			p = p[n:]
		}
		return nil
	}
}

// zeroBlock is compared against, never written.
var zeroBlock [64 << 10]byte

func allZero(p []byte) bool {
	for len(p) > 0 {
		n := min(len(p), len(zeroBlock))
		if !bytes.Equal(p[:n], zeroBlock[:n]) {
			return false
		}
		p = p[n:]
	}
	return true
}

type sinkWriter struct {
	sink Sink
	off  int64
	err  error
}

func (w *sinkWriter) Write(p []byte) (int, error) {
	if err := w.sink(w.off, p); err != nil {
		w.err = err
		return 0, err
	}
	w.off += int64(len(p))
	return len(p), nil
}

// Tuning of the follower goroutine.
const (
	followChunk = 1 << 20 // hand over at least this much at a time
	followMax   = 4 << 20 // and at most this much
	followPoll  = 200 * time.Microsecond
	dropInputAt = 4 << 20 // release the compressed input every so often
	// decodeLag bounds how far the decoder runs ahead of the sink. With
	// the history (one frame window: 128 MiB as the reference writes, at
	// most zstdpipe's 2 GiB limit) it bounds the resident output.
	decodeLag = 32 << 20
)

// decodeWindowed is DecodeTo's zstd path for large outputs. done is false
// when it cannot run here (no anonymous mappings), before anything has
// been delivered.
func decodeWindowed(h Header, payload []byte, o DecodeOptions, sink Sink) (done bool, err error) {
	u := int(h.UncompressedSize)
	if uint64(u) != h.UncompressedSize || u > math.MaxInt-zstdpipe.Slack || o.SkipVerify {
		return false, nil // (the Reader truncates excess output unverified)
	}
	m, err := mmapfile.Anon(u + zstdpipe.Slack)
	if err != nil {
		return false, nil
	}
	defer mmapfile.Unmap(m)

	var md hash.Hash
	if o.Hash != HashSkip {
		md = md5.New()
	}
	var prog zstdpipe.Progress
	var written atomic.Int64 // handed to the sink
	var final atomic.Int64   // decoded length once Decode returned, else -1
	final.Store(-1)
	rc := newRecycler(m[:u+zstdpipe.Slack])
	var sinkErr error
	var sinkStopped atomic.Bool // the sink returned ErrStop
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		var dropped int
		for {
			done := int(written.Load())
			complete := int(final.Load())
			fin := complete >= 0
			if !fin {
				complete = int(prog.Out.Load())
			}
			if in := int(prog.In.Load()); o.InputMapped && in-dropped >= dropInputAt {
				// The decoder reads its input front to back; what it has
				// finished with is dropped (it faults back in if needed).
				mmapfile.Release(payload[:in])
				dropped = in
			}
			if complete > done && (fin || complete-done >= followChunk) {
				// At most followMax at a time, so that input and history
				// keep being recycled while hashing and writing lag.
				end := min(complete, done+followMax)
				b := m[done:end]
				if md != nil {
					md.Write(b)
				}
				if sinkErr == nil {
					// Only ErrStop stops the decoder early: after any other
					// sink error, decoding goes on so that a decompression
					// error later in the stream is still the one reported,
					// as with the reference (which decompresses first).
					if sinkErr = sink(int64(done), b); errors.Is(sinkErr, ErrStop) {
						sinkStopped.Store(true)
					}
				}
				written.Store(int64(end))
				if fin {
					// The decoder is done: what has been handed over is dead.
					rc.release(end)
				}
				continue
			}
			if fin {
				return
			}
			time.Sleep(followPoll)
		}
	}()
	n, derr := zstdpipe.Decode(m, payload, u, zstdpipe.Options{
		MaxWindow: 1 << 31,
		Progress:  &prog,
		AfterBlock: func(out int) bool {
			// History out of the decoder's reach that the sink has had is
			// dead: its pages are moved ahead of the decoder to be written
			// again, instead of being freed and faulted back in zeroed.
			rc.recycle(min(int(written.Load()), int(prog.Keep.Load())), out+zstdpipe.Slack)
			// The decoder may run at most decodeLag ahead of the sink:
			// what is decoded and not yet handed over is resident, and an
			// RLE block decodes 128 KiB from 4 bytes far faster than any
			// sink writes it (a 125 KB bomb would otherwise be GiBs of
			// resident output, however bounded the history).
			for out-int(written.Load()) > decodeLag && !sinkStopped.Load() {
				time.Sleep(followPoll)
			}
			return !sinkStopped.Load()
		},
	})
	// Even after an error the first n bytes are final (zstdpipe reports
	// the output of the blocks before the damage): they are all handed
	// over, so that a sink that needs only a front part (ErrStop) gets it
	// whatever the timing; otherwise the decompression error wins below.
	final.Store(int64(n))
	<-followed
	switch {
	case errors.Is(sinkErr, ErrStop):
		// The sink has what it needs, all of it decoded before any damage
		// the decoder may have run into further on.
		return true, sinkErr
	case derr == nil && sinkErr != nil:
		return true, sinkErr
	}
	var sum []byte
	if md != nil {
		sum = md.Sum(nil)
	}
	return true, pipeResult(h, derr, n, sum, o.Hash)
}

// pipeResult turns the end of a zstdpipe decode of h's payload (got bytes,
// derr, the MD5 of the output if computed) into DecodeTo's and
// Decompress's errors.
func pipeResult(h Header, derr error, got int, md5sum []byte, hc HashCheck) error {
	var ze *zstdpipe.Error
	switch {
	case errors.As(derr, &ze) && ze.TooLarge:
		return &format.FormatError{Off: 8, Msg: "decompressed data exceeds the size the header records", Err: ErrChecksum}
	case derr != nil:
		off := int64(h.Size())
		if ze != nil {
			off += ze.In
		}
		return format.Errorf(off, format.ErrCorrupt, "Could not decompress embedded file contents: %v (after %d of %d bytes)", derr, got, h.UncompressedSize)
	case uint64(got) != h.UncompressedSize:
		return &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed %d bytes, header says %d", got, h.UncompressedSize), Err: ErrChecksum}
	case md5sum != nil && hc == HashVerify && binary.LittleEndian.Uint64(md5sum[:8]) != h.Hash:
		return &format.FormatError{Off: int64(h.Size() - 8), Msg: fmt.Sprintf("hash %#016x, header says %#016x", binary.LittleEndian.Uint64(md5sum[:8]), h.Hash), Err: ErrChecksum}
	}
	return nil
}

// pipedMaxRatio bounds the expansion decompressPiped trusts a header with.
const pipedMaxRatio = 16

// decompressPiped is Decompress for large zstd payloads: one zstdpipe
// pass into a buffer of exactly the declared size (klauspost's reader
// would take its slow low-memory mode for the reference's 128 MiB window
// and grow the output by copying). ok is false when it does not apply.
func decompressPiped(h Header, payload []byte, lim Limits) (d *Decompressed, ok bool, err error) {
	u := int(h.UncompressedSize)
	if h.Method != Zstd || lim.SkipVerify || h.UncompressedSize < windowedMin || uint64(u) != h.UncompressedSize || u > math.MaxInt-zstdpipe.Slack {
		return nil, false, nil
	}
	// The buffer is allocated before anything is decoded, so only for
	// sizes real code reaches (compression ratios up to pipedMaxRatio);
	// a header claiming more goes through the reader, whose buffer grows
	// with the data actually decoded.
	if h.UncompressedSize/pipedMaxRatio > uint64(len(payload)) {
		return nil, false, nil
	}
	out := make([]byte, u+zstdpipe.Slack)
	n, derr := zstdpipe.Decode(out, payload, u, zstdpipe.Options{MaxWindow: 1 << 31})
	var sum []byte
	if derr == nil && lim.Hash != HashSkip {
		s := md5.Sum(out[:n])
		sum = s[:]
	}
	if err := pipeResult(h, derr, n, sum, lim.Hash); err != nil {
		return nil, true, err
	}
	d = &Decompressed{Header: h, Data: out[:n:n], Compressed: int64(len(payload))}
	if sum != nil {
		d.Hash = binary.LittleEndian.Uint64(sum[:8])
	}
	return d, true, nil
}

// released counts the history bytes given back or recycled early (for
// tests).
var released atomic.Int64

// recycler manages the pages of an output mapping behind a decoder: a
// dead stretch (history out of reach, already handed over) is moved in
// whole huge pages to just ahead of the decoder, where it will be written
// next, so that the output costs no page faults or zeroing past the
// first window; what cannot be placed ahead is released. recycle runs on
// the decoder's goroutine between blocks; release only once it is done.
type recycler struct {
	m     []byte
	first int  // offset of the first huge-page boundary in m
	freed int  // m[:freed] is moved away or released
	ahead int  // next free target (a huge-page boundary)
	moves bool // Move works here
}

func newRecycler(m []byte) *recycler {
	addr := int(uintptr(unsafe.Pointer(unsafe.SliceData(m))))
	first := (mmapfile.HugePage - addr%mmapfile.HugePage) % mmapfile.HugePage
	return &recycler{m: m, first: first, ahead: first, moves: true}
}

// recycle handles m[:dead], which will not be read again; nothing at or
// past touched has been written yet.
func (r *recycler) recycle(dead, touched int) {
	const h = mmapfile.HugePage
	if r.freed < r.first && dead >= r.first {
		r.release(r.first) // the unaligned head
	}
	for r.freed >= r.first && r.freed+h <= dead {
		chunk := r.m[r.freed : r.freed+h]
		// The first boundary at or past touched and past earlier targets.
		t := max(r.ahead, r.first+(max(touched-r.first, 0)+h-1)/h*h)
		if r.moves && t+h <= len(r.m) && mmapfile.Move(chunk, r.m[t:t+h]) == nil {
			r.ahead = t + h
		} else {
			r.moves = false // near the end, or not possible here
			mmapfile.Release(chunk)
		}
		released.Add(h)
		r.freed += h
	}
}

// release gives back m[freed:end] (page-aligned); for use once the
// decoder is done, and for the unaligned head.
func (r *recycler) release(end int) {
	lim := end &^ (mmapfile.PageSize - 1) // (Anon mappings are page-aligned)
	if lim > r.freed {
		mmapfile.Release(r.m[r.freed:lim])
		released.Add(int64(lim - r.freed))
		r.freed = lim
	}
}
