package packager

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/binio"
	"io"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/hcf"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/scan"
)

// DumpOptions selects the dump format.
type DumpOptions struct {
	Files []string
	All   bool // every key and value, sizes and offsets
	JSON  bool // the stable schema in docs/dump-json.md
	// NoExtract skips what llvm-objdump does after listing: writing each
	// bundle entry of the objects' bundle sections to
	// <file>.<bundle>.<entry ID> and printing "Extracting offload bundle".
	NoExtract bool
}

// DumpFile is one input in the JSON dump.
type DumpFile struct {
	Path    string       `json:"path"`
	Objects []DumpObject `json:"objects"`
	Warning string       `json:"warning,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// DumpObject is an object file, archive member or raw package holding images.
type DumpObject struct {
	Name   string      `json:"name"`             // "a.o" or "lib.a(m.o)"
	Format string      `json:"format,omitempty"` // objdump's file format name; empty for raw packages
	Images []DumpImage `json:"images"`
	// Containers are other containers in the object's sections (bundles,
	// fatbins, HCF), or the whole file's structure for inputs that are
	// themselves bundles, fatbins or HCF. Filled by --all and --json.
	Containers []DumpNode `json:"containers,omitempty"`
}

// DumpImage is one OffloadBinary entry.
type DumpImage struct {
	Index          int          `json:"index"`
	Version        uint32       `json:"version"`
	Offset         int64        `json:"offset"` // of the binary's header in the file; -1 if not stored plainly (bitcode, compressed)
	Size           uint64       `json:"size"`
	ImageKind      string       `json:"image_kind"`
	ImageKindValue uint16       `json:"image_kind_value"`
	OffloadKind    string       `json:"offload_kind"`
	OffloadValue   uint16       `json:"offload_kind_value"`
	Flags          uint32       `json:"flags"`
	Triple         string       `json:"triple"`
	Arch           string       `json:"arch"`
	ImageOffset    int64        `json:"image_offset"` // of the payload in the file; -1 as above
	ImageSize      int          `json:"image_size"`
	Strings        []offload.KV `json:"strings"`
	// Contents describes the payload when it is itself a container (a
	// bundle, fatbin, OffloadBinary...). Filled by --all and --json.
	Contents []DumpNode `json:"contents,omitempty"`
}

// dumpError ends a default-mode dump the way llvm-objdump's reportError
// does: the first error is printed and the run stops with exit 1.
type dumpError struct{ msg string }

func (e *dumpError) Error() string { return e.msg }

// Dump prints the offload images in each file. The default output is
// byte-identical to `llvm-objdump --offloading`, including its side effect
// of writing the entries of clang-offload-bundler bundles found in
// sections to files (see extractBundles; NoExtract turns it off).
func Dump(env *Env, opt DumpOptions) error {
	var files []DumpFile
	var firstErr error
	for _, name := range opt.Files {
		if err := env.ctx().Err(); err != nil {
			return err
		}
		end := env.Phases.Begin("dump", name)
		df, err := dumpFile(env, name, opt)
		end()
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
		}{1, files}); err != nil {
			return err
		}
		if firstErr != nil {
			return firstErr
		}
	}
	return nil
}

func dumpFile(env *Env, name string, opt DumpOptions) (DumpFile, error) {
	df := DumpFile{Path: name, Objects: []DumpObject{}}
	text := !opt.JSON
	in, err := openInput(env, name)
	if err != nil {
		return df, fmt.Errorf("'%s': %s", name, errText(err))
	}
	defer in.Close()
	deep := opt.All || opt.JSON
	// The default output is llvm-objdump's, side effect included: bundle
	// entries are written next to the input. --all and --json only look.
	// (A file:// URI names part of a file: llvm-objdump has no such
	// input, and its bundles are listed only.)
	extract := !deep && !opt.NoExtract && !strings.HasPrefix(name, "file://")
	insp := &inspector{file: in.data}
	emit := func(obj DumpObject) {
		if deep {
			for i := range obj.Images {
				if d, ok := imageData(in.data, obj.Images[i]); ok {
					obj.Images[i].Contents = insp.contents(d, 1)
				}
			}
		}
		df.Objects = append(df.Objects, obj)
		if text {
			printObject(env.Stdout, obj, opt.All)
		}
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
				m, err := mmapfile.Open(env.path(thinMemberPath(name, m.Name)))
				if err != nil {
					return df, fmt.Errorf("%s: %s", origin, errText(err))
				}
				defer m.Close()
				data = m.Data
			}
			mk := format.Identify(data)
			switch mk {
			case format.KindELF, format.KindCOFF:
				obj, err := objectImages(in.data, origin, data, mk)
				if err != nil {
					return df, fmt.Errorf("%s: %s", origin, err)
				}
				emit(obj)
				if extract {
					// objdump names a member's bundle files after the member.
					if err := extractBundles(env, m.Name, data); err != nil {
						return df, fmt.Errorf("'%s': %s", m.Name, err)
					}
				}
			case format.KindOffloadBinary:
				// objdump maps the member in place; a package that is not
				// 8-aligned there fails OffloadBinary::create.
				if m.Offset%8 != 0 {
					return df, fmt.Errorf("%s: Invalid data was encountered while parsing the file", origin)
				}
				obj, err := rawImages(in.data, origin, data)
				if err != nil {
					return df, fmt.Errorf("%s: %s", origin, err)
				}
				emit(obj)
			default:
				return df, fmt.Errorf("%s: The file was not recognized as a valid object file", origin)
			}
		}
	case format.KindELF, format.KindCOFF:
		obj, err := objectImages(in.data, name, in.data, k)
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
		if deep {
			if eo, err := elfembed.Parse(in.data); err == nil {
				obj.Containers = insp.sections(eo, 0)
			}
		}
		emit(obj)
		if extract {
			if err := extractBundles(env, name, in.data); err != nil {
				return df, fmt.Errorf("'%s': %s", name, err)
			}
		}
	case format.KindBundle, format.KindCCOB, format.KindFatbin:
		// Not objects, so llvm-objdump rejects them; we show their structure.
		nodes := insp.contents(in.data, 0)
		if len(nodes) == 1 && nodes[0].Error != "" {
			return df, fmt.Errorf("'%s': %s", name, nodes[0].Error)
		}
		emit(DumpObject{Name: name, Format: k.String(), Images: []DumpImage{}, Containers: nodes})
	case format.KindOffloadBinary:
		if _, _, err := offload.Parse(in.data); err != nil {
			return df, fmt.Errorf("'%s': %s", name, offload.LLVMError(err))
		}
		obj, err := rawImages(in.data, name, in.data)
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, err)
		}
		emit(obj)
	case format.KindBitcode:
		// llvm-objdump cannot read bitcode hosts; we can.
		imgs, err := scan.Images(in.data, k, scan.Options{})
		if err != nil {
			return df, fmt.Errorf("'%s': %s", name, llvmText(err))
		}
		emit(DumpObject{Name: name, Format: "llvm bitcode", Images: describe(in.data, imgs)})
	case format.KindMachO:
		f := machoFormatName(in.data)
		df.Objects = append(df.Objects, DumpObject{Name: name, Format: f, Images: []DumpImage{}})
		df.Warning = "--offloading is currently only supported for COFF and ELF targets"
		if text {
			fmt.Fprintf(env.Stdout, "\n%s:\tfile format %s\n", name, f)
		}
		fmt.Fprintf(env.Stderr, "%s: warning: '%s': %s\n", env.Tool, name, df.Warning)
	default:
		if !looksLikeHCF(in.data) {
			return df, fmt.Errorf("'%s': The file was not recognized as a valid object file", name)
		}
		if f, err := hcf.Parse(in.data); err == nil && f.Root != nil && len(f.Root.Values)+len(f.Root.Children) > 0 {
			emit(DumpObject{Name: name, Format: "hcf", Images: []DumpImage{}, Containers: []DumpNode{insp.hcfNode(f, in.data, int64(len(in.data)))}})
			return df, nil
		}
		return df, fmt.Errorf("'%s': The file was not recognized as a valid object file", name)
	}
	return df, nil
}

// imageData returns the payload bytes of a described image.
func imageData(file []byte, im DumpImage) ([]byte, bool) {
	if im.ImageOffset < 0 || im.ImageOffset+int64(im.ImageSize) > int64(len(file)) {
		return nil, false
	}
	return file[im.ImageOffset : im.ImageOffset+int64(im.ImageSize)], true
}

func objectImages(file []byte, origin string, data []byte, k format.Kind) (DumpObject, error) {
	obj, err := elfembed.Parse(data)
	if err != nil {
		return DumpObject{}, errors.New("The file was not recognized as a valid object file: " + err.Error())
	}
	bins, err := scan.Images(data, k, scan.Options{})
	if err != nil {
		return DumpObject{}, fmt.Errorf("while extracting offloading files: %s", llvmText(err))
	}
	return DumpObject{Name: origin, Format: fileFormatName(obj), Images: describe(file, bins)}, nil
}

func rawImages(file []byte, origin string, data []byte) (DumpObject, error) {
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	if err != nil {
		return DumpObject{}, fmt.Errorf("while extracting offloading files: %s", llvmText(err))
	}
	return DumpObject{Name: origin, Images: describe(file, bins)}, nil
}

func describe(file []byte, bins []*offload.Binary) []DumpImage {
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
			OffloadKind: b.OffloadKind.String(), OffloadValue: uint16(b.OffloadKind),
			Flags: b.Flags, Triple: b.Get("triple"), Arch: b.Get("arch"),
			ImageOffset: imgOff, ImageSize: len(b.Image), Strings: b.Strings,
		}
		if out[i].Strings == nil {
			out[i].Strings = []offload.KV{}
		}
	}
	return out
}

// printObject writes objdump's layout: labels left-justified in 16 columns,
// a blank line before each image.
func printObject(w io.Writer, obj DumpObject, all bool) {
	var sb strings.Builder
	if obj.Format != "" {
		fmt.Fprintf(&sb, "\n%s:\tfile format %s\n", obj.Name, obj.Format)
	}
	for _, im := range obj.Images {
		fmt.Fprintf(&sb, "\nOFFLOADING IMAGE [%d]:\n", im.Index)
		fmt.Fprintf(&sb, "%-16s%s\n", "kind", format.ImageKind(im.ImageKindValue).DumpName())
		fmt.Fprintf(&sb, "%-16s%s\n", "arch", im.Arch)
		fmt.Fprintf(&sb, "%-16s%s\n", "triple", im.Triple)
		fmt.Fprintf(&sb, "%-16s%s\n", "producer", im.OffloadKind)
		if all {
			fmt.Fprintf(&sb, "%-16s%d\n", "version", im.Version)
			fmt.Fprintf(&sb, "%-16s%d\n", "flags", im.Flags)
			fmt.Fprintf(&sb, "%-16s%s\n", "offset", hexOrNA(im.Offset))
			fmt.Fprintf(&sb, "%-16s%d\n", "size", im.Size)
			fmt.Fprintf(&sb, "%-16s%s\n", "image offset", hexOrNA(im.ImageOffset))
			fmt.Fprintf(&sb, "%-16s%d\n", "image size", im.ImageSize)
			for _, kv := range im.Strings {
				fmt.Fprintf(&sb, "  %-14s%s\n", kv.Key, quoteIfNeeded(kv.Value))
			}
			if len(im.Contents) > 0 {
				sb.WriteString("contents:\n")
				printNodes(&sb, im.Contents, "  ")
			}
		}
	}
	if len(obj.Containers) > 0 {
		sb.WriteString("\nCONTAINERS:\n")
		printNodes(&sb, obj.Containers, "  ")
	}
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
