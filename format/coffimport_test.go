package format_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const importDef = `LIBRARY kernel32.dll
EXPORTS
ExitProcess
GetStdHandle @7
WriteFile
SomeData DATA
SomeConst CONSTANT
`

func run(t *testing.T, dir, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(llvmtools.Tool(t, tool), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s: %s", tool, strings.Join(args, " "), out)
	return string(out)
}

// importLibraries makes import libraries with the LLVM 22 tools: llvm-dlltool
// for four machines, and lld-link /implib over a tiny DLL.
func importLibraries(t *testing.T) (dir string, libs []string) {
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kernel32.def"), []byte(importDef), 0o644))
	for _, m := range []string{"i386:x86-64", "i386", "arm64", "arm64ec"} {
		lib := "k-" + strings.ReplaceAll(m, ":", "_") + ".lib"
		run(t, dir, "llvm-dlltool", "-m", m, "-d", "kernel32.def", "-l", lib)
		libs = append(libs, lib)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dll.c"), []byte(
		"__declspec(dllexport) int foo_fn(int x) { return x + 1; }\n__declspec(dllexport) int foo_data = 3;\n"), 0o644))
	run(t, dir, "clang", "--target=x86_64-pc-windows-msvc", "-c", "dll.c", "-o", "dll.obj")
	run(t, dir, "lld-link", "/dll", "/noentry", "/nodefaultlib", "dll.obj", "/out:foo.dll", "/implib:foo.lib")
	return dir, append(libs, "foo.lib")
}

// readobjMember is one member as llvm-readobj describes it.
type readobjMember struct {
	format, typ string
	symbols     []string
}

func readobjMembers(out string) []readobjMember {
	var ms []readobjMember
	for _, block := range strings.Split(out, "\nFile: ")[1:] {
		var m readobjMember
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "Format":
				m.format = v
			case "Type":
				m.typ = v
			case "Symbol":
				m.symbols = append(m.symbols, v)
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// TestCOFFImportMembers: every member of llvm-dlltool's and lld-link's
// import libraries is identified as llvm-readobj identifies it (short
// import members as COFF import, the import descriptors as COFF objects),
// and a short import member's type and symbols are llvm-readobj's.
func TestCOFFImportMembers(t *testing.T) {
	dir, libs := importLibraries(t)
	for _, lib := range libs {
		t.Run(lib, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, lib))
			require.NoError(t, err)
			a, err := ar.Parse(data)
			require.NoError(t, err)
			want := readobjMembers(run(t, dir, "llvm-readobj", lib))
			require.Len(t, want, len(a.Members))
			imports := 0
			for i, m := range a.Members {
				w := want[i]
				k := format.Identify(m.Data)
				if strings.HasPrefix(w.format, "COFF-import-file") {
					imports++
					require.Equal(t, format.KindCOFFImport, k, "member %d", i)
					imp, err := format.ParseCOFFImport(m.Data)
					require.NoError(t, err)
					assert.Equal(t, w.typ, format.COFFImportTypeName(imp.Type), "member %d", i)
					assert.Equal(t, w.symbols, imp.Symbols(), "member %d", i)
					assert.NotEmpty(t, imp.DLL)
				} else {
					require.Equal(t, format.KindCOFF, k, "member %d (%s)", i, w.format)
				}
			}
			assert.NotZero(t, imports)
		})
	}
}

// TestCOFFAnonHeaders: Sig1=0, Sig2=0xFFFF is a bigobj object only with the
// bigobj class ID (as llvm-mc writes one for more than 65279 sections), a
// cl /GL object with its class ID, and a short import member otherwise.
func TestCOFFAnonHeaders(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	sb.WriteString("\t.text\n\t.globl f\nf:\n\tret\n")
	for i := range 65280 {
		fmt.Fprintf(&sb, "\t.section .t$%d,\"dr\"\n\t.byte 0\n", i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.s"), []byte(sb.String()), 0o644))
	run(t, dir, "llvm-mc", "-triple", "x86_64-pc-windows-msvc", "-filetype=obj", "big.s", "-o", "big.obj")
	big, err := os.ReadFile(filepath.Join(dir, "big.obj"))
	require.NoError(t, err)
	assert.Contains(t, run(t, dir, "llvm-readobj", "--file-headers", "big.obj"), "Format: COFF-x86-64")
	assert.Equal(t, format.KindCOFF, format.Identify(big))
	assert.True(t, format.IsCOFFBigObj(big))
	_, err = format.ParseCOFFImport(big)
	assert.ErrorIs(t, err, format.ErrMagic)

	clgl := append([]byte{}, big[:64]...)
	copy(clgl[12:], format.ClGlObjClassID)
	assert.Equal(t, format.KindUnknown, format.Identify(clgl))

	imp := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x04\x00f\x00kernel32.dll\x00")
	assert.Equal(t, format.KindCOFFImport, format.Identify(imp))
	assert.Equal(t, format.KindCOFFImport, format.Identify(imp[:4]))
	assert.False(t, format.IsCOFFBigObj(imp))
	// A 20-byte short import member would have been a bigobj before.
	assert.Equal(t, format.KindCOFFImport, format.Identify(imp[:32]))
}

func TestParseCOFFImportErrors(t *testing.T) {
	good := []byte("\x00\x00\xff\xff\x00\x00\x64\x86\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x04\x00fn\x00kernel32.dll\x00")
	imp, err := format.ParseCOFFImport(good)
	require.NoError(t, err)
	assert.Equal(t, &format.COFFImport{Machine: 0x8664, SizeOfData: 16, NameType: format.COFFImportName, Symbol: "fn", DLL: "kernel32.dll"}, imp)
	assert.Equal(t, []string{"__imp_fn", "fn"}, imp.Symbols())
	for _, tc := range []struct {
		name string
		data []byte
		err  error
		off  int64
	}{
		{"short header", good[:19], format.ErrTruncated, 0},
		{"size past the end", good[:len(good)-1], format.ErrTruncated, 12},
		{"no DLL terminator", patch(good, 12, 15), format.ErrTruncated, 23},
		{"version", patch(good, 4, 1), format.ErrVersion, 4},
		{"type", patch(good, 18, 7), format.ErrCorrupt, 18},
		{"not import", patch(good, 2, 0), format.ErrMagic, 0},
	} {
		_, err := format.ParseCOFFImport(tc.data)
		require.ErrorIs(t, err, tc.err, tc.name)
		var fe *format.FormatError
		require.ErrorAs(t, err, &fe, tc.name)
		assert.Equal(t, tc.off, fe.Off, tc.name)
	}
}

func patch(b []byte, off int, v byte) []byte {
	c := append([]byte{}, b...)
	c[off] = v
	return c
}

// FuzzParseCOFFImport: any bytes parse or fail with a *FormatError, never
// a panic; what parses has its names inside the data.
func FuzzParseCOFFImport(f *testing.F) {
	testfiles.Seed(f, "testdata/coffimport/[a-z]*")
	f.Fuzz(func(t *testing.T, data []byte) {
		imp, err := format.ParseCOFFImport(data)
		if err != nil {
			var fe *format.FormatError
			if !strings.Contains(fmt.Sprint(err), "offset") || !asFormatError(err, &fe) {
				t.Fatalf("error %v is not a FormatError", err)
			}
			return
		}
		if len(imp.Symbol)+len(imp.DLL)+2 > len(data)-format.COFFImportHeaderSize {
			t.Fatalf("names longer than the data")
		}
		_ = imp.Symbols()
		_ = format.Identify(data)
	})
}

func asFormatError(err error, fe **format.FormatError) bool {
	e, ok := err.(*format.FormatError)
	*fe = e
	return ok
}
