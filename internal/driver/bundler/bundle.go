package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/internal/run"
)

func (c *config) bundle(env *Env) error {
	ins := make([]*input, len(c.Inputs))
	defer func() {
		for _, in := range ins {
			in.Close()
		}
	}()
	for i, name := range c.Inputs {
		in, err := openInput(env, name)
		if err != nil {
			return err
		}
		ins[i] = in
	}
	ref := 0
	if !c.allowNoHost {
		ref = c.hostIndex
	}
	h, cm, err := c.handlerFor(ins[ref].data)
	if err != nil {
		return err
	}
	entries := make([]bundle.Input, len(ins))
	for i, in := range ins {
		entries[i] = bundle.BytesInput(c.targets[i], in.data)
		// Stream regular files with read(2) (copy_file_range when the output
		// is a file) rather than through the mapping, so a huge input never
		// becomes resident in this process.
		if in.m != nil && len(in.data) > 0 {
			if f, err := os.Open(env.Path(in.name)); err == nil {
				defer f.Close()
				entries[i].Data = f // WriteBinary limits it to the entry's size
			}
		}
	}
	out := c.Outputs[0]
	if h == objectHandler {
		return c.bundleObject(env, ins, out)
	}
	// writeBundle streams the uncompressed bundle; size is its length.
	var size int64
	if h == textHandler {
		size = bundle.TextSize(cm, entries)
	} else {
		ids := make([]string, len(entries))
		sizes := make([]int64, len(entries))
		for i, e := range entries {
			ids[i], sizes[i] = e.ID, e.Size
		}
		if _, _, size, err = bundle.Layout(ids, sizes, c.BundleAlign); err != nil {
			return err
		}
	}
	writeBundle := func(w io.Writer) error {
		var err error
		if h == textHandler {
			_, err = bundle.WriteText(w, cm, entries)
		} else {
			_, err = bundle.WriteBinary(w, entries, c.BundleAlign)
		}
		return err
	}
	if !c.compress {
		return writeOutput(env, out, writeBundle)
	}
	rep := env.Progress.Start("compressing", size)
	defer rep.Done()
	opts := bundle.CompressOptions{Version: c.version, Zlib: c.method == bundle.Zlib, Level: c.level, External: c.externalZstd(env), Progress: rep.Add}
	start := c.now()
	var hdr bundle.Header
	err = writeOutputAt(env, out, func(w io.WriterAt) error {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeBundle(pw)) }()
		var err error
		hdr, err = bundle.CompressTo(w, ctxReader{c.ctx, pr}, size, opts)
		pr.CloseWithError(io.ErrClosedPipe)
		return err
	})
	if err != nil {
		return err
	}
	if c.verbose {
		c.printCompressStats(env, hdr, int64(hdr.TotalFileSize)-int64(hdr.Size()), c.now().Sub(start))
	}
	return nil
}

// externalZstd compresses with the zstd program, when it is on PATH, at
// the levels where klauspost falls short of libzstd (bundle.ExternalFrom
// and up: 6–20% larger at 9–16, 23–33% at 17–22): one long-distance-
// matching stream as the reference writes (multithreaded from 17), without
// a content checksum.
func (c *config) externalZstd(env *Env) func(io.Writer, io.Reader, int64, int) error {
	prog, ok := env.LookPath("zstd")
	if !ok {
		return nil
	}
	return func(dst io.Writer, src io.Reader, size int64, level int) error {
		// Below 17, zstd's worker jobs (even -T1's one worker) cost 5–12%
		// against the reference's single stream; from 17 they cost
		// nothing measurable.
		threads := "--single-thread"
		if level >= 17 {
			threads = "-T0"
		}
		args := []string{prog, "-q", "-c", threads, "--no-check", "--long", fmt.Sprintf("--stream-size=%d", size)}
		if level > 19 {
			args = append(args, "--ultra")
		}
		args = append(args, fmt.Sprintf("-%d", level), "-")
		if err := (run.Exec{}).Run(c.ctx, &run.Cmd{Args: args, Stdin: src, Stdout: dst}); err != nil {
			return fmt.Errorf("compressing with %v", err)
		}
		return nil
	}
}

func (c *config) bundleObject(env *Env, ins []*input, out string) error {
	if c.hostIndex < 0 {
		// The reference indexes its inputs with ~0u here and crashes.
		return errors.New("bundling into an object file needs a host target")
	}
	host := ins[c.hostIndex].data
	if format.Identify(host) == format.KindMachO {
		return format.Errorf(0, format.ErrUnsupported, "Mach-O host objects are not supported")
	}
	edit := elfembed.Edit{ObjcopyCompat: true} // as llvm-objcopy writes them
	for i, in := range ins {
		d := in.data
		if i == c.hostIndex {
			d = []byte{0}
		}
		edit.Add = append(edit.Add, elfembed.NewSection{
			Name: sectionPrefix + c.targets[i], Type: 1 /* SHT_PROGBITS */, Flags: 0x80000000, /* SHF_EXCLUDE */
			Align: 1, Data: bytes.NewReader(d), Size: int64(len(d)),
		})
	}
	if c.PrintCommands {
		// The reference prints the llvm-objcopy command instead of running
		// it, leaving the (empty) output file it had opened.
		fmt.Fprintln(env.Stderr, objcopyCommand(env, c, out))
		return writeOutput(env, out, func(io.Writer) error { return nil })
	}
	return writeOutput(env, out, func(w io.Writer) error {
		return c.rewriteObject(w, host, edit)
	})
}

func objcopyCommand(env *Env, c *config, out string) string {
	parts := []string{q("llvm-objcopy")}
	for i, id := range c.targets {
		f := c.Inputs[i]
		if i == c.hostIndex {
			f = tempName(env)
		}
		parts = append(parts, q("--add-section="+sectionPrefix+id+"="+f), q("--set-section-flags="+sectionPrefix+id+"=readonly,exclude"))
	}
	parts = append(parts, q("--"), q(c.Inputs[c.hostIndex]), q(out))
	return strings.Join(parts, " ")
}

func q(s string) string { return "\"" + s + "\"" }

// tempName is a name like the reference's temporary files, for -###.
func tempName(env *Env) string {
	dir, ok := env.Lookup("TMPDIR")
	if !ok || dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, fmt.Sprintf("clang-offload-bundler-%06x.tmp", rand.IntN(1<<24)))
}
