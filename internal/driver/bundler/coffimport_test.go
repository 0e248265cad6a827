package bundler

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

func llvmRun(t *testing.T, dir, tool string, args ...string) {
	t.Helper()
	cmd := exec.Command(llvmtools.Tool(t, tool), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
}

// TestArchiveWithImportMembers: -type=a over Windows import libraries
// (llvm-dlltool's short import members and import descriptors), a long
// import member (.idata$ sections), a bigobj object and a bundled COFF
// object, merged by llvm-lib, behaves as clang-offload-bundler 22:
// members without bundles are skipped, the bundled member's device code
// is unbundled, an import library alone has no code object; -list and
// -type=o over a lone short import member too. Outputs, stdout, stderr and
// exit codes are compared.
func TestArchiveWithImportMembers(t *testing.T) {
	needOracle(t)
	dir := t.TempDir()
	write(t, dir, "k.def", []byte("LIBRARY kernel32.dll\nEXPORTS\nExitProcess\nSomeData DATA\n"))
	llvmRun(t, dir, "llvm-dlltool", "-m", "i386:x86-64", "-d", "k.def", "-l", "kernel32.lib")
	write(t, dir, "f.c", []byte("int f(void) { return 1; }\n"))
	llvmRun(t, dir, "clang", "--target=x86_64-pc-windows-msvc", "-c", "f.c", "-o", "host.obj")
	write(t, dir, "dev.bin", codeLike(200, 7))
	llvmRun(t, dir, "clang-offload-bundler", "-type=o", "-targets=host-x86_64-pc-windows-msvc,hip-amdgcn-amd-amdhsa--gfx90a",
		"-input=host.obj", "-input=dev.bin", "-output=b.obj")
	write(t, dir, "long.s", []byte(`	.text
	.globl ExitProcess
ExitProcess:
	jmpq *__imp_ExitProcess(%rip)
	.section .idata$5,"dr"
	.globl __imp_ExitProcess
__imp_ExitProcess:
	.quad 0
	.section .idata$6,"dr"
	.short 0
	.asciz "ExitProcess"
`))
	llvmRun(t, dir, "llvm-mc", "-triple", "x86_64-w64-windows-gnu", "-filetype=obj", "long.s", "-o", "long.obj")
	var sb strings.Builder
	sb.WriteString("\t.text\n\t.globl g\ng:\n\tret\n")
	for i := range 65280 {
		fmt.Fprintf(&sb, "\t.section .t$%d,\"dr\"\n\t.byte 0\n", i)
	}
	write(t, dir, "big.s", []byte(sb.String()))
	llvmRun(t, dir, "llvm-mc", "-triple", "x86_64-pc-windows-msvc", "-filetype=obj", "big.s", "-o", "big.obj")
	llvmRun(t, dir, "llvm-lib", "/out:mixed.lib", "b.obj", "kernel32.lib", "long.obj", "big.obj")
	k, err := ar.Parse(read(t, dir, "kernel32.lib"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "imp.obj", k.Members[len(k.Members)-1].Data)

	const gfx = "-targets=hip-amdgcn-amd-amdhsa--gfx90a"
	for _, tc := range []struct {
		name string
		args func(out string) []string
	}{
		{"unbundle", func(o string) []string {
			return []string{"-type=a", gfx, "-input=mixed.lib", "-output=" + o, "-unbundle"}
		}},
		{"unbundle-check", func(o string) []string {
			return []string{"-type=a", gfx, "-input=mixed.lib", "-output=" + o, "-unbundle", "-check-input-archive"}
		}},
		{"import-library", func(o string) []string {
			return []string{"-type=a", gfx, "-input=kernel32.lib", "-output=" + o, "-unbundle"}
		}},
		{"import-library-allow-missing", func(o string) []string {
			return []string{"-type=a", gfx, "-input=kernel32.lib", "-output=" + o, "-unbundle", "-allow-missing-bundles"}
		}},
		{"list", func(string) []string { return []string{"-type=a", "-list", "-input=mixed.lib"} }},
		{"member-list", func(string) []string { return []string{"-type=o", "-list", "-input=imp.obj"} }},
		{"member-unbundle", func(o string) []string {
			return []string{"-type=o", "-targets=host-x86_64-pc-windows-msvc", "-input=imp.obj", "-output=" + o, "-unbundle"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := runTheirs(t, dir, nil, tc.args("theirs-"+tc.name)...)
			ro := runOurs(t, dir, nil, tc.args("ours-"+tc.name)...)
			if rt.code != ro.code || rt.stdout != ro.stdout || strings.ReplaceAll(rt.stderr, "theirs-", "ours-") != ro.stderr {
				t.Fatalf("theirs %+v\nours   %+v", rt, ro)
			}
			if rt.code == 0 && strings.Contains(strings.Join(tc.args(""), " "), "-output=") {
				if string(read(t, dir, "theirs-"+tc.name)) != string(read(t, dir, "ours-"+tc.name)) {
					t.Fatal("outputs differ")
				}
			}
		})
	}
}
