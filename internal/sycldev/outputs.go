package sycldev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/split"
)

// stager writes the side outputs of --ir-output-only (modules, .prop,
// .sym) straight to their final names, remembering them; abort removes
// every one, so a failed run leaves nothing behind. The table (-o) is
// written atomically (temp file + rename) after all of them, so a table
// never names a missing file. Writing in place instead of temp+rename
// halves the file-system operations, which dominate a 4000-part split.
type stager struct {
	mu    sync.Mutex
	files []string
}

func (s *stager) write(final string, data []byte) error {
	s.add(final)
	if err := os.WriteFile(final, data, 0o644); err != nil {
		return fileErr(final, "%v", errors.Unwrap(err))
	}
	return nil
}

// reserve records final, which a tool will write.
func (s *stager) reserve(final string) (string, error) {
	s.add(final)
	return final, nil
}

func (s *stager) add(final string) {
	s.mu.Lock()
	s.files = append(s.files, final)
	s.mu.Unlock()
}

// commit keeps the files.
func (s *stager) commit() { s.mu.Lock(); s.files = nil; s.mu.Unlock() }

func (s *stager) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files {
		os.Remove(f)
	}
	s.files = nil
}

// partName is the stem of part p's files, as intel's makeResultFileName
// (spec §2.10): <stem of -o>, "_esimd" for an ESIMD part, "_<ID>", where
// the ESIMD and SYCL parts of one split share the ID.
func (d *driver) partName(p *split.Part) string {
	suffix := ""
	if p.ESIMD {
		suffix = "_esimd"
	}
	return fmt.Sprintf("%s%s_%d", d.stem(), suffix, p.ID)
}

func (d *driver) outBase(name string) string {
	dir := d.o.OutDir
	if dir == "" {
		dir = filepath.Dir(d.o.Output)
	}
	return filepath.Join(dir, name)
}

// stageCode writes a part's module (text with -S, else bitcode through
// llvm-as) to a staged file, and releases the text.
func (d *driver) stageCode(ctx context.Context, r *partResult) error {
	base := d.outBase(r.name)
	if !d.o.NoPropFiles {
		var pb bytes.Buffer
		if d.o.PropJSON {
			js, err := r.props.MarshalJSONSets()
			if err != nil {
				return err
			}
			pb.Write(js)
		} else if err := r.props.WriteText(&pb); err != nil {
			return err
		}
		if err := d.stage.write(base+".prop", pb.Bytes()); err != nil {
			return err
		}
	}
	if !d.o.NoSymFiles {
		if err := d.stage.write(base+".sym", []byte(r.symbols)); err != nil {
			return err
		}
	}
	r.props, r.symbols, r.kernels = nil, "", nil // written; only the name is needed now
	if d.o.TextIR {
		r.code = base + ".ll"
		err := d.stage.write(r.code, r.ir)
		r.ir = nil
		return err
	}
	r.code = base + ".bc"
	if inproc, err := d.assemble(ctx, r, r.code); inproc {
		return err
	}
	ll, err := d.work.Name(r.name, "ll")
	if err != nil {
		return err
	}
	if err := workdir.WriteNew(ll, r.ir); err != nil {
		return err
	}
	r.ir = nil
	tmp, err := d.stage.reserve(r.code)
	if err != nil {
		return err
	}
	if err := d.exec(ctx, d.tools, nil, "llvm-as", ll, "-o", tmp); err != nil {
		return err
	}
	if !d.work.SaveTemps() {
		os.Remove(ll)
	}
	return nil
}

// writeIROutputs writes, as sycl-post-link does, <dir>/<stem>[_esimd]_<ID>.bc
// (or .ll with -S; already staged by stageCode), .prop and .sym per part, and
// the table at -o: [Code|Properties|Symbols]. All files appear together or
// not at all.
func (d *driver) writeIROutputs(res []*partResult) error {
	o := d.o
	st := d.stage
	tab := &split.Table{Columns: []string{"Code"}}
	if !o.NoPropFiles {
		tab.Columns = append(tab.Columns, "Properties")
	}
	if !o.NoSymFiles {
		tab.Columns = append(tab.Columns, "Symbols")
	}
	for _, r := range res {
		base := d.outBase(r.name)
		row := []string{r.code}
		if !o.NoPropFiles {
			row = append(row, base+".prop")
		}
		if !o.NoSymFiles {
			row = append(row, base+".sym")
		}
		tab.Rows = append(tab.Rows, row)
	}
	var tb bytes.Buffer
	if _, err := tab.WriteTo(&tb); err != nil {
		return err
	}
	if err := workdir.WriteFile(o.Output, tb.Bytes(), 0o644); err != nil {
		return fileErr(o.Output, "%v", err)
	}
	st.commit()
	return nil
}
