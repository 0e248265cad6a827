package packager

import (
	"context"
	"fmt"
	"io"

	"github.com/offload-kit/offload-kit/format/fatbin"
	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// extractOutput is one file extract writes: its name and the function
// that writes it.
type extractOutput struct {
	name  string
	write func() error
}

// listOutputs is extract's dry run: the names it would write, then the
// command that writes them, with nothing written.
func listOutputs(env *Env, input string, outs []extractOutput) error {
	s := "s"
	if len(outs) == 1 {
		s = ""
	}
	fmt.Fprintf(env.Stdout, "%s holds %d device image%s; nothing was written. '%s extract %s' writes:\n", input, len(outs), s, env.Tool, quoteIfNeeded(input))
	for _, o := range outs {
		fmt.Fprintf(env.Stdout, "  %s\n", o.name)
	}
	return nil
}

// entryImage returns the bytes extract writes for a bundle, fatbin or HCF
// entry: a fatbin entry as cuobjdump -xelf/-xptx writes it (decompressed,
// PTX cut at its terminating NUL), or with raw the compressed stream as
// stored (a zstd frame or an NVIDIA LZ4 block, without the padding after
// it); every other entry as stored. nil means the bytes were not kept.
func entryImage(e DumpEntry, raw bool) ([]byte, error) {
	if e.fat == nil {
		return e.data, nil
	}
	if raw {
		return e.fat.Stream(), nil
	}
	return e.fat.ImageWith(DecodeZstd)
}

// writeEntryImage writes entryImage(e, raw) to name. Entries written as
// stored are copied file to file (writeEntry); decoded ones from memory.
func (l *lister) writeEntryImage(ctx context.Context, env *Env, name string, e DumpEntry, raw bool) error {
	if f := e.fat; f == nil || f.Compression == fatbin.CompressNone && (raw || f.Kind != fatbin.KindPTX) {
		if raw && f != nil {
			e.data = f.Stream()
		}
		return l.writeEntry(ctx, env, name, e)
	}
	data, err := entryImage(e, raw)
	if err != nil {
		return fmt.Errorf("%s: %s", name, ErrText(err))
	}
	return atomicfile.WriteFile(env.Path(name), env.Stdout, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
