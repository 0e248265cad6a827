package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/cli"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/sycldev"
	"github.com/offload-kit/offload-kit/internal/version"
	"github.com/offload-kit/offload-kit/split"
)

func parse(t *testing.T, args ...string) (*sycldev.Options, string, error) {
	t.Helper()
	var got *sycldev.Options
	var out, errb bytes.Buffer
	root := newRootCmd(&sycldev.Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb}}, func(o *sycldev.Options) error { got = o; return nil })
	root.SetOut(&out)
	root.SetArgs(args)
	err := root.Execute()
	return got, out.String(), err
}

func TestFlags(t *testing.T) {
	o, _, err := parse(t, "--triple=spirv64", "--arch=intel_gpu_pvc", "-o", "out.bin", "--device-libs=a.bc,b.bc",
		"--library-path=/lib", "-v", "--module-split-mode=source", "-j4", "x.bc", "y.a")
	if err != nil {
		t.Fatal(err)
	}
	if o.Triple != "spirv64" || o.Arch != "intel_gpu_pvc" || o.Output != "out.bin" || o.Jobs != 4 ||
		!o.Verbose || o.SplitMode != split.ModeSource || len(o.DeviceLibs) != 2 || strings.Join(o.Inputs, " ") != "x.bc y.a" {
		t.Errorf("options: %+v", o)
	}
	o, _, err = parse(t, "--output-file", "o2", "--triple=spirv64", "in.bc")
	if err != nil || o.Output != "o2" {
		t.Errorf("--output-file: %v %+v", err, o)
	}
}

func TestHelpAndVersion(t *testing.T) {
	o, out, err := parse(t, "--help")
	if err != nil || o != nil || !strings.Contains(out, "--module-split-mode=none|kernel|source|auto") || !strings.Contains(out, "--ir-output-only") {
		t.Errorf("help: %v %q", err, out)
	}
	_, out, _ = parse(t, "--version")
	if out != version.Line("sycl-linker")+"\n" {
		t.Errorf("version: %q", out)
	}
}

func TestErrorsExit1(t *testing.T) {
	var out, errb bytes.Buffer
	code := runMain([]string{"--bogus"}, testEnv(&out, &errb, nil))
	if code != 1 || errb.String() != "sycl-linker: error: unknown argument '--bogus'\n" {
		t.Errorf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = runMain([]string{"-o", "x", "in.bc"}, testEnv(&out, &errb, nil))
	if code != 1 || errb.String() != "sycl-linker: error: Target triple must be specified\n" {
		t.Errorf("code %d, stderr %q", code, errb.String())
	}
	_, _, err := parse(t, "--spec-const=bad")
	var fe *cli.FlagError
	if err == nil || !asFlag(err, &fe) {
		t.Errorf("want FlagError, got %v", err)
	}
}

func asFlag(err error, fe **cli.FlagError) bool {
	f, ok := err.(*cli.FlagError)
	*fe = f
	return ok
}

// TestToolchain: LLVM programs come from $OFFLOAD_KIT_<PROGRAM>, then
// $OFFLOAD_KIT_LLVM_DIR, then (the test's parent is no clang) the LLVM 22
// installation, never from a broken llvm-link first in PATH.
func TestToolchain(t *testing.T) {
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "llvm-link"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": broken + ":/usr/bin"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ set, value, want, why string }{
		{"", "", "/usr/lib/llvm-22/bin/llvm-link", "the LLVM 22 installation (/usr/lib/llvm-22/bin)"},
		{"OFFLOAD_KIT_LLVM_DIR", broken, filepath.Join(broken, "llvm-link"), "$OFFLOAD_KIT_LLVM_DIR=" + broken},
		{"OFFLOAD_KIT_LLVM_LINK", "/x/llvm-link", "/x/llvm-link", "$OFFLOAD_KIT_LLVM_LINK"},
	} {
		if tc.set != "" {
			env[tc.set] = tc.value
		}
		e := testEnv(nil, nil, getenv)
		e.Runner = run.Exec{}
		c, err := e.Toolchain().Find(context.Background(), "llvm-link")
		if err != nil || c.Path != tc.want || c.Why != tc.why {
			t.Errorf("%s: got %+v, %v; want %s (%s)", tc.set, c, err, tc.want, tc.why)
		}
	}
}

// TestVerboseNotesAndPhases: -v notes each program chosen and prints the
// phase summary at exit; $OFFLOAD_KIT_VERBOSE prints the summary only.
func TestVerboseNotesAndPhases(t *testing.T) {
	if _, err := os.Stat("/usr/lib/llvm-22/bin/llc"); err != nil {
		t.Skip("needs LLVM 22 in /usr/lib/llvm-22/bin")
	}
	t.Setenv("OFFLOAD_KIT_LLVM", "process")
	bc, err := filepath.Abs("../../internal/sycldev/testdata/kernels-spirv64-clang22.bc")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dev.out")
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"--triple=spirv64", "-v", "-o", out, bc}, testEnv(&stdout, &stderr, nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"sycl-linker: note: llc: using /usr/lib/llvm-22/bin/llc (the LLVM 22 installation (/usr/lib/llvm-22/bin))\n",
		"sycl-linker: phase summary (wall time)\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-v: no %q in\n%s", want, stderr.String())
		}
	}
	t.Setenv("OFFLOAD_KIT_VERBOSE", "1")
	stderr.Reset()
	if code := runMain([]string{"--triple=spirv64", "-o", out, bc}, testEnv(&stdout, &stderr, nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if s := stderr.String(); !strings.HasPrefix(s, "sycl-linker: phase summary (wall time)\n") || strings.Contains(s, "note:") {
		t.Errorf("OFFLOAD_KIT_VERBOSE=1: want only the summary, got\n%s", s)
	}
}

// testEnv is this process's driver environment with the variables of
// lookup (nil: the process's, with an empty PATH), so that no program is
// taken from the PATH the tests run with.
func testEnv(stdout, stderr io.Writer, lookup func(string) (string, bool)) *driverenv.Env {
	env := cli.ProcessEnv(nil, stdout, stderr, tool)
	env.LookupEnv = lookup
	if lookup == nil {
		env.LookupEnv = func(k string) (string, bool) {
			if k == "PATH" {
				return "", false
			}
			return os.LookupEnv(k)
		}
	}
	return &env
}
