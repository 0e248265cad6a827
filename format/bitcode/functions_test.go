package bitcode

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// TestFunctionBodies: device bitcode that clang 22 makes at test time
// for amdgcn (HIP) and nvptx64 (CUDA): the functions it defines are
// llvm-dis's "define" lines, in order, kernels where the calling
// convention is amdgpu_kernel/ptx_kernel, and each size is 4 × the
// NumWords llvm-bcanalyzer -dump prints for the n-th FUNCTION_BLOCK.
func TestFunctionBodies(t *testing.T) {
	d := t.TempDir()
	const src = `#define G __attribute__((global))
#define D __attribute__((device))
D __attribute__((noinline)) float twice(float x) { return x * 2; }
static D __attribute__((noinline)) int local_helper(int x) { return x ^ 3; }
template <typename T> G void scale(T *p, T f) { p[0] = twice(p[1]) * f + local_helper((int)p[2]); }
template G void scale<float>(float *, float);
template G void scale<double>(double *, double);
`
	require.NoError(t, os.WriteFile(filepath.Join(d, "k.cu"), []byte(src), 0o644))
	for _, c := range []struct {
		name, lang, cc string
		args           []string
	}{
		{"hip.bc", "hip", "amdgpu_kernel", []string{"--offload-arch=gfx90a", "-nogpuinc", "-nogpulib"}},
		{"cuda.bc", "cuda", "ptx_kernel", []string{"--offload-arch=sm_90", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx80"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-x", c.lang, "--offload-device-only"}, c.args...)
			args = append(args, "-O2", "-emit-llvm", "-c", filepath.Join(d, "k.cu"), "-o", filepath.Join(d, c.name))
			out, err := exec.Command(llvmtools.Path("clang"), args...).CombinedOutput()
			require.NoError(t, err, string(out))
			data, err := os.ReadFile(filepath.Join(d, c.name))
			require.NoError(t, err)
			got, err := FunctionBodies(data)
			require.NoError(t, err)

			dis, err := exec.Command(llvmtools.Path("llvm-dis"), "-o", "-", filepath.Join(d, c.name)).Output()
			require.NoError(t, err)
			dump, err := exec.Command(llvmtools.Path("llvm-bcanalyzer"), "-dump", filepath.Join(d, c.name)).Output()
			require.NoError(t, err)
			var want []FunctionBody
			for _, m := range regexp.MustCompile(`(?m)^define ((?:[^@ ]+ )*)@"?([^"(]+)"?\(`).FindAllStringSubmatch(string(dis), -1) {
				cc := uint64(0)
				if regexp.MustCompile(`\b` + c.cc + ` `).MatchString(m[1]) {
					cc = map[string]uint64{"amdgpu_kernel": CallingConvAMDGPUKernel, "ptx_kernel": CallingConvPTXKernel}[c.cc]
				}
				want = append(want, FunctionBody{Name: m[2], CallingConv: cc})
			}
			words := regexp.MustCompile(`<FUNCTION_BLOCK NumWords=(\d+)`).FindAllStringSubmatch(string(dump), -1)
			require.Len(t, words, len(want), "one FUNCTION_BLOCK per definition")
			for i, w := range words {
				n, _ := strconv.ParseInt(w[1], 10, 64)
				want[i].Size = 4 * n
			}
			// Calling conventions other than the kernel's (e.g. a
			// device function's default) compare as the kernel's or not.
			for i := range got {
				if !got[i].Kernel() {
					got[i].CallingConv = 0
				}
			}
			assert.Equal(t, want, got)
			kernels := 0
			for _, f := range got {
				if f.Kernel() {
					kernels++
				}
			}
			assert.Equal(t, 2, kernels, "scale<float>, scale<double>")
			assert.GreaterOrEqual(t, len(got), 4, "and twice, local_helper")
		})
	}
}

// FuzzFunctionBodies: any input gives bodies or one *format.FormatError,
// never a panic, and no body larger than the input.
func FuzzFunctionBodies(f *testing.F) {
	addBitcodeSeeds(f, "testdata/*.bc", "testdata/symtab/*.bc")
	f.Fuzz(func(t *testing.T, in []byte) {
		fns, err := FunctionBodies(in)
		if err != nil {
			var fe *format.FormatError
			if fns != nil || !errors.As(err, &fe) {
				t.Fatalf("%T %v with %d bodies", err, err, len(fns))
			}
			return
		}
		for _, fn := range fns {
			if fn.Size < 0 || fn.Size > int64(len(in)) {
				t.Fatalf("%s: %d bytes from %d", fn.Name, fn.Size, len(in))
			}
		}
	})
}
