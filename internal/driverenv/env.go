// Package driverenv defines Env, everything a driver may touch outside its
// options (in the spirit of gh's Factory): the standard streams, the
// environment, the clock, the CPU count, the places tools are looked up
// and the name diagnostics carry. Every driver (packager, bundler,
// linkwrap, sycldev) takes one; cmd/ fills it from the process, tests
// from values. The context is never part of it: drivers take ctx as their
// first parameter.
package driverenv

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/offload-kit/offload-kit/internal/phase"
	"github.com/offload-kit/offload-kit/internal/progress"
	"github.com/offload-kit/offload-kit/internal/run"
)

// Verbose is the environment variable that asks every tool for its phase
// summary at exit (docs/environment.md): set and not "0".
const Verbose = "OFFLOAD_KIT_VERBOSE"

// Env is everything a driver may touch outside its options. The zero value
// is usable: no streams are written, the environment is empty, there is no
// clock, and relative paths are the current directory's.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Tool is the diagnostic prefix ("offload-packager", or argv[0] as
	// typed for the LLVM personalities, "clang-linker-wrapper", ...).
	Tool string
	// Dir is the directory relative paths resolve against ("" = the
	// current directory).
	Dir string
	// LookupEnv reads environment variables; nil means none are set.
	LookupEnv func(string) (string, bool)
	// Now is the clock (timing, statistics); nil means no clock.
	Now func() time.Time
	// NumCPU is the default parallelism; 0 means runtime.NumCPU.
	NumCPU int
	// Phases times the run for the summary; nil records nothing.
	Phases *phase.Timer
	// Progress receives progress reports of long operations; nil (not a
	// terminal, or --quiet) reports nothing.
	Progress *progress.Sink
	// Runner runs child processes (the LLVM tools, the host linker, the
	// AOT compilers) and the --version checks of Toolchain and Release;
	// those and linkwrap take nil as run.Exec{}.
	Runner run.Runner

	// Tool lookup. ExeDir is the directory of the running executable;
	// Parent the executable of the process that started this one (from
	// /proc/<ppid>/exe) and ParentPID its process id (the clang running a
	// link); Layouts fmt patterns of versioned LLVM bin directories
	// (run.DefaultLayouts).
	ExeDir    string
	Parent    string
	ParentPID int
	Layouts   []string
}

// Lookup reads the environment variable k.
func (e *Env) Lookup(k string) (string, bool) {
	if e.LookupEnv == nil {
		return "", false
	}
	return e.LookupEnv(k)
}

// Getenv reads the environment variable k ("" when unset).
func (e *Env) Getenv(k string) string {
	v, _ := e.Lookup(k)
	return v
}

// VerboseSet reports whether OFFLOAD_KIT_VERBOSE asks for the phase
// summary: set to anything but "" or "0". It is the one reading of that
// variable (offload-packager's personalities, linker-wrapper's ApplyEnv and
// sycl-linker all ask it).
func (e *Env) VerboseSet() bool {
	v := e.Getenv(Verbose)
	return v != "" && v != "0"
}

// Path resolves p against Dir ("-", absolute paths and an empty Dir leave
// it as it is).
func (e *Env) Path(p string) string {
	if e.Dir == "" || p == "-" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Dir, p)
}

// Stem is llvm::sys::path::stem, the one stem every driver names outputs
// (and the tool it runs as) after: the last component of p without its
// last extension. As in LLVM, a leading dot starts an extension
// (".hidden" has the stem "", so llvm-offload-binary extracts it to
// "-<triple>..."), "." and ".." are kept, a trailing separator names "."
// and an empty path has the stem "".
func Stem(p string) string {
	name := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		name = p[i+1:]
		if name == "" {
			name = "."
			if strings.Trim(p, "/") == "" {
				name = "/"
			}
		}
	}
	if name == "." || name == ".." {
		return name
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// LookPath finds the program name in the environment's $PATH
// (run.FindProgram): a name with a '/' is itself when executable. It is
// the one PATH lookup of programs outside a Toolchain (bundler's zstd,
// sycldev's tools when it is given no Toolchain).
func (e *Env) LookPath(name string) (string, bool) {
	return run.FindProgram(name, nil, e.Getenv("PATH"))
}

// TempRoot is the directory private temporary directories are made in:
// the environment's $TMPDIR ("" when unset, which workdir and os.MkdirTemp
// take as os.TempDir()).
func (e *Env) TempRoot() string { return e.Getenv("TMPDIR") }

// CPUs is NumCPU, or runtime.NumCPU when it is not set.
func (e *Env) CPUs() int {
	if e.NumCPU > 0 {
		return e.NumCPU
	}
	return runtime.NumCPU()
}

// FromGetenv adapts a Getenv-style function (an empty value meaning unset)
// to LookupEnv.
func FromGetenv(get func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := get(k)
		return v, v != ""
	}
}

// EnvOverride is the tool override the environment gives: $OFFLOAD_KIT_<NAME>
// (run.ToolEnv), with "$OFFLOAD_KIT_<NAME>" as the reason.
func (e *Env) EnvOverride(name string) (string, string) {
	if k := run.ToolEnv(name); e.Getenv(k) != "" {
		return e.Getenv(k), "$" + k
	}
	return "", ""
}

// Toolchain is the program chooser this environment gives (docs/sycl-linker.md,
// docs/linker-wrapper.md): $OFFLOAD_KIT_<NAME>, $OFFLOAD_KIT_LLVM_DIR, the
// clang that started this process (Parent), this executable's directory,
// the LLVM installation layouts, then $PATH; the environment's Runner runs
// the version checks (nil: run.Exec). Drivers add what their options say
// (linkwrap: --llvm-dir, --tool-path, hints, the inputs' LLVM release).
func (e *Env) Toolchain() *run.Toolchain {
	t := &run.Toolchain{
		Override: e.EnvOverride,
		ExeDir:   e.ExeDir,
		Layouts:  e.Layouts,
		PathList: e.Getenv("PATH"),
		Runner:   e.Runner,
	}
	if d := e.Getenv("OFFLOAD_KIT_LLVM_DIR"); d != "" {
		t.LLVMDir, t.LLVMDirWhy = d, "$OFFLOAD_KIT_LLVM_DIR="+d
	}
	if e.Parent != "" {
		t.Parent = e.Parent
		t.ParentWhy = fmt.Sprintf("the clang that invoked this link (pid %d)", e.ParentPID)
	}
	return t
}
