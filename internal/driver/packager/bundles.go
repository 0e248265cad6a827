package packager

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/offload-kit/offload-kit/internal/atomicfile"
)

// writeBundles is what llvm-objdump --offloading does after listing an
// ELF or COFF object's images (dump --extract-bundles): each entry of each
// bundle found in its sections is written to
// <base>.<bundle number>.<entry ID> (relative to the current directory;
// base is the path the object was named by, or the archive member's
// name), printing "Extracting offload bundle: <file>" after each. Bundles
// are numbered across the object's sections in order. The lister has read
// all of them before anything is written, so a malformed one writes
// nothing.
//
// Differences from llvm-objdump 22.1.8, all on inputs it mishandles: the
// next bundle in a section is looked for after the end of the previous
// one (never inside its payload), several CCOB blobs in one section are
// all decompressed, entries outside their section are an error (the
// reference reads past its buffer and crashes), entry IDs with a path
// separator are refused, compressed entries get their decompressed bytes
// (the reference copies bytes of the object at the entry's offset), COFF
// objects are supported (the reference refuses them), and the entries of
// old-driver HIP objects (__CLANG_OFFLOAD_BUNDLE__<ID> sections, which
// the reference does not see) are written too, as one more bundle.
func writeBundles(ctx context.Context, env *Env, l *lister, base string, bundles []DumpBundle) error {
	for _, b := range bundles {
		for _, e := range b.Entries {
			if strings.ContainsAny(e.ID, "/\\\x00") {
				return fmt.Errorf("while extracting offload Bundle Entries: entry ID %q would name a file outside %s's directory", e.ID, base)
			}
			name := fmt.Sprintf("%s.%d.%s", base, b.Index, e.ID)
			if err := l.writeEntry(ctx, env, name, e); err != nil {
				return fmt.Errorf("while extracting offload Bundle Entries: %s", ErrText(err))
			}
			fmt.Fprintf(env.Stdout, "Extracting offload bundle: %s\n", name)
		}
	}
	return nil
}

// writeEntry writes one entry's payload to name. Bytes stored plainly in
// the input file are copied file to file (copy_file_range), so they never
// become resident in this process; others (decompressed) are written from
// memory.
func (l *lister) writeEntry(ctx context.Context, env *Env, name string, e DumpEntry) error {
	if e.data == nil && e.Size > 0 {
		return fmt.Errorf("%s: the entry's bytes were not decoded", name)
	}
	return atomicfile.WriteFile(env.Path(name), env.Stdout, func(w io.Writer) error {
		if l.pf != nil && len(e.data) > 0 {
			if off, ok := l.fileOffset(e.data); ok {
				return copyRange(ctx, env, w, l.pf, off, int64(len(e.data)))
			}
		}
		if f, off, ok := l.decodedAt(e.data); ok {
			return copyRange(ctx, env, w, f, off, int64(len(e.data)))
		}
		_, err := w.Write(e.data)
		return err
	})
}

// fileOffset is where b lies in the file l.pf, if it does.
func (l *lister) fileOffset(b []byte) (int64, bool) {
	if o := l.off(b); o >= 0 && l.in.m.Mapped() {
		return o, true
	}
	return 0, false
}

// copyRange copies n bytes at off of f to w, file to file where the kernel
// allows (copy_file_range, sendfile), checking for cancellation between
// chunks.
func copyRange(ctx context.Context, env *Env, w io.Writer, f *os.File, off, n int64) error {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	return copyN(ctx, w, f, n)
}
