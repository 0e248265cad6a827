package sycldev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/workdir"
	"github.com/offload-kit/offload-kit/split"
)

// stager writes the side outputs of --ir-output-only (modules, .prop,
// .sym) as every other output is written (internal/atomicfile): each to a
// hidden temporary beside its final name (O_EXCL, never through a planted
// symlink), closed at once so that thousands of parts hold no descriptors,
// and renamed over the final name by commit, after which the table (-o) is
// written; a table thus never names a missing file. abort removes the
// temporaries only: a failed run never deletes a file it did not create,
// and a symlink planted at a final name is replaced, never followed. A
// final name that is a device or FIFO is written in place at once.
//
// A final name that the directory listing (one per output directory, taken
// when the first part is written) shows free is written instead as an
// unnamed O_TMPFILE file and linked at its name as soon as its data is
// written (linkat: it fails with EEXIST on anything that appeared there
// since, a symlink included, and that part then takes the temporary-plus-
// rename path). Linking at once keeps the descriptor count at one per
// writer and never shows a partial file: the name appears with its whole
// content or not at all. What it gives up is that parts appear before the
// table rather than at commit; the table is still written last, so it never
// names a missing file, and a failed or interrupted run removes these
// parts as it removes those it renamed into place (they are its own: linkat
// replaces nothing). A SIGKILL before linking leaves nothing behind.
type stager struct {
	mu      sync.Mutex
	pending []*atomicfile.File
	renamed []string                   // created by this run (removed if the table fails)
	lists   map[string]map[string]bool // directory -> names in it (nil: unknown)
	noTmp   map[string]bool            // directories refusing O_TMPFILE
	dirs    map[string]int             // directory -> its descriptor (openDir)
	unhook  func()
}

func (s *stager) write(final string, data []byte) error {
	if atomicfile.Interrupted() {
		return fileErr(final, "%w", atomicfile.ErrInterrupted)
	}
	if dirfd, ok := s.absent(final); ok {
		dir, base := filepath.Split(final)
		unsupported, err := writeTmpfile(dirfd, base, data, 0o644)
		dir = filepath.Clean(dir)
		if err == nil {
			if !s.created(final) {
				return fileErr(final, "%w", atomicfile.ErrInterrupted)
			}
			return nil
		}
		if unsupported {
			s.mu.Lock()
			s.noTmp[dir] = true
			s.mu.Unlock()
		}
		// EEXIST (a name planted since the listing) or another error:
		// the temporary-plus-rename path replaces it or reports the error.
	}
	f, err := atomicfile.CreateMode(final, nil, 0o644)
	if err != nil {
		return fileErr(final, "%w", reason(err))
	}
	s.add(f)
	if _, err := f.Writer().Write(data); err != nil {
		f.Abort()
		return fileErr(final, "%w", err)
	}
	if err := f.Seal(); err != nil {
		return fileErr(final, "%w", reason(err))
	}
	return nil
}

// absent reports whether final's directory, as listed once, has no entry
// named final's base, and O_TMPFILE may be tried there: then dirfd is the
// directory's descriptor (opened once, closed by closeDirs).
func (s *stager) absent(final string) (dirfd int, ok bool) {
	dir, base := filepath.Split(final)
	dir = filepath.Clean(dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists == nil {
		s.lists, s.noTmp, s.dirs = map[string]map[string]bool{}, map[string]bool{}, map[string]int{}
	}
	if s.noTmp[dir] {
		return -1, false
	}
	names, listed := s.lists[dir]
	if !listed {
		names = listNames(dir)
		s.lists[dir] = names
		if names != nil {
			fd, err := openDir(dir)
			if err != nil {
				s.noTmp[dir] = true
				return -1, false
			}
			s.dirs[dir] = fd
		}
	}
	if names == nil || names[base] {
		return -1, false
	}
	return s.dirs[dir], true
}

// closeDirs closes the directories' descriptors, once no part is being
// written (not from abort, which an interrupt may run meanwhile).
func (s *stager) closeDirs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fd := range s.dirs {
		closeDir(fd)
	}
	s.dirs = map[string]int{}
}

// listNames is the set of names in dir; nil when it cannot be read.
func listNames(dir string) map[string]bool {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	ns, err := f.Readdirnames(-1)
	if err != nil {
		return nil
	}
	m := make(map[string]bool, len(ns))
	for _, n := range ns {
		m[n] = true
	}
	return m
}

// created records a part linked at final by this run, to be removed if
// the run fails or is interrupted; false (and final removed) when an
// interrupt came first.
func (s *stager) created(final string) bool {
	s.mu.Lock()
	s.renamed = append(s.renamed, final)
	if s.unhook == nil {
		s.unhook = func() {}
		s.mu.Unlock()
		u := atomicfile.OnInterrupt(s.abort)
		s.mu.Lock()
		s.unhook = u
	}
	s.mu.Unlock()
	if atomicfile.Interrupted() {
		os.Remove(final)
		return false
	}
	return true
}

// reserve creates the temporary that a tool (llvm-as) writes in place of
// final, and returns its name; a final name written in place (a FIFO) is
// handed to the tool as it is.
func (s *stager) reserve(final string) (string, error) {
	f, err := atomicfile.CreateMode(final, nil, 0o644)
	if err != nil {
		return "", fileErr(final, "%w", reason(err))
	}
	if f.Streaming() {
		f.Abort() // only closes it: the tool opens it itself
		return final, nil
	}
	s.add(f)
	if err := f.Seal(); err != nil {
		return "", fileErr(final, "%w", reason(err))
	}
	return f.TempName(), nil
}

func (s *stager) add(f *atomicfile.File) {
	s.mu.Lock()
	s.pending = append(s.pending, f)
	s.mu.Unlock()
}

// commit renames every staged file over its final name; on a failure the
// rest are discarded (abort removes those already renamed).
func (s *stager) commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.pending {
		if err := f.Commit(); err != nil {
			for _, g := range s.pending[i+1:] {
				g.Abort()
			}
			s.pending = nil
			var pe *os.PathError
			if errors.As(err, &pe) {
				return fileErr(pe.Path, "%w", pe.Err)
			}
			return err
		}
		if !f.Streaming() {
			s.renamed = append(s.renamed, f.Name())
		}
	}
	s.pending = nil
	return nil
}

// done keeps the committed files.
func (s *stager) done() {
	s.mu.Lock()
	s.renamed = nil
	u := s.unhook
	s.mu.Unlock()
	if u != nil {
		u()
	}
}

// abort removes the temporaries not yet committed and the files this run
// renamed into place (its own, complete outputs) when the table could not
// follow them; nothing else.
func (s *stager) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unhook != nil {
		defer s.unhook()
	}
	for _, f := range s.pending {
		f.Abort()
	}
	for _, f := range s.renamed {
		os.Remove(f)
	}
	s.pending, s.renamed = nil, nil
}

// reason is err without an *os.PathError's operation and name (the
// caller names the output, never a temporary).
func reason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkIROutput refuses, before any work, an -o that --ir-output-only
// cannot derive its numbered outputs from: a device, FIFO or /proc link
// (-o /dev/null would otherwise create /dev/null_0.bc in /dev; LLVM 22's
// clang-sycl-linker creates /dev/null_0.spv there) unless --out-dir says
// where the modules go.
func checkIROutput(o *Options) error {
	if o.OutDir == "" && atomicfile.InPlace(o.Output) {
		return fileErr(o.Output, "not a regular file: --ir-output-only names its modules after -o in -o's directory; give --out-dir=<dir> for them")
	}
	return nil
}

// checkOverwrites fails, before anything is written, when an output of
// --ir-output-only (a part's module, .prop or .sym, or the table) would
// replace one of the run's own inputs (the file an input names, through
// symlinks; a symlink at the output's name is replaced, its target kept).
func (d *driver) checkOverwrites(parts []split.Part) error {
	o := d.o
	var ins []string
	ins = append(ins, o.Inputs...)
	ins = append(ins, d.libFiles...) // resolved once: a FIFO is read then
	type in struct {
		name string
		fi   os.FileInfo
	}
	var infos []in
	for _, n := range ins {
		if fi, err := os.Stat(n); err == nil && fi.Mode().IsRegular() {
			infos = append(infos, in{n, fi})
		}
	}
	outs := []string{o.Output}
	for i := range parts {
		base := d.outBase(d.partName(&parts[i]))
		if o.TextIR {
			outs = append(outs, base+".ll")
		} else {
			outs = append(outs, base+".bc")
		}
		if !o.NoPropFiles {
			outs = append(outs, base+".prop")
		}
		if !o.NoSymFiles {
			outs = append(outs, base+".sym")
		}
	}
	// One listing per output directory: only names that exist are
	// examined (a fresh directory costs one read, not a stat per file).
	lists := map[string]map[string]bool{}
	for _, out := range outs {
		dir, base := filepath.Split(out)
		dir = filepath.Clean(dir)
		names, ok := lists[dir]
		if !ok {
			names = listNames(dir)
			if names == nil {
				if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
					names = map[string]bool{} // nothing there to overwrite
				}
			}
			lists[dir] = names
		}
		if names != nil && !names[base] {
			continue
		}
		fi, err := os.Lstat(out)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		for _, i := range infos {
			if os.SameFile(fi, i.fi) {
				return fileErr(out, "output would overwrite the input '%s'", i.name)
			}
		}
	}
	return nil
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
	if err := d.exec(ctx, d.tools, nil, d.partFile(r), "llvm-as", ll, "-o", tmp); err != nil {
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
	if err := st.commit(); err != nil {
		return err
	}
	if err := workdir.WriteFile(o.Output, tb.Bytes(), 0o644); err != nil {
		return fileErr(o.Output, "%w", reason(err))
	}
	st.done()
	return nil
}
