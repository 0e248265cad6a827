package optable

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf16"
)

// ResponseFS is the file access response-file expansion needs (the cmd
// layer passes the real file system; tests may pass a fake).
type ResponseFS interface {
	// Getwd returns the directory relative names are resolved against.
	Getwd() (string, error)
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// MaxResponseFile is the most bytes one response file may hold (LLVM has
// no bound: clang-linker-wrapper @/dev/zero grows until it is killed). A
// larger file, or a device or FIFO that gives more, is the error
// "@<name>: response file larger than 67108864 bytes".
const MaxResponseFile = 64 << 20

// OSFS is the real file system, its ReadFile bounded: it reads at most
// MaxResponseFile+1 bytes whatever the file claims (a regular file larger
// than the bound is refused by its size, before it is read).
type OSFS struct{}

func (OSFS) Getwd() (string, error)                { return os.Getwd() }
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
func (OSFS) ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Pieces of 1 MiB, joined only once the end is reached within the
	// bound: a source that never ends costs the bound, not twice it.
	var pieces [][]byte
	total := 0
	for total <= MaxResponseFile {
		p := make([]byte, 1<<20)
		n, err := io.ReadFull(f, p)
		pieces = append(pieces, p[:n])
		total += n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if total > MaxResponseFile {
		return nil, ErrResponseFileTooLarge
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}

// ErrResponseFileTooLarge is OSFS.ReadFile's error past MaxResponseFile.
var ErrResponseFileTooLarge = errors.New("response file too large")

// errTooLarge is the error for a response file over MaxResponseFile.
func errTooLarge(arg string) error {
	return fmt.Errorf("%s: response file larger than %d bytes", arg, MaxResponseFile)
}

// Limits LLVM does not have: without them a response file that names
// itself under another path is caught, but a tree of distinct files that
// each name the next several times expands without bound.
const (
	maxRspDepth = 64
	maxRspArgs  = 1 << 22
)

type rspFrame struct {
	name string // as LLVM prints it: the absolute path, not cleaned
	info fs.FileInfo
}

// ExpandResponseFiles replaces each "@file" argument by the arguments in
// file, as LLVM 22's cl::ExpansionContext::expandResponseFiles does on
// Linux (every cl::opt tool, clang-offload-bundler, llvm-offload-binary,
// and OptTable tools such as clang-linker-wrapper):
//
//   - the contents are split by TokenizeGNU; a UTF-8 byte-order mark is
//     dropped and UTF-16 (with a byte-order mark) is converted;
//   - "@file" arguments inside are expanded in turn; a relative name, at
//     any depth, is relative to the current directory (not to the file
//     that names it: LLVM resolves nested names that way only for clang's
//     config files);
//   - an "@file" whose file does not exist is left as a literal argument;
//   - a file that is already being expanded (the same file, by identity,
//     under any name) is the error "recursive expansion of: '<path>'";
//   - other failures are "cannot not open file '<path>': <reason>" (sic),
//     "@" alone naming the current directory.
//
// Paths in messages are the current directory joined to the name without
// cleaning, as LLVM prints them. Where LLVM's tools print such an error
// and go on parsing (or crash, llvm-offload-binary), callers report it and
// stop. Nesting deeper than 64, more than 4Mi arguments in all, or one
// file over MaxResponseFile (64 MiB; read through OSFS, a device or FIFO
// is cut there) is an error too.
func ExpandResponseFiles(args []string, fsys ResponseFS) ([]string, error) {
	x := &expander{fsys: fsys}
	out := make([]string, 0, len(args))
	return x.expand(out, args)
}

type expander struct {
	fsys  ResponseFS
	cwd   string
	stack []rspFrame
	n     int
}

func (x *expander) expand(out, args []string) ([]string, error) {
	for _, a := range args {
		if a == "" || a[0] != '@' {
			if x.n++; x.n > maxRspArgs {
				return nil, fmt.Errorf("response files expand to more than %d arguments", maxRspArgs)
			}
			out = append(out, a)
			continue
		}
		name, err := x.abs(a[1:])
		if err != nil {
			return nil, err
		}
		fi, err := x.fsys.Stat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				// As libiberty does: a missing file is a literal argument.
				if x.n++; x.n > maxRspArgs {
					return nil, fmt.Errorf("response files expand to more than %d arguments", maxRspArgs)
				}
				out = append(out, a)
				continue
			}
			return nil, openError(name, err)
		}
		for _, f := range x.stack {
			if sameFile(f.info, fi) {
				return nil, fmt.Errorf("recursive expansion of: '%s'", f.name)
			}
		}
		if len(x.stack) >= maxRspDepth {
			return nil, fmt.Errorf("response file '%s': nested more than %d deep", name, maxRspDepth)
		}
		if fi.Mode().IsRegular() && fi.Size() > MaxResponseFile {
			return nil, errTooLarge(a)
		}
		data, err := x.fsys.ReadFile(name)
		if errors.Is(err, ErrResponseFileTooLarge) {
			return nil, errTooLarge(a)
		}
		if err != nil {
			return nil, openError(name, err)
		}
		if len(data) > MaxResponseFile {
			return nil, errTooLarge(a)
		}
		text, err := decodeRsp(data)
		if err != nil {
			return nil, err
		}
		x.stack = append(x.stack, rspFrame{name, fi})
		out, err = x.expand(out, TokenizeGNU(text))
		x.stack = x.stack[:len(x.stack)-1]
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// abs makes name absolute the way llvm::sys::path::append does: the
// current directory, a separator unless it already ends in one, the name
// as given ("./", "../" and "//" kept).
func (x *expander) abs(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return name, nil
	}
	if x.cwd == "" {
		wd, err := x.fsys.Getwd()
		if err != nil || wd == "" {
			return "", fmt.Errorf("cannot get absolute path for: %s", name)
		}
		x.cwd = wd
	}
	if name == "" || strings.HasSuffix(x.cwd, "/") {
		return x.cwd + name, nil
	}
	return x.cwd + "/" + name, nil
}

func sameFile(a, b fs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if ok1 && ok2 {
		return sa.Dev == sb.Dev && sa.Ino == sb.Ino
	}
	// Fakes without inode numbers: the same name, size and time.
	return a.Name() == b.Name() && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// openError is LLVM's message for an unreadable response file, with the
// system's reason capitalised as strerror prints it.
func openError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	reason := err.Error()
	if reason != "" && reason[0] >= 'a' && reason[0] <= 'z' {
		reason = string(reason[0]-'a'+'A') + reason[1:]
	}
	return fmt.Errorf("cannot not open file '%s': %s", name, reason)
}

// decodeRsp drops a UTF-8 byte-order mark, or converts UTF-16 text that
// starts with a byte-order mark (either order) to UTF-8, as LLVM does. An
// odd trailing byte is ignored; unpaired surrogates are an error.
func decodeRsp(b []byte) (string, error) {
	if len(b) >= 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		big := b[0] == 0xfe
		u := make([]uint16, 0, len(b)/2-1)
		for i := 2; i+1 < len(b); i += 2 {
			if big {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			} else {
				u = append(u, uint16(b[i+1])<<8|uint16(b[i]))
			}
		}
		for i := 0; i < len(u); i++ {
			switch {
			case u[i] >= 0xd800 && u[i] < 0xdc00:
				if i+1 >= len(u) || u[i+1] < 0xdc00 || u[i+1] >= 0xe000 {
					return "", errors.New("Could not convert UTF16 to UTF8")
				}
				i++
			case u[i] >= 0xdc00 && u[i] < 0xe000:
				return "", errors.New("Could not convert UTF16 to UTF8")
			}
		}
		return string(utf16.Decode(u)), nil
	}
	return strings.TrimPrefix(string(b), "\xef\xbb\xbf"), nil
}

// TokenizeGNU splits s as LLVM's cl::TokenizeGNUCommandLine does: space,
// tab, CR and LF separate arguments; a backslash takes the next byte
// literally, also inside single and double quotes (a backslash at the very
// end is kept); quotes group and may appear inside a word; an unterminated
// quote runs to the end. Empty tokens ("" or ”) are dropped: LLVM 22's
// tools never see an empty argument from a response file ("-o "" x" gives
// -o the value x), though they do see one given on the command line.
func TokenizeGNU(s string) []string {
	var out []string
	var cur strings.Builder
	inTok := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inTok && cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			inTok = false
		case c == '\\' && i+1 < len(s):
			inTok = true
			i++
			cur.WriteByte(s[i])
		case c == '\'' || c == '"':
			inTok = true
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			inTok = true
			cur.WriteByte(c)
		}
	}
	if inTok && cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
