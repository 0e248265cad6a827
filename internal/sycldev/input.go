package sycldev

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/workdir"
)

// maxStreamInput (2 GiB) bounds an input that is not a regular file (a pipe,
// FIFO, /dev/stdin, a character device), which is read once, whole, by
// this process: a bigger one is an error naming it.
var maxStreamInput int64 = 2 << 30

// streamInput reports whether name is an input that cannot be mapped or
// read twice: anything but a regular file or a directory (after symlinks:
// /dev/stdin, /dev/fd/N and bash's <(cmd) are links to a pipe, or a
// regular file when redirected from one).
//
// A name that reaches one of this process's descriptors (/dev/stdin,
// /dev/fd/N, /proc/self/fd/N, through any symlinks) is one too, even when
// the descriptor is a regular file: a helper or llvm-link opening it would
// open its own descriptor (a helper's standard input is its request pipe).
func streamInput(name string) bool { return llvmpool.Stream(name) != llvmpool.NotStream }

// spill reads a stream input once, at most maxStreamInput bytes, into a
// file of the work directory and returns that file's name, which every
// later step (the identification, llvm-link or a helper, llvm-nm) reads
// instead. Without this, the identification would consume the stream's
// first bytes and a helper or llvm-link would reopen the name: a helper
// reopening /dev/stdin reads its own request pipe and hangs, and a pipe
// reopened gives an empty module (an image without kernels, exit 0).
//
// A device library (lib) is copied whatever its type: LLVM's IR reader
// reports what is wrong with it, as with a regular file.
func (d *driver) spill(name string, lib bool) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", fileErr(name, "%w", errors.Unwrap(err))
	}
	defer f.Close()
	// identify first: /dev/zero or a stream of anything else fails here,
	// before a byte is copied
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", fileErr(name, "%w", err)
	}
	head = head[:n]
	var ext string
	switch format.Identify(head) {
	case format.KindBitcode:
		ext = "bc"
	case format.KindArchive:
		ext = "a"
	case format.KindELF, format.KindCOFF:
		ext = "o"
	default:
		if !lib && !isTextIR(head) {
			return "", fileErr(name, "Unsupported file type")
		}
		ext = "ll"
	}
	base := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	p, err := d.work.Name("input-"+base, ext)
	if err != nil {
		return "", err
	}
	out, err := workdir.Create(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	// streamed, never held in memory; at most maxStreamInput bytes
	_, err = out.Write(head)
	var copied int64
	if err == nil {
		copied, err = io.Copy(out, io.LimitReader(f, maxStreamInput-int64(n)+1))
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fileErr(name, "%w", err)
	}
	if int64(n)+copied > maxStreamInput {
		os.Remove(p)
		return "", fileErr(name, "input from a pipe or device is larger than %s; give it as a regular file", sizeText(maxStreamInput))
	}
	if d.spilled == nil {
		d.spilled = map[string]string{}
	}
	d.spilled[p] = name
	d.from[p] = name // the per-source split key names the input, not the copy
	return p, nil
}

// unspill puts the names given back into err's text where it names a
// spilled copy (LLVM's messages, llvm-link's).
func (d *driver) unspill(err error) error {
	if err == nil || len(d.spilled) == 0 {
		return err
	}
	return &renamedError{d.unspillText(err.Error()), err}
}

// unspillText puts the names given back into s.
func (d *driver) unspillText(s string) string {
	for p, name := range d.spilled {
		s = strings.ReplaceAll(s, p, name)
	}
	return s
}

type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

func sizeText(n int64) string {
	if n >= 1<<30 && n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%d bytes", n)
}
