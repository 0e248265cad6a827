package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

var (
	impWrapperRe = regexp.MustCompile(`\S*\.openmp\.image\.wrapper-[0-9a-f]+\.o`)
	impDevInRe   = regexp.MustCompile(`/([a-z]+)-amdgcn-amd-amdhsa-gfx90a-[0-9a-f]+\.o`)
)

// impDryRun runs a wrapper with --dry-run in dir; it returns the host link
// line (the wrapper object's temporary name replaced), the stems of the
// device link's inputs, stderr and whether it succeeded.
func impDryRun(t *testing.T, dir, wrapper string, args []string) (host string, dev []string, stderr string, ok bool) {
	var outb, errb bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Args: append([]string{wrapper}, args...), Stdout: &outb, Stderr: &errb})
	errb.Write(outb.Bytes())
	for _, line := range strings.Split(errb.String(), "\n") {
		switch {
		case strings.Contains(line, "lld-link\""):
			host = impWrapperRe.ReplaceAllString(strings.TrimSpace(line), "WRAPPER")
		case strings.Contains(line, "--target=amdgcn-amd-amdhsa"):
			for _, m := range impDevInRe.FindAllStringSubmatch(line, -1) {
				dev = append(dev, m[1])
			}
		}
	}
	return host, dev, errb.String(), err == nil
}

// TestImportLibrariesCOFFLink: a COFF link (lld-link, x86_64-pc-windows-msvc)
// whose import libraries (llvm-dlltool's kernel32.lib, lld-link /implib's
// foo.lib) are given by path, by bare name found through /libpath: as
// lld-link finds them, by -l, and by /DEFAULTLIB: (on the command line and
// in an object's .drectve section) succeeds under --dry-run and passes
// every argument to lld-link unchanged, as LLVM 22's clang-linker-wrapper
// does where it succeeds. Before, every import library failed the link
// with "NumberOfSections (truncated) at offset 0x2c". Beyond LLVM 22: -l
// finds <name>.lib (LLVM fails: "unable to find library"), and a static
// library named only by /DEFAULTLIB: (devlib.lib, #pragma comment(lib))
// gives its device code (LLVM 22 never reads it).
func TestImportLibrariesCOFFLink(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	ours := filepath.Join(buildWrapper(t), "linker-wrapper")
	theirs := llvmtools.Tool(t, "clang-linker-wrapper")
	lldLink := llvmtools.Tool(t, "lld-link")
	dir := t.TempDir()
	lib := filepath.Join(dir, "libdir")
	require.NoError(t, os.MkdirAll(lib, 0o755))
	w := func(n, s string) { require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)) }
	w("t.c", "void ExitProcess(unsigned);\nint main(void) {\n  int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 1;\n  ExitProcess(x);\n  return x;\n}\n")
	w("u.c", "#pragma omp declare target\nint devfn(int x) { return x * 2; }\n#pragma omp end declare target\n")
	w("kernel32.def", "LIBRARY kernel32.dll\nEXPORTS\nExitProcess\nGetStdHandle\nSomeData DATA\n")
	w("dll.c", "__declspec(dllexport) int foo_fn(int x) { return x + 1; }\n__declspec(dllexport) int foo_data = 3;\n")
	w("drectve.s", "\t.section .drectve,\"yni\"\n\t.ascii \" /DEFAULTLIB:kernel32 /DEFAULTLIB:\\\"foo.lib\\\" -defaultlib:devlib /DEFAULTLIB:nosuch\"\n"+
		"\t.text\n\t.globl g\ng:\n\tret\n")
	cc := llvmtools.Tool(t, "clang")
	omp := []string{"--target=x86_64-pc-windows-msvc", "-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-nostdinc", "-c"}
	for _, step := range [][]string{
		append(append([]string{cc}, omp...), "t.c", "-o", "t.obj"),
		append(append([]string{cc}, omp...), "u.c", "-o", "u.obj"),
		{llvmtools.Tool(t, "llvm-lib"), "/out:libdir/devlib.lib", "u.obj"},
		{llvmtools.Tool(t, "llvm-dlltool"), "-m", "i386:x86-64", "-d", "kernel32.def", "-l", "libdir/kernel32.lib"},
		{cc, "--target=x86_64-pc-windows-msvc", "-c", "dll.c", "-o", "dll.obj"},
		{lldLink, "/dll", "/noentry", "/nodefaultlib", "dll.obj", "/out:libdir/foo.dll", "/implib:libdir/foo.lib"},
		{llvmtools.Tool(t, "llvm-mc"), "-triple", "x86_64-pc-windows-msvc", "-filetype=obj", "drectve.s", "-o", "drectve.obj"},
		// u.obj's member beside kernel32.lib's import members.
		{llvmtools.Tool(t, "llvm-lib"), "/out:mixed.lib", "u.obj", "libdir/kernel32.lib"},
	} {
		sh(t, dir, nil, step...)
	}
	base := []string{"--dry-run", "--host-triple=x86_64-pc-windows-msvc", "--linker-path=" + lldLink, "-out:a.exe", "-libpath:libdir", "-nologo"}
	for _, tc := range []struct {
		name       string
		args       []string
		llvmFails  bool     // LLVM 22 fails the link
		llvmDev    []string // LLVM 22's device inputs, when not ours
		dev        []string // ours
		wantInHost string
	}{
		{name: "path", args: []string{"t.obj", "libdir/kernel32.lib", filepath.Join(lib, "foo.lib")}, dev: []string{"t"}, wantInHost: "libdir/kernel32.lib"},
		{name: "libpath", args: []string{"t.obj", "kernel32.lib", "foo.lib"}, dev: []string{"t"}, wantInHost: " kernel32.lib foo.lib"},
		{name: "-l", args: []string{"t.obj", "-lkernel32", "-lfoo"}, llvmFails: true, dev: []string{"t"}, wantInHost: "-l kernel32 -l foo"},
		{name: "-L", args: []string{"-L" + lib, "t.obj", "-lkernel32.lib"}, llvmFails: true, dev: []string{"t"}, wantInHost: "-l kernel32.lib"},
		{name: "defaultlib", args: []string{"t.obj", "-defaultlib:kernel32", "/DEFAULTLIB:foo"}, dev: []string{"t"}, wantInHost: "-defaultlib:kernel32 /DEFAULTLIB:foo"},
		{name: "drectve", args: []string{"t.obj", "drectve.obj"}, llvmDev: []string{"t"}, dev: []string{"t", "u"}, wantInHost: "t.obj drectve.obj"},
		{name: "drectve-nodefaultlib", args: []string{"t.obj", "drectve.obj", "/nodefaultlib:devlib.lib"}, dev: []string{"t"}, wantInHost: "/nodefaultlib:devlib.lib"},
		{name: "import-and-device-members", args: []string{"t.obj", "mixed.lib"}, dev: []string{"t", "u"}, wantInHost: "t.obj mixed.lib"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, base...), tc.args...)
			host, dev, stderr, ok := impDryRun(t, dir, ours, args)
			require.True(t, ok, stderr)
			assert.NotContains(t, stderr, "NumberOfSections")
			assert.Equal(t, tc.dev, dev, stderr)
			assert.Contains(t, host, tc.wantInHost)
			assert.Contains(t, host, "-out:a.exe WRAPPER -libpath:libdir -nologo ")
			lhost, ldev, lstderr, lok := impDryRun(t, dir, theirs, args)
			if tc.llvmFails {
				assert.False(t, lok, lstderr)
				assert.Contains(t, lstderr, "unable to find library -l")
				return
			}
			require.True(t, lok, lstderr)
			assert.Equal(t, lhost, host, "host link line")
			want := tc.dev
			if tc.llvmDev != nil {
				want = tc.llvmDev
			}
			assert.Equal(t, want, ldev, lstderr)
		})
	}
}

func TestMSVCDirectives(t *testing.T) {
	words := drectveWords(" /DEFAULTLIB:\"LIBCMT\"  /DEFAULTLIB:oldnames -defaultlib:\"a b.lib\"\x00/NODEFAULTLIB:x.lib /nodefaultlib /include:f")
	assert.Equal(t, []string{"/DEFAULTLIB:LIBCMT", "/DEFAULTLIB:oldnames", "-defaultlib:a b.lib", "/NODEFAULTLIB:x.lib", "/nodefaultlib", "/include:f"}, words)
	def, nodef, all := msvcDirectives(words)
	assert.Equal(t, []string{"LIBCMT", "oldnames", "a b.lib"}, def)
	assert.Equal(t, []string{"x.lib"}, nodef)
	assert.True(t, all)

	for _, tc := range []struct {
		linker, host string
		want         bool
	}{
		{"/usr/bin/lld-link", "x86_64-pc-windows-msvc", true},
		{`C:\VS\link.exe`, "", true},
		{"/usr/bin/ld.lld", "x86_64-w64-windows-gnu", false},
		{"/usr/bin/ld", "x86_64-unknown-linux-gnu", false},
		{"/opt/mylinker", "x86_64-pc-windows-msvc", true},
		{"/opt/mylinker", "x86_64-pc-windows-gnu", false},
	} {
		d := &driver{opt: &Options{LinkerPath: tc.linker}, host: tc.host}
		assert.Equal(t, tc.want, d.msvcLink(), "%s %s", tc.linker, tc.host)
	}
}

func TestImportMemberSymbols(t *testing.T) {
	// llvm-dlltool's member for "ExitProcess" (code) and "SomeData" (data).
	code := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x19\x00\x00\x00\x00\x00\x04\x00ExitProcess\x00kernel32.dll\x00")
	st, ok := symbols(code)
	require.True(t, ok)
	assert.Equal(t, symtab{defs: []string{"__imp_ExitProcess", "ExitProcess"}}, st)
	data := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x16\x00\x00\x00\x00\x00\x05\x00SomeData\x00kernel32.dll\x00")
	st, ok = symbols(data)
	require.True(t, ok)
	assert.Equal(t, symtab{defs: []string{"__imp_SomeData"}}, st)
	_, ok = symbols(code[:30])
	assert.False(t, ok)
}
