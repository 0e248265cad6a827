package elfembed

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "regenerate testdata fixtures with clang-22 and gcc")

// TestUpdateFixtures regenerates the fixtures listed in testdata/README.md.
func TestUpdateFixtures(t *testing.T) {
	if !*update {
		t.Skip("use -update to regenerate the fixtures")
	}
	clang, ob := tool(t, "clang"), tool(t, "llvm-offload-binary")
	run := func(name string, args ...string) { runTool(t, "testdata", name, args...) }
	require.NoError(t, os.WriteFile("testdata/a.bin", []byte("device image A\n"), 0o644))
	require.NoError(t, os.WriteFile("testdata/b.bin", []byte("device image B, odd"), 0o644))
	run(ob, "-o", "pkg.out", "--image=file=a.bin,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip")
	run(ob, "-o", "pkg2.out", "--image=file=b.bin,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp")
	for _, tgt := range hostTargets {
		base := []string{"-target", tgt, "-O1", "-fno-ident", "-c", "hello.c"}
		if strings.Contains(tgt, "windows") {
			base = append(base, "-mno-incremental-linker-compatible") // TimeDateStamp 0
		}
		run(clang, append(base, "-o", "hello-"+tgt+".o")...)
		run(clang, append(base, "-Xclang", "-fembed-offload-object=pkg.out", "-o", "emb-"+tgt+".o")...)
		run(clang, append(base, "-Xclang", "-fembed-offload-object=pkg.out", "-Xclang", "-fembed-offload-object=pkg2.out", "-o", "emb2-"+tgt+".o")...)
	}
	for _, tgt := range []string{"x86_64-linux-gnu", "x86_64-pc-windows-msvc"} {
		args := []string{"-target", tgt, "-O0", "-fno-ident", "-ffunction-sections", "-c", "inline.cpp", "-o", "cxx-" + tgt + ".o"}
		if strings.Contains(tgt, "windows") {
			args = append(args, "-mno-incremental-linker-compatible")
		}
		run(tool(t, "clang++"), args...)
	}
	run(clang, "-target", "x86_64-linux-gnu", "-O1", "-fno-ident", "-c", "entries.c", "-Xclang", "-fembed-offload-object=pkg.out", "-o", "entries-x86_64-linux-gnu.o")
	if gcc, err := exec.LookPath("gcc"); err == nil {
		run(gcc, "-O1", "-c", "hello.c", "-o", "hello-gcc.o")
	}
}
