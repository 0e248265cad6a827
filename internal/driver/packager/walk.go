package packager

import (
	"context"

	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// Walker is what Walk calls back with. Either function may be nil.
type Walker struct {
	// Input, when set, sees the whole input as soon as it is open (mapped,
	// or read from standard input); returning true takes the input as
	// handled, and it is not listed.
	Input func(data []byte) bool
	// Object sees each object, archive member, package or container file
	// as dump lists it (what dump --json prints for it), while the input
	// is still open.
	Object func(*Walked)
}

// Walked is one object of a walk: its listing and the bytes the listing
// points into. The bytes are valid only during the Object call.
type Walked struct {
	Object *DumpObject
	l      *lister
}

// Walk reads one input as dump --json does (the same containers, in the
// same order, nested ones described) and calls w back. It prints nothing
// and writes no files; the error is the one dump reports for the input,
// after the objects before the failure were seen.
func Walk(ctx context.Context, env *Env, name string, w Walker) error {
	_, err := dumpFile(ctx, env, name, DumpOptions{JSON: true}, &w)
	return err
}

// Mapping is the input's file mapping (a file:// URI's whole file), or
// nil for standard input; its pages may be released or advised.
func (w *Walked) Mapping() *mmapfile.File { return w.l.in.m }

// Span is the bytes at off of the input (an offset a DumpBundle or
// DumpFatbin gives), or nil when off is -1 (not stored plainly) or the
// range is not inside the input.
func (w *Walked) Span(off, size int64) []byte {
	data := w.l.in.data
	if off < 0 || size < 0 || !binio.InRange(uint64(off), uint64(size), uint64(len(data))) {
		return nil
	}
	return data[off : off+size]
}

// ImagePayload is an OffloadBinary image's payload: its bytes in the
// input, else the copy the listing holds of a payload that is not stored
// plainly (a compressed binary's inflated body, a bitcode host's image);
// nil when it has neither.
func (w *Walked) ImagePayload(im *DumpImage) []byte {
	if p := w.Span(im.ImageOffset, int64(im.ImageSize)); p != nil {
		return p
	}
	return im.data
}

// EntryPayload is the bytes the listing holds for a bundle, fatbin or
// HCF entry (as stored, or decoded from a small compressed bundle); nil
// when it did not keep them (a large compressed bundle's entries).
func (w *Walked) EntryPayload(e *DumpEntry) []byte { return e.data }
