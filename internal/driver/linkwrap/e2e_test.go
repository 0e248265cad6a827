package linkwrap

// End-to-end tests: OpenMP host-offload programs built by clang 22 with
// -B<dir>, where <dir>/clang-linker-wrapper is a symlink to a fresh build of
// cmd/linker-wrapper, then run. Skipped under -short or without clang-22.

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const llvmBin = llvmtools.Dir

func findTool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, ok := run.FindProgram(n, []string{llvmBin}, os.Getenv("PATH")); ok {
			return p
		}
	}
	t.Skipf("none of %v found", names)
	return ""
}

// stubInclude is the -I option for testdata/include at the repository root,
// whose offload_abi.h holds the registration structs that the C stub
// runtimes under testdata read.
func stubInclude(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../testdata/include")
	require.NoError(t, err)
	return "-I" + dir
}

// sh runs argv in dir and returns stdout; stderr is attached to failures.
func sh(t *testing.T, dir string, env []string, argv ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Args: argv, Dir: dir, Env: tmproot.Env(env), Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("%s\n%+v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, out.String(), errb.String())
	}
	return out.String()
}

var (
	wrapperOnce sync.Once
	wrapperDir  string
	wrapperErr  error
)

// buildWrapper builds cmd/linker-wrapper once per test binary and returns a
// directory holding a clang-linker-wrapper symlink to it.
func buildWrapper(t *testing.T) string {
	t.Helper()
	wrapperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lw-bin-")
		if err != nil {
			wrapperErr = err
			return
		}
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		var errb bytes.Buffer
		err = run.Exec{}.Run(context.Background(), &run.Cmd{
			Args: []string{goTool, "build", "-o", filepath.Join(dir, "linker-wrapper"), "./cmd/linker-wrapper"},
			Dir:  "../../..", Stderr: &errb,
		})
		if err != nil {
			wrapperErr = fmt.Errorf("go build: %v\n%s", err, errb.String())
			return
		}
		wrapperErr = os.Symlink("linker-wrapper", filepath.Join(dir, "clang-linker-wrapper"))
		wrapperDir = dir
	})
	if wrapperErr != nil {
		t.Fatal(wrapperErr)
	}
	return wrapperDir
}

// ompLibDir returns a -L directory where libomptarget.so resolves (Debian's
// liboffload-22 ships only libomptarget.so.22.1 without the dev symlink).
func ompLibDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{llvmBin + "/../lib", "/usr/lib/x86_64-linux-gnu"} {
		if _, err := os.Stat(filepath.Join(d, "libomptarget.so")); err == nil {
			return d
		}
	}
	for _, d := range []string{llvmBin + "/../lib", "/usr/lib/x86_64-linux-gnu"} {
		p := filepath.Join(d, "libomptarget.so.22.1")
		if _, err := os.Stat(p); err == nil {
			dir := t.TempDir()
			if err := os.Symlink(p, filepath.Join(dir, "libomptarget.so")); err != nil {
				t.Fatal(err)
			}
			return dir
		}
	}
	t.Skip("libomptarget (liboffload-22) not installed")
	return ""
}

type ompProgram struct {
	name  string
	build func(t *testing.T, cc, cxx string, flags []string, dir string) string // returns the executable
	want  string
}

func src(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", "omp", name))
	return p
}

func cmdline(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

var ompPrograms = []ompProgram{
	{"single", func(t *testing.T, cc, _ string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cc, f, src("single.c"), "-o", "single")...)
		return "single"
	}, "on_device=1\nsum=6048\n"},
	{"cross-tu", func(t *testing.T, cc, _ string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cc, f, src("xtu_main.c"), src("xtu_dev.c"), "-o", "xtu")...)
		return "xtu"
	}, "on_device=1\nsquare=49 cube=27\n"},
	{"lto-host", func(t *testing.T, cc, _ string, f []string, dir string) string {
		// -flto host objects are LLVM bitcode: offload packages come from llvm.embedded.objects.
		sh(t, dir, nil, cmdline(cc, f, "-flto", "-fuse-ld=lld", src("xtu_main.c"), src("xtu_dev.c"), "-o", "xtu-lto")...)
		return "xtu-lto"
	}, "on_device=1\nsquare=49 cube=27\n"},
	{"globals", func(t *testing.T, cc, _ string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cc, f, src("globals.c"), "-o", "globals")...)
		return "globals"
	}, "on_device=1\ncounter=105 scale=105,210,315,420\n"},
	{"static-lib", func(t *testing.T, cc, _ string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cc, f, "-c", src("lib_dev.c"), src("lib_unused.c"))...)
		sh(t, dir, nil, findTool(t, "llvm-ar-22", "llvm-ar", "ar"), "rcs", "libdev.a", "lib_dev.o", "lib_unused.o")
		sh(t, dir, nil, cmdline(cc, f, src("lib_main.c"), "-L.", "-ldev", "-o", "lib")...)
		return "lib"
	}, "on_device=1\nlib_sum=295\n"},
	{"templates-lambdas", func(t *testing.T, _, cxx string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cxx, f, src("templates.cpp"), "-o", "templates")...)
		return "templates"
	}, "on_device=1\ndot=280 vec=10 lambda=31\n"},
	{"relocatable", func(t *testing.T, cc, _ string, f []string, dir string) string {
		sh(t, dir, nil, cmdline(cc, f, "-r", src("reloc_a.c"), src("reloc_b.c"), "-o", "reloc.o")...)
		sh(t, dir, nil, cmdline(cc, f, src("reloc_main.c"), "reloc.o", "-o", "reloc")...)
		return "reloc"
	}, "on_device=1\na=42 b=101 m=7\n"},
}

// referenceAborts lists programs that the LLVM 22.1.8 clang-linker-wrapper
// links into executables that abort at start-up (docs/linker-wrapper.md).
var referenceAborts = map[string]bool{"relocatable": true}

func TestOpenMPHostOffloadPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	cxx := findTool(t, "clang++-22", "clang++")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	base := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	_, haveRef := run.FindProgram("clang-linker-wrapper", []string{llvmBin}, "")
	for _, p := range ompPrograms {
		t.Run(p.name, func(t *testing.T) {
			dir := t.TempDir()
			exe := p.build(t, cc, cxx, cmdline(base, "-B"+bin), dir)
			got := sh(t, dir, nil, "./"+exe)
			assert.Equal(t, p.want, got, "output of the program linked by linker-wrapper")
			assert.True(t, strings.HasPrefix(got, "on_device=1\n"), "target region must run on the device")
			if p.name == "relocatable" {
				checkRelocatableOutput(t, filepath.Join(dir, "reloc.o"))
			}
			if !haveRef || referenceAborts[p.name] {
				return
			}
			refDir := t.TempDir()
			refExe := p.build(t, cc, cxx, base, refDir)
			assert.Equal(t, sh(t, refDir, nil, "./"+refExe), got, "same output as the clang-linker-wrapper link")
		})
	}
}

// TestNativeWrapperObjectReadsBack links with --save-temps and reads the
// generated registration object back with llvm-readobj and llvm-objdump.
func TestNativeWrapperObjectReadsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	readobj := findTool(t, "llvm-readobj-22", "llvm-readobj")
	objdump := findTool(t, "llvm-objdump-22", "llvm-objdump")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	var stderr bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Stderr: &stderr, Args: cmdline(cc,
		"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L"+lib, "-B"+bin, src("globals.c"), "-o", "globals",
		"-Xlinker", "--save-temps", "-Xlinker", "--wrapper-verbose")})
	require.NoError(t, err, stderr.String())
	// Every file under dir that the printed commands name exists afterwards.
	for _, f := range strings.Fields(stderr.String()) {
		if strings.HasPrefix(f, dir+"/") || (!strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "-") && strings.Contains(f, "globals")) {
			if strings.HasSuffix(f, ".img.") || strings.HasPrefix(f, "--") {
				continue
			}
			p := f
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			_, err := os.Stat(p)
			assert.NoError(t, err, "printed temporary %s", f)
		}
	}
	obj := filepath.Join(dir, "globals.openmp.image.wrapper.o")
	ro := sh(t, dir, nil, readobj, "--sections", "--symbols", "--relocs", obj)
	for _, want := range []string{".llvm.offloading", "SHT_LLVM_OFFLOADING", ".init_array.101", "llvm_offload_entries",
		"__tgt_register_lib", "__tgt_unregister_lib", "atexit", "__start_llvm_offload_entries", "__stop_llvm_offload_entries"} {
		assert.Contains(t, ro, want)
	}
	od := sh(t, dir, nil, objdump, "-dr", obj)
	assert.Contains(t, od, "R_X86_64_PLT32\t__tgt_register_lib")
	assert.Contains(t, od, ".text.startup")
	assert.Contains(t, sh(t, dir, nil, objdump, "--offloading", filepath.Join(dir, "globals")), "triple          x86_64-unknown-linux-gnu")
}

func TestMain(m *testing.M) {
	if llvmpool.IsHelper(os.Args) { // in-process LLVM of SYCL links
		os.Exit(llvmpool.Serve(os.Args, os.Stdin, os.Stdout))
	}
	// clang and LLVM's own wrapper (the oracle) leave files in TMPDIR
	code := tmproot.Run(m)
	if wrapperDir != "" {
		os.RemoveAll(wrapperDir)
	}
	if releaseBinDir != "" {
		os.RemoveAll(releaseBinDir)
	}
	os.Exit(code)
}

// TestLazyExtractionThroughClang checks which archive members give device
// code in a real clang -B link: only the member the host link pulls, or
// every member with --device-archives=llvm22.
func TestLazyExtractionThroughClang(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}
	sh(t, dir, nil, cmdline(cc, f, "-c", src("lib_dev.c"), src("lib_unused.c"))...)
	sh(t, dir, nil, findTool(t, "llvm-ar-22", "llvm-ar", "ar"), "rcs", "libdev.a", "lib_dev.o", "lib_unused.o")
	for _, tc := range []struct {
		extra      []string
		wantUnused bool
	}{{nil, false}, {[]string{"-Xlinker", "--device-archives=llvm22"}, true}} {
		var stderr bytes.Buffer
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Stderr: &stderr, Args: cmdline(cc, f, "-B"+bin,
			src("lib_main.c"), "-L.", "-ldev", "-o", "lib", "-Xlinker", "--wrapper-verbose", tc.extra)})
		require.NoError(t, err, stderr.String())
		var device string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(l, "--target=x86_64-unknown-linux-gnu") {
				device = l
			}
		}
		assert.Contains(t, device, "/lib_dev-x86_64-unknown-linux-gnu-generic")
		assert.Equal(t, tc.wantUnused, strings.Contains(device, "lib_unused-"), device)
		assert.Equal(t, "on_device=1\nlib_sum=295\n", sh(t, dir, nil, "./lib"))
	}
}

// checkRelocatableOutput verifies the in-process llvm-objcopy replacement
// on an -r output: .llvm.offloading is gone, the entries section and its
// bounds symbols carry the same _<hash> suffix, and the image stays in
// .llvm.offloading.relocatable.
func checkRelocatableOutput(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	suffix := ""
	names := map[string]bool{}
	for _, s := range f.Sections {
		names[s.Name] = true
		if rest, ok := strings.CutPrefix(s.Name, "llvm_offload_entries_"); ok {
			suffix = rest
		}
	}
	assert.True(t, !names[".llvm.offloading"], "no .llvm.offloading")
	assert.True(t, names[".llvm.offloading.relocatable"], "image kept for later links")
	require.True(t, suffix != "", "entries section renamed")
	syms, err := f.Symbols()
	require.NoError(t, err)
	found := map[string]bool{}
	for _, s := range syms {
		found[s.Name] = true
	}
	assert.True(t, found["__start_llvm_offload_entries_"+suffix] && found["__stop_llvm_offload_entries_"+suffix], "bounds symbols renamed")
	assert.True(t, !found["__start_llvm_offload_entries"], "old bounds symbol gone")
}

// TestUnderGNUMake runs the wrapper from a '+' recipe of "make -j2": the
// device links share make's jobserver, so at most two run at once.
func TestUnderGNUMake(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	mk := findTool(t, "make")
	bin := buildWrapper(t)
	dir := t.TempDir()
	var pkg []byte
	for _, arch := range []string{"gfx90a", "gfx942", "gfx1030", "gfx1100"} {
		pkg = offload.AppendBinary(pkg, &offload.Image{ImageKind: format.ImgBitcode, OffloadKind: format.OfkOpenMP,
			Strings: []offload.KV{{Key: "triple", Value: "amdgcn-amd-amdhsa"}, {Key: "arch", Value: arch}}, Image: []byte("BC\xc0\xde")})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gpu.out"), pkg, 0o644))
	fakeClang := filepath.Join(dir, "fake-clang")
	require.NoError(t, os.WriteFile(fakeClang, []byte("#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\nsleep 0.3\necho img > \"$2\"\n"), 0o755))
	makefile := "all:\n\t+" + filepath.Join(bin, "linker-wrapper") + " --wrapper-time-trace=trace.json --wrapper-time-trace-granularity=0 --linker-path=/bin/true -o app gpu.out\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte(makefile), 0o644))
	sh(t, dir, []string{"PATH=" + os.Getenv("PATH"), "OFFLOAD_KIT_CLANG=" + fakeClang}, mk, "-j2")
	data, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	require.NoError(t, err)
	var tr struct {
		TraceEvents []struct {
			Name    string
			TS, Dur int64
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &tr))
	var spans [][2]int64
	for _, e := range tr.TraceEvents {
		if e.Name == "Link device input" {
			spans = append(spans, [2]int64{e.TS, e.TS + e.Dur})
		}
	}
	require.Equal(t, 4, len(spans))
	peak := 0
	for _, a := range spans {
		n := 0
		for _, b := range spans {
			if b[0] <= a[0] && a[0] < b[1] {
				n++
			}
		}
		peak = max(peak, n)
	}
	assert.Equal(t, 2, peak, "make -j2 allows two device links at once")
}
