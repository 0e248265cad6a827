package bundle

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// Sink receives the decompressed bytes of a CCOB blob in order: off is
// the offset of p in the decompressed stream, and p is valid only during
// the call. An error from the sink is returned by DecodeTo unchanged (no
// further bytes are delivered).
type Sink func(off int64, p []byte) error

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
// result to sink in order, verifying size and hash (unless SkipVerify)
// after the last byte. Errors are *format.FormatError values as NewReader
// and Reader.Read give them, or the sink's error.
//
// Memory stays near the compression window, however large the output.
// For zstd (on Linux), the payload is decoded in one pass straight into a
// reserved, uncommitted anonymous mapping the size of the output, so that
// the decoder uses the output itself as its history and never copies it
// (klauspost's streaming decoder either shifts its history buffer or keeps
// twice the window resident; for the 128 MiB window clang-offload-bundler
// writes that is 3× slower or twice the memory). A second goroutine follows
// the decoder: the pages it has finished are hashed and passed to sink,
// and pages older than the window are released, so at most about one
// window of output is resident.
func DecodeTo(blob []byte, o DecodeOptions, sink Sink) (Header, error) {
	h, err := ParseHeader(blob)
	if err != nil {
		return h, err
	}
	end := uint64(len(blob))
	if h.Version >= 2 && h.TotalFileSize <= end {
		end = h.TotalFileSize
	}
	payload := blob[h.Size():end]
	if err := checkLimits(h, int64(len(payload)), o.Limits); err != nil {
		return h, err
	}
	if h.Method == Zstd && !o.SkipVerify && h.UncompressedSize >= windowedMin {
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

// frameWindow returns the largest window any frame of a zstd payload
// declares (a single-segment frame's window is its content size), walking
// frame and block headers only. ok is false when a frame carries a
// content checksum (klauspost checks it by re-reading the whole frame's
// output, which must then stay resident) or the walk fails; the decoder
// reports the failure itself.
func frameWindow(p []byte) (window uint64, ok bool) {
	for len(p) > 0 {
		var zh zstd.Header
		rest, err := zh.DecodeAndStrip(p)
		if err != nil {
			return 0, false
		}
		if zh.Skippable {
			if uint64(zh.SkippableSize) > uint64(len(rest)) {
				return 0, false
			}
			p = rest[zh.SkippableSize:]
			continue
		}
		if zh.HasCheckSum || zh.DictionaryID != 0 {
			return 0, false
		}
		w := zh.WindowSize
		if zh.SingleSegment {
			w = zh.FrameContentSize
		}
		window = max(window, w)
		// Blocks: a 3-byte little-endian header (last, type, size).
		for {
			if len(rest) < 3 {
				return 0, false
			}
			bh := uint32(rest[0]) | uint32(rest[1])<<8 | uint32(rest[2])<<16
			rest = rest[3:]
			size := int(bh >> 3)
			switch (bh >> 1) & 3 {
			case 1: // RLE: one byte
				size = 1
			case 3:
				return 0, false
			}
			if size > len(rest) {
				return 0, false
			}
			rest = rest[size:]
			if bh&1 != 0 {
				break
			}
		}
		p = rest
	}
	return window, true
}

// Tuning of the follower goroutine.
const (
	// Output within this distance of the first page the decoder has not
	// touched is not yet final: klauspost writes a block (at most 128 KiB)
	// in order, with short over-copies past its end, and a transparent huge
	// page (mmapfile.Anon asks for them) makes 2 MiB resident at once; a
	// stray read just past the write position could map the huge zero
	// page over the next 2 MiB, hence two huge pages.
	followMargin = 4<<20 + 256<<10
	followChunk  = 1 << 20 // hand over at least this much at a time
	followMax    = 4 << 20 // and at most this much
	followPoll   = 300 * time.Microsecond
	dropInputAt  = 4 << 20 // release the compressed input every so often
)

// decodeWindowed is DecodeTo's zstd path for large outputs. done is false
// when it cannot run here (no anonymous mappings), before anything has
// been delivered.
func decodeWindowed(h Header, payload []byte, o DecodeOptions, sink Sink) (done bool, err error) {
	u := int(h.UncompressedSize)
	if uint64(u) != h.UncompressedSize {
		return false, nil
	}
	window, ok := frameWindow(payload)
	if !ok || window > uint64(u) {
		window = uint64(u) // keep everything: no page is released early
	}
	m, err := mmapfile.Anon(u)
	if err != nil {
		return false, nil
	}
	defer mmapfile.Unmap(m)
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(u)),
		zstd.WithDecoderMaxWindow(256<<20),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return false, nil
	}
	defer dec.Close()

	var final atomic.Int64 // decoded length once DecodeAll returned, else -1
	final.Store(-1)
	md := md5.New()
	var sinkErr error
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		vec := make([]byte, 512)
		pages := len(m) / mmapfile.PageSize
		var written, freed, dropped, fp int
		for {
			complete := int(final.Load())
			fin := complete >= 0
			if !fin {
				// The first page the decoder has not touched yet.
				for fp < pages {
					n := min(pages-fp, len(vec))
					if mmapfile.Resident(m[fp*mmapfile.PageSize:(fp+n)*mmapfile.PageSize], vec[:n]) != nil {
						break
					}
					if i := firstClear(vec[:n]); i >= 0 {
						fp += i
						break
					}
					fp += n
				}
				complete = min(fp*mmapfile.PageSize-followMargin, u)
			}
			cursor := fp * mmapfile.PageSize
			if o.InputMapped && cursor-dropped >= dropInputAt {
				// The decoder reads its input front to back; what it has
				// read is dropped (it faults back in if needed again).
				mmapfile.Release(payload)
				dropped = cursor
			}
			if complete > written && (fin || complete-written >= followChunk) {
				// At most followMax at a time, so that input and history
				// keep being released while hashing and writing lag.
				end := min(complete, written+followMax)
				b := m[written:end]
				md.Write(b)
				if sinkErr == nil {
					sinkErr = sink(int64(written), b)
				}
				written = end
				// History a window behind the decoder is dead (all of it once
				// the decoder is done); what has been handed over is no
				// longer needed here.
				dead := cursor - followMargin - int(window)
				if fin {
					dead = written
				}
				if lim := min(written, dead) &^ (mmapfile.PageSize - 1); lim > freed {
					mmapfile.Release(m[freed:lim])
					released.Add(int64(lim - freed))
					freed = lim
				}
				continue
			}
			if fin {
				return
			}
			time.Sleep(followPoll)
		}
	}()
	out, derr := dec.DecodeAll(payload, m[:0:u])
	n, got := len(out), len(out)
	if n > 0 && &out[0] != &m[0] {
		derr = errors.New("decoder reallocated its output") // WithDecodeAllCapLimit forbids it
		n = 0
	}
	if derr != nil {
		n = 0 // deliver nothing more
	}
	final.Store(int64(n))
	<-followed
	switch {
	case errors.Is(derr, zstd.ErrDecoderSizeExceeded):
		return true, &format.FormatError{Off: 8, Msg: "decompressed data exceeds the size the header records", Err: ErrChecksum}
	case derr != nil:
		return true, format.Errorf(int64(h.Size()), format.ErrCorrupt, "Could not decompress embedded file contents: %v (after %d of %d bytes)", derr, got, u)
	case sinkErr != nil:
		return true, sinkErr
	case uint64(n) != h.UncompressedSize:
		return true, &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed %d bytes, header says %d", n, h.UncompressedSize), Err: ErrChecksum}
	}
	var sum [16]byte
	md.Sum(sum[:0])
	if got := binary.LittleEndian.Uint64(sum[:8]); got != h.Hash {
		return true, &format.FormatError{Off: int64(h.Size() - 8), Msg: fmt.Sprintf("hash %#016x, header says %#016x", got, h.Hash), Err: ErrChecksum}
	}
	return true, nil
}

// released counts the history bytes given back early (for tests).
var released atomic.Int64

func firstClear(vec []byte) int {
	for i, v := range vec {
		if v&1 == 0 {
			return i
		}
	}
	return -1
}
