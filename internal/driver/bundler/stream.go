package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// Unbundling a compressed input streams it: the decoder (bundle.DecodeTo)
// hands over the decompressed bytes in order while it runs, and they go
//
//   - for a binary bundle (what -compress writes), straight into the
//     output files: the header at the front is parsed as soon as it is
//     complete, the outputs are chosen by the same code as for an
//     uncompressed input (unbundleData, on a sparse view of the bundle in
//     which only the header is present), and every later byte is written
//     at its place in the outputs whose entries cover it. Nothing the size
//     of the bundle is ever resident or written twice;
//   - otherwise (text or object bundles), into an unlinked temporary file
//     that is then mapped and unbundled like an uncompressed input, its
//     outputs copied file to file.

// decodedFile is a compressed input decoded into an unlinked temporary
// file and mapped.
type decodedFile struct {
	f *os.File
	m *mmapfile.File
}

func (d *decodedFile) Close() {
	d.m.Close()
	d.f.Close()
}

// canStream reports whether the unbundle input takes the streaming path:
// a CCOB blob in a regular file, without -verbose statistics or -###.
func (c *config) canStream(in *input) bool {
	if c.verbose || c.PrintCommands || in.m == nil || !bytes.HasPrefix(in.data, bundle.CCOBMagic) {
		return false
	}
	h, err := bundle.ParseHeader(in.data)
	return err == nil && h.Version >= 2
}

type demuxMode int

const (
	undecided demuxMode = iota
	toOutputs           // binary bundle: bytes go to the outputs' ranges
	toFile              // anything else: bytes go to a temporary file
)

// outRange is the part [off, off+n) of the decompressed bundle that is
// one output file.
type outRange struct {
	f    *os.File
	name string
	off  int64
	n    int64
}

// demux is the sink of a streamed decode. Its fields are written by the
// decoding goroutine until ready is closed; after that, main registers
// ranges until it closes resume, and only then does the sink go on.
type demux struct {
	env      *Env
	size     int64
	allowOut bool // outputs can be written at offsets (none is "-")

	mode   demuxMode
	view   []byte // sparse: only [0, filled) was written (the header)
	mapped bool   // view is an mmapfile.Anon mapping
	filled int64
	tmp    *os.File
	ranges []outRange

	ready  chan struct{} // mode is decided (or decoding ended)
	once   sync.Once
	resume chan struct{} // outputs are registered; the sink goes on
	done   chan struct{} // decoding ended; err is set
	err    error
}

// outputError marks an error writing an output, which is reported as
// itself rather than as a decompression failure.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }

func (c *config) startDemux(env *Env, in *input) *demux {
	h, _ := bundle.ParseHeader(in.data)
	d := &demux{env: env, size: int64(h.UncompressedSize), allowOut: true,
		ready: make(chan struct{}), resume: make(chan struct{}), done: make(chan struct{})}
	for _, o := range c.Outputs {
		if o == "-" {
			d.allowOut = false
		}
	}
	if d.size > 0 {
		v, err := anonView(int(min(d.size, math.MaxInt)))
		switch {
		case err == nil && int64(len(v)) >= d.size:
			d.view, d.mapped = v[:d.size], true
		case d.size <= heapViewMax:
			d.view = make([]byte, d.size) // untouched pages stay unbacked
		default:
			// No sparse view for a large output (not Linux, or no address
			// space): decode into the temporary file from the start.
			if err == nil {
				mmapfile.Unmap(v)
			}
			d.allowOut = false
		}
	}
	rep := env.Progress.Start("decompressing", d.size)
	go func() {
		_, err := bundle.DecodeTo(in.data, bundle.DecodeOptions{InputMapped: in.m.Mapped(), Limits: bundle.Limits{Hash: bundle.HashSkip}}, func(off int64, p []byte) error {
			rep.Add(int64(len(p)))
			return d.sink(off, p)
		})
		rep.Done()
		if err == nil && d.mode == undecided {
			err = d.decide(true)
		}
		d.err = err
		d.markReady()
		close(d.done)
	}()
	return d
}

// The sparse view's memory (variables for tests): a reserved anonymous
// mapping, else an ordinary allocation up to heapViewMax.
var (
	anonView          = mmapfile.Anon
	heapViewMax int64 = 64 << 20
)

func (d *demux) sink(off int64, p []byte) error {
	if d.mode == undecided && d.view == nil {
		if err := d.decide(true); err != nil {
			return err
		}
	}
	switch d.mode {
	case toFile:
		if _, err := d.tmp.WriteAt(p, off); err != nil {
			return outputError{err}
		}
		return nil
	case toOutputs:
		end := off + int64(len(p))
		for _, r := range d.ranges {
			a, b := max(off, r.off), min(end, r.off+r.n)
			if a < b {
				if _, err := r.f.WriteAt(p[a-off:b-off], a-r.off); err != nil {
					return outputError{fileError(r.name, err)}
				}
			}
		}
		return nil
	}
	if off+int64(len(p)) > d.size {
		return fmt.Errorf("decompressed data exceeds the %d bytes the header records", d.size)
	}
	copy(d.view[off:], p)
	d.filled = off + int64(len(p))
	return d.decide(false)
}

// decide picks the mode once the front of the bundle is known: at the
// end of decoding (final) or as soon as the binary header is complete.
func (d *demux) decide(final bool) error {
	if d.filled < int64(len(bundle.Magic)) && !final {
		return nil
	}
	if d.allowOut && bytes.HasPrefix(d.view, bundle.Magic) {
		if _, ok := bundle.HeaderLen(d.view[:d.filled], d.size); !ok {
			return nil
		}
		d.mode = toOutputs
		d.markReady()
		<-d.resume
		return nil
	}
	tmp, err := os.CreateTemp("", "offload-bundle-*.dec")
	if err != nil {
		return outputError{err}
	}
	os.Remove(tmp.Name()) // unlinked: nothing is left behind, whatever happens
	d.tmp, d.mode = tmp, toFile
	d.markReady()
	if _, err := tmp.WriteAt(d.view[:d.filled], 0); err != nil {
		return outputError{err}
	}
	d.releaseView()
	return nil
}

func (d *demux) markReady() { d.once.Do(func() { close(d.ready) }) }

func (d *demux) releaseView() {
	if d.mapped {
		mmapfile.Unmap(d.view[:cap(d.view)])
		d.mapped = false
	}
	d.view = nil
}

// route registers data, a slice of the view, as the whole content of f.
// The part already decoded (the header) is written now, the rest as it
// arrives. ok is false when data is not in the view or f is stdout.
func (d *demux) route(f *os.File, name string, data []byte) (ok bool, err error) {
	if f == nil {
		return false, nil
	}
	off, in := binio.OffsetIn(d.view, data)
	if !in || len(data) == 0 {
		return false, nil
	}
	r := outRange{f: f, name: name, off: off, n: int64(len(data))}
	d.ranges = append(d.ranges, r)
	if off < d.filled {
		if _, err := f.WriteAt(d.view[off:min(d.filled, off+r.n)], 0); err != nil {
			return true, err
		}
	}
	return true, nil
}

// drop forgets the ranges written to f (an output named twice).
func (d *demux) drop(f *os.File) {
	rs := d.ranges[:0]
	for _, r := range d.ranges {
		if r.f != f {
			rs = append(rs, r)
		}
	}
	d.ranges = rs
}

// unbundleStream unbundles a CCOB input while it is being decoded.
// Decompression errors win over unbundling errors, as they would if the
// input were decoded first.
func (c *config) unbundleStream(env *Env, in *input) error {
	d := c.startDemux(env, in)
	<-d.ready
	outs := newOutSet(env)
	defer outs.abort()
	var err error
	switch d.mode {
	case toOutputs:
		outs.dm = d
		err = c.unbundleData(env, d.view, outs)
		close(d.resume)
		<-d.done
		outs.dm = nil
		defer d.releaseView()
	default:
		<-d.done
		d.releaseView() // undecided when decoding failed early
		if d.err == nil {
			var m *mmapfile.File
			if m, err = mmapfile.FromFile(d.tmp, in.name); err == nil {
				src := &decodedFile{f: d.tmp, m: m}
				defer src.Close()
				outs.src = src
				err = c.unbundleData(env, m.Data, outs)
			} else {
				d.tmp.Close()
			}
		} else if d.tmp != nil {
			d.tmp.Close()
		}
	}
	if d.err != nil {
		var oe outputError
		if errors.As(d.err, &oe) {
			return oe.err
		}
		return decompressError(in.name, 0, d.err)
	}
	if err != nil {
		return err
	}
	return outs.commit(c.ctx)
}
