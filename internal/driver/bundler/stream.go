package bundler

import (
	"bytes"
	"io"
	"os"

	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// decodedFile is a compressed input decoded into an unlinked temporary
// file and mapped: parsing touches only the pages it reads, and outputs
// are copied from the file, so unbundling a large compressed bundle needs
// neither the decompressed bytes nor the compressed input in memory.
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

// decompressToFile streams the compressed payload from the input file
// (read(2), not the mapping) through the decoder into a temporary file,
// with the MD5 check running alongside, and maps the result.
func (c *config) decompressToFile(env *Env, in *input) (*decodedFile, error) {
	h, err := bundle.ParseHeader(in.data)
	if err != nil {
		return nil, err
	}
	src, err := os.Open(env.path(in.name))
	if err != nil {
		return nil, fileError(in.name, err)
	}
	defer src.Close()
	hs := int64(h.Size())
	end := int64(h.TotalFileSize)
	if end > int64(len(in.data)) || end < hs {
		end = int64(len(in.data))
	}
	r, err := bundle.NewReaderFrom(in.data, io.NewSectionReader(src, hs, end-hs), end-hs, bundle.Limits{})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	tmp, err := os.CreateTemp("", "offload-bundle-*.dec")
	if err != nil {
		return nil, err
	}
	os.Remove(tmp.Name()) // unlinked: nothing is left behind, whatever happens
	if _, err := r.WriteTo(tmp); err != nil {
		tmp.Close()
		return nil, err
	}
	m, err := mmapfile.FromFile(tmp, in.name)
	if err != nil {
		tmp.Close()
		return nil, err
	}
	return &decodedFile{f: tmp, m: m}, nil
}
