package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
)

// releaseKernel is a HIP kernel that needs no HIP headers (-nogpuinc): the
// declarations clang's host stub calls, then one kernel.
const releaseKernel = `struct dim3 { unsigned x, y, z; __attribute__((host)) __attribute__((device)) dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {} };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, unsigned long shm, hipStream_t s);
extern "C" int __hipPushCallConfiguration(dim3 g, dim3 b, unsigned long shm = 0, hipStream_t s = 0);
extern "C" int __hipPopCallConfiguration(dim3 *g, dim3 *b, unsigned long *shm, hipStream_t *s);
__attribute__((global)) void kern(int *p) { *p = 42; }
`

// TestClangReleaseCompile compiles a HIP file with clang 16, 19 and 22
// twice, with the release's own tools and with -B<ours> (the binary built
// here, under its LLVM names), and requires the same object, byte for
// byte, and the same diagnostics: the old driver (an offload bundle made
// by clang-offload-bundler, -cuid fixed so that the reference is
// reproducible, here and below) and the new driver (an OffloadBinary made by
// clang-offload-packager / llvm-offload-binary; -fgpu-rdc, which 16 and 19
// need to use it). Nothing names the release: ours finds it from the
// invoking clang (its parent process), so this checks the detection end
// to end, including HIP's kind 3 for 16 and 19 and no deprecation warning
// before 22.
func TestClangReleaseCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs clang")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "offload-packager"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"clang-offload-bundler", "clang-offload-packager", "llvm-offload-binary"} {
		require.NoError(t, os.Symlink("offload-packager", filepath.Join(bin, name)))
	}
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "k.hip"), []byte(releaseKernel), 0o644))
	for _, major := range append(append([]int(nil), llvmtools.Releases...), 22) {
		clang := llvmtools.Tool(t, "clang")
		if major != 22 {
			clang = llvmtools.ReleaseTool(t, major, "clang")
		}
		for _, mode := range []struct {
			name  string
			flags []string
		}{
			{"old driver", []string{"-cuid=fixed"}},
			{"new driver", []string{"--offload-new-driver", "-fgpu-rdc", "-cuid=fixed"}},
		} {
			flags := append([]string{"-x", "hip", "-c", "--offload-arch=gfx90a", "-nogpulib", "-nogpuinc"}, mode.flags...)
			if major == 22 && mode.name == "old driver" {
				flags = append(flags, "--no-offload-new-driver")
			}
			compile := func(extra ...string) ([]byte, string) {
				o := filepath.Join(t.TempDir(), "k.o")
				cmd := exec.Command(clang, append(append(append([]string(nil), flags...), extra...), filepath.Join(src, "k.hip"), "-o", o)...)
				cmd.Dir = src
				cmd.Env = tmproot.Env([]string{"PATH=/usr/bin:/bin", "HOME=" + src})
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				require.NoError(t, cmd.Run(), "clang %d %s %v: %s", major, mode.name, extra, stderr.String())
				b, err := os.ReadFile(o)
				require.NoError(t, err)
				return b, stderr.String()
			}
			// -B<ours> is what runs the container tool.
			dry, err := exec.Command(clang, append(append([]string(nil), flags...), "-B"+bin, "-###", filepath.Join(src, "k.hip"))...).CombinedOutput()
			require.NoError(t, err, "%s", dry)
			tool := "/clang-offload-bundler\""
			if mode.name == "new driver" {
				tool = "/clang-offload-packager\""
				if major == 22 {
					tool = "/llvm-offload-binary\""
				}
			}
			require.Contains(t, string(dry), "\""+bin+tool, "clang %d %s", major, mode.name)
			want, wantErr := compile()
			got, gotErr := compile("-B" + bin)
			what := fmt.Sprintf("clang %d, %s", major, mode.name)
			assert.Equal(t, wantErr, gotErr, "%s: diagnostics", what)
			assert.True(t, bytes.Equal(want, got), "%s: the object differs from the one clang makes with its own tools", what)
		}
	}
}
