package linkwrap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/buildgrid"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// partitionOMP writes an OpenMP program of tus C files with regions
// target regions each, offloaded to the host CPU: the regions call a
// declare-target function of their file, one shared by all files
// (defined in tu0), a recursive one, and read and write declare-target
// arrays; main (in tu0) runs every region and prints each result and
// whether it ran on the offload device. edit changes one region: "t/k".
func partitionOMP(t *testing.T, dir string, tus, regions int, edit string) {
	t.Helper()
	for tu := 0; tu < tus; tu++ {
		var b strings.Builder
		p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
		p(`#include <stdio.h>`)
		p(`#include <omp.h>`)
		p(`#pragma omp declare target`)
		if tu != 0 {
			p(`extern int g_tab[8];`)
		}
		p(`int shared_mix(int a, int b);`)
		if tu == 0 {
			p(`int g_tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};`)
			p(`__attribute__((noinline)) int shared_mix(int a, int b) { return (a * 31) ^ (b + g_tab[b & 7]); }`)
		}
		p(`static int hits_%d[%d];`, tu, regions)
		p(`static __attribute__((noinline)) int helper_%d(int x) { int a = x; for (int i = 0; i < 8; i++) a = a * 3 + g_tab[(i + %d) & 7]; return a; }`, tu, tu)
		p(`static __attribute__((noinline)) int fib_%d(int n) { return n < 2 ? n : fib_%d(n - 1) + fib_%d(n - 2); }`, tu, tu, tu)
		p(`#pragma omp end declare target`)
		for k := 0; k < regions; k++ {
			extra := ""
			if edit == fmt.Sprintf("%d/%d", tu, k) {
				extra = " r += 1000;"
			}
			p(`int run_%d_%d(int x, int *dev) {`, tu, k)
			p(`  int r = 0, d = 0;`)
			p(`#pragma omp target map(tofrom: r, d)`)
			p(`  { d = !omp_is_initial_device(); hits_%d[%d]++; r = helper_%d(x + %d) + shared_mix(x, %d) + fib_%d(%d) + hits_%d[%d];%s }`, tu, k, tu, k, k, tu, k%9, tu, k, extra)
			p(`  *dev = d;`)
			p(`  return r;`)
			p(`}`)
		}
		if tu == 0 {
			for t2 := 0; t2 < tus; t2++ {
				for k := 0; k < regions; k++ {
					p(`int run_%d_%d(int, int *);`, t2, k)
				}
			}
			p(`int main(void) {`)
			p(`  int all = 1, dev;`)
			for t2 := 0; t2 < tus; t2++ {
				for k := 0; k < regions; k++ {
					p(`  printf("run_%d_%d %%d\n", run_%d_%d(%d, &dev)); all &= dev;`, t2, k, t2, k, k+t2)
				}
			}
			p(`  printf("g_tab %%d on_device=%%d\n", g_tab[1], all);`)
			p(`  return 0;`)
			p(`}`)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("tu%d.c", tu)), []byte(b.String()), 0o644))
	}
}

// TestPartitionedOpenMPRuns: an OpenMP program offloaded to the host CPU
// (x86_64), compiled with -foffload-lto, linked through clang -B with
// --device-partitions=3: the device image is made of 3 parts, and the
// program prints what LLVM 22's link of it prints, every region on the
// offload device. After a one-region edit one part is compiled again
// and the output still matches.
func TestPartitionedOpenMPRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	dir := t.TempDir()
	const tus, regions = 3, 6
	partitionOMP(t, dir, tus, regions, "")
	flags := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-foffload-lto", "-O2"}
	cc1 := func(tu int) {
		sh(t, dir, nil, append(append([]string{cc}, flags...), "-c", fmt.Sprintf("tu%d.c", tu), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	var objs []string
	for tu := 0; tu < tus; tu++ {
		cc1(tu)
		objs = append(objs, fmt.Sprintf("tu%d.o", tu))
	}
	link := append(append([]string{cc}, flags...), "-L"+lib, "-Wno-unused-command-line-argument")
	cacheDir := filepath.Join(dir, "cache")
	ours := func(out string) string {
		args := append(append(append([]string{}, link...), "-B"+bin, "-o", out, "-Xlinker", "--device-partitions=3",
			"-Xlinker", "--wrapper-verbose", "-Xlinker", "--cache-dir="+cacheDir), objs...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return string(b)
	}
	ref := func(out string) string {
		sh(t, dir, nil, append(append(append([]string{}, link...), "-o", out), objs...)...)
		return sh(t, dir, nil, "./"+out)
	}
	want := ref("whole")
	require.Contains(t, want, " on_device=1\n")
	log := ours("parts")
	assert.Contains(t, log, "device link for x86_64-unknown-linux-gnu: 3 parts, 3 compiled, 0 from the cache")
	assert.Equal(t, want, sh(t, dir, nil, "./parts"), "output of the program linked in parts")
	partitionOMP(t, dir, tus, regions, "1/2")
	cc1(1)
	want = ref("whole-edit")
	require.Contains(t, want, "run_1_2 ")
	log = ours("parts-edit")
	assert.Contains(t, log, "device link for x86_64-unknown-linux-gnu: 3 parts, 1 compiled, 2 from the cache")
	assert.Equal(t, want, sh(t, dir, nil, "./parts-edit"), "output after the edit")
}

// TestPartitionsSharedThroughRemote: two checkouts of one CUDA project in
// two directories, with two cache directories behind one BuildGrid
// server. The first links (sm_80 and sm_90) in 3 parts and uploads them;
// the second, after a one-kernel edit, assembles one part per
// architecture and takes the other two from the server (its local cache
// is empty), and its fat binary matches LLVM's link of the edited
// program. (OpenMP objects cannot be shared this way: their kernels'
// names hold the source file's inode.)
func TestPartitionsSharedThroughRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	clang := findTool(t, "clang-22", "clang")
	llvmWrapper := llvmtools.Tool(t, "clang-linker-wrapper")
	remote := "grpc://" + buildgrid.Start(t).Addr + "/main"
	wrapDir := buildWrapper(t)
	cuda := fakeCUDA(t)
	const tus, kernels = 3, 4
	one := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(one, 0o755))
	b, err := os.ReadFile("../../../e2e/cuda/mini_cuda.h")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(one, "mini_cuda.h"), b, 0o644))
	partitionProgram(t, one, "cuda", tus, kernels, "")
	compile := []string{clang, "-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-foffload-lto", "-nocudainc", "-nocudalib",
		"--cuda-path=" + cuda, "-Xclang", "-target-sdk-version=12.8", "-O2", "--offload-arch=sm_80", "--offload-arch=sm_90", "-c"}
	cc := func(dir string, tu int) {
		sh(t, dir, nil, append(compile, fmt.Sprintf("tu%d.cu", tu), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	var objs []string
	for tu := 0; tu < tus; tu++ {
		cc(one, tu)
		objs = append(objs, fmt.Sprintf("tu%d.o", tu))
	}
	two := filepath.Join(t.TempDir(), "ci", "worker-3", "proj")
	require.NoError(t, os.MkdirAll(filepath.Dir(two), 0o755))
	require.NoError(t, exec.Command("cp", "-a", one, two).Run())
	common := []string{"--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/bin/true", "--cuda-path=" + cuda, "--emit-fatbin-only", "-o", "app.fatbin"}
	ours := func(dir, cacheDir string) string {
		args := append(append([]string{filepath.Join(wrapDir, "linker-wrapper")}, common...), "--device-partitions=3", "--wrapper-verbose")
		cmd := exec.Command(args[0], append(args[1:], objs...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "OFFLOAD_KIT_CACHE_DIR="+cacheDir, "OFFLOAD_KIT_CACHE_REMOTE="+remote, "OFFLOAD_KIT_VERBOSE=1")
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return string(b)
	}
	out := ours(one, filepath.Join(t.TempDir(), "cache-a"))
	for _, a := range []string{"sm_80", "sm_90"} {
		assert.Contains(t, out, fmt.Sprintf("device link for nvptx64-nvidia-cuda %s: 3 parts, 3 compiled, 0 from the cache", a))
	}
	assert.Contains(t, out, "0 corrupt, 0 remote errors")
	partitionProgram(t, two, "cuda", tus, kernels, "2/3")
	cc(two, 2)
	out = ours(two, filepath.Join(t.TempDir(), "cache-b"))
	for _, a := range []string{"sm_80", "sm_90"} {
		assert.Contains(t, out, fmt.Sprintf("device link for nvptx64-nvidia-cuda %s: 3 parts, 1 compiled, 2 from the cache", a))
	}
	assert.Contains(t, out, "4 hits (0 local, 4 remote)", "the parts come from BuildGrid")
	got := resUsage(t, filepath.Join(two, "app.fatbin"))
	args := append(append([]string{llvmWrapper}, common...), "--device-compiler=nvptx64-nvidia-cuda=--cuda-path="+cuda)
	sh(t, two, nil, append(args[:len(args):len(args)], objs...)...)
	assert.Equal(t, resUsage(t, filepath.Join(two, "app.fatbin")), got, "LLVM's link of the edited program")
}
