// Package packager implements offload-packager: creating, extracting,
// inspecting and embedding offload packages. It also provides the
// llvm-offload-binary / clang-offload-packager personality with that tool's
// exact arguments, outputs, messages and exit codes (LLVM 22.1.8).
package packager

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
	"github.com/offload-kit/offload-kit/internal/progress"
)

// Env is everything a command may touch outside its arguments: the one
// driver environment (Tool is the diagnostic prefix, Dir the directory
// relative outputs go to, Phases the -v summary, Progress the reports of
// long copies).
type Env = driverenv.Env

// withProgress carries env's progress sink in ctx for copyN.
func withProgress(ctx context.Context, env *Env) context.Context {
	return progress.NewContext(ctx, env.Progress)
}

// copyN copies n bytes in chunks, checking for cancellation between them.
// Each chunk still goes file-to-file (copy_file_range) when both ends are
// files, so cancelling costs no speed.
func copyN(ctx context.Context, w io.Writer, r io.Reader, n int64) error {
	const chunk = 64 << 20
	rep := progress.FromContext(ctx).Start("copying", n)
	defer rep.Done()
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := min(n, chunk)
		if _, err := io.CopyN(w, r, m); err != nil {
			return err
		}
		rep.Add(m)
		n -= m
	}
	return ctx.Err()
}

// input is a read-only view of an input file or of stdin.
type input struct {
	name string
	data []byte
	m    *mmapfile.File
}

func (in *input) Close() {
	if in.m != nil {
		in.m.Close()
	}
}

func openInput(env *Env, name string) (*input, error) {
	if strings.HasPrefix(name, "file://") {
		return openURI(env, name)
	}
	if name == "-" {
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return nil, err
		}
		return &input{name: name, data: b}, nil
	}
	m, err := mmapfile.Open(env.Path(name))
	if err != nil {
		return nil, err
	}
	return &input{name: name, data: m.Data, m: m}, nil
}

// ErrText returns the part of an OS error LLVM prints ("No such file or
// directory"), dropping Go's "open <path>:" prefix; other errors' text is
// kept. offload-packager's commands (kernels too) print file errors so.
func ErrText(err error) string {
	var pe *os.PathError
	if ok := asPathErr(err, &pe); ok {
		return capitalize(pe.Err.Error())
	}
	return err.Error()
}

func asPathErr(err error, pe **os.PathError) bool {
	for err != nil {
		if p, ok := err.(*os.PathError); ok {
			*pe = p
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// exitCode is the test hook mirroring diag.ExitCode.
var exitCode = diag.ExitCode

// openURI opens the code-object URI form used by the HIP runtime and
// LLVM's offload-bundle tooling, file://PATH#offset=N&size=M, as the byte
// range it names (N and M decimal or 0x-hex; size defaults to the rest).
func openURI(env *Env, uri string) (*input, error) {
	rest := strings.TrimPrefix(uri, "file://")
	path, frag, _ := strings.Cut(rest, "#")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	var off, size int64 = 0, -1
	if frag != "" {
		for _, kv := range strings.Split(frag, "&") {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 0, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("invalid %s in URI: %q", k, v)
			}
			switch k {
			case "offset":
				off = n
			case "size":
				size = n
			default:
				return nil, fmt.Errorf("unknown URI parameter %q", k)
			}
		}
	}
	m, err := mmapfile.Open(env.Path(path))
	if err != nil {
		return nil, err
	}
	total := int64(len(m.Data))
	if size < 0 {
		size = total - off
	}
	if off > total || size < 0 || size > total-off {
		m.Close()
		return nil, fmt.Errorf("range offset=%d size=%d is outside the file (%d bytes)", off, size, total)
	}
	return &input{name: uri, data: m.Data[off : off+size : off+size], m: m}, nil
}
