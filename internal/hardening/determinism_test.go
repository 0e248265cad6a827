package hardening

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// detCase is one command whose outputs must not depend on the working
// directory, the temp dir or the -j value. setup writes the inputs into
// dir (the same relative names in every run) and returns the arguments
// for one run; outputs are the files (relative to dir) to compare, plus
// stdout. Add linker-wrapper / sycl-linker rows here, with a jobs list.
type detCase struct {
	name  string
	tool  string
	needs []string // LLVM tools required (in /usr/lib/llvm-22/bin)
	setup func(t *testing.T, dir string) []string
	// jobs: run once per value, appending "-j N" (nil: once, no -j).
	jobs []string
	// jobsFlag spells the jobs option when it is not "-j N".
	jobsFlag func(n string) []string
	outputs  []string
	// outDir: compare every file in this subdirectory (relative names).
	outDir string
}

const llvmBin = llvmtools.Dir

func copyFixture(t *testing.T, dir, rel, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
}

var detCases = []detCase{
	{name: "create", tool: "offload-packager", outputs: []string{"out.pkg"}, setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, "elfembed/testdata/hello-x86_64-linux-gnu.o", "dev.o")
		require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.bc"), []byte("BC\xc0\xde-not-really"), 0o644))
		return []string{"create", "-o", "out.pkg",
			"--image=file=dev.o,triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp",
			"--image=file=dev.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip,feature=+xnack"}
	}},
	{name: "create-abs", tool: "offload-packager", outputs: []string{"out.pkg"}, setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, "elfembed/testdata/hello-x86_64-linux-gnu.o", "dev.o")
		return []string{"create", "-o", filepath.Join(dir, "out.pkg"),
			"--image=file=" + filepath.Join(dir, "dev.o") + ",triple=x86_64-unknown-linux-gnu,arch=generic,kind=openmp"}
	}},
	{name: "extract", tool: "offload-packager", outDir: "x", setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, "elfembed/testdata/pkg2.out", "in.pkg")
		require.NoError(t, os.Mkdir(filepath.Join(dir, "x"), 0o755))
		return []string{"extract", "in.pkg", "-d", "x"}
	}},
	{name: "extract-object", tool: "offload-packager", outDir: "x", setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, elfFixture, "fat.o")
		require.NoError(t, os.Mkdir(filepath.Join(dir, "x"), 0o755))
		return []string{"extract", "fat.o", "-d", "x"}
	}},
	{name: "embed", tool: "offload-packager", outputs: []string{"fat.o"}, setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, "elfembed/testdata/hello-x86_64-linux-gnu.o", "host.o")
		copyFixture(t, dir, "elfembed/testdata/pkg.out", "a.pkg")
		copyFixture(t, dir, "elfembed/testdata/pkg2.out", "b.pkg")
		return []string{"embed", "-o", "fat.o", "host.o", "a.pkg", "b.pkg"}
	}},
	{name: "embed-coff-abs", tool: "offload-packager", outputs: []string{"fat.obj"}, setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, "elfembed/testdata/hello-x86_64-pc-windows-msvc.o", "host.obj")
		copyFixture(t, dir, "elfembed/testdata/pkg.out", "a.pkg")
		return []string{"embed", "-o", filepath.Join(dir, "fat.obj"), filepath.Join(dir, "host.obj"), filepath.Join(dir, "a.pkg")}
	}},
	{name: "dump-json", tool: "offload-packager", setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, elfFixture, "fat.o")
		copyFixture(t, dir, "elfembed/testdata/pkg2.out", "in.pkg")
		return []string{"dump", "--json", "fat.o", "in.pkg"}
	}},
	{name: "dump-all", tool: "offload-packager", setup: func(t *testing.T, dir string) []string {
		copyFixture(t, dir, elfFixture, "fat.o")
		return []string{"dump", "--all", "fat.o"}
	}},
	{name: "sycl-linker-split", tool: "sycl-linker", needs: []string{"clang", "llvm-link", "llc"}, jobs: []string{"1", "2", "4"}, outputs: []string{"dev.out"},
		setup: func(t *testing.T, dir string) []string {
			src := filepath.Join(dir, "a.cpp")
			require.NoError(t, os.WriteFile(src, []byte(syclSrc), 0o644))
			cmd := exec.Command(filepath.Join(llvmBin, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", "a.cpp", "-o", "a.bc")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("clang cannot build the SYCL input: %v\n%s", err, out)
			}
			return []string{"--triple=spirv64", "--module-split-mode=kernel", "-o", "dev.out", "a.bc"}
		}},
	// Three device-link groups (OpenMP x86-64, HIP gfx90a and gfx1100) linked
	// in parallel or not: the relocatable output must not depend on -j, the
	// directory or TMPDIR (where the temporaries live).
	{name: "linker-wrapper-jobs", tool: "linker-wrapper", needs: []string{"clang", "ld.lld"}, jobs: []string{"1", "2", "4"},
		jobsFlag: func(n string) []string { return []string{"--wrapper-jobs=" + n} }, outputs: []string{"out.o"},
		setup: func(t *testing.T, dir string) []string {
			// The objects are compiled once and copied: OpenMP kernel names
			// carry the source file's inode, so recompiling per run would
			// change the inputs, not test the wrapper.
			for name, b := range wrapperInputs(t) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
			}
			return []string{"--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/usr/bin/ld", "-r", "-o", "out.o", "omp.o", "a.o", "b.o"}
		}},
}

var wrapperObjs struct {
	once sync.Once
	objs map[string][]byte
	err  error
}

// wrapperInputs compiles the fat objects of the linker-wrapper row once.
func wrapperInputs(t *testing.T) map[string][]byte {
	wrapperObjs.once.Do(func() {
		dir, err := os.MkdirTemp("", "det-objs-")
		if err != nil {
			wrapperObjs.err = err
			return
		}
		defer os.RemoveAll(dir)
		for rel, name := range map[string]string{
			"internal/driver/packager/testdata/omp.c":     "omp.c",
			"internal/driver/linkwrap/testdata/hip/a.hip": "a.hip", "internal/driver/linkwrap/testdata/hip/b.hip": "b.hip",
			"internal/driver/linkwrap/testdata/hip/mini_hip.h": "mini_hip.h",
		} {
			copyFixture(t, dir, rel, name)
		}
		clang := filepath.Join(llvmBin, "clang")
		hip := []string{"-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-c"}
		for _, argv := range [][]string{
			{clang, "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-c", "omp.c", "-o", "omp.o"},
			append(append([]string{clang}, hip...), "a.hip", "-o", "a.o"),
			append(append([]string{clang}, hip...), "b.hip", "-o", "b.o"),
		} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				wrapperObjs.err = fmt.Errorf("%v: %v\n%s", argv, err, out)
				return
			}
		}
		wrapperObjs.objs = map[string][]byte{}
		for _, o := range []string{"omp.o", "a.o", "b.o"} {
			b, err := os.ReadFile(filepath.Join(dir, o))
			if err != nil {
				wrapperObjs.err = err
				return
			}
			wrapperObjs.objs[o] = b
		}
	})
	require.NoError(t, wrapperObjs.err)
	return wrapperObjs.objs
}

const syclSrc = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KF; struct KD; struct KB;
int main() {
  int *out = nullptr;
  single_task<KF>([=]() { out[0] = 1 + out[1]; });
  single_task<KD>([=]() { double x = out[0]; out[0] = (int)(x * 2.5); });
  single_task<KB>([=]() { out[0] = out[1] * 3; });
  return 0;
}
`

// TestDeterminism runs each case in two different directories (under two
// different TMPDIRs) and, for -j tools, with every jobs value, and
// requires byte-identical outputs and stdout.
func TestDeterminism(t *testing.T) {
	for _, c := range detCases {
		t.Run(c.name, func(t *testing.T) {
			bin := toolPath(t, c.tool)
			for _, n := range c.needs {
				if _, err := os.Stat(filepath.Join(llvmBin, n)); err != nil {
					t.Skipf("needs %s", n)
				}
			}
			jobs := c.jobs
			if jobs == nil {
				jobs = []string{""}
			}
			var ref map[string][]byte
			var refName string
			for _, j := range jobs {
				for run := 0; run < 2; run++ {
					root := t.TempDir()
					// Different depths and names, so paths differ in length too.
					dir := filepath.Join(root, strings.Repeat("d", run+1), "work")
					tmp := filepath.Join(root, "tmp")
					require.NoError(t, os.MkdirAll(dir, 0o755))
					require.NoError(t, os.MkdirAll(tmp, 0o755))
					args := c.setup(t, dir)
					switch {
					case j != "" && c.jobsFlag != nil:
						args = append(args, c.jobsFlag(j)...)
					case j != "":
						args = append(args, "-j", j)
					}
					res := runGuarded(guard{Dir: dir, Env: []string{"TMPDIR=" + tmp}}, append([]string{bin}, args...)...)
					if res.Code != 0 {
						t.Fatalf("%v: exit %d: %s", args, res.Code, res.Stderr)
					}
					got := map[string][]byte{"<stdout>": res.Stdout}
					for _, o := range c.outputs {
						b, err := os.ReadFile(filepath.Join(dir, o))
						require.NoError(t, err)
						got[o] = b
					}
					if c.outDir != "" {
						for _, p := range tree(t, filepath.Join(dir, c.outDir)) {
							b, err := os.ReadFile(filepath.Join(dir, c.outDir, p))
							require.NoError(t, err)
							got[c.outDir+"/"+p] = b
						}
					}
					name := "-j" + j + "/run" + string(rune('0'+run))
					if ref == nil {
						ref, refName = got, name
						continue
					}
					compareOutputs(t, refName, ref, name, got)
				}
			}
		})
	}
}

func compareOutputs(t *testing.T, an string, a map[string][]byte, bn string, b map[string][]byte) {
	t.Helper()
	var names []string
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		x, okx := a[k]
		y, oky := b[k]
		switch {
		case !okx || !oky:
			t.Errorf("%s: present in only one of %s, %s", k, an, bn)
		case !bytes.Equal(x, y):
			t.Errorf("%s differs between %s and %s (%d vs %d bytes)", k, an, bn, len(x), len(y))
		}
	}
}
