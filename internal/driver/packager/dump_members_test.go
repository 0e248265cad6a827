package packager

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/clitest"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestDumpParityMembersAndUnknownCOFF compares dump with llvm-objdump
// --offloading where they used to differ: an archive member's error
// names the member alone ('bad.o': ..., as LLVM's O.getFileName()),
// members that are not objects are skipped silently (an archive member
// that is an archive fails), and a file that
// starts with two zero bytes is a COFF object of unknown machine
// ("coff-<unknown arch>"; zero-filled files list nothing and exit 0,
// shorter ones fail as LLVM's do, and one with a .llvm.offloading
// section lists its images).
func TestDumpParityMembersAndUnknownCOFF(t *testing.T) {
	fx := fixtures(t)
	dir := t.TempDir()
	clitest.CopyInto(t, fx, dir, "nf.c", "version2.pkg", "raw.pkg", "coff.o", "omp.o", "lto.o")
	clang, ar := llvmtools.Tool(t, "clang"), llvmtools.Tool(t, "llvm-ar")
	clitest.Sh(t, dir, clang, "-c", "nf.c", "-Xclang", "-fembed-offload-object=version2.pkg", "-o", "elf_bad_v2.o")
	clitest.Sh(t, dir, clang, "-c", "-emit-llvm", "nf.c", "-o", "plain.bc")
	for name, size := range map[string]int{"zero": 4096, "z20": 20, "z19": 19, "z4": 4, "z3": 3} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "text.txt"), []byte("hello\n"), 0o644))
	// NumberOfSections 513 with nothing after the header.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zsec"), append([]byte{0, 0, 1, 2}, make([]byte, 28)...), 0o644))
	coff, err := os.ReadFile(filepath.Join(dir, "coff.o"))
	require.NoError(t, err)
	coff[0], coff[1] = 0, 0
	require.NoError(t, os.WriteFile(filepath.Join(dir, "coff0.o"), coff, 0o644))
	clitest.Sh(t, dir, ar, "rc", "libbad.a", "omp.o", "elf_bad_v2.o")
	clitest.Sh(t, dir, ar, "rc", "libtext.a", "omp.o", "text.txt", "plain.bc")
	clitest.Sh(t, dir, ar, "rc", "libzero.a", "omp.o", "zero", "coff0.o")
	// An archive member that is an archive: a binary, not an object, so
	// llvm-objdump fails naming the outer archive (CI's hostile
	// ar-nested-1000.a must not pass silently).
	clitest.Sh(t, dir, ar, "rc", "libnest.a", "omp.o", "libtext.a")
	for _, files := range [][]string{
		{"libbad.a"}, {"libtext.a"}, {"libzero.a"}, {"libnest.a"}, {"elf_bad_v2.o"},
		{"zero"}, {"z20"}, {"z19"}, {"z4"}, {"z3"}, {"zsec"}, {"coff0.o"}, {"zero", "omp.o"},
	} {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			wantOut, wantDiag, wantOK := clitest.Objdump(t, dir, files...)
			gotOut, gotDiag, err := runDump(dir, DumpOptions{Files: files})
			assert.Equal(t, wantOut, gotOut, "stdout")
			assert.Equal(t, wantOK, err == nil, "success")
			assert.Equal(t, wantDiag, gotDiag, "diagnostics")
		})
	}
	require.Contains(t, strings.Join(func() []string { _, d, _ := clitest.Objdump(t, dir, "libbad.a"); return d }(), "\n"), "'elf_bad_v2.o': while extracting offloading files")

	// A bitcode member with offload images (an -flto fat object) is
	// listed, as a bitcode file is; llvm-objdump skips it.
	clitest.Sh(t, dir, ar, "rc", "liblto.a", "omp.o", "lto.o", "plain.bc")
	out, _, err := runDump(dir, DumpOptions{Files: []string{"liblto.a"}})
	require.NoError(t, err)
	assert.Contains(t, out, "\nliblto.a(lto.o):\tfile format llvm bitcode\n\nOFFLOADING IMAGE [0]:\n")
	assert.NotContains(t, out, "plain.bc")
}
