package packager

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/release"
)

// ErrMissingFile is LLVM's message for an --image without file=.
var ErrMissingFile = errors.New("'file' is a required image arguments")

// payload is one image file to package: either a regular file streamed
// with copy_file_range, or bytes already in memory (stdin).
type payload struct {
	name string // as given in file=
	meta *offload.Image
	f    *os.File
	data []byte
	size int64
}

// Create packages every --image into output, exactly as
// llvm-offload-binary does: one v1 binary per file, string entries in the
// packager's DenseMap order, concatenated. Inputs are streamed, so memory
// does not grow with image size. Nothing is written unless every input
// could be opened.
func Create(ctx context.Context, env *Env, output string, images []string) error {
	prof, err := env.Release(ctx)
	if err != nil {
		return err
	}
	return createAs(ctx, env, prof, output, images)
}

// createAs is Create as the packager of the release prof (release.go).
func createAs(ctx context.Context, env *Env, prof release.Profile, output string, images []string) error {
	ctx = withProgress(ctx, env)
	read := env.Phases.Span("open inputs", "")
	defer read.End()
	if err := checkImagesAs(prof, images); err != nil {
		return err
	}
	loads, err := openPayloads(env, images)
	defer closePayloads(loads)
	if err != nil {
		return err
	}
	asRelease(prof, loads)
	read.End()
	defer env.Phases.Span("write", output).End()
	out, err := atomicfile.Create(env.Path(output), env.Stdout)
	if err != nil {
		return fileError(env, output, err)
	}
	w := out.Writer()
	for _, p := range loads {
		var r io.Reader
		if p.f != nil {
			r = p.f
		} else {
			r = bytes.NewReader(p.data)
		}
		if err := writeV1(ctx, w, p.meta, r, p.size); err != nil {
			out.Abort()
			return err
		}
	}
	return commitOutput(ctx, env, out, output)
}

// commitOutput publishes a created package: nothing when the run was
// cancelled, else the atomic rename, its failure named after the output.
func commitOutput(ctx context.Context, env *Env, out *atomicfile.File, output string) error {
	if err := ctx.Err(); err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		if errors.Is(err, atomicfile.ErrInterrupted) {
			return err
		}
		return fileError(env, output, err)
	}
	return nil
}

// openPayloads opens the files of every --image (file= may list several)
// in command-line order, with each image's kinds and strings in the
// packager's order. On error the payloads opened so far are returned too,
// for closePayloads.
func openPayloads(env *Env, images []string) ([]payload, error) {
	var loads []payload
	for _, arg := range images {
		kv := offload.PackagerOrder(offload.ParseImageArg(arg))
		var files, kind string
		hasFile := false
		var strs []offload.KV
		for _, e := range kv {
			switch e.Key {
			case "file":
				files, hasFile = e.Value, true
			case "kind":
				kind = e.Value
			default:
				strs = append(strs, e)
			}
		}
		if !hasFile {
			return loads, ErrMissingFile
		}
		for _, name := range strings.Split(files, ",") {
			p, err := loadPayload(env, name)
			if err != nil {
				return loads, fileError(env, name, err)
			}
			head := p.data
			if p.f != nil {
				var h [4]byte
				n, _ := p.f.ReadAt(h[:], 0)
				head = h[:n]
			}
			p.name = name
			p.meta = &offload.Image{
				ImageKind:   offload.ImageKindFor(name, head),
				OffloadKind: format.ParseOffloadKind(kind),
				Strings:     strs,
			}
			loads = append(loads, p)
		}
	}
	return loads, nil
}

// closePayloads closes the files openPayloads opened.
func closePayloads(loads []payload) {
	for _, p := range loads {
		if p.f != nil {
			p.f.Close()
		}
	}
}

// fileError names the file in an OS error ("x: Permission denied"). The
// llvm-offload-binary personality keeps LLVM's exact text, which has no
// name (TestCLIParity), so that it stays a drop-in replacement.
func fileError(e *Env, name string, err error) error {
	if e.Tool != "offload-packager" {
		return errors.New(ErrText(err))
	}
	return fmt.Errorf("%s: %s", name, ErrText(err))
}

func loadPayload(env *Env, name string) (payload, error) {
	if name == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return payload{}, err
		}
		return payload{data: b, size: int64(len(b))}, nil
	}
	f, err := os.Open(env.Path(name))
	if err != nil {
		return payload{}, err
	}
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		f.Close()
		if err == nil {
			err = &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return payload{}, err
	}
	if !st.Mode().IsRegular() {
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return payload{}, err
		}
		return payload{data: b, size: int64(len(b))}, nil
	}
	return payload{f: f, size: st.Size()}, nil
}

// writeV1 writes one v1 binary: the header, the streamed payload, and the
// padding to the next multiple of 8 (the layout offload.WriteV1 writes),
// cancellable between chunks.
func writeV1(ctx context.Context, w io.Writer, meta *offload.Image, payload io.Reader, size int64) error {
	hdr := offload.HeaderV1(meta, uint64(size))
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	if err := copyN(ctx, w, payload, size); err != nil {
		return err
	}
	var pad [8]byte
	_, err := w.Write(pad[:(8-(int64(len(hdr))+size)%8)%8])
	return err
}
