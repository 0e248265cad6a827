package packager

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// importFixtures makes, with the LLVM 22 tools: kernel32.lib (llvm-dlltool),
// foo.lib (lld-link /implib of a tiny DLL), a long import member
// (.idata$ sections, as GNU dlltool writes), a bigobj object carrying an
// OffloadBinary in .llvm.offloading (llvm-mc writes bigobj past 65279
// sections), mixed.lib (llvm-lib: a COFF object with a package, both import
// libraries, the long member and the bigobj), mixed-gnu.a (the same
// members by llvm-ar) and imp.obj (one short import member on its own).
func importFixtures(t *testing.T) string {
	dir := t.TempDir()
	w := func(n, s string) { require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)) }
	w("kernel32.def", "LIBRARY kernel32.dll\nEXPORTS\nExitProcess\nGetStdHandle\nSomeData DATA\n")
	w("dll.c", "__declspec(dllexport) int foo_fn(int x) { return x + 1; }\n__declspec(dllexport) int foo_data = 3;\n")
	w("long.s", "\t.text\n\t.globl ExitProcess\nExitProcess:\n\tjmpq *__imp_ExitProcess(%rip)\n"+
		"\t.section .idata$5,\"dr\"\n\t.globl __imp_ExitProcess\n__imp_ExitProcess:\n\t.quad 0\n"+
		"\t.section .idata$6,\"dr\"\n\t.short 0\n\t.asciz \"ExitProcess\"\n")
	w("dev.bin", "device code")
	var sb strings.Builder
	sb.WriteString("\t.text\n\t.globl g\ng:\n\tret\n")
	for i := range 65280 {
		fmt.Fprintf(&sb, "\t.section .t$%d,\"dr\"\n\t.byte 0\n", i)
	}
	sb.WriteString("\t.section .llvm.offloading,\"dr\"\n\t.p2align 3\n\t.incbin \"big.pkg\"\n")
	w("big.s", sb.String())
	emb, err := os.ReadFile("../../../elfembed/testdata/emb-x86_64-pc-windows-msvc.o")
	require.NoError(t, err)
	w("emb.obj", string(emb))
	for _, step := range [][]string{
		{llvmtools.Tool(t, "llvm-dlltool"), "-m", "i386:x86-64", "-d", "kernel32.def", "-l", "kernel32.lib"},
		{llvmtools.Tool(t, "clang"), "--target=x86_64-pc-windows-msvc", "-c", "dll.c", "-o", "dll.obj"},
		{llvmtools.Tool(t, "lld-link"), "/dll", "/noentry", "/nodefaultlib", "dll.obj", "/out:foo.dll", "/implib:foo.lib"},
		{llvmtools.Tool(t, "llvm-mc"), "-triple", "x86_64-w64-windows-gnu", "-filetype=obj", "long.s", "-o", "long.obj"},
		{llvmtools.Tool(t, "llvm-offload-binary"), "-o", "big.pkg", "--image=file=dev.bin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp"},
		{llvmtools.Tool(t, "llvm-mc"), "-triple", "x86_64-pc-windows-msvc", "-filetype=obj", "big.s", "-o", "big.obj"},
		{llvmtools.Tool(t, "llvm-lib"), "/out:mixed.lib", "emb.obj", "kernel32.lib", "long.obj", "big.obj", "foo.lib"},
		{llvmtools.Tool(t, "llvm-ar"), "rc", "mixed-gnu.a", "emb.obj", "long.obj", "big.obj"},
	} {
		clitest.Sh(t, dir, step...)
	}
	k, err := ar.Parse(readFixture(t, dir, "kernel32.lib"))
	require.NoError(t, err)
	last := k.Members[len(k.Members)-1].Data
	w("imp.obj", string(last))
	// llvm-ar appends the import library's members as they are.
	var ms []ar.WriteMember
	for _, m := range k.Members {
		ms = append(ms, ar.WriteMember{Name: m.Name, Data: m.Data})
	}
	g, err := ar.Parse(readFixture(t, dir, "mixed-gnu.a"))
	require.NoError(t, err)
	for _, m := range g.Members {
		ms = append(ms, ar.WriteMember{Name: m.Name, Data: m.Data})
	}
	f, err := os.Create(filepath.Join(dir, "mixed-gnu.a"))
	require.NoError(t, err)
	require.NoError(t, ar.WriteGNU(f, ms))
	require.NoError(t, f.Close())
	return dir
}

func readFixture(t *testing.T, dir, n string) []byte {
	b, err := os.ReadFile(filepath.Join(dir, n))
	require.NoError(t, err)
	return b
}

// TestDumpImportLibraries: dump prints what llvm-objdump 22 --offloading
// prints for import libraries and archives with import members, byte for
// byte ("file format COFF-import-file" and a blank line for each short
// import member, the long members, the bigobj's image), and exits 0. Before,
// every short import member failed with "NumberOfSections (truncated) at
// offset 0x2c".
func TestDumpImportLibraries(t *testing.T) {
	dir := importFixtures(t)
	for _, files := range [][]string{{"kernel32.lib"}, {"foo.lib"}, {"mixed.lib"}, {"mixed-gnu.a"}, {"kernel32.lib", "emb.obj", "big.obj"}} {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			wantOut, wantDiag, wantOK := clitest.Objdump(t, dir, files...)
			require.True(t, wantOK, "%v", wantDiag)
			gotOut, gotDiag, err := runDump(dir, DumpOptions{Files: files})
			require.NoError(t, err)
			assert.Equal(t, wantOut, gotOut, "stdout")
			assert.Equal(t, wantDiag, gotDiag, "diagnostics")
			if files[0] != "kernel32.lib" && files[0] != "foo.lib" {
				assert.Contains(t, gotOut, "sm_90", "the bigobj member's image")
			}
			assert.Contains(t, gotOut, "file format COFF-import-file\n\n")
		})
	}
	// One short import member on its own: llvm-objdump 22 reads import
	// members only inside archives ("The file was not recognized as a
	// valid object file", exit 1); dump prints the member's line and
	// exits 0.
	_, diag, ok := clitest.Objdump(t, dir, "imp.obj")
	assert.False(t, ok)
	assert.Equal(t, []string{"error: 'imp.obj': The file was not recognized as a valid object file"}, diag)
	out, diag, err := runDump(dir, DumpOptions{Files: []string{"imp.obj"}})
	require.NoError(t, err)
	assert.Empty(t, diag)
	assert.Equal(t, "\nimp.obj:\tfile format COFF-import-file\n\n", out)

	out, _, err = runDump(dir, DumpOptions{Files: []string{"kernel32.lib", "imp.obj"}, JSON: true})
	require.NoError(t, err)
	var doc struct {
		Files []DumpFile `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.Files, 2)
	formats := map[string]int{}
	for _, o := range doc.Files[0].Objects {
		formats[o.Format]++
	}
	assert.Equal(t, map[string]int{"coff-x86-64": 3, "COFF-import-file": 3}, formats)
	assert.Equal(t, "COFF-import-file", doc.Files[1].Objects[0].Format)
}

// TestExtractImportLibraries: llvm-offload-binary's extraction over the
// same inputs (import members hold no images and are skipped without
// error) writes the same files, output and exit code.
func TestExtractImportLibraries(t *testing.T) {
	dir := importFixtures(t)
	for _, in := range []string{"kernel32.lib", "mixed.lib", "mixed-gnu.a", "imp.obj"} {
		for _, f := range [][]string{{"--image=kind=openmp"}, {"--image=arch=sm_90,file=one.o"}, {"--image=file=all.a", "--archive"}} {
			t.Run(in+" "+strings.Join(f, " "), func(t *testing.T) {
				checkParity(t, dir, []string{in}, append([]string{in}, f...)...)
			})
		}
	}
}
