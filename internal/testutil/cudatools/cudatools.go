// Package cudatools locates NVIDIA's CUDA 13.5 host tools (ptxas,
// fatbinary, nvlink, cuobjdump) that tests use to make cubins and
// fatbins at test time and as the oracle for what cuobjdump reports.
// scripts/install-deps.sh unpacks them from NVIDIA's PyPI wheels
// (nvidia-cuda-nvcc, nvidia-cuda-cuobjdump 13.5.37) into Dir. They run on
// the host without a GPU. A missing tool fails the test rather than
// skipping it: a differential test that cannot run is a defect.
package cudatools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/testfiles"
)

// Version is the CUDA release of the tools in Dir.
const Version = "13.5.37"

// Dir is where scripts/install-deps.sh unpacks the tools.
const Dir = "/opt/offload-kit/cuda-" + Version + "/nvidia/cu13/bin"

// Path is the path of tool name in Dir, whether or not it exists.
func Path(name string) string { return filepath.Join(Dir, name) }

// Tool returns the path of tool name in Dir; the test fails at once when
// it is not an executable file there.
func Tool(t testing.TB, name string) string {
	t.Helper()
	return testfiles.Executable(t, "CUDA tool "+name, Path(name))
}

// GGML is a third-party CUDA build that scripts/install-deps.sh fetches:
// ggml's CUDA backend from the npm package @node-llama-cpp/linux-x64-cuda
// 3.22.1 (MIT), 159 MB, whose .nv_fatbin holds 1001 zstd-compressed
// entries.
const GGML = "/opt/offload-kit/thirdparty/ggml-cuda-3.22.1/libggml-cuda.so"

// ThirdParty returns path, failing the test at once when it is not a
// regular file (scripts/install-deps.sh fetches it).
func ThirdParty(t testing.TB, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		t.Fatalf("third-party file: %v (scripts/install-deps.sh fetches it)", err)
	case !fi.Mode().IsRegular():
		t.Fatalf("third-party file %s is not a regular file", path)
	}
	return path
}

// ResUsage parses "cuobjdump -res-usage" output: per "<arch> <function>",
// its resource line ("REG:14 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:552
// ..."). Tests and the bench compare two fat binaries' functions with it.
func ResUsage(out []byte) map[string]string {
	res := map[string]string{}
	arch, fn := "", ""
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "arch = "):
			arch = strings.TrimPrefix(l, "arch = ")
		case strings.HasPrefix(l, "Function "):
			fn = strings.TrimSuffix(strings.TrimPrefix(l, "Function "), ":")
		case strings.HasPrefix(l, "REG:") && fn != "":
			res[arch+" "+fn] = l
			fn = ""
		}
	}
	return res
}
