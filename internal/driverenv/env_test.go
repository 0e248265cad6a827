package driverenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
)

func TestVerboseSet(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true, "2": true} {
		e := &Env{LookupEnv: func(k string) (string, bool) { return v, k == Verbose }}
		if got := e.VerboseSet(); got != want {
			t.Errorf("OFFLOAD_KIT_VERBOSE=%q: VerboseSet() = %v, want %v", v, got, want)
		}
	}
	if (&Env{}).VerboseSet() {
		t.Error("unset OFFLOAD_KIT_VERBOSE is off")
	}
}

func TestZeroEnv(t *testing.T) {
	var e Env
	if v, ok := e.Lookup("PATH"); v != "" || ok || e.Getenv("PATH") != "" {
		t.Errorf("zero Env has an environment: %q %v", v, ok)
	}
	if e.CPUs() != runtime.NumCPU() || e.Path("a/b") != "a/b" {
		t.Errorf("zero Env: CPUs %d, Path %q", e.CPUs(), e.Path("a/b"))
	}
	e = Env{Dir: "/out", NumCPU: 3, LookupEnv: FromGetenv(func(k string) string {
		if k == "X" {
			return "1"
		}
		return ""
	})}
	if e.Path("a") != "/out/a" || e.Path("/abs") != "/abs" || e.Path("-") != "-" || e.CPUs() != 3 {
		t.Errorf("Path/CPUs: %q %q %q %d", e.Path("a"), e.Path("/abs"), e.Path("-"), e.CPUs())
	}
	if v, ok := e.Lookup("X"); v != "1" || !ok {
		t.Errorf("Lookup(X) = %q %v", v, ok)
	}
	if _, ok := e.Lookup("Y"); ok {
		t.Error("FromGetenv: an empty value is unset")
	}
}

func TestToolchain(t *testing.T) {
	vars := map[string]string{"PATH": "/a:/b", "OFFLOAD_KIT_LLVM_DIR": "/llvm", "OFFLOAD_KIT_LLVM_LINK": "/x/llvm-link"}
	e := &Env{LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		ExeDir: "/exe", Parent: "/usr/bin/clang", ParentPID: 7, Layouts: []string{"/l-%d"}, Runner: run.Exec{}}
	tc := e.Toolchain()
	if tc.Runner != (run.Exec{}) {
		t.Errorf("toolchain runner %#v: want the environment's", tc.Runner)
	}
	if tc.PathList != "/a:/b" || tc.LLVMDir != "/llvm" || tc.LLVMDirWhy != "$OFFLOAD_KIT_LLVM_DIR=/llvm" ||
		tc.ExeDir != "/exe" || tc.Parent != "/usr/bin/clang" || tc.ParentWhy != "the clang that invoked this link (pid 7)" || len(tc.Layouts) != 1 {
		t.Errorf("toolchain: %+v", tc)
	}
	if p, why := tc.Override("llvm-link"); p != "/x/llvm-link" || why != "$OFFLOAD_KIT_LLVM_LINK" {
		t.Errorf("override: %q %q", p, why)
	}
	if p, _ := tc.Override("llc"); p != "" {
		t.Errorf("llc override: %q", p)
	}
	if tc := (&Env{}).Toolchain(); tc.Parent != "" || tc.LLVMDir != "" || tc.PathList != "" {
		t.Errorf("zero Env toolchain: %+v", tc)
	}
}

// TestStem pins llvm::sys::path::stem's edge cases (llvm-offload-binary
// names extracted images after it: ".hidden" extracts to
// "-<triple>-<arch>.0.<ext>" with LLVM 22).
func TestStem(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"a/b/foo.o", "foo"},
		{"foo.tar.gz", "foo.tar"}, // multiple dots: the last one only
		{"noext", "noext"},
		{"dir/noext", "noext"},
		{".bashrc", ""}, // a leading dot starts an extension
		{"d/.hidden", ""},
		{"..x", "."},
		{"x.", "x"},
		{".", "."},
		{"..", ".."},
		{"dir/..", ".."},
		{"dir/", "."}, // a trailing separator names "."
		{"a.b/", "."},
		{"/", "/"},
		{"", ""},
		{"/usr/bin/llvm-offload-binary", "llvm-offload-binary"},
		{"clang-offload-bundler-22", "clang-offload-bundler-22"},
		{"out.spv", "out"},
	} {
		if got := Stem(tc.path); got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestLookPathTempRoot(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "tool")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := &Env{LookupEnv: FromGetenv(func(k string) string {
		switch k {
		case "PATH":
			return "/nonexistent" + string(os.PathListSeparator) + dir
		case "TMPDIR":
			return "/scratch"
		}
		return ""
	})}
	if p, ok := e.LookPath("tool"); p != prog || !ok {
		t.Errorf("LookPath(tool) = %q %v, want %q", p, ok, prog)
	}
	if p, ok := e.LookPath("missing"); ok {
		t.Errorf("LookPath(missing) = %q", p)
	}
	if e.TempRoot() != "/scratch" {
		t.Errorf("TempRoot() = %q", e.TempRoot())
	}
	// the zero Env has no PATH and no TMPDIR (workdir then uses os.TempDir())
	if _, ok := (&Env{}).LookPath("tool"); ok || (&Env{}).TempRoot() != "" {
		t.Error("zero Env: LookPath found a program or TempRoot is set")
	}
}
