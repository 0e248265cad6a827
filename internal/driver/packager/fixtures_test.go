package packager

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// llvmBin is where Debian's LLVM 22 packages put the oracle tools
// (make deps installs them).
const llvmBin = llvmtools.Dir

var fixtureState struct {
	once sync.Once
	dir  string
	err  string
}

var testRoot string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "packager-test-")
	if err != nil {
		panic(err)
	}
	testRoot = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// fixtures builds, once per test binary, real fat objects with clang 22:
// OpenMP host offload, HIP gfx90a+gfx1100, SYCL spirv64, COFF, archives in
// every format, an ld.lld -r merge, raw and concatenated packages, an
// executable, and broken inputs. Returns the directory.
func fixtures(t *testing.T) string {
	t.Helper()
	fixtureState.once.Do(func() {
		dir := filepath.Join(testRoot, "fx")
		os.MkdirAll(dir, 0o755)
		src, _ := filepath.Abs("testdata")
		// mini_hip.h is shared with linker-wrapper's HIP tests.
		for _, f := range []string{"omp.c", "gmain.c", "k.hip", "../../linkwrap/testdata/hip/mini_hip.h", "s.cpp", "nf.c"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				fixtureState.err = err.Error()
				return
			}
			os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
		}
		clang, clangxx := llvmtools.Tool(t, "clang"), llvmtools.Tool(t, "clang++")
		omp := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu"}
		ar := llvmtools.Tool(t, "llvm-ar")
		ob := llvmtools.Tool(t, "llvm-offload-binary")
		steps := [][]string{
			append([]string{clang, "-c", "omp.c", "-o", "omp.o"}, omp...),
			append([]string{clang, "-c", "omp.c", "--offload-host-only", "-o", "omp.host.o"}, omp...),
			append([]string{clang, "-c", "omp.c", "--offload-device-only", "-o", "omp.dev.o"}, omp...),
			append([]string{clang, "-c", "gmain.c", "-o", "gmain.clang.o"}, omp...),
			append([]string{clang, "gmain.clang.o", "omp.o", "-o", "app"}, omp...),
			{clang, "-x", "hip", "--offload-new-driver", "--offload-arch=gfx90a", "--offload-arch=gfx1100",
				"-nogpuinc", "-nogpulib", "-fgpu-rdc", "-c", "k.hip", "-o", "hip.o"},
			{clangxx, "-fsycl", "-c", "s.cpp", "-o", "sycl.o"},
			{clang, "--target=x86_64-pc-windows-msvc", "-fopenmp", "-fopenmp-targets=x86_64-pc-windows-msvc", "-c", "nf.c", "-o", "coff.o"},
			{clang, "--target=x86_64-apple-darwin", "-c", "nf.c", "-o", "mach.o"},
			{llvmtools.Tool(t, "ld.lld"), "-r", "omp.o", "hip.o", "sycl.o", "-o", "merged.o"},
			{ar, "rc", "--format=gnu", "gnu.a", "omp.o", "hip.o", "sycl.o"},
			{ar, "rc", "--format=bsd", "bsd.a", "omp.o", "hip.o", "sycl.o"},
			{ar, "rc", "--format=darwin", "darwin.a", "omp.o", "hip.o"},
			{ar, "rcT", "thin.a", "omp.o", "hip.o", "sycl.o"},
			{ob, "-o", "raw.pkg", "--image=file=nf.c,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp",
				"--image=file=omp.dev.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip,feature=+xnack",
				"--image=file=s.cpp,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda", "--image=file=k.hip,kind=sycl"},
			{clang, "-c", "-flto", "nf.c", "-Xclang", "-fembed-offload-object=raw.pkg", "-o", "lto.o"},
			// Non-RDC HIP: clang embeds a bundle (plain and CCOB) in .hip_fatbin.
			{clang, "-x", "hip", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-nogpuinc", "-nogpulib", "-cuid=fixed", "-c", "k.hip", "-o", "hipfb.o"},
			{clang, "-x", "hip", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-nogpuinc", "-nogpulib", "-cuid=fixed", "--offload-compress", "-c", "k.hip", "-o", "hipfbz.o"},
			// A package whose image is itself a bundle, embedded in an object.
			{llvmtools.Tool(t, "clang-offload-bundler"), "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a",
				"-input=/dev/null", "-input=nf.c", "-output=inner.hipfb", "-bundle-align=4096"},
			{ob, "-o", "nested.pkg", "--image=file=inner.hipfb,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"},
			{clang, "-c", "nf.c", "-Xclang", "-fembed-offload-object=nested.pkg", "-o", "nested.o"},
		}
		for _, s := range steps {
			cmd := exec.Command(s[0], s[1:]...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				fixtureState.err = strings.Join(s, " ") + ": " + err.Error() + "\n" + string(out)
				return
			}
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "raw.pkg"))
		os.WriteFile(filepath.Join(dir, "concat.pkg"), append(append([]byte{}, raw...), raw...), 0o644)
		os.WriteFile(filepath.Join(dir, "padded.pkg"), append(append([]byte{}, raw...), make([]byte, 8)...), 0o644)
		os.WriteFile(filepath.Join(dir, "trunc.pkg"), raw[:50], 0o644)
		os.WriteFile(filepath.Join(dir, "trunc2.pkg"), raw[:len(raw)-8], 0o644)
		os.WriteFile(filepath.Join(dir, "text.txt"), []byte("hello\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644)
		v2 := append([]byte{}, raw...)
		v2[4] = 2
		os.WriteFile(filepath.Join(dir, "version2.pkg"), v2, 0o644)
		fixtureState.dir = dir
	})
	if fixtureState.err != "" {
		t.Fatalf("building fixtures: %s", fixtureState.err)
	}
	return fixtureState.dir
}
