package sycldev

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/bitcode"
	"github.com/offload-kit/offload-kit/format/triple"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// deviceLibsFor returns the device libraries (resolved paths, in order)
// that clang-sycl-linker 22.1.8 links for --triple: those whose module
// triple equals it as llvm::Triple's operator== compares triples
// (triple.Triple.Equal: the parsed components read by position, nothing
// normalised, so "x86_64-linux-gnu" is not "x86_64-unknown-linux-gnu"). The
// others are skipped without a message. A library that cannot be read as
// LLVM IR is an error, whether or not its triple would have matched.
func (d *driver) deviceLibsFor(libs []string) ([]string, error) {
	want := triple.Parse(d.o.Triple)
	var out []string
	for _, p := range libs {
		t, err := deviceLibTriple(p)
		if err != nil {
			return nil, err
		}
		if triple.Parse(t).Equal(want) {
			out = append(out, p)
		}
	}
	return out, nil
}

// deviceLibTriple returns the target triple of a device library, read in
// pure Go: the MODULE_BLOCK TRIPLE record of bitcode (raw or behind the
// wrapper header), or the last `target triple = "..."` line of textual
// IR; "" when there is none. Like LLVM, an empty file, or one of only
// comments, is an empty module; any other file that is neither bitcode nor
// IR gives the error LLVM's IR parser gives for it: "expected integer"
// for an archive, "expected top-level entity" otherwise.
func deviceLibTriple(name string) (string, error) {
	f, err := mmapfile.Open(name)
	if err != nil {
		if pe := (*os.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err // the path is the file of the error
		}
		return "", &Error{File: name, Err: err}
	}
	defer f.Close()
	triple, err := moduleTriple(f.Data)
	if err != nil {
		return "", &Error{File: name, Err: err}
	}
	return triple, nil
}

// LLVM reads any device library that is not bitcode as IR text; these are
// its parser's first errors for a file that does not start with IR, and
// for an ar archive ("!<arch>" reads as a metadata number that is not
// there).
var (
	errNotIR   = errors.New("expected top-level entity")
	errArchive = errors.New("expected integer")
)

// moduleTriple is deviceLibTriple on the file's bytes.
func moduleTriple(b []byte) (string, error) {
	if format.IsBitcode(b) {
		return bitcode.ModuleTriple(b)
	}
	if bytes.HasPrefix(b, format.ArchiveMagic) || bytes.HasPrefix(b, format.ThinArchiveMagic) {
		return "", errArchive
	}
	head := b[:min(len(b), 4096)]
	if !isTextIR(head) && !onlyComments(b) {
		return "", errNotIR
	}
	return textTriple(b), nil
}

// onlyComments reports whether IR text holds nothing but blank lines and
// ';' comments.
func onlyComments(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] != ';' {
			return false
		}
	}
	return true
}

// textTriple returns the string of the last `target triple = "..."`
// line of IR text (with LLVM's \\ and \HH escapes decoded), "" if there
// is none.
func textTriple(b []byte) string {
	triple := ""
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSpace(l)
		rest, ok := bytes.CutPrefix(l, []byte("target"))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t"), []byte("triple"))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t"), []byte("="))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t"), []byte(`"`))
		if !ok {
			continue
		}
		if end := bytes.IndexByte(rest, '"'); end >= 0 {
			triple = unescapeIR(rest[:end])
		}
	}
	return triple
}

// unescapeIR decodes the escapes of an LLVM IR string constant: "\\" is a
// backslash and "\HH" the byte with hex value HH; any other backslash
// stands for itself.
func unescapeIR(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if s[i] == '\\' && i+2 < len(s) {
			if v, err := strconv.ParseUint(string(s[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}
