package packager

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// Compressed bundles larger than smallCCOB are never decompressed into
// memory (a 125 KB CCOB of RLE blocks expands to 4 GiB). dump lists one
// from its header when the first bundle fills the decompressed data;
// otherwise, and whenever the bytes are needed (extract, --extract-
// bundles), the blob is decoded into an unlinked temporary file (zeros
// left as holes: bundle.WriteAtSink) that is mapped read-only. Parsing
// reads headers from the mapping; text bundles and the gaps between
// binary bundles are scanned in chunks whose pages are dropped behind
// (decodedChunk), and entries are written out file to file
// (copy_file_range). Resident memory stays near the decoder's window.

// decodedChunk is how much of a decoded mapping is scanned before its
// pages are dropped.
const decodedChunk = 16 << 20

// decoded is a CCOB blob's contents in an unlinked temporary file.
type decoded struct {
	f *os.File
	m *mmapfile.File
}

// decodeToFile decodes the CCOB blob into a temporary file and maps it.
func (l *lister) decodeToFile(blob []byte, h bundle.Header) ([]byte, error) {
	if h.UncompressedSize > maxInspectBytes {
		return nil, fmt.Errorf("decompressed size %d exceeds the %d bytes dump and extract expand", h.UncompressedSize, int64(maxInspectBytes))
	}
	f, err := os.CreateTemp("", "offload-dump-*.dec")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // unlinked: nothing is left behind, whatever happens
	sink := bundle.WriteAtSink(f)
	var werr error
	_, err = bundle.DecodeTo(blob, bundle.DecodeOptions{InputMapped: l.in.m.Mapped(), Limits: bundle.Limits{MaxSize: maxInspectBytes, Hash: bundle.HashSkip}},
		func(off int64, p []byte) error {
			if werr = sink(off, p); werr != nil {
				return werr
			}
			return nil
		})
	if err == nil {
		err = f.Truncate(int64(h.UncompressedSize))
	} else if werr != nil {
		err = fmt.Errorf("writing the decompressed data to a temporary file: %w", werr)
	}
	var m *mmapfile.File
	if err == nil {
		m, err = mmapfile.FromFile(f, f.Name())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	l.decoded = append(l.decoded, decoded{f: f, m: m})
	return m.Data, nil
}

// closeDecoded unmaps and closes the temporary files.
func (l *lister) closeDecoded() {
	for _, d := range l.decoded {
		d.m.Close()
		d.f.Close()
	}
	l.decoded = nil
}

// decodedAt tells whether b lies in a decoded mapping, and where in its
// file.
func (l *lister) decodedAt(b []byte) (*os.File, int64, bool) {
	for _, d := range l.decoded {
		if o, ok := binio.OffsetIn(d.m.Data, b); ok && len(b) > 0 {
			return d.f, o, true
		}
	}
	return nil, 0, false
}

// releaseDecoded drops the pages of decoded mappings that parsing
// touched.
func (l *lister) releaseDecoded() {
	for _, d := range l.decoded {
		if d.m.Mapped() {
			mmapfile.Release(d.m.Data)
		}
	}
}

// scanText reads the text bundle in data (a decoded mapping) chunk by
// chunk, dropping each chunk's pages behind; the entries alias data.
func scanText(data []byte, comment string) (*bundle.Bundle, error) {
	s := bundle.NewTextScanner(comment)
	for p := 0; p < len(data); p += decodedChunk {
		c := data[p:min(len(data), p+decodedChunk)]
		if _, err := s.Write(c); err != nil {
			return nil, err
		}
		mmapfile.Release(c)
	}
	b, err := s.Close()
	if err != nil {
		return nil, err
	}
	for i := range b.Entries {
		e := &b.Entries[i]
		e.Data = data[e.Offset : e.Offset+e.Size : e.Offset+e.Size]
	}
	return b, nil
}

// nextMagicIn is nextMagic(p, false) over a decoded mapping: holes in
// its file (zeros, which hold no magic) are skipped without reading them
// (SEEK_DATA), data is searched chunk by chunk, dropping each chunk's
// pages behind.
func (l *lister) nextMagicIn(p []byte) int {
	var f *os.File
	var base int64
	for _, d := range l.decoded {
		if o, ok := binio.OffsetIn(d.m.Data, p); ok && runtime.GOOS == "linux" {
			f, base = d.f, o
		}
	}
	over := len(bundle.Magic) - 1
	for s := 0; s < len(p); {
		if f != nil {
			// The next data at or after s (no magic starts in a hole: it
			// does not start with a zero).
			next, err := f.Seek(base+int64(s), seekData)
			switch {
			case errors.Is(err, syscall.ENXIO):
				return -1 // only a hole is left
			case err != nil:
				f = nil // no SEEK_DATA here: read everything
			default:
				s = max(s, int(next-base))
				if s >= len(p) {
					return -1
				}
			}
		}
		c := p[s:min(len(p), s+decodedChunk+over)]
		if i := bytes.Index(c, bundle.Magic); i >= 0 {
			return s + i
		}
		mmapfile.Release(p[s:min(len(p), s+decodedChunk)])
		s += decodedChunk
	}
	return -1
}

// seekData is Linux's SEEK_DATA whence (syscall has no name for it).
const seekData = 3

// peekHead lists a large CCOB blob without keeping its contents: a
// binary bundle at its start is decoded only until its header is complete
// (at most smallCCOB bytes are kept), a text bundle is scanned while
// decoding. ok is false when the decompressed data is not one binary
// bundle that fills it, nor a text bundle (the caller decodes it into a
// file then). The entries have no Data. Contents that start with neither
// are an error, as the reference finds no bundle there.
func peekHead(blob []byte, h bundle.Header) (b *bundle.Bundle, text, ok bool, err error) {
	total := int64(h.UncompressedSize)
	if total <= 0 || total > maxInspectBytes {
		return nil, false, false, nil
	}
	var head []byte
	var scan *bundle.TextScanner
	var perr error
	_, err = bundle.DecodeTo(blob, bundle.DecodeOptions{Limits: bundle.Limits{Hash: bundle.HashSkip}}, func(off int64, p []byte) error {
		if scan != nil {
			_, err := scan.Write(p)
			return err
		}
		head = append(head, p...)
		if int64(len(head)) > total {
			return bundle.ErrStop
		}
		if len(head) < 4096 {
			return nil
		}
		if c, isText := textBundleComment(head); isText {
			scan = bundle.NewTextScanner(c)
			_, err := scan.Write(head)
			head = nil
			return err
		}
		if !bytes.HasPrefix(head, bundle.Magic) {
			perr = fmt.Errorf("no bundle at the start of the %d bytes of decompressed data", total)
			return bundle.ErrStop
		}
		if _, done := bundle.HeaderLen(head, total); !done && len(head) < smallCCOB {
			return nil
		} else if done {
			pb, err := bundle.ParseHead(head, total, false)
			switch {
			case err != nil:
				perr = err
			case pb.End == total:
				b, ok = pb, true
			}
		}
		return bundle.ErrStop
	})
	if perr != nil {
		return nil, false, false, perr
	}
	if scan != nil && err == nil {
		b, err = scan.Close()
		if err != nil {
			return nil, false, false, err
		}
		return b, true, true, nil
	}
	if !errors.Is(err, bundle.ErrStop) {
		if err == nil {
			err = errors.New("decoding ended early")
		}
		return nil, false, false, err
	}
	if b != nil {
		for i := range b.Entries {
			b.Entries[i].Data = nil
		}
	}
	return b, false, ok, nil
}
