package packager

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
	"github.com/offload-kit/offload-kit/internal/cli/clopt"
)

// offload-packager create's own options (not llvm-offload-binary's: its
// bare command line and its help stay LLVM 22's). They write the newer
// OffloadBinary layouts on request (docs/formats/offload-binary.md §7).
const (
	obBinaryVersion = "offload-binary-version"
	obCompress      = "compress"
	obCompressLevel = "compression-level"
)

var createExtOpts = []clopt.Opt{
	{Name: obBinaryVersion, Value: true, Meta: "1|2|3", Help: "OffloadBinary version to write: 1 (default, LLVM 22: one binary per file), 3 (LLVM main: one binary, every file an entry) or 2"},
	{Name: obCompress, Value: true, Meta: "zstd|zlib|none", Help: "Compress the version 3 binary (everything after its header)"},
	{Name: obCompressLevel, Value: true, Meta: "int", Help: "Compression level for --compress (0: the codec's default)"},
}

// parseCreateExt reads create's own options from r into o.
func parseCreateExt(r *clopt.Result, o *CreateOptions) error {
	if r.Has(obBinaryVersion) {
		v, err := strconv.Atoi(r.Last(obBinaryVersion))
		if err != nil || v < 1 || v > 3 {
			return fmt.Errorf("invalid --%s '%s' (1, 2 or 3)", obBinaryVersion, r.Last(obBinaryVersion))
		}
		o.BinaryVersion = v
	}
	if r.Has(obCompress) {
		switch c := r.Last(obCompress); c {
		case "zstd", "zlib":
			o.Compress = c
		case "none", "":
		default:
			return fmt.Errorf("invalid --%s '%s' (zstd, zlib or none)", obCompress, c)
		}
	}
	if r.Has(obCompressLevel) {
		l, err := strconv.Atoi(r.Last(obCompressLevel))
		if err != nil {
			return fmt.Errorf("invalid --%s '%s' (an integer)", obCompressLevel, r.Last(obCompressLevel))
		}
		o.CompressLevel = l
	}
	switch {
	case o.Compress != "" && o.BinaryVersion != 3:
		return fmt.Errorf("--%s needs --%s=3 (only version 3 binaries are compressed)", obCompress, obBinaryVersion)
	case r.Has(obCompressLevel) && o.Compress == "":
		return fmt.Errorf("--%s needs --%s", obCompressLevel, obCompress)
	}
	return nil
}

// CreateWith runs offload-packager create with all its options: Create for
// version 1 (the default), otherwise one version 2 or 3 binary holding
// every image as an entry, in command-line order, with the strings in the
// packager's order, as llvm-offload-binary on LLVM main writes it
// (version 3, uncompressed: OffloadBinary::write of all images), optionally
// compressed. The images are read into memory.
func CreateWith(ctx context.Context, env *Env, o CreateOptions) error {
	if o.BinaryVersion <= 1 {
		return Create(ctx, env, o.Output, o.Images)
	}
	ctx = withProgress(ctx, env)
	read := env.Phases.Span("open inputs", "")
	defer read.End()
	loads, err := openPayloads(env, o.Images)
	defer closePayloads(loads)
	if err != nil {
		return err
	}
	imgs := make([]*offload.Image, len(loads))
	for i, p := range loads {
		img := *p.meta
		img.ImageKind = mainImageKind(p.name, img.ImageKind)
		img.Image = p.data
		if p.f != nil {
			var buf bytes.Buffer
			buf.Grow(int(p.size))
			if err := copyN(ctx, &buf, p.f, p.size); err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fileError(env, p.name, err)
			}
			img.Image = buf.Bytes()
		}
		imgs[i] = &img
	}
	read.End()
	defer env.Phases.Span("write", o.Output).End()
	var bin []byte
	if o.BinaryVersion == 2 {
		bin, err = offload.AppendBinaryV2(nil, imgs)
	} else {
		bin, err = offload.AppendBinaryV3(nil, imgs, o.Compress, o.CompressLevel)
	}
	if err != nil {
		return err
	}
	out, err := atomicfile.Create(env.Path(o.Output), env.Stdout)
	if err != nil {
		return fileError(env, o.Output, err)
	}
	if _, err := out.Writer().Write(bin); err != nil {
		out.Abort()
		return fileError(env, o.Output, err)
	}
	return commitOutput(ctx, env, out, o.Output)
}

// mainImageKind is the image kind LLVM main's llvm-offload-binary gives a
// file that is not bitcode: 22's extension table plus "spv" for SPIR-V
// (getImageKind in llvm/lib/Object/OffloadBinary.cpp on main). Used for
// the version 2 and 3 layouts, which only main reads.
func mainImageKind(name string, kind format.ImageKind) format.ImageKind {
	if kind == format.ImgNone && strings.HasSuffix(name, ".spv") {
		return format.ImgSPIRV
	}
	return kind
}
