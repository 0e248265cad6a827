package scan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

func llvm(t *testing.T, dir, tool string, args ...string) {
	t.Helper()
	cmd := exec.Command(llvmtools.Tool(t, tool), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s: %s", tool, strings.Join(args, " "), out)
}

// TestImportLibraryMembers: an archive with an llvm-dlltool import
// library's members (three long COFF objects, short import members), a
// GNU-dlltool-style long import member (.idata$ sections), a bigobj
// object carrying a package in .llvm.offloading (llvm-mc writes bigobj for
// more than 65279 sections) and a COFF object with a package scans
// without error: short import members are COFF import units with no
// images, the bigobj's package is found.
func TestImportLibraryMembers(t *testing.T) {
	dir := t.TempDir()
	write := func(n string, b []byte) { require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o644)) }
	write("k.def", []byte("LIBRARY kernel32.dll\nEXPORTS\nExitProcess\nSomeData DATA\n"))
	llvm(t, dir, "llvm-dlltool", "-m", "i386:x86-64", "-d", "k.def", "-l", "k.lib")
	write("long.s", []byte(longImportAsm))
	llvm(t, dir, "llvm-mc", "-triple", "x86_64-w64-windows-gnu", "-filetype=obj", "long.s", "-o", "long.o")
	write("pkg.bin", pkg("amdgcn-amd-amdhsa", "gfx90a", format.OfkOpenMP))
	write("big.s", []byte(bigobjAsm("pkg.bin")))
	llvm(t, dir, "llvm-mc", "-triple", "x86_64-pc-windows-msvc", "-filetype=obj", "big.s", "-o", "big.obj")
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		return b
	}
	k, err := ar.Parse(read("k.lib"))
	require.NoError(t, err)
	var ms []ar.WriteMember
	for _, m := range k.Members {
		ms = append(ms, ar.WriteMember{Name: m.Name, Data: m.Data})
	}
	emb := testfiles.Read(t, "../../elfembed/testdata/emb-x86_64-pc-windows-msvc.o")[0]
	ms = append(ms, ar.WriteMember{Name: "long.o", Data: read("long.o")}, ar.WriteMember{Name: "big.obj", Data: read("big.obj")},
		ar.WriteMember{Name: "emb.obj", Data: emb})
	units, err := Input("mixed.lib", archive(t, ms...), Options{})
	require.NoError(t, err)
	require.Len(t, units, len(ms))
	var kinds []string
	images := 0
	for _, u := range units {
		kinds = append(kinds, u.Kind.String())
		images += len(u.Images)
		if u.Kind == format.KindCOFFImport {
			assert.Empty(t, u.Images)
		}
	}
	assert.Equal(t, []string{"COFF", "COFF", "COFF", "COFF import", "COFF import", "COFF", "COFF", "COFF"}, kinds)
	require.Len(t, units[6].Images, 1, "bigobj member")
	assert.Equal(t, "gfx90a", units[6].Images[0].Arch())
	assert.Equal(t, 2, images)

	// The import library alone, and one member on its own.
	units, err = Input("k.lib", read("k.lib"), Options{})
	require.NoError(t, err)
	assert.Len(t, units, len(k.Members))
	units, err = Input("imp.obj", k.Members[len(k.Members)-1].Data, Options{})
	require.NoError(t, err)
	require.Len(t, units, 1)
	assert.Equal(t, format.KindCOFFImport, units[0].Kind)
}

// longImportAsm is a long import member as GNU dlltool writes one (and
// older MS tools did): an ordinary COFF object whose .idata$ sections hold
// the import's thunk and lookup entries.
const longImportAsm = `	.text
	.globl ExitProcess
ExitProcess:
	jmpq *__imp_ExitProcess(%rip)
	.section .idata$7,"dr"
	.long 0
	.section .idata$5,"dr"
	.globl __imp_ExitProcess
__imp_ExitProcess:
	.quad 0
	.section .idata$4,"dr"
	.quad 0
	.section .idata$6,"dr"
	.short 0
	.asciz "ExitProcess"
`

// bigobjAsm is an object with 65281 sections (so llvm-mc writes bigobj)
// and the package in pkg as .llvm.offloading.
func bigobjAsm(pkg string) string {
	var sb strings.Builder
	sb.WriteString("\t.text\n\t.globl f\nf:\n\tret\n")
	for i := range 65280 {
		fmt.Fprintf(&sb, "\t.section .t$%d,\"dr\"\n\t.byte 0\n", i)
	}
	fmt.Fprintf(&sb, "\t.section .llvm.offloading,\"dr\"\n\t.p2align 3\n\t.incbin %q\n", pkg)
	return sb.String()
}
