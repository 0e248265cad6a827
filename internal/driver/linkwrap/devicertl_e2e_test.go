package linkwrap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	takingRe    = regexp.MustCompile(`libomptarget\.devicertl\.a\((devicertl-[^)]+\.o)\): taking (\S+) device code`)
	drtInputRe  = regexp.MustCompile(`devicertl-(amdgpu|nvptx)-([^-/\s]+)-(?:amdgcn|nvptx64)-`)
	targetArgRe = regexp.MustCompile(`--target=(\S+)`)
)

// TestDeviceRuntimeMembersPerTargetID: an OpenMP program compiled by
// clang 22 for --offload-arch=gfx90a, dry-run linked against LLVM's real
// multi-arch device runtime (libomptarget.devicertl.a of LLVM 19 and 16:
// one member per GPU, gfx700 and sm_35 first, every member defining
// __kmpc_target_init): the only runtime member taken, and the only one
// the device link is given, is gfx90a's, and no other device link runs;
// with and without the --should-extract=gfx90a clang passes.
func TestDeviceRuntimeMembersPerTargetID(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	dir := t.TempDir()
	code := "#include <stdio.h>\nint main(void) {\n  int x = 0;\n#pragma omp target map(tofrom: x)\n  x = 1;\n  printf(\"%d\\n\", x);\n  return 0;\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.c"), []byte(code), 0o644))
	sh(t, dir, nil, cc, "-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-c", "t.c", "-o", "t.o")
	for _, major := range []int{19, 16} {
		libDir := llvmtools.RuntimeLib(t, major)
		for _, extra := range [][]string{nil, {"--should-extract=gfx90a"}} {
			t.Run(strings.Join(append([]string{fmt.Sprintf("llvm-%d", major)}, extra...), " "), func(t *testing.T) {
				argv := cmdline(filepath.Join(bin, "linker-wrapper"), "--dry-run", "--wrapper-verbose", "--linker-path=/usr/bin/ld",
					"--host-triple=x86_64-unknown-linux-gnu", extra, "-o", "app", "t.o", "-L"+libDir, "-lomptarget.devicertl")
				var stderr bytes.Buffer
				err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Args: argv, Stderr: &stderr})
				require.NoError(t, err, stderr.String())
				out := stderr.String()
				var taken []string
				for _, m := range takingRe.FindAllStringSubmatch(out, -1) {
					taken = append(taken, m[1]+" "+m[2])
				}
				assert.Equal(t, []string{"devicertl-amdgpu-gfx90a.o amdgcn-amd-amdhsa/gfx90a"}, taken, out)
				var targets, inputs []string
				for _, line := range strings.Split(out, "\n") {
					m := targetArgRe.FindStringSubmatch(line)
					if m == nil {
						continue
					}
					targets = append(targets, m[1])
					for _, in := range drtInputRe.FindAllStringSubmatch(line, -1) {
						inputs = append(inputs, in[1]+"-"+in[2])
					}
				}
				sort.Strings(targets)
				assert.Equal(t, []string{"amdgcn-amd-amdhsa"}, targets, "one device link\n%s", out)
				assert.Equal(t, []string{"amdgpu-gfx90a"}, inputs, "its device runtime input\n%s", out)
			})
		}
	}
}
