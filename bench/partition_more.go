package main

// Issue 27's one-kernel-edit rows for CUDA (sm_80 + sm_90) and OpenMP's
// CPU offload: linker-wrapper's device link with --device-partitions=auto
// and a partition cache against LLVM 22's clang-linker-wrapper, which
// links everything again.

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
)

const (
	cudaTUs, cudaKernels = 8, 60
	ompTUs, ompRegions   = 8, 100
	nvidiaBin            = cudatools.Dir
)

const miniCUDA = `#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
typedef unsigned long size_t;
struct dim3 { unsigned x, y, z; __host__ __device__ dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {} };
typedef struct CUstream_st *cudaStream_t;
extern "C" int __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shm = 0, cudaStream_t s = 0);
extern "C" int cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s);
`

// ompSource is OpenMP file tu; edited changes region 0.
func ompSource(tu int, edited bool) string {
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	p(`#include <omp.h>`)
	p(`#pragma omp declare target`)
	if tu == 0 {
		p(`int g_tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};`)
		p(`__attribute__((noinline)) int shared_mix(int a, int b) { return (a * 31) ^ (b + g_tab[b & 7]); }`)
	} else {
		p(`extern int g_tab[8];`)
		p(`int shared_mix(int a, int b);`)
	}
	p(`static __attribute__((noinline)) double smooth_%d(double x, int i) { double a = x; for (int k = 0; k < 8; k++) a = a * g_tab[(i + k) & 7] * 0.25 + 0.5 * a; return a; }`, tu)
	p(`#pragma omp end declare target`)
	for k := 0; k < ompRegions; k++ {
		extra := ""
		if edited && k == 0 {
			extra = " r += 1000;"
		}
		p(`double run_%d_%d(double *v, int n) {`, tu, k)
		p(`  double r = 0;`)
		p(`#pragma omp target map(tofrom: r) map(to: v[0:n])`)
		p(`  { for (int j = 0; j < n; j++) r += smooth_%d(v[j], j + %d) * %d + shared_mix(j, %d);%s }`, tu, k, k%7+1, k, extra)
		p(`  return r + g_tab[%d];`, k&7)
		p(`}`)
	}
	return b.String()
}

// editedFixture makes dir's sources with gen, compiles each with compile
// (objects tuN.o), and the edit of tu0 as tu0-edit.o, compiled with the
// same command line (-o included) and renamed.
func editedFixture(c *config, dir, ext string, tus int, gen func(int, bool) string, compile []string) error {
	if exists(filepath.Join(dir, "tu0-edit.o")) {
		return nil
	}
	write := func(name, text string) error { return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644) }
	cc := func(tu int) error {
		return c.sh(dir, append(compile, fmt.Sprintf("tu%d.%s", tu, ext), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	for tu := 0; tu < tus; tu++ {
		if err := write(fmt.Sprintf("tu%d.%s", tu, ext), gen(tu, false)); err != nil {
			return err
		}
		if err := cc(tu); err != nil {
			return err
		}
	}
	if err := write("tu0."+ext, gen(0, true)); err != nil {
		return err
	}
	if err := cc(0); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(dir, "tu0.o"), filepath.Join(dir, "tu0-edit.o")); err != nil {
		return err
	}
	if err := write("tu0."+ext, gen(0, false)); err != nil {
		return err
	}
	return cc(0)
}

// fakeCUDA is a CUDA installation clang recognises (12.8), made of the
// NVIDIA host tools make deps unpacks (clang picks the PTX version from it).
func fakeCUDA(c *config) (string, error) {
	dir := c.p("cuda-fake")
	if exists(filepath.Join(dir, "bin")) {
		return dir, nil
	}
	for _, d := range []string{"include", "nvvm/libdevice"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	files := map[string]string{"version.json": `{"cuda":{"name":"CUDA SDK","version":"12.8.0"}}`, "include/cuda.h": "#define CUDA_VERSION 12080\n", "nvvm/libdevice/libdevice.10.bc": ""}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	return dir, os.Symlink(nvidiaBin, filepath.Join(dir, "bin"))
}

func cudaScale(c *config) error {
	dir := c.p("cuda-scale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cuda, err := fakeCUDA(c)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "mini_cuda.h"), []byte(miniCUDA), 0o644); err != nil {
		return err
	}
	compile := []string{c.tool("clang++"), "-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-foffload-lto", "-nocudainc", "-nocudalib",
		"--cuda-path=" + cuda, "-Xclang", "-target-sdk-version=12.8", "-O3", "--offload-arch=sm_80", "--offload-arch=sm_90", "-c"}
	gen := func(tu int, edited bool) string { return gpuSource("cuda", cudaKernels, tu, edited) }
	if err := editedFixture(c, dir, "cu", cudaTUs, gen, compile); err != nil {
		return err
	}
	return partSnapshot(c, "cuda-scale", cudaArgv)
}

func ompScale(c *config) error {
	dir := c.p("omp-scale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	compile := []string{c.tool("clang"), "-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-foffload-lto", "-O3", "-c"}
	if err := editedFixture(c, dir, "c", ompTUs, ompSource, compile); err != nil {
		return err
	}
	return partSnapshot(c, "omp-scale", ompArgv)
}

// partSnapshot leaves name/cache-snapshot: the partition cache after a
// cold link of the unedited program, which each relink run starts from.
func partSnapshot(c *config, name string, argv func(*config, bool, bool, string) []string) error {
	snap := c.p(name, "cache-snapshot")
	if exists(snap) {
		return nil
	}
	cache := c.p(name, "cache")
	os.RemoveAll(cache)
	if err := c.sh(c.p(name), argv(c, true, false, "snap.out")...); err != nil {
		return err
	}
	return exec.Command("cp", "-a", cache, snap).Run()
}

func restoreSnapshot(c *config, name string) func() error {
	return func() error {
		cache := c.p(name, "cache")
		os.RemoveAll(cache)
		return exec.Command("cp", "-a", c.p(name, "cache-snapshot"), cache).Run()
	}
}

// wrapperLink is a device link by the wrapper alone (the host link is
// /bin/true; --emit-fatbin-only writes the device images to out); ours
// logs (--wrapper-verbose) into out.log.
func wrapperLink(c *config, name string, ours, edit bool, out string, tus int, extra ...string) []string {
	var argv []string
	tool := c.tool("clang-linker-wrapper")
	if ours {
		argv = append(argv, "sh", "-c", `exec "$@" 2>`+out+".log", "sh")
		tool = c.ours("linker-wrapper")
	}
	argv = append(argv, tool, "--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/bin/true", "--emit-fatbin-only", "-o", out)
	argv = append(argv, extra...)
	if ours {
		argv = append(argv, "--device-partitions=auto", "--cache-dir="+c.p(name, "cache"), "--wrapper-verbose")
	}
	for tu := 0; tu < tus; tu++ {
		if tu == 0 && edit {
			argv = append(argv, "tu0-edit.o")
			continue
		}
		argv = append(argv, fmt.Sprintf("tu%d.o", tu))
	}
	return argv
}

func cudaArgv(c *config, ours, edit bool, out string) []string {
	cuda := c.p("cuda-fake")
	extra := []string{"--cuda-path=" + cuda}
	if !ours {
		// LLVM's wrapper runs clang for the device link; it finds the
		// CUDA installation (and so the PTX version) only when told
		extra = append(extra, "--device-compiler=nvptx64-nvidia-cuda=--cuda-path="+cuda)
	}
	return wrapperLink(c, "cuda-scale", ours, edit, out, cudaTUs, append(extra, "--device-compiler=nvptx64-nvidia-cuda=-O3")...)
}

func ompArgv(c *config, ours, edit bool, out string) []string {
	return wrapperLink(c, "omp-scale", ours, edit, out, ompTUs, "--device-compiler=x86_64-unknown-linux-gnu=-flto=full", "--device-compiler=x86_64-unknown-linux-gnu=-O3")
}

// autoParts is what --device-partitions=auto asks for: 32 parts. The
// fixtures have hundreds of kernels, so none of the parts is empty.
const autoParts = 32

// logParts checks ours' log: each named device link was partitioned into
// autoParts parts, compiled of them compiled (-1: all).
func logParts(c *config, name, out string, compiled int, groups ...string) error {
	b, err := os.ReadFile(filepath.Join(c.p(name), out+".log"))
	if err != nil {
		return err
	}
	if compiled < 0 {
		compiled = autoParts
	}
	for _, g := range groups {
		want := fmt.Sprintf("device link for %s: %d parts, %d compiled, %d from the cache\n", g, autoParts, compiled, autoParts-compiled)
		if !strings.Contains(string(b), want) {
			return fmt.Errorf("%s: its log does not say %q", out, want)
		}
	}
	return nil
}

// cudaResources is cuobjdump -res-usage of a fat binary, per
// architecture and function.
func cudaResources(path string) (map[string]string, error) {
	out, err := exec.Command(filepath.Join(nvidiaBin, "cuobjdump"), "-res-usage", path).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("cuobjdump %s: %v: %s", path, err, out)
	}
	return cudatools.ResUsage(out), nil
}

func validateCUDAEdit(c *config, who string) error {
	dir := c.p("cuda-scale")
	if who == "ours" {
		if err := logParts(c, "cuda-scale", "edit.ours", 1, "nvptx64-nvidia-cuda sm_80", "nvptx64-nvidia-cuda sm_90"); err != nil {
			return err
		}
	}
	got, err := cudaResources(filepath.Join(dir, "edit."+who))
	if err != nil {
		return err
	}
	if len(got) < 2*cudaTUs*cudaKernels {
		return fmt.Errorf("edit.%s: %d functions, want at least %d", who, len(got), 2*cudaTUs*cudaKernels)
	}
	if who == "ref" {
		return nil
	}
	if !exists(filepath.Join(dir, "edit.ref")) {
		if err := c.sh(dir, cudaArgv(c, false, true, "edit.ref")...); err != nil {
			return err
		}
	}
	want, err := cudaResources(filepath.Join(dir, "edit.ref"))
	if err != nil {
		return err
	}
	return sameMaps(want, got)
}

// ompExports are the dynamic symbols of the device images an OpenMP
// --emit-fatbin-only output holds (OffloadBinaries).
func ompExports(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, b := range bins {
		f, err := elf.NewFile(bytes.NewReader(b.Image))
		if err != nil {
			return nil, err
		}
		syms, err := f.DynamicSymbols()
		if err != nil {
			return nil, err
		}
		for _, s := range syms {
			if s.Section != elf.SHN_UNDEF {
				names = append(names, s.Name)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

func validateOMPEdit(c *config, who string) error {
	dir := c.p("omp-scale")
	if who == "ours" {
		if err := logParts(c, "omp-scale", "edit.ours", 1, "x86_64-unknown-linux-gnu"); err != nil {
			return err
		}
	}
	got, err := ompExports(filepath.Join(dir, "edit."+who))
	if err != nil {
		return err
	}
	kernels := 0
	for _, n := range got {
		if strings.HasPrefix(n, "__omp_offloading_") {
			kernels++
		}
	}
	if kernels < ompTUs*ompRegions {
		return fmt.Errorf("edit.%s: %d offloaded regions, want %d", who, kernels, ompTUs*ompRegions)
	}
	if who == "ref" {
		return nil
	}
	if !exists(filepath.Join(dir, "edit.ref")) {
		if err := c.sh(dir, ompArgv(c, false, true, "edit.ref")...); err != nil {
			return err
		}
	}
	want, err := ompExports(filepath.Join(dir, "edit.ref"))
	if err != nil {
		return err
	}
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		return fmt.Errorf("the device image exports %d symbols, LLVM's %d, or other ones", len(got), len(want))
	}
	return nil
}

func sameMaps(want, got map[string]string) error {
	var diff []string
	for k, w := range want {
		if got[k] != w {
			diff = append(diff, k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, k)
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("%d functions differ from LLVM's link, e.g. %s: %q against %q", len(diff), diff[0], got[diff[0]], want[diff[0]])
	}
	return nil
}

func partitionEditCases() []benchCase {
	return []benchCase{
		{
			name: fmt.Sprintf("CUDA relink after a one-kernel edit, %d kernels × sm_80+sm_90", cudaTUs*cudaKernels), issue: 27, refDesc: "clang-linker-wrapper (clang-nvlink-wrapper: LTO, ptxas, nvlink), which links everything again",
			setup: cudaScale,
			ours: func(c *config) side {
				return side{argv: cudaArgv(c, true, true, "edit.ours"), dir: c.p("cuda-scale"), prep: restoreSnapshot(c, "cuda-scale")}
			},
			ref:      func(c *config) side { return side{argv: cudaArgv(c, false, true, "edit.ref"), dir: c.p("cuda-scale")} },
			target:   fixed(target{maxWallRatio: 0.25, text: "≤ 0.25× wall"}),
			runs:     3,
			validate: func(c *config, who string, s side) error { return validateCUDAEdit(c, who) },
			method:   fmt.Sprintf("the device link alone (`--emit-fatbin-only`, host linker `/bin/true`) of %d CUDA files × %d kernels (shape of the HIP rows), compiled by clang 22 with `-fgpu-rdc -foffload-lto -O3` for sm_80 and sm_90 against a CUDA 12.8 installation made of NVIDIA's 13.5 host tools (ptxas, nvlink, fatbinary). Kernel 0 of the first file edited and recompiled with the same command line (untimed). Ours: `--device-partitions=auto` (32 parts), its cache restored (untimed) to what a cold link of the unedited program left; its log must say one part per architecture was compiled again. Validated: `cuobjdump -res-usage` gives every function of both fat binaries the same registers, stack, shared, local and constant memory.", cudaTUs, cudaKernels),
		},
		{
			name: fmt.Sprintf("OpenMP CPU-offload relink after a one-region edit, %d regions", ompTUs*ompRegions), issue: 27, refDesc: "clang-linker-wrapper (clang -flto: the gold plugin's LTO), which links everything again",
			setup: ompScale,
			ours: func(c *config) side {
				return side{argv: ompArgv(c, true, true, "edit.ours"), dir: c.p("omp-scale"), prep: restoreSnapshot(c, "omp-scale")}
			},
			ref:      func(c *config) side { return side{argv: ompArgv(c, false, true, "edit.ref"), dir: c.p("omp-scale")} },
			target:   fixed(target{maxWallRatio: 0.25, text: "≤ 0.25× wall"}),
			runs:     3,
			validate: func(c *config, who string, s side) error { return validateOMPEdit(c, who) },
			method:   fmt.Sprintf("the device link alone (`--emit-fatbin-only`, host linker `/bin/true`) of %d C files × %d target regions offloaded to x86_64, compiled by clang 22 with `-fopenmp -foffload-lto -O3` (so the wrapper gets `--device-compiler=x86_64-unknown-linux-gnu=-flto=full` and `-O3`, as clang passes them). Region 0 of the first file edited and recompiled (untimed). Ours: `--device-partitions=auto` (32 parts), its cache restored (untimed) to what a cold link of the unedited program left; its log must say one part was compiled again. Validated: both device images export the same symbols, every region's entry among them.", ompTUs, ompRegions),
		},
	}
}
