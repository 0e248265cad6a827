package packager

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// EmbedOptions describes an embed run.
type EmbedOptions struct {
	Output   string
	Host     string
	Packages []string
}

// Embed adds packages to a relocatable ELF or COFF host object exactly as
// clang's -fembed-offload-object does (section .llvm.offloading,
// SHT_LLVM_OFFLOADING / SHF_EXCLUDE, align 8 on ELF; IMAGE_SCN_LNK_REMOVE |
// MEM_DISCARDABLE | ALIGN_8BYTES on COFF). An object that already carries
// offloading data gets the new packages appended, as ld -r would do.
func Embed(ctx context.Context, env *Env, opt EmbedOptions) error {
	ctx = withProgress(ctx, env)
	host, err := openInput(env, opt.Host)
	if err != nil {
		return fmt.Errorf("%s: %s", opt.Host, ErrText(err))
	}
	defer host.Close()
	switch format.Identify(host.data) {
	case format.KindELF, format.KindCOFF:
	default:
		return fmt.Errorf("%s: not an ELF or COFF relocatable object", opt.Host)
	}
	var readers []io.ReaderAt
	var sizes []int64
	for _, p := range opt.Packages {
		pk, err := openInput(env, p)
		if err != nil {
			return fmt.Errorf("%s: %s", p, ErrText(err))
		}
		defer pk.Close()
		if err := checkPackage(pk.data); err != nil {
			return fmt.Errorf("%s: not a valid offload package: %w", p, err)
		}
		var ra io.ReaderAt = readerAt(pk.data)
		if p != "-" {
			// Stream the payload with read(2) rather than through the
			// mapping, so a huge package does not inflate resident memory.
			f, err := os.Open(env.Path(p))
			if err != nil {
				return fmt.Errorf("%s: %s", p, ErrText(err))
			}
			defer f.Close()
			ra = f
		}
		readers = append(readers, ctxReaderAt{ctx, ra})
		sizes = append(sizes, int64(len(pk.data)))
	}
	defer env.Phases.Span("rewrite", opt.Host).End()
	out, err := atomicfile.Create(env.Path(opt.Output), env.Stdout)
	if err != nil {
		return fmt.Errorf("%s: %s", opt.Output, ErrText(err))
	}
	if err := elfembed.Embed(out.Writer(), host.data, readers, sizes); err != nil {
		out.Abort()
		return fmt.Errorf("%s: %w", opt.Host, err)
	}
	if err := ctx.Err(); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

type readerAt []byte

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(r)) {
		return 0, io.EOF
	}
	n := copy(p, r[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// checkPackage validates the chain of binaries in a package without
// inflating compressed (v3) bodies: embedding copies bytes and must not
// pay for, or be bombed by, decompression. v1 binaries get the full check.
func checkPackage(b []byte) error {
	if len(b) == 0 {
		return format.Errorf(0, format.ErrTruncated, "empty package")
	}
	for off := 0; off < len(b); {
		rest := b[off:]
		if len(rest) < 16 || format.Identify(rest) != format.KindOffloadBinary {
			return format.Errorf(int64(off), format.ErrMagic, "no OffloadBinary header")
		}
		version := binary.LittleEndian.Uint32(rest[4:])
		size := binary.LittleEndian.Uint64(rest[8:])
		if size < 40 || size > uint64(len(rest)) {
			return format.Errorf(int64(off+8), format.ErrTruncated, "size 0x%x does not fit in the %d bytes left", size, len(rest))
		}
		switch {
		case version == 1 || version == 2 || version == 3 && len(rest) >= 40 && binary.LittleEndian.Uint64(rest[32:]) == 0:
			// Uncompressed: check every entry and string.
			if _, _, err := offload.Parse(rest[:size]); err != nil {
				return err
			}
		case version == 3:
			// Compressed: check the header without inflating the body.
			if binary.LittleEndian.Uint64(rest[16:]) != 40 || binary.LittleEndian.Uint64(rest[24:]) == 0 {
				return format.Errorf(int64(off+16), format.ErrCorrupt, "compressed binary with a bad entries offset or count")
			}
			// The same plausibility bound the reader applies before inflating.
			if infl := binary.LittleEndian.Uint64(rest[32:]); infl > 64<<20+256*(size-40) {
				return format.Errorf(int64(off+32), format.ErrLimit, "inflated size 0x%x is implausible for 0x%x compressed bytes", infl, size-40)
			}
		default:
			return format.Errorf(int64(off+4), format.ErrVersion, "unsupported version %d", version)
		}
		off += int((size + 7) &^ 7)
	}
	return nil
}

// ctxReaderAt fails reads once ctx is cancelled, so a long embed stops at
// the next chunk on SIGINT and its temporary output is removed.
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}
