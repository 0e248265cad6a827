package packager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/scan"
)

// ErrNoImages is the umbrella extract's error for an input that holds no
// device image in any container it reads.
var ErrNoImages = errors.New("no device images")

// ErrArchiveNeedsFile is LLVM's message for --archive without file=.
var ErrArchiveNeedsFile = errors.New("Image must have a 'file' argument.")

// ExtractOptions selects what to extract.
type ExtractOptions struct {
	Input   string
	Images  []string // --image filters; none means "everything"
	Archive bool
	// OutDir is where extracted files go (default: the current directory).
	// Names given with file= are relative to it too.
	OutDir string
	// LLVMMessages prints extraction failures exactly as llvm-offload-binary
	// does (without naming the input); otherwise errors name the file.
	LLVMMessages bool
	// Strict22 keeps LLVM 22.1.8's behaviour of doing nothing when no
	// --image is given (the llvm-offload-binary personality).
	Strict22 bool
	// Raw writes compressed fatbin entries as stored (the compressed
	// stream) instead of decoded, as cuobjdump -xelf/-xptx writes them.
	Raw bool
	// ListOnly writes nothing: it prints the names extract without
	// filters would write and the command that writes them (the bare
	// "offload-packager FILE" command line).
	ListOnly bool
	// indexInFile numbers extracted files by the image's position in the
	// input (LLVM 16's packager, release.Profile.PackagerIndexInFile).
	indexInFile bool
}

// Extract writes the selected images of an input to files.
//
// The umbrella command (not LLVMMessages) also sees the entries of
// clang-offload-bundler bundles (.hip_fatbin sections, old-driver
// __CLANG_OFFLOAD_BUNDLE__ sections, whole-file bundles) and NVIDIA
// fatbins, and every filter applies to them; --arch and --triple match
// as clang-offload-bundler matches targets (see matchEntry), and a filter
// that matches nothing is an error naming it. The llvm-offload-binary
// personality keeps LLVM's exact string matching, OffloadBinary images
// only, and silence when nothing matches.
func Extract(ctx context.Context, env *Env, opt ExtractOptions) error {
	ctx = withProgress(ctx, env)
	in, err := openInput(env, opt.Input)
	if err != nil {
		return fmt.Errorf("'%s': %s", opt.Input, ErrText(err))
	}
	defer in.Close()
	scan := env.Phases.Span("scan", opt.Input)
	bins, bufID, err := extractAll(ctx, env, in)
	var entries []extractEntry
	l := newLister(env, in, false)
	l.full = true
	defer l.close()
	if err == nil && !opt.LLVMMessages && !opt.Strict22 {
		entries, err = containerEntries(env, l, opt.Input)
	}
	scan.End()
	defer env.Phases.Span("write images", "").End()
	if err != nil {
		if opt.LLVMMessages {
			return err
		}
		return fmt.Errorf("'%s': %w", opt.Input, err)
	}
	if opt.OutDir != "" {
		e := *env
		e.Dir = filepath.Join(env.Dir, opt.OutDir)
		if filepath.IsAbs(opt.OutDir) {
			e.Dir = opt.OutDir
		}
		// -d names a directory that must exist: its error names it, not
		// the first file that would have been written in it.
		if st, err := os.Stat(e.Dir); err != nil {
			return fmt.Errorf("'%s': %s", opt.OutDir, ErrText(err))
		} else if !st.IsDir() {
			return fmt.Errorf("'%s': %s", opt.OutDir, capitalize(syscall.ENOTDIR.Error()))
		}
		env = &e
	}
	stem := driverenv.Stem(uriPath(opt.Input))
	if len(opt.Images) == 0 {
		if opt.Strict22 {
			return nil
		}
		var outs []extractOutput
		for i, b := range bins {
			name := safeName(fmt.Sprintf("%s-%s%s.%d.%s", stem, b.Get("triple"), dashIf(b.Get("arch")), i, b.ImageKind.Ext()))
			outs = append(outs, extractOutput{name, func() error { return writeImage(ctx, env, in, name, b) }})
		}
		for _, e := range entries {
			outs = append(outs, extractOutput{e.name, func() error { return l.writeEntryImage(ctx, env, e.name, e.DumpEntry, opt.Raw) }})
		}
		if len(outs) == 0 {
			// A whole-file HCF holds no OffloadBinary: its images, or an error.
			ok, hout, err := hcfOutputs(env, in, opt.Input, stem)
			if err != nil {
				return err
			}
			outs = hout
			if !ok && !opt.LLVMMessages {
				return fmt.Errorf("%s: %w", opt.Input, ErrNoImages)
			}
		}
		if opt.ListOnly {
			return listOutputs(env, opt.Input, outs)
		}
		for _, o := range outs {
			if err := o.write(); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Extracted: %s\n", o.name)
		}
		return nil
	}
	umbrella := !opt.LLVMMessages
	for _, arg := range opt.Images {
		filter := joinRepeated(offload.ParseImageArg(arg))
		var matches []*offload.Binary
		for _, b := range bins {
			if umbrella && matchCompatible(b.Kind().String(), b.Get("triple"), b.Get("arch"), b.Get, filter) ||
				!umbrella && matchImage(b, filter) {
				matches = append(matches, b)
			}
		}
		var ematches []extractEntry
		for _, e := range entries {
			if matchCompatible(e.Kind, e.Triple, e.Arch, e.get, filter) {
				ematches = append(ematches, e)
			}
		}
		file, hasFile := lookup(filter, "file")
		if len(matches)+len(ematches) == 0 {
			if umbrella && len(bins)+len(entries) == 0 {
				if ok, _, _ := hcfOutputs(env, in, opt.Input, stem); !ok {
					return fmt.Errorf("%s: %w", opt.Input, ErrNoImages)
				}
			}
			if umbrella {
				return noMatch(opt.Input, arg, filter, bins, entries)
			}
			continue
		}
		if opt.Archive {
			if !hasFile {
				return ErrArchiveNeedsFile
			}
			var members []ar.WriteMember
			for _, b := range matches {
				members = append(members, ar.WriteMember{Name: bufID[b], Data: b.Image})
			}
			for _, e := range ematches {
				data, err := entryImage(e.DumpEntry, opt.Raw)
				if err != nil {
					return fmt.Errorf("'%s': %s: %s", opt.Input, e.name, ErrText(err))
				}
				if data == nil && e.Size > 0 {
					return fmt.Errorf("'%s': %s: the entry's bytes were not decoded", opt.Input, e.name)
				}
				members = append(members, ar.WriteMember{Name: e.name, Data: data})
			}
			if err := atomicfile.WriteFile(env.Path(file), env.Stdout, func(w io.Writer) error {
				return ar.WriteGNUWith(w, members, ar.Options{Symbols: archiveSymbols})
			}); err != nil {
				return fmt.Errorf("'%s': %s", file, ErrText(err))
			}
			continue
		}
		if hasFile {
			if len(matches)+len(ematches) > 1 {
				fmt.Fprintf(env.Stderr, "%s: warning: Multiple inputs match to a single file, '%s'\n", env.Tool, file)
			}
			var err error
			if len(ematches) > 0 {
				err = l.writeEntryImage(ctx, env, file, ematches[len(ematches)-1].DumpEntry, opt.Raw)
				if err != nil {
					err = fmt.Errorf("'%s': %s", file, ErrText(err))
				}
			} else {
				err = writeImage(ctx, env, in, file, matches[len(matches)-1])
			}
			if err != nil {
				return err
			}
			if umbrella {
				fmt.Fprintf(env.Stdout, "Extracted: %s\n", file)
			}
			continue
		}
		for i, b := range matches {
			if opt.indexInFile {
				i = indexOf(bins, b)
			}
			name := safeName(fmt.Sprintf("%s-%s-%s.%d.%s", stem, b.Get("triple"), b.Get("arch"), i, b.ImageKind.Ext()))
			if err := writeImage(ctx, env, in, name, b); err != nil {
				return err
			}
			if umbrella {
				fmt.Fprintf(env.Stdout, "Extracted: %s\n", name)
			}
		}
		for _, e := range ematches {
			if err := l.writeEntryImage(ctx, env, e.name, e.DumpEntry, opt.Raw); err != nil {
				return fmt.Errorf("'%s': %s", e.name, ErrText(err))
			}
			fmt.Fprintf(env.Stdout, "Extracted: %s\n", e.name)
		}
	}
	return nil
}

// extractAll runs LLVM's extractOffloadBinaries over the whole input and
// reports failures in that tool's words. bufID gives each binary's LLVM
// buffer identifier: the archive member name, or the input path as given.
func extractAll(ctx context.Context, env *Env, in *input) (bins []*offload.Binary, bufID map[*offload.Binary]string, err error) {
	k := format.Identify(in.data)
	if k == format.KindOffloadBinary {
		// llvm-offload-binary parses a raw package directly: its error has
		// no "while extracting" context.
		if _, _, err := offload.Parse(in.data); err != nil {
			return nil, nil, errors.New(offload.LLVMError(err))
		}
	}
	units, err := scan.Input(in.name, in.data, scan.Options{ReadFile: func(p string) ([]byte, error) {
		return readRegular(env.Path(p))
	}})
	if err != nil {
		return nil, nil, errors.New(llvmText(err))
	}
	bufID = map[*offload.Binary]string{}
	for _, u := range units {
		for _, b := range u.Images {
			bufID[b] = in.name
			if u.Member != "" {
				bufID[b] = u.Member
			}
		}
		bins = append(bins, u.Images...)
	}
	return bins, bufID, nil
}

// llvmText maps our error to LLVM's message where the failure is one LLVM
// also detects, and keeps our more precise text otherwise.
func llvmText(err error) string {
	if s := offload.LLVMError(err); s != "" {
		return s
	}
	return err.Error()
}

func matchImage(b *offload.Binary, filter []offload.KV) bool {
	for _, kv := range filter {
		switch kv.Key {
		case "file":
		case "kind":
			// Either numbering of HIP (3 up to LLVM 19, 4 after).
			if b.Kind() != offload.CanonicalKind(format.ParseOffloadKind(kv.Value)) {
				return false
			}
		default:
			if b.Get(kv.Key) != kv.Value {
				return false
			}
		}
	}
	return true
}

// joinRepeated merges repeated keys by joining their values with ",", as
// the DenseMap the LLVM tool builds does (order is irrelevant for matching).
func joinRepeated(kv []offload.KV) []offload.KV {
	var out []offload.KV
	idx := map[string]int{}
	for _, e := range kv {
		if i, ok := idx[e.Key]; ok {
			out[i].Value += "," + e.Value
			continue
		}
		idx[e.Key] = len(out)
		out = append(out, e)
	}
	return out
}

func lookup(kv []offload.KV, key string) (string, bool) {
	for _, e := range kv {
		if e.Key == key {
			return e.Value, true
		}
	}
	return "", false
}

// writeImage writes one image. When the image lies in the input file
// itself, the bytes are copied file-to-file (copy_file_range), so they never
// pass through this process's memory.
func writeImage(ctx context.Context, env *Env, in *input, name string, b *offload.Binary) error {
	err := atomicfile.WriteFile(env.Path(name), env.Stdout, func(w io.Writer) error {
		if off, ok := binio.OffsetIn(in.data, b.Image); ok && in.name != "-" {
			if f, err := os.Open(env.Path(in.name)); err == nil {
				defer f.Close()
				if _, err := f.Seek(off, io.SeekStart); err == nil {
					return copyN(ctx, w, f, int64(len(b.Image)))
				}
			}
		}
		_, err := w.Write(b.Image)
		return err
	})
	if err != nil {
		return fmt.Errorf("'%s': %s", name, ErrText(err))
	}
	return nil
}

// uriPath returns the file path of a file:// URI input (the name itself
// for plain paths).
func uriPath(name string) string {
	if p, ok := strings.CutPrefix(name, "file://"); ok {
		p, _, _ = strings.Cut(p, "#")
		return p
	}
	return name
}

func dashIf(s string) string {
	if s == "" {
		return ""
	}
	return "-" + s
}

// safeName keeps a name built from strings inside the input within the
// output directory: path separators and NULs become '_', and a name made
// only of dots is prefixed.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
	if strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}

// readRegular reads a thin-archive member: regular files only, so a member
// naming /dev/zero or a FIFO cannot make the reader block or grow forever.
func readRegular(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return os.ReadFile(p)
}

// archiveSymbols indexes archive members the way LLVM's archive writer does:
// ELF and COFF objects through their symbol tables, LLVM bitcode through
// its irsymtab (or the module itself).
func archiveSymbols(data []byte) ([]string, bool, error) {
	if format.Identify(data) != format.KindBitcode {
		return ar.ObjectSymbols(data)
	}
	names, err := bitcode.ArchiveSymbols(data)
	if err != nil {
		return nil, false, err
	}
	return names, true, nil
}
