package bundler

import (
	"context"
	"io"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/binio"
)

// outSet collects outputs as temporary files and publishes them together,
// so a failure leaves no partial output. Writing one name twice keeps the
// last contents, as reopening a file for writing would.
type outSet struct {
	env   *Env
	files []*atomicfile.File
	by    map[string]*atomicfile.File
	src   *decodedFile // data inside it is copied file to file
	dm    *demux       // data inside its view is written as it is decoded
}

func newOutSet(env *Env) *outSet { return &outSet{env: env, by: map[string]*atomicfile.File{}} }

func (s *outSet) write(name string, data []byte) error {
	if old, ok := s.by[name]; ok {
		if s.dm != nil {
			s.dm.drop(old.File)
		}
		old.Abort()
	}
	f, err := atomicfile.Create(s.env.Path(name), s.env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	s.files = append(s.files, f)
	s.by[name] = f
	if s.dm != nil {
		if ok, err := s.dm.route(f.File, name, data); ok {
			if err != nil {
				return fileError(name, err)
			}
			return nil
		}
	}
	if s.src != nil {
		if off, ok := binio.OffsetIn(s.src.m.Data, data); ok {
			// copy_file_range from the decoded temporary: the bytes never
			// pass through (or stay resident in) this process.
			if _, err := s.src.f.Seek(off, io.SeekStart); err == nil {
				if _, err := io.CopyN(f.Writer(), s.src.f, int64(len(data))); err != nil {
					return fileError(name, err)
				}
				return nil
			}
		}
	}
	if _, err := f.Writer().Write(data); err != nil {
		return fileError(name, err)
	}
	return nil
}

func (s *outSet) commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, f := range s.files {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (s *outSet) abort() {
	for _, f := range s.files {
		f.Abort()
	}
}

// writeOutputAt writes one output atomically through WriteAt (a
// temporary file, or a memory buffer for "-").
func writeOutputAt(env *Env, name string, write func(w io.WriterAt) error) error {
	if name == "-" {
		var b memAt
		if err := write(&b); err != nil {
			return err
		}
		_, err := env.Stdout.Write(b.buf)
		return err
	}
	f, err := atomicfile.Create(env.Path(name), env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	if f.Streaming() { // a device or FIFO: no WriteAt
		var b memAt
		err := write(&b)
		if err == nil {
			_, err = f.Writer().Write(b.buf)
		}
		if err != nil {
			f.Abort()
			return err
		}
		return f.Commit()
	}
	if err := write(f.File); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fileError(name, err)
	}
	return nil
}

type memAt struct{ buf []byte }

func (m *memAt) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.buf) {
		m.buf = append(m.buf, make([]byte, end-len(m.buf))...)
	}
	copy(m.buf[off:], p)
	return len(p), nil
}

// ctxReader stops a long copy when the context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// writeOutput writes one output atomically.
func writeOutput(env *Env, name string, write func(w io.Writer) error) error {
	f, err := atomicfile.Create(env.Path(name), env.Stdout)
	if err != nil {
		return fileError(name, err)
	}
	if err := write(f.Writer()); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return fileError(name, err)
	}
	return nil
}
