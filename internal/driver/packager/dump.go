package packager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/binio"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/scan"
)

// DumpSchema is the version of the --json document (docs/dump-json.md).
const DumpSchema = 2

// DumpOptions selects the dump format.
type DumpOptions struct {
	Files []string
	All   bool // every key and value, sizes and offsets, nested containers
	JSON  bool // the stable schema in docs/dump-json.md
	// ExtractBundles does what llvm-objdump --offloading does after
	// listing an object: it writes each entry of the bundles in the
	// object's sections to <file>.<bundle>.<entry ID> and prints
	// "Extracting offload bundle: <name>" (in place of the entry
	// listing). Without it dump writes nothing.
	ExtractBundles bool

	// prof is the release whose llvm-objdump the text output follows,
	// settled by Dump (zero: LLVM 22).
	prof release.Profile
}

// DumpFile is one input in the JSON dump.
type DumpFile struct {
	Path    string       `json:"path"`
	Objects []DumpObject `json:"objects"`
	Warning string       `json:"warning,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// DumpObject is an object file, archive member, raw package or container
// file, and the offload images it holds.
type DumpObject struct {
	Name   string `json:"name"`             // "a.o" or "lib.a(m.o)"
	Format string `json:"format,omitempty"` // objdump's file format name; empty for raw packages
	DumpContents
}

// DumpImage is one OffloadBinary entry.
type DumpImage struct {
	Index          int      `json:"index"`
	Version        uint32   `json:"version"`
	Offset         int64    `json:"offset"` // of the binary's header in the file; -1 if not stored plainly (bitcode, compressed)
	Size           uint64   `json:"size"`
	ImageKind      string   `json:"image_kind"`
	ImageKindValue uint16   `json:"image_kind_value"`
	OffloadKind    string   `json:"offload_kind"`
	OffloadValue   uint16   `json:"offload_kind_value"`
	Flags          uint32   `json:"flags"`
	Kind           string   `json:"kind"` // = offload_kind, the name bundle entries use too
	Triple         string   `json:"triple"`
	Arch           string   `json:"arch"`
	ImageOffset    int64    `json:"image_offset"` // of the payload in the file; -1 as above
	ImageSize      int      `json:"image_size"`
	Strings        []DumpKV `json:"strings"`
	// Contents describes the payload when it is itself a container (a
	// bundle, fatbin, OffloadBinary...). Filled by --all and --json.
	Contents *DumpContents `json:"contents,omitempty"`
	// InflatedSize is a compressed v3 binary's inflated size (0: not
	// compressed), printed by --all; JSON readers see it as version 3 with
	// offset -1.
	InflatedSize uint64 `json:"-"`

	data []byte // the payload when it is not in the file (ImageOffset -1), for Walked.ImagePayload
	// producer is what the release's llvm-objdump prints after "producer"
	// for the stored kind number (release.Profile.OffloadKindName).
	producer string
}

// DumpKV is one string entry of an OffloadBinary.
type DumpKV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Dump prints the offload images in each file. The default output keeps
// every line `llvm-objdump --offloading` prints while listing, byte for
// byte, and adds the entries of bundles, fatbins and HCF objects that it
// does not list; it writes no files. ExtractBundles adds llvm-objdump's
// side effect (see writeBundles).
func Dump(ctx context.Context, env *Env, opt DumpOptions) error {
	ctx = withProgress(ctx, env)
	prof, err := env.Release(ctx)
	if err != nil {
		return err
	}
	opt.prof = prof
	var files []DumpFile
	var firstErr error
	for _, name := range opt.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		sp := env.Phases.Span("dump", name)
		df, err := dumpFile(ctx, env, name, opt, nil)
		sp.End()
		if opt.JSON {
			if err != nil {
				df.Error = err.Error()
			}
			files = append(files, df)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	if opt.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Schema int        `json:"schema"`
			Files  []DumpFile `json:"files"`
		}{DumpSchema, files}); err != nil {
			return err
		}
		if firstErr != nil {
			return firstErr
		}
	}
	return nil
}

// dumpFile lists one input; walk, when not nil, is called back (Walk).
func dumpFile(ctx context.Context, env *Env, name string, opt DumpOptions, walk *Walker) (DumpFile, error) {
	df := DumpFile{Path: name, Objects: []DumpObject{}}
	text := !opt.JSON
	in, err := openInput(env, name)
	if err != nil {
		return df, fmt.Errorf("'%s': %s", name, ErrText(err))
	}
	defer in.Close()
	if walk != nil && walk.Input != nil && walk.Input(in.data) {
		return df, nil
	}
	deep := opt.All || opt.JSON
	// A file:// URI names part of a file: llvm-objdump has no such input,
	// and nothing is written for it.
	extract := opt.ExtractBundles && !strings.HasPrefix(name, "file://")
	l := newLister(env, in, deep)
	if opt.prof.Major != 0 {
		l.prof = opt.prof
	}
	defer l.close()
	l.full = extract
	// With --json, the "Extracting offload bundle" lines would break the
	// document: the files are written silently.
	xenv := env
	if opt.JSON {
		e := *env
		e.Stdout = io.Discard
		xenv = &e
	}
	emit := func(obj DumpObject) {
		obj.fill()
		if walk != nil && walk.Object != nil {
			walk.Object(&Walked{Object: &obj, l: l})
		}
		df.Objects = append(df.Objects, obj)
		if text {
			printObject(env.Stdout, obj, opt.All, !extract)
		}
	}
	// object lists an ELF or COFF object (or archive member): the file
	// format line and OffloadBinary images as llvm-objdump prints them
	// (the line is printed even when what follows fails, as there), then
	// the containers in its other sections.
	object := func(origin, base string, data []byte, k format.Kind) error {
		var eo *elfembed.Object
		var err error
		if isCOFFUnknownMachine(data) {
			eo, data, err = parseCOFFUnknownMachine(data)
			if err != nil {
				return err
			}
			k = format.KindCOFF
		} else if eo, err = elfembed.Parse(data); err != nil {
			return errors.New("The file was not recognized as a valid object file: " + err.Error())
		}
		obj := DumpObject{Name: origin, Format: fileFormatName(eo)}
		bins, err := scan.Images(data, k, scan.Options{})
		if err != nil {
			emit(obj)
			return fmt.Errorf("while extracting offloading files: %s", llvmText(err))
		}
		obj.Images = l.images(bins)
		var secs DumpContents
		if err := l.sections(eo, &secs); err != nil {
			emit(obj)
			return fmt.Errorf("while extracting offload FatBin bundles: %v", err)
		}
		obj.Bundles, obj.Fatbins, obj.HCF = secs.Bundles, secs.Fatbins, secs.HCF
		emit(obj)
		if extract {
			return writeBundles(ctx, xenv, l, base, obj.Bundles)
		}
		return nil
	}
	switch k := format.Identify(in.data); k {
	case format.KindArchive, format.KindThinArchive:
		a, err := ar.Parse(in.data)
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
		for _, m := range a.Members {
			origin := fmt.Sprintf("%s(%s)", name, m.Name)
			data := m.Data
			if a.Thin {
				m, err := mmapfile.Open(env.Path(thinMemberPath(name, m.Name)))
				if err != nil {
					return df, fmt.Errorf("%s: %s", origin, ErrText(err))
				}
				defer m.Close()
				data = m.Data
			}
			mk := format.Identify(data)
			if isCOFFUnknownMachine(data) {
				mk = format.KindCOFF
			}
			switch mk {
			case format.KindELF, format.KindCOFF:
				// objdump names a member's bundle files after the member,
				// and its errors too ('member.o': ..., not lib.a(member.o)).
				if err := object(origin, m.Name, data, mk); err != nil {
					return df, fmt.Errorf("'%s': %s", m.Name, err)
				}
			case format.KindCOFFImport:
				// A short import member of an import library: objdump
				// names its format and nothing else (it has no sections).
				emit(DumpObject{Name: origin, Format: COFFImportFormat})
			case format.KindOffloadBinary:
				// objdump maps the member in place; a package that is not
				// 8-aligned there fails OffloadBinary::create.
				if m.Offset%8 != 0 {
					return df, fmt.Errorf("%s: Invalid data was encountered while parsing the file", origin)
				}
				obj, err := rawImages(l, origin, data)
				if err != nil {
					return df, fmt.Errorf("%s: %s", origin, err)
				}
				emit(obj)
			case format.KindBitcode:
				// llvm-objdump skips bitcode members; dump lists those
				// that carry offload images (-flto fat objects), as it
				// lists a bitcode file, and skips the others (device
				// libraries), so that their listing stays llvm-objdump's.
				bins, err := scan.Images(data, mk, scan.Options{})
				if err != nil {
					return df, fmt.Errorf("'%s': %s", m.Name, llvmText(err))
				}
				if len(bins) > 0 {
					emit(DumpObject{Name: origin, Format: "llvm bitcode", DumpContents: DumpContents{Images: l.images(bins)}})
				}
			case format.KindArchive, format.KindThinArchive:
				// A member that is itself an archive is a binary but not
				// an object: llvm-objdump fails, naming the outer archive.
				return df, fmt.Errorf("'%s': The file was not recognized as a valid object file", name)
			default:
				// Not an object: llvm-objdump skips the member silently.
			}
		}
	case format.KindELF, format.KindCOFF:
		if err := object(name, name, in.data, k); err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
	case format.KindCOFFImport:
		// llvm-objdump reads short import members only inside archives
		// ("The file was not recognized as a valid object file" for one on
		// its own); dump prints the same line for the file as for a
		// member, and exits 0.
		emit(DumpObject{Name: name, Format: COFFImportFormat})
	case format.KindOffloadBinary:
		if _, _, err := offload.Parse(in.data); err != nil {
			return df, fmt.Errorf("'%s': %s", name, offload.LLVMError(err))
		}
		obj, err := rawImages(l, name, in.data)
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
		emit(obj)
	case format.KindBitcode:
		// llvm-objdump cannot read bitcode hosts; we can.
		bins, err := scan.Images(in.data, k, scan.Options{})
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, llvmText(err))
		}
		emit(DumpObject{Name: name, Format: "llvm bitcode", DumpContents: DumpContents{Images: l.images(bins)}})
	case format.KindMachO:
		f := machoFormatName(in.data)
		df.Objects = append(df.Objects, DumpObject{Name: name, Format: f, DumpContents: DumpContents{Images: []DumpImage{}, Bundles: []DumpBundle{}, Fatbins: []DumpFatbin{}, HCF: []DumpHCF{}}})
		df.Warning = "--offloading is currently only supported for COFF and ELF targets"
		if text {
			fmt.Fprintf(env.Stdout, "\n%s:\tfile format %s\n", name, f)
		}
		fmt.Fprintf(env.Stderr, "%s: warning: '%s': %s\n", env.Tool, name, df.Warning)
	default:
		if isCOFFUnknownMachine(in.data) {
			if err := object(name, name, in.data, format.KindCOFF); err != nil {
				return df, fmt.Errorf("'%s': %s", name, err)
			}
			break
		}
		// Not objects, so llvm-objdump rejects them; we list their entries.
		c, err := l.parse(in.data, 0)
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
		if c == nil {
			return df, fmt.Errorf("'%s': The file was not recognized as a valid object file", name)
		}
		emit(DumpObject{Name: name, Format: containerFormatName(in.data), DumpContents: *c})
		if extract {
			if err := writeBundles(ctx, xenv, l, name, c.Bundles); err != nil {
				return df, fmt.Errorf("'%s': %s", name, err)
			}
		}
	}
	return df, nil
}

// COFFImportFormat is the file format llvm-objdump prints for a COFF short
// import member (an import library's member).
const COFFImportFormat = "COFF-import-file"

// containerFormatName is the "file format" dump prints for an input that
// is itself a container.
func containerFormatName(data []byte) string {
	switch k := format.Identify(data); k {
	case format.KindBundle, format.KindCCOB, format.KindFatbin:
		return k.String()
	}
	if _, ok := textBundleComment(data); ok {
		return "text offload bundle"
	}
	return "hcf"
}

func rawImages(l *lister, origin string, data []byte) (DumpObject, error) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	if err != nil {
		return DumpObject{}, fmt.Errorf("while extracting offloading files: %s", llvmText(err))
	}
	return DumpObject{Name: origin, DumpContents: DumpContents{Images: l.images(bins)}}, nil
}

// images describes OffloadBinary entries, with their payloads' contents
// when the lister is deep.
func (l *lister) images(bins []*offload.Binary) []DumpImage {
	out := describe(l.in.data, bins, l.prof)
	if l.deep {
		for i, b := range bins {
			if d, ok := imageData(b); ok && IsContainer(l.peek(d, 256)) {
				out[i].Contents = l.contents(d, 1)
			}
		}
	}
	return out
}

// describe lists bins; prof is the release whose llvm-objdump the text
// output's "producer" line follows (kind 3 is "hip" up to LLVM 19 and
// "none" after, 4 the other way round), while the JSON document and the
// filters name the offload model in either numbering (offload.Binary.Kind).
func describe(file []byte, bins []*offload.Binary, prof release.Profile) []DumpImage {
	out := make([]DumpImage, len(bins))
	for i, b := range bins {
		imgOff, hdrOff := int64(-1), int64(-1)
		if off, ok := binio.OffsetIn(file, b.Image); ok {
			imgOff = off
			hdrOff = off - int64(b.ImageOffset)
		}
		out[i] = DumpImage{
			Index: i, Version: b.Version, Offset: hdrOff, Size: b.Size,
			ImageKind: b.ImageKind.String(), ImageKindValue: uint16(b.ImageKind),
			OffloadKind: b.Kind().String(), OffloadValue: uint16(b.OffloadKind),
			Flags: b.Flags, Kind: b.Kind().String(),
			producer: prof.OffloadKindName(uint16(b.OffloadKind)), Triple: b.Get("triple"), Arch: b.Get("arch"),
			ImageOffset: imgOff, ImageSize: len(b.Image), Strings: make([]DumpKV, len(b.Strings)),
			InflatedSize: b.InflatedSize,
		}
		for j, kv := range b.Strings {
			out[i].Strings[j] = DumpKV{kv.Key, kv.Value}
		}
		if imgOff < 0 {
			out[i].data = b.Image
		}
	}
	return out
}

// printObject writes objdump's layout: labels left-justified in 16 columns,
// a blank line before each image. Entries of other containers follow in
// the same layout (entries says whether to list bundle entries: not when
// they are being extracted, where llvm-objdump's lines replace them).
func printObject(w io.Writer, obj DumpObject, all, entries bool) {
	var sb strings.Builder
	if obj.Format != "" {
		fmt.Fprintf(&sb, "\n%s:\tfile format %s\n", obj.Name, obj.Format)
	}
	if obj.Format == COFFImportFormat {
		sb.WriteString("\n") // objdump's dumpObject(COFFImportFile) ends with "\n\n"
	}
	printContents(&sb, &obj.DumpContents, all, entries, "")
	io.WriteString(w, sb.String())
}

func hexOrNA(v int64) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("0x%x", v)
}

// quoteIfNeeded shows values with newlines or control bytes in Go syntax.
func quoteIfNeeded(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("%q", s)
		}
	}
	return s
}

// thinMemberPath resolves a thin archive member against the archive's
// directory, as the archive readers of LLVM and binutils do.
func thinMemberPath(archive, member string) string {
	if filepath.IsAbs(member) {
		return member
	}
	return filepath.Join(filepath.Dir(archive), member)
}
