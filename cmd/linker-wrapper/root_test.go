package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/driver/linkwrap"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/version"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capture runs the command with argv and returns the options the driver
// would have received.
func capture(t *testing.T, argv ...string) (*linkwrap.Options, linkwrap.Env, string, string, int) {
	t.Helper()
	var got *linkwrap.Options
	var env linkwrap.Env
	cmd := newRootCmd(func(_ context.Context, e *linkwrap.Env, o linkwrap.Options) error {
		got, env = &o, *e
		return nil
	})
	var stdout, stderr bytes.Buffer
	code := execute(cmd, argv, &stdout, &stderr)
	return got, env, stdout.String(), stderr.String(), code
}

func TestFlagsReachTheDriver(t *testing.T) {
	o, env, _, stderr, code := capture(t, "linker-wrapper", "--host-triple=x86_64-pc-linux-gnu", "--linker-path=/usr/bin/ld",
		"-o", "app", "--wrapper-jobs=3", "--save-temps", "-mllvm", "-x", "--should-extract=gfx90a,gfx942",
		"--device-linker=amdgcn-amd-amdhsa=-v", "a.o", "-lomp", "-r")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "/usr/bin/ld", o.LinkerPath)
	assert.Equal(t, "app", o.Output)
	assert.Equal(t, 3, o.Jobs)
	assert.True(t, o.SaveTemps && o.Relocatable)
	assert.Equal(t, []string{"-x"}, o.MLLVM)
	assert.Equal(t, []string{"gfx90a", "gfx942"}, o.ShouldExtract)
	assert.Equal(t, []string{"amdgcn-amd-amdhsa=-v"}, o.DeviceLinker)
	assert.Equal(t, "linker-wrapper", env.Tool)
	assert.True(t, env.NumCPU > 0 && env.LookupEnv != nil)
}

func TestResponseFile(t *testing.T) {
	rsp := filepath.Join(t.TempDir(), "args.rsp")
	require.NoError(t, os.WriteFile(rsp, []byte(`--linker-path=/usr/bin/ld -o "my app" 'a b.o'`), 0o644))
	o, _, _, _, code := capture(t, "linker-wrapper", "@"+rsp)
	require.Equal(t, 0, code)
	assert.Equal(t, "my app", o.Output)
	var inputs []string
	for _, a := range o.Args {
		if a.IsInput() {
			inputs = append(inputs, a.Value())
		}
	}
	assert.Equal(t, []string{"a b.o"}, inputs)
}

func TestPersonality(t *testing.T) {
	_, env, _, _, _ := capture(t, "/tmp/x/clang-linker-wrapper", "--linker-path=/bin/true")
	assert.Equal(t, "clang-linker-wrapper", env.Tool)
	_, _, _, stderr, code := capture(t, "/tmp/x/clang-linker-wrapper", "--wrapper-jobs=0")
	assert.Equal(t, 1, code)
	assert.Equal(t, "clang-linker-wrapper: error: --wrapper-jobs=0: expected a positive integer or 'jobserver', got '0'\n", stderr)
	_, _, _, stderr, _ = capture(t, "linker-wrapper", "-o")
	assert.Equal(t, "linker-wrapper: error: -o: missing argument\n", stderr)
}

func TestVersionAndHelp(t *testing.T) {
	_, _, stdout, _, code := capture(t, "clang-linker-wrapper", "--version", "--linker-path=/x")
	assert.Equal(t, 0, code)
	assert.Equal(t, version.Line("clang-linker-wrapper")+"\n", stdout)
	_, _, stdout, _, code = capture(t, "linker-wrapper", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "USAGE: linker-wrapper [options]")
	assert.Contains(t, stdout, "--linker-path=<path>")
	assert.True(t, !strings.Contains(stdout, "--whole-program"), "hidden options only with --help-hidden")
	_, _, stdout, _, _ = capture(t, "linker-wrapper", "--help-hidden")
	assert.Contains(t, stdout, "--whole-program")
	// -v is a linker flag: forwarded, not a version request.
	o, _, _, _, _ := capture(t, "linker-wrapper", "-v", "--linker-path=/x")
	assert.True(t, o != nil && !o.Version)
}

func TestChildFailureDiagnostics(t *testing.T) {
	cmd := newRootCmd(func(context.Context, *linkwrap.Env, linkwrap.Options) error {
		return &run.Error{Args: []string{"/usr/bin/clang-22", "--target=x86_64-unknown-linux-gnu", "-o", "x.img"}, ExitCode: 1}
	})
	var stdout, stderr bytes.Buffer
	code := execute(cmd, []string{"clang-linker-wrapper", "--linker-path=/usr/bin/ld"}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	lines := strings.Split(stderr.String(), "\n")
	assert.Equal(t, "clang-linker-wrapper: error: 'clang-22' failed with exit code 1", lines[0])
	assert.Contains(t, stderr.String(), ` "/usr/bin/clang-22" --target=x86_64-unknown-linux-gnu -o x.img`)
	assert.Contains(t, stderr.String(), "--save-temps")
}

func TestMissingToolDiagnostics(t *testing.T) {
	cmd := newRootCmd(func(context.Context, *linkwrap.Env, linkwrap.Options) error {
		return &linkwrap.ToolError{Tool: "clang", Hint: "install clang-22", Searched: []string{"/usr/lib/llvm-22/bin", "PATH"},
			Skipped: []string{"/usr/bin/clang (PATH): part of LLVM 14, not 22"}}
	})
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, execute(cmd, []string{"linker-wrapper"}, &stdout, &stderr))
	assert.Equal(t, "linker-wrapper: error: unable to find a usable 'clang'; install clang-22\n"+
		"linker-wrapper: note: searched /usr/lib/llvm-22/bin, PATH\n"+
		"linker-wrapper: note: skipped /usr/bin/clang (PATH): part of LLVM 14, not 22\n", stderr.String())
}

// TestToolLookupEnvironment: the driver receives the parent process, the
// LLVM installation layouts and the CUDA directory, and reads the tool
// variables through Getenv.
func TestToolLookupEnvironment(t *testing.T) {
	t.Setenv("OFFLOAD_KIT_LLVM_DIR", "/env/llvm")
	var env linkwrap.Env
	var opts *linkwrap.Options
	cmd := newRootCmd(func(_ context.Context, e *linkwrap.Env, o linkwrap.Options) error {
		opts, env = &o, *e
		return nil
	})
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, execute(cmd, []string{"linker-wrapper", "--linker-path=/usr/bin/ld", "--llvm-dir=/flag/llvm",
		"--tool-path=ptxas=/opt/cuda/bin/ptxas", "--tool-path=ld.lld=/x/ld.lld"}, &stdout, &stderr), stderr.String())
	assert.Equal(t, "/flag/llvm", opts.LLVMDir)
	assert.Equal(t, map[string]string{"ptxas": "/opt/cuda/bin/ptxas", "ld.lld": "/x/ld.lld"}, opts.ToolPaths)
	assert.Equal(t, "/env/llvm", env.Getenv("OFFLOAD_KIT_LLVM_DIR"))
	assert.Equal(t, os.Getppid(), env.ParentPID)
	self, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", os.Getppid()))
	require.NoError(t, err)
	assert.Equal(t, self, env.Parent, "the process that started this one")
	assert.Contains(t, env.Layouts, "/usr/lib/llvm-%d/bin")
	assert.Equal(t, []string{"/usr/local/cuda/bin"}, env.CUDADirs)

	_, err = linkwrap.ParseArgs([]string{"--tool-path=ptxas"})
	assert.ErrorContains(t, err, "--tool-path=ptxas: expected <program>=<path>")
}

func TestCacheFlagsAndEnvironment(t *testing.T) {
	t.Setenv("OFFLOAD_KIT_CACHE_DIR", "/env/cache")
	t.Setenv("OFFLOAD_KIT_CACHE_REMOTE", "http://env:8080")
	t.Setenv("OFFLOAD_KIT_CACHE_MAX_SIZE", "2G")
	t.Setenv("OFFLOAD_KIT_VERBOSE", "1")
	o, _, _, stderr, code := capture(t, "linker-wrapper", "--linker-path=/usr/bin/ld", "a.o")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "/env/cache", o.CacheDir)
	assert.Equal(t, "http://env:8080", o.CacheRemote)
	assert.Equal(t, int64(2<<30), o.CacheMaxSize)
	assert.True(t, o.Summary && !o.Verbose, "OFFLOAD_KIT_VERBOSE prints the summary, not every command")

	// Flags win over the environment.
	o, _, _, stderr, code = capture(t, "linker-wrapper", "--linker-path=/usr/bin/ld", "--cache-dir=/flag",
		"--cache-max-size=512M", "--cache-remote=https://flag", "--no-cache", "a.o")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "/flag", o.CacheDir)
	assert.Equal(t, "https://flag", o.CacheRemote)
	assert.Equal(t, int64(512<<20), o.CacheMaxSize)
	assert.True(t, o.NoCache)
	for _, a := range o.Args {
		assert.True(t, !a.IsInput() || a.Value() == "a.o", "wrapper-only flags are not forwarded")
	}

	t.Setenv("OFFLOAD_KIT_CACHE_MAX_SIZE", "lots")
	_, _, _, stderr, code = capture(t, "linker-wrapper", "--linker-path=/usr/bin/ld", "a.o")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "OFFLOAD_KIT_CACHE_MAX_SIZE=lots")
	_, _, _, stderr, code = capture(t, "linker-wrapper", "--linker-path=/usr/bin/ld", "--cache-max-size=-1", "a.o")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--cache-max-size=-1")
}

func TestErrorsStayOnOneLine(t *testing.T) {
	cmd := newRootCmd(func(context.Context, *linkwrap.Env, linkwrap.Options) error {
		return errors.New("in.bin: member a\nb\x1b[2J: bad")
	})
	var stdout, stderr bytes.Buffer
	code := execute(cmd, []string{"linker-wrapper", "--linker-path=/usr/bin/ld", "in.bin"}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Equal(t, "linker-wrapper: error: in.bin: member a\\nb\\x1b[2J: bad\n", stderr.String())
}
