// Package bundler implements the clang-offload-bundler personality of
// offload-packager: bundling, unbundling and listing offload bundles
// (binary, text and object bundles, device archives, CCOB compression)
// with clang-offload-bundler 22.1.8's arguments, outputs, messages and
// exit codes.
package bundler

import (
	"io"
	"os"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/mmapfile"
)

// Env is everything the driver touches outside its arguments: the one
// driver environment. Tool is argv[0] as typed, since the reference prints
// "<argv[0]>: error: ..."; LookupEnv reads OFFLOAD_BUNDLER_*,
// COMPRESSED_BUNDLE_FORMAT_VERSION, PATH and TMPDIR; Now times compression
// for -verbose statistics (nil: zero durations, speeds print as "inf");
// Progress reports compressing and decompressing large bundles.
type Env struct {
	driverenv.Env
}

type input struct {
	name string
	data []byte
	m    *mmapfile.File
}

func (in *input) Close() {
	if in != nil && in.m != nil {
		in.m.Close()
	}
}

func openInput(env *Env, name string) (*input, error) {
	if name == "-" {
		if env.Stdin == nil {
			return &input{name: name, data: nil}, nil
		}
		b, err := io.ReadAll(env.Stdin)
		if err != nil {
			return nil, fileError(name, err)
		}
		return &input{name: name, data: b}, nil
	}
	m, err := mmapfile.Open(env.Path(name))
	if err != nil {
		return nil, fileError(name, err)
	}
	return &input{name: name, data: m.Data, m: m}, nil
}

// fileError is LLVM's createFileError text: "'<name>': <Reason>".
type fileErr struct {
	name string
	err  error
}

func (e *fileErr) Error() string { return "'" + e.name + "': " + errText(e.err) }
func (e *fileErr) Unwrap() error { return e.err }

func fileError(name string, err error) error { return &fileErr{name, err} }

func errText(err error) string {
	for e := err; e != nil; {
		if pe, ok := e.(*os.PathError); ok {
			return capitalize(pe.Err.Error())
		}
		if le, ok := e.(*os.LinkError); ok {
			return capitalize(le.Err.Error())
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return err.Error()
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
