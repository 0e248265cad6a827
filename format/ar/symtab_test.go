package ar

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteGNUObjectsFixture: WriteGNU over gnu.a's inputs (one of them an
// ELF object) reproduces llvm-ar's archive, symbol table included.
func TestWriteGNUObjectsFixture(t *testing.T) {
	var members []WriteMember
	for _, n := range memberFiles {
		members = append(members, WriteMember{Name: n, Data: readFile(t, n)})
	}
	var buf bytes.Buffer
	require.NoError(t, WriteGNU(&buf, members))
	assert.Equal(t, string(readFile(t, "gnu.a")), buf.String())
}

// TestWriteGNUSymbolTable compiles small objects for several targets and
// compares WriteGNU with llvm-ar rcD --format=gnu, including the 64-bit
// symbol table (forced with llvm-ar's SYM64_THRESHOLD).
func TestWriteGNUSymbolTable(t *testing.T) {
	clang, ar := tool(t, "clang"), tool(t, "llvm-ar")
	dir := t.TempDir()
	srcs := map[string]string{
		"a.c":   "static int x; static int f(void){return x;} int (*g(void))(void){return f;}\n",
		"nog.c": "static int y;\n",
		"w.c":   "__attribute__((weak)) int w = 1; int common_c; extern int und; int useit(void){return und;}\n",
	}
	for n, s := range srcs {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644))
	}
	run := func(env []string, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	var objs []string
	for _, tgt := range []string{"x86_64-linux-gnu", "mips-linux-gnu", "x86_64-pc-windows-msvc", "i686-pc-windows-msvc"} {
		for _, src := range []string{"a.c", "nog.c", "w.c"} {
			o := fmt.Sprintf("%s-%s.o", src[:len(src)-2], tgt)
			run(nil, clang, "-target", tgt, "-fcommon", "-c", src, "-o", o)
			objs = append(objs, o)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "text_member_with_long_name.txt"), []byte("odd"), 0o644))
	// An AMDGPU code object (ET_DYN, as in device archives) and its input.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.c"), []byte("int gv = 3; int kern(int x){return x+gv;}\n"), 0o644))
	run(nil, clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib", "-O1", "-c", "dev.c", "-o", "dev.o")
	run(nil, tool(t, "ld.lld"), "-shared", "dev.o", "-o", "dev.hsaco")
	cases := [][]string{
		{"nog-x86_64-linux-gnu.o"},
		{"w-x86_64-linux-gnu.o", "a-x86_64-linux-gnu.o", "nog-x86_64-linux-gnu.o"},
		append([]string{"text_member_with_long_name.txt"}, objs...),
		{"text_member_with_long_name.txt", "w-mips-linux-gnu.o"},
		{"w-x86_64-pc-windows-msvc.o", "a-i686-pc-windows-msvc.o", "nog-i686-pc-windows-msvc.o"},
		{"dev.o", "dev.hsaco"},
	}
	for i, files := range cases {
		var members []WriteMember
		for _, f := range files {
			d, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			members = append(members, WriteMember{Name: f, Data: d})
		}
		for _, th := range []uint64{0, 1 << 32} {
			out := fmt.Sprintf("case%d-%d.a", i, th)
			var env []string
			if th != 1<<32 {
				env = []string{fmt.Sprintf("SYM64_THRESHOLD=%d", th)}
			}
			run(env, ar, append([]string{"rcD", "--format=gnu", out}, files...)...)
			want, err := os.ReadFile(filepath.Join(dir, out))
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, writeGNU(&got, members, Options{}, th))
			assert.Equal(t, string(want), got.String(), "case %d threshold %d", i, th)
			a, err := Parse(got.Bytes())
			require.NoError(t, err)
			assert.Equal(t, len(files), len(a.Members))
		}
	}
}

func TestWriteGNUBadObject(t *testing.T) {
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 57)...)
	elf[0x28] = 0xff // e_shoff far past the end
	elf[0x3a] = 64   // e_shentsize
	elf[0x3c] = 3    // e_shnum
	var buf bytes.Buffer
	assert.True(t, WriteGNU(&buf, []WriteMember{{Name: "bad.o", Data: elf}}) != nil)
}

// TestImportLibrarySymbols: an import library's members rewritten by
// WriteGNU get the archive map llvm-ar 22 writes for the same members:
// __imp_<name> and <name> for code imports, __imp_<name> alone for data,
// the import descriptors' symbols for the long members.
func TestImportLibrarySymbols(t *testing.T) {
	dir := t.TempDir()
	def := "LIBRARY kernel32.dll\nEXPORTS\nExitProcess\nGetStdHandle @7\nSomeData DATA\nSomeConst CONSTANT\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.def"), []byte(def), 0o644))
	for _, m := range []string{"i386:x86-64", "i386", "arm64"} {
		out, err := exec.Command(tool(t, "llvm-dlltool"), "-m", m, "-d", filepath.Join(dir, "k.def"), "-l", filepath.Join(dir, "k.lib")).CombinedOutput()
		require.NoError(t, err, "%s", out)
		a, err := Parse(readPath(t, filepath.Join(dir, "k.lib")))
		require.NoError(t, err)
		var ws []WriteMember
		var names []string
		for i, mem := range a.Members {
			n := fmt.Sprintf("m%d.obj", i)
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), mem.Data, 0o644))
			ws = append(ws, WriteMember{Name: n, Data: mem.Data})
			names = append(names, filepath.Join(dir, n))
		}
		var buf bytes.Buffer
		require.NoError(t, WriteGNU(&buf, ws))
		ours := filepath.Join(dir, "ours.a")
		require.NoError(t, os.WriteFile(ours, buf.Bytes(), 0o644))
		ref := filepath.Join(dir, "ref.a")
		os.Remove(ref)
		out, err = exec.Command(tool(t, "llvm-ar"), append([]string{"--format=gnu", "rcsD", ref}, names...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		armap := func(p string) string {
			out, err := exec.Command(tool(t, "llvm-nm"), "--print-armap", p).CombinedOutput()
			require.NoError(t, err, "%s", out)
			s, _, _ := strings.Cut(string(out), "\n\n")
			return s
		}
		want := armap(ref)
		assert.Regexp(t, `__imp__?ExitProcess in m`, want)
		assert.Equal(t, want, armap(ours), m)
		imp, obj, err := ObjectSymbols(a.Members[len(a.Members)-1].Data)
		assert.True(t, obj)
		require.NoError(t, err)
		assert.NotEmpty(t, imp)
	}
}

func readPath(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
