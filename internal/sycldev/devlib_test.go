package sycldev

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
)

// tripleCases were observed with clang-sycl-linker 22.1.8: a library with
// the first triple, linked with --triple=<second>, is linked (same) or
// skipped. They live in format/triple/testdata/equal.txt, which that
// package's TestEqual checks against triple.Parse(a).Equal(triple.Parse(b));
// TestDeviceLibsLikeReference checks them (and more) live.
var tripleCases = func() (cases []struct {
	lib, triple string
	same        bool
}) {
	b, err := os.ReadFile("../../format/triple/testdata/equal.txt")
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		cases = append(cases, struct {
			lib, triple string
			same        bool
		}{f[0], f[1], f[2] == "same"})
	}
	return cases
}()

func TestModuleTripleText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{"", "", false},
		{"; only a comment\n\n", "", false},
		{"target triple = \"spirv64\"\n", "spirv64", false},
		{"; c\ntarget datalayout = \"e\"\ntarget   triple=\"a\\5Cb\\\\c\\zz\"\ndefine void @f() {\n  ret void\n}\n", "a\\b\\c\\zz", false},
		{"target triple = \"x\"\ntarget triple = \"y\"\n", "y", false},
		{"define void @f() {\n  ret void\n}\n", "", false},
		{"hello\n", "", true},
		{"!<arch>\n", "", true},
		{"!<thin>\n", "", true},
		{"\x7fELF\x02\x01\x01", "", true},
		{"\x03\x02\x23\x07", "", true},
	} {
		got, err := moduleTriple([]byte(tc.in))
		if tc.err {
			want := "expected top-level entity"
			if strings.HasPrefix(tc.in, "!<") {
				want = "expected integer"
			}
			assert.EqualError(t, err, want, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

// refLib is one device library of the reference comparison.
type refLib struct {
	triple string
	text   bool // kept as .ll instead of assembled
	wrap   bool // behind a bitcode wrapper header
}

// makeRefLibs writes one library per entry, libN defining fnN, and a main
// module calling every fnN; it returns the library paths and main.bc.
func makeRefLibs(t *testing.T, dir string, libs []refLib) ([]string, string) {
	t.Helper()
	var paths []string
	var decls, calls strings.Builder
	for i, l := range libs {
		ir := ""
		if l.triple != "" {
			ir = fmt.Sprintf("target triple = %q\n", l.triple)
		}
		ir += fmt.Sprintf("define spir_func i32 @fn%d(i32 %%x) {\n  ret i32 %%x\n}\n", i)
		ll := filepath.Join(dir, fmt.Sprintf("lib%d.ll", i))
		require.NoError(t, os.WriteFile(ll, []byte(ir), 0o644))
		p := ll
		if !l.text {
			p = strings.TrimSuffix(ll, ".ll") + ".bc"
			llvm(t, "llvm-as", ll, "-o", p)
			if l.wrap {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				h := make([]byte, 20)
				binary.LittleEndian.PutUint32(h[0:], 0x0B17C0DE)
				binary.LittleEndian.PutUint32(h[8:], 20)
				binary.LittleEndian.PutUint32(h[12:], uint32(len(b)))
				require.NoError(t, os.WriteFile(p, append(h, b...), 0o644))
			}
		}
		paths = append(paths, p)
		fmt.Fprintf(&decls, "declare spir_func i32 @fn%d(i32)\n", i)
		fmt.Fprintf(&calls, "  %%r%d = call spir_func i32 @fn%d(i32 %%v)\n", i, i)
	}
	mainIR := decls.String() + "define spir_kernel void @k(ptr addrspace(1) %p) {\n" +
		"  %v = load i32, ptr addrspace(1) %p\n" + calls.String() + "  ret void\n}\n"
	mainLL := filepath.Join(dir, "main.ll")
	require.NoError(t, os.WriteFile(mainLL, []byte(mainIR), 0o644))
	mainBC := filepath.Join(dir, "main.bc")
	llvm(t, "llvm-as", mainLL, "-o", mainBC)
	return paths, mainBC
}

func llvm(t *testing.T, tool string, args ...string) {
	t.Helper()
	var errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Args: append([]string{filepath.Join(llvmBin, tool)}, args...), Stderr: &errb})
	require.NoError(t, err, "%s: %s", tool, errb.String())
}

var definedFn = regexp.MustCompile(`(?m)^define .*@(fn\d+)\(`)

// definedFns lists the fnN defined in printed IR, sorted.
func definedFns(ir string) []string {
	var out []string
	for _, m := range definedFn.FindAllStringSubmatch(ir, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// reference runs clang-sycl-linker 22.1.8 with --dry-run
// --print-linked-module in dir; it returns stdout, stderr and the error.
func reference(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{
		Args:   append([]string{filepath.Join(llvmBin, "clang-sycl-linker"), "--dry-run", "--print-linked-module"}, args...),
		Dir:    dir,
		Env:    append(os.Environ(), "TMPDIR="+dir),
		Stdout: &out,
		Stderr: &errb,
	})
	return out.String(), errb.String(), err
}

// TestDeviceLibsLikeReference links one library per triple spelling, all
// at once, with several --triple values, through clang-sycl-linker 22.1.8
// and checks that deviceLibsFor selects exactly the libraries whose
// functions the reference links (bitcode, wrapped bitcode and text IR).
func TestDeviceLibsLikeReference(t *testing.T) {
	needTools(t, "clang-sycl-linker", "llvm-as")
	var libs []refLib
	seen := map[string]bool{}
	for _, tc := range tripleCases {
		for _, s := range []string{tc.lib, tc.triple} {
			if !seen[s] {
				seen[s] = true
				libs = append(libs, refLib{triple: s})
			}
		}
	}
	libs = append(libs,
		refLib{triple: "spirv64", text: true}, refLib{triple: "x86_64-unknown-linux-gnu", text: true},
		refLib{triple: "spirv64-unknown-unknown", wrap: true}, refLib{triple: "spir64", wrap: true},
		refLib{triple: "armv7m"}, refLib{triple: "thumbv6m"}, refLib{triple: "armv6m"}, refLib{triple: "thumbv2"},
		refLib{triple: "armebv7"}, refLib{triple: "armv7eb"}, refLib{triple: "arm64eb"}, refLib{triple: "aarch64eb"},
		refLib{triple: "aarch64_be"}, refLib{triple: "a"}, refLib{triple: "m"}, refLib{triple: "armv8.1m.main"},
	)
	dir := t.TempDir()
	paths, mainBC := makeRefLibs(t, dir, libs)
	for _, triple := range []string{"spirv64", "spirv64-unknown-unknown", "spirv64-intel", "spir64", "spir64_gen",
		"spirv1.0", "", "zzz", "nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa", "x86_64-unknown-linux-gnu",
		"x86_64-pc-windows-msvc", "x86_64-apple-macosx", "aarch64", "armv7a", "thumbv6m", "thumb", "armeb", "mips", "v7"} {
		if triple == "" {
			triple = "unknown" // --triple= is refused: an all-unknown triple instead
		}
		t.Run(triple, func(t *testing.T) {
			out, errs, _ := reference(t, dir, "--triple="+triple, "--device-libs="+strings.Join(paths, ","), mainBC, "-o", filepath.Join(dir, "out"))
			require.Contains(t, out, "@k(", "no linked module printed: %s", errs)
			d := &driver{o: &Options{Triple: triple}}
			sel, err := d.deviceLibsFor(paths)
			require.NoError(t, err)
			var want []string
			for i, p := range paths {
				if slices.Contains(sel, p) {
					want = append(want, fmt.Sprintf("fn%d", i))
				}
			}
			sort.Strings(want)
			got := definedFns(out)
			require.NotEmpty(t, got, "every --triple here has a library of its own")
			require.Less(t, len(got), len(libs))
			if !assert.Equal(t, got, want, "reference links (got) vs deviceLibsFor (want)") {
				for i, l := range libs {
					in := slices.Contains(got, fmt.Sprintf("fn%d", i))
					if in != slices.Contains(want, fmt.Sprintf("fn%d", i)) {
						t.Logf("lib %q (text %v): reference linked=%v", l.triple, l.text, in)
					}
				}
			}
		})
	}
}

// TestDeviceLibsSkippedLikeReference runs sycl-linker and clang-sycl-linker
// 22.1.8 on the same command line: a library for another triple is
// skipped silently (its function stays a declaration), matching ones are
// linked with --only-needed, and -v still lists every library.
func TestDeviceLibsSkippedLikeReference(t *testing.T) {
	needTools(t, "clang-sycl-linker", "llvm-as", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	libs := []refLib{{triple: "spirv64"}, {triple: "x86_64-unknown-linux-gnu"}, {triple: ""},
		{triple: "spirv64-unknown-unknown", wrap: true}, {triple: "spirv64-intel"}, {triple: "spirv64", text: true}}
	paths, mainBC := makeRefLibs(t, dir, libs)
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	args := []string{"--triple=spirv64", "-v", "--library-path=" + dir, "--device-libs=" + strings.Join(names, ","), mainBC}
	refOut, refErr, err := reference(t, dir, append(args, "-o", filepath.Join(dir, "ref.out"))...)
	require.NoError(t, err, refErr)

	o, err := ParseArgs(append([]string{"--print-linked-module"}, append(args, "-o", filepath.Join(dir, "our.out"))...))
	require.NoError(t, err)
	var out, errb bytes.Buffer
	env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin, "TMPDIR", dir)}}
	require.NoError(t, Run(context.Background(), env, *o), errb.String())

	assert.Equal(t, []string{"fn0", "fn3", "fn5"}, definedFns(refOut), "reference")
	assert.Equal(t, definedFns(refOut), definedFns(out.String()), "sycl-linker vs reference")
	assert.Contains(t, out.String(), "declare spir_func i32 @fn1(i32)", "skipped library's function stays declared")
	libfiles := regexp.MustCompile(`libfiles: (.*) output:`)
	ref, ours := libfiles.FindStringSubmatch(refErr), libfiles.FindStringSubmatch(errb.String())
	require.NotNil(t, ref, refErr)
	require.NotNil(t, ours, errb.String())
	assert.Equal(t, ref[1], ours[1], "-v lists every device library")
	assert.NotContains(t, refErr, "skip")
}

// TestDeviceLibErrorsLikeReference: a device library that is not LLVM IR
// fails the link in both tools, even when another library comes first.
func TestDeviceLibErrorsLikeReference(t *testing.T) {
	needTools(t, "clang-sycl-linker", "llvm-as", "llvm-link")
	dir := t.TempDir()
	paths, mainBC := makeRefLibs(t, dir, []refLib{{triple: "spirv64"}})
	junk := filepath.Join(dir, "junk.bin")
	require.NoError(t, os.WriteFile(junk, []byte("\x7fELF\x02\x01\x01\x00"), 0o644))
	magic := filepath.Join(dir, "magic.bc")
	require.NoError(t, os.WriteFile(magic, []byte("BC\xC0\xDE"), 0o644))
	archive := filepath.Join(dir, "lib.a")
	require.NoError(t, os.WriteFile(archive, []byte("!<arch>\n"), 0o644))
	empty := filepath.Join(dir, "empty.ll")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	for _, tc := range []struct {
		lib, ref, ours string
	}{
		{junk, "expected top-level entity", junk + ": expected top-level entity"},
		{magic, "Expected a single module", magic + ": bitcode: no module block"},
		{archive, "expected integer", archive + ": expected integer"},
		{empty, "", ""}, // an empty module: accepted
	} {
		t.Run(filepath.Base(tc.lib), func(t *testing.T) {
			args := []string{"--triple=spirv64", "--device-libs=" + paths[0] + "," + tc.lib, mainBC}
			_, refErr, err := reference(t, dir, append(args, "-o", filepath.Join(dir, "ref.out"))...)
			o, perr := ParseArgs(append(args, "-o", filepath.Join(dir, "our.out")))
			require.NoError(t, perr)
			var out, errb bytes.Buffer
			env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin, "TMPDIR", dir)}}
			ourErr := Run(context.Background(), env, *o)
			if tc.ref == "" {
				require.NoError(t, err, refErr)
				require.NoError(t, ourErr, errb.String())
				return
			}
			require.Error(t, err)
			assert.Contains(t, refErr, "clang-sycl-linker: error: "+tc.ref)
			require.Error(t, ourErr)
			assert.Contains(t, ourErr.Error(), tc.ours)
		})
	}
}

// FuzzModuleTripleText: IR text and junk never panic; an error means no
// triple.
func FuzzModuleTripleText(f *testing.F) {
	f.Add([]byte("target triple = \"spirv64\"\n"))
	f.Add([]byte("; c\ntarget triple = \"a\\5Cb\\\\\"\n"))
	f.Add([]byte("!<arch>\n"))
	f.Add([]byte("BC\xC0\xDE"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		triple, err := moduleTriple(b)
		if err != nil && triple != "" {
			t.Fatalf("error %v with triple %q", err, triple)
		}
	})
}
