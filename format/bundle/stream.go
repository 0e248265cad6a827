package bundle

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/offload-kit/offload-kit/format"
)

// Reader streams the uncompressed bundle out of a CCOB blob and checks
// size and hash when the stream ends (like archive/zip's checksumReader):
// the final Read reports a *format.FormatError wrapping ErrChecksum
// instead of io.EOF on a mismatch.
type Reader struct {
	Header Header
	r      io.Reader
	closer func()
	md     hash.Hash
	n      uint64
	verify bool
	// checkHash fails the stream on an MD5 mismatch (Limits.Hash).
	checkHash bool
	err       error
}

// NewReader opens the CCOB blob at the start of buf. The same limits as
// Decompress apply to UncompressedSize.
func NewReader(buf []byte, lim Limits) (*Reader, error) {
	h, err := ParseHeader(buf)
	if err != nil {
		return nil, err
	}
	payload := h.payload(buf)
	return newReader(h, bytes.NewReader(payload), int64(len(payload)), lim)
}

// NewReaderFrom is NewReader for a blob that is not in memory: head holds
// at least the header, and the compressed payload (payloadSize bytes) is
// read from payload, e.g. an io.SectionReader over the file, so that a
// large input never has to be mapped or held.
func NewReaderFrom(head []byte, payload io.Reader, payloadSize int64, lim Limits) (*Reader, error) {
	h, err := ParseHeader(head)
	if err != nil {
		return nil, err
	}
	return newReader(h, payload, payloadSize, lim)
}

func newReader(h Header, payload io.Reader, payloadLen int64, lim Limits) (*Reader, error) {
	if err := checkLimits(h, payloadLen, lim); err != nil {
		return nil, err
	}
	rd := &Reader{Header: h, verify: !lim.SkipVerify, checkHash: !lim.SkipVerify && lim.Hash == HashVerify}
	if lim.Hash != HashSkip {
		rd.md = md5.New()
	}
	switch h.Method {
	case Zstd:
		conc := 1
		if payloadLen > 4<<20 {
			conc = 0
		}
		// The decoder's low-memory mode is about 3.5x slower, but the fast
		// mode keeps about twice the window resident. Frames with a small
		// window (ours: 8 MiB) take the fast mode; the reference's single
		// long-window frame (LDM, 128 MiB) keeps memory low.
		br := bufio.NewReaderSize(payload, 64<<10)
		lowmem := true
		if head, _ := br.Peek(zstd.HeaderMaxSize); len(head) > 0 {
			var zh zstd.Header
			if zh.Decode(head) == nil && zh.WindowSize > 0 && zh.WindowSize <= 32<<20 {
				lowmem = false
			}
		}
		d, err := zstd.NewReader(br,
			zstd.WithDecoderConcurrency(conc),
			zstd.WithDecoderLowmem(lowmem),
			zstd.WithDecoderMaxMemory(max(h.UncompressedSize, 256<<20)),
			zstd.WithDecoderMaxWindow(256<<20))
		if err != nil {
			return nil, format.Errorf(int64(h.Size()), format.ErrCorrupt, "Could not decompress embedded file contents: %v", err)
		}
		rd.r, rd.closer = d, d.Close
	default:
		z, err := zlib.NewReader(payload)
		if err != nil {
			return nil, format.Errorf(int64(h.Size()), format.ErrCorrupt, "Could not decompress embedded file contents: %v", err)
		}
		rd.r, rd.closer = z, func() { z.Close() }
	}
	return rd, nil
}

// checkLimits rejects a header whose uncompressed size is over the limit
// or impossible for the compressed size (a decompression bomb), before
// anything is allocated.
func checkLimits(h Header, payloadLen int64, lim Limits) error {
	maxSize := lim.MaxSize
	if maxSize == 0 {
		maxSize = defaultMaxSize
	}
	if h.UncompressedSize > maxSize {
		return format.Errorf(8, format.ErrLimit, "uncompressed size %d exceeds the %d-byte limit", h.UncompressedSize, maxSize)
	}
	if h.UncompressedSize > 64+uint64(payloadLen)*maxRatio(h.Method) {
		return format.Errorf(8, format.ErrLimit, "uncompressed size %d is implausible for %d compressed bytes", h.UncompressedSize, payloadLen)
	}
	return nil
}

// Read implements io.Reader. Without verification, output past
// UncompressedSize is dropped, as the reference truncates it.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if left := r.Header.UncompressedSize - r.n; uint64(len(p)) > left && !r.verify {
		p = p[:left]
	}
	n, err := r.r.Read(p)
	if r.md != nil {
		r.md.Write(p[:n])
	}
	r.n += uint64(n)
	if r.verify && r.n > r.Header.UncompressedSize {
		r.err = &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed data exceeds the %d bytes the header records", r.Header.UncompressedSize), Err: ErrChecksum}
		return n, r.err
	}
	if !r.verify && r.n == r.Header.UncompressedSize && err == nil {
		err = io.EOF
	}
	switch {
	case err == io.EOF:
		r.err = io.EOF
		if r.verify {
			if r.n != r.Header.UncompressedSize {
				r.err = &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed %d bytes, header says %d", r.n, r.Header.UncompressedSize), Err: ErrChecksum}
			} else if got := r.Sum(); r.checkHash && got != r.Header.Hash {
				r.err = &format.FormatError{Off: int64(r.Header.Size() - 8), Msg: fmt.Sprintf("hash %#016x, header says %#016x", got, r.Header.Hash), Err: ErrChecksum}
			}
		}
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		r.err = &format.FormatError{Off: 8, Msg: "decompressed data exceeds the size the header records", Err: ErrChecksum}
	case err != nil:
		r.err = format.Errorf(int64(r.Header.Size()), format.ErrCorrupt, "Could not decompress embedded file contents: %v", err)
	}
	return n, r.err
}

// WriteTo decodes the rest of the stream into w with the MD5 computed on
// another goroutine, so hashing costs no wall time next to decompression;
// size and hash are verified at the end as Read does. Use it instead of
// Read, not after a partial Read.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	const chunk = 4 << 20
	free := make(chan []byte, 3)
	for i := 0; i < cap(free); i++ {
		free <- make([]byte, chunk)
	}
	todo := make(chan []byte, cap(free))
	hashed := make(chan struct{})
	go func() {
		for b := range todo {
			if r.md != nil {
				r.md.Write(b)
			}
			free <- b[:cap(b)]
		}
		close(hashed)
	}()
	var total int64
	var werr error
	for werr == nil {
		buf := <-free
		n, err := io.ReadFull(r.r, buf)
		if n > 0 {
			if _, e := w.Write(buf[:n]); e != nil {
				werr = e
			}
			total += int64(n)
			todo <- buf[:n]
		} else {
			free <- buf
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			err = nil
			if werr == nil {
				werr = io.EOF
			}
		case err != nil && werr == nil:
			werr = err
		}
		if r.verify && uint64(total) > r.Header.UncompressedSize && werr == nil {
			werr = &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed data exceeds the %d bytes the header records", r.Header.UncompressedSize), Err: ErrChecksum}
		}
	}
	close(todo)
	<-hashed
	r.n = uint64(total)
	switch {
	case werr == io.EOF:
		if r.verify {
			if r.n != r.Header.UncompressedSize {
				return total, &format.FormatError{Off: 8, Msg: fmt.Sprintf("decompressed %d bytes, header says %d", r.n, r.Header.UncompressedSize), Err: ErrChecksum}
			}
			if got := r.Sum(); r.checkHash && got != r.Header.Hash {
				return total, &format.FormatError{Off: int64(r.Header.Size() - 8), Msg: fmt.Sprintf("hash %#016x, header says %#016x", got, r.Header.Hash), Err: ErrChecksum}
			}
		}
		return total, nil
	case errors.Is(werr, zstd.ErrDecoderSizeExceeded):
		return total, &format.FormatError{Off: 8, Msg: "decompressed data exceeds the size the header records", Err: ErrChecksum}
	}
	var fe *format.FormatError
	if errors.As(werr, &fe) {
		return total, werr
	}
	return total, format.Errorf(int64(r.Header.Size()), format.ErrCorrupt, "Could not decompress embedded file contents: %v", werr)
}

// Sum is the truncated MD5 of what has been read so far (0 with
// HashSkip).
func (r *Reader) Sum() uint64 {
	if r.md == nil {
		return 0
	}
	var s [16]byte
	r.md.Sum(s[:0])
	return binary.LittleEndian.Uint64(s[:8])
}

// Close releases the decoder.
func (r *Reader) Close() error {
	if r.closer != nil {
		r.closer()
		r.closer = nil
	}
	return nil
}

// CompressTo streams size bytes from src into w as a CCOB blob starting at
// offset 0 of w, and returns its header. The payload is written as it is
// produced; the header, which records the total size and the hash of the
// whole input, is written last, so w must support WriteAt (an *os.File
// does). Inputs larger than one chunk are compressed as independent zstd
// frames by o.Concurrency workers, so payloads of many GiB (version 3)
// never sit in memory whole: at most about 2×workers chunks are buffered.
func CompressTo(w io.WriterAt, src io.Reader, size int64, o CompressOptions) (Header, error) {
	v := o.version()
	if v < 1 || v > 3 { // 1 is what LLVM 18 writes (release.Profile.CCOBVersion)
		return Header{}, fmt.Errorf("cannot write compressed bundle version %d", v)
	}
	if v <= 2 && size > 0xffffffff {
		return Header{}, fmt.Errorf("Uncompressed size exceeds version %d limit", v)
	}
	h := Header{Version: v, Method: Zstd, UncompressedSize: uint64(size)}
	if o.Zlib {
		h.Method = Zlib
	}
	md := md5.New()
	in := io.TeeReader(io.LimitReader(src, size), md)
	ow := &offsetWriter{w: w, off: int64(h.Size())}
	var err error
	switch {
	case o.Zlib:
		err = streamZlib(ow, in, o)
	case o.External != nil && o.Level >= ExternalFrom:
		err = o.External(ow, countReader{in, &ow.in, o.Progress}, size, o.Level)
	default:
		err = streamZstd(ow, in, size, o)
	}
	if err != nil {
		return Header{}, err
	}
	if ow.in != size {
		return Header{}, fmt.Errorf("compressing bundle: read %d of %d bytes: %w", ow.in, size, io.ErrUnexpectedEOF)
	}
	h.TotalFileSize = uint64(ow.off)
	if v == 2 && h.TotalFileSize > 0xffffffff {
		return Header{}, fmt.Errorf("Total file size exceeds version 2 limit")
	}
	var sum [16]byte
	md.Sum(sum[:0])
	h.Hash = binary.LittleEndian.Uint64(sum[:8])
	if _, err := w.WriteAt(h.AppendHeader(nil), 0); err != nil {
		return Header{}, err
	}
	return h, nil
}

type offsetWriter struct {
	w   io.WriterAt
	off int64
	in  int64 // uncompressed bytes consumed (set by the stream functions)
}

func (o *offsetWriter) Write(p []byte) (int, error) {
	n, err := o.w.WriteAt(p, o.off)
	o.off += int64(n)
	return n, err
}

type countReader struct {
	r        io.Reader
	n        *int64
	progress func(int64)
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	if c.progress != nil && n > 0 {
		c.progress(int64(n))
	}
	return n, err
}

func streamZlib(ow *offsetWriter, in io.Reader, o CompressOptions) error {
	level := o.Level
	if level < 0 || level > 9 {
		level = 6
	}
	zw, err := zlib.NewWriterLevel(ow, level)
	if err != nil {
		return err
	}
	if _, err := io.Copy(zw, countReader{in, &ow.in, o.Progress}); err != nil {
		return err
	}
	return zw.Close()
}

// streamZstd compresses in with zstd: inputs up to LongMax are held and
// searched for long matches beside compression (compressHeld, long.go);
// larger ones are independent frames.
func streamZstd(ow *offsetWriter, in io.Reader, size int64, o CompressOptions) error {
	if size > 0 && size <= LongMax {
		return compressHeld(ow, in, size, o)
	}
	return streamZstdFrames(ow, in, size, o)
}

// streamZstdFrames compresses in as independent frames of o.ChunkSize,
// on o.Concurrency goroutines.
func streamZstdFrames(ow *offsetWriter, in io.Reader, size int64, o CompressOptions) error {
	chunk, workers := o.chunkSize(), o.workers()
	type job struct {
		data []byte
		out  chan []byte
	}
	// Chunk and frame buffers are recycled: fresh 16 MiB allocations
	// per chunk cost a page fault per 4 KiB and garbage collections.
	inFree := make(chan []byte, workers+2)
	outFree := make(chan []byte, workers+2)
	get := func(free chan []byte, n int) []byte {
		select {
		case b := <-free:
			return b[:0]
		default:
			return make([]byte, 0, n)
		}
	}
	put := func(free chan []byte, b []byte) {
		select {
		case free <- b:
		default:
		}
	}
	jobs := make(chan job)
	order := make(chan chan []byte, workers)
	var wg sync.WaitGroup
	var encErr error
	var once sync.Once
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc, err := newEncoder(o.Level, size)
			if err != nil {
				once.Do(func() { encErr = err })
			}
			for j := range jobs {
				if enc == nil {
					j.out <- nil
				} else {
					j.out <- enc.EncodeAll(j.data, get(outFree, chunk/2))
				}
				put(inFree, j.data)
			}
			if enc != nil {
				enc.Close()
			}
		}()
	}
	// Reader: cut the input into chunks, in order.
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			buf := get(inFree, chunk)[:chunk]
			n, err := io.ReadFull(in, buf)
			if n > 0 {
				out := make(chan []byte, 1)
				order <- out
				jobs <- job{data: buf[:n], out: out}
				ow.in += int64(n)
				o.progress(n)
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return
			}
			if err != nil {
				readErr = err
				return
			}
		}
	}()
	var writeErr error
	frames := 0
	for out := range order {
		frame := <-out
		if writeErr == nil && frame != nil {
			_, writeErr = ow.Write(frame)
		}
		if frame != nil {
			put(outFree, frame)
		}
		frames++
	}
	wg.Wait()
	switch {
	case encErr != nil:
		return encErr
	case readErr != nil:
		return readErr
	case writeErr != nil:
		return writeErr
	}
	if frames == 0 {
		// Empty input: one empty frame, as EncodeAll writes.
		enc, err := newEncoder(o.Level, size)
		if err != nil {
			return err
		}
		defer enc.Close()
		_, err = ow.Write(enc.EncodeAll(nil, nil))
		return err
	}
	return nil
}
