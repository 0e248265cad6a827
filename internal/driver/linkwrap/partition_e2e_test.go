package linkwrap

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/codeobj"
	"github.com/offload-kit/offload-kit/internal/testutil/cudatools"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// partitionHIP writes a HIP program of tus translation units with
// kernels kernels each, built to stress the partitioning rules: function
// pointer tables (address-taken functions, indirect calls), an LDS
// variable used from a device function that several kernels call,
// recursion, a template kernel instantiated in two files (linkonce_odr),
// a local variable every kernel of a file updates (promoted when its
// kernels land in different parts), __constant__ tables and a local
// constant table. edit changes one kernel's body: "t/k".
func partitionHIP(t *testing.T, dir string, tus, kernels int, edit string) {
	partitionProgram(t, dir, "hip", tus, kernels, edit)
}

// partitionProgram writes partitionHIP's program in HIP ("hip": tu*.hip)
// or CUDA ("cuda": tu*.cu, NVVM builtins).
func partitionProgram(t *testing.T, dir, lang string, tus, kernels int, edit string) {
	t.Helper()
	tid, barrier, header, ext := "__builtin_amdgcn_workitem_id_x()", "__builtin_amdgcn_s_barrier()", "mini_hip.h", "hip"
	if lang == "cuda" {
		tid, barrier, header, ext = "__nvvm_read_ptx_sreg_tid_x()", "__nvvm_bar_sync(0)", "mini_cuda.h", "cu"
	}
	for tu := 0; tu < tus; tu++ {
		var b strings.Builder
		p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
		p(`#include "%s"`, header)
		if lang == "hip" {
			p(`#define __shared__ __attribute__((shared))`)
		}
		p(`extern __device__ int g_total;`)
		p(`__device__ int shared_mix(int a, int b);`)
		p(`typedef int (*op_t)(int);`)
		p(`template <int N> __global__ void tk(int *p) { p[0] += N; }`)
		p(`template __global__ void tk<%d>(int *);`, tu%2)
		p(`static __device__ int counter_%d;`, tu)
		p(`__constant__ float coeff_%d[4] = {1.f, 2.f, 3.f, %d.5f};`, tu, tu)
		p(`static __device__ __attribute__((noinline)) int op_add_%d(int x) { return x + %d; }`, tu, tu+1)
		p(`static __device__ __attribute__((noinline)) int op_mul_%d(int x) { return x * %d; }`, tu, tu+2)
		p(`__device__ op_t ops_%d[2] = {op_add_%d, op_mul_%d};`, tu, tu, tu)
		p(`__device__ __attribute__((noinline)) int fib_%d(int n) { return n < 2 ? n : fib_%d(n-1) + fib_%d(n-2); }`, tu, tu, tu)
		p(`__device__ __attribute__((noinline)) float lds_sum_%d(float v) { static __shared__ float buf[64]; int i = %s; buf[i & 63] = v; %s; return buf[(i+1)&63] + buf[(i+2)&63]; }`, tu, tid, barrier)
		p(`static const int lut_%d[8] = {3,1,4,1,5,9,2,6};`, tu)
		if tu == 0 {
			p(`__device__ int g_total;`)
			p(`__device__ __attribute__((noinline)) int shared_mix(int a, int b) { return (a*31) ^ (b+g_total); }`)
		}
		var launches []string
		for k := 0; k < kernels; k++ {
			extra := ""
			if edit == fmt.Sprintf("%d/%d", tu, k) {
				extra = "p[i+1] = acc * 2.0f;"
			}
			p(`__global__ void kern_%d_%d(float *p, int *q, int n) {`, tu, k)
			p(`  __shared__ float tile[%d];`, 32+(k%4)*32)
			p(`  int i = %s;`, tid)
			p(`  tile[i & 31] = p[i] * coeff_%d[%d];`, tu, k&3)
			p(`  %s;`, barrier)
			p(`  float acc = lds_sum_%d(tile[(i+1)&31]);`, tu)
			if k%2 == 0 {
				// an indirect call: an open call graph (docs/partitions.md)
				p(`  int r = ops_%d[(n+%d) & 1](n) + lut_%d[(i+%d) & 7];`, tu, k, tu, k)
			} else {
				p(`  int r = n * %d + lut_%d[(i+%d) & 7];`, k+1, tu, k)
			}
			if k%3 == 0 {
				p(`  r += fib_%d(n & 7);`, tu)
			}
			p(`  counter_%d += r;`, tu)
			p(`  q[i] = r + shared_mix(i, %d) + counter_%d;`, k, tu)
			p(`  p[i] = acc; %s`, extra)
			p(`}`)
			launches = append(launches, fmt.Sprintf("kern_%d_%d<<<1,1>>>(p,q,4);", tu, k))
		}
		p(`void launch_%d(float *p, int *q) { %s tk<%d><<<1,1>>>(q); }`, tu, strings.Join(launches, " "), tu%2)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("tu%d.%s", tu, ext)), []byte(b.String()), 0o644))
	}
}

// hipImages returns the code objects of a HIP executable's fat binary by
// processor.
func hipImages(t *testing.T, exe string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	o, err := elfembed.Parse(data)
	require.NoError(t, err)
	s := o.Section(".hip_fatbin")
	require.NotNil(t, s, "%s has no .hip_fatbin", exe)
	b, err := bundle.Parse(s.Data)
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, e := range b.Entries {
		if _, arch, ok := strings.Cut(e.ID, "amdgcn-amd-amdhsa--"); ok {
			out[arch] = e.Data
		}
	}
	return out
}

// kernelView is what must not change when a link is partitioned: each
// kernel's code size and resources, the exported symbols, and each
// kernel's instructions (literal operands masked: addresses move).
type kernelView struct {
	Kernels map[string]string
	Dynsyms []string
	Code    map[string]string
}

var (
	hexLit      = regexp.MustCompile(`0x[0-9a-f]+`)
	asmComments = regexp.MustCompile(`[ \t]*//[^\n]*`)
)

func viewOf(t *testing.T, dir, name string, img []byte) kernelView {
	t.Helper()
	obj, err := codeobj.Parse(img)
	require.NoError(t, err)
	v := kernelView{Kernels: map[string]string{}, Code: map[string]string{}}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, img, 0o644))
	objdump := llvmtools.Tool(t, "llvm-objdump")
	for _, f := range obj.Functions {
		if !f.Kernel {
			continue
		}
		require.NotNil(t, f.Resources, "%s: %s has no resources", name, f.Name)
		v.Kernels[f.Name] = fmt.Sprintf("size=%d %+v", f.Size, *f.Resources)
		out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", "--no-leading-addr", "--disassemble-symbols="+f.Name, path).Output()
		require.NoError(t, err)
		text := string(out)
		// the instructions, up to the last s_endpgm (after it: padding,
		// which depends on what follows)
		if k := strings.LastIndex(text, "s_endpgm"); k > 0 {
			text = text[:k]
		}
		if k := strings.Index(text, "<"+f.Name+">:"); k > 0 {
			text = text[k:]
		}
		v.Code[f.Name] = hexLit.ReplaceAllString(asmComments.ReplaceAllString(text, ""), "X")
	}
	ef, err := elf.NewFile(bytes.NewReader(img))
	require.NoError(t, err)
	syms, err := ef.DynamicSymbols()
	require.NoError(t, err)
	for _, s := range syms {
		v.Dynsyms = append(v.Dynsyms, fmt.Sprintf("%s %v %v %v", s.Name, elf.ST_BIND(s.Info), elf.ST_TYPE(s.Info), s.Size))
	}
	sort.Strings(v.Dynsyms)
	return v
}

var fatbinEntry = regexp.MustCompile(`(?m)^  entry hip-amdgcn\S+ .*$`)

// TestPartitionedHIPMatchesWholeLink links one HIP program (2 processors)
// whole, with LLVM 22's wrapper and without ld.lld's LTO partitions, and
// through ours with --device-partitions=3 and auto (32, the empty ones
// left out). Every kernel must
// have the same code size, resources (SGPRs, VGPRs, AGPRs, LDS, scratch,
// kernarg, spills), the same instructions and the same exported symbols;
// the programs register the same kernels and variables. Then a one-kernel
// edit relinks through the partition cache: one part per processor is
// compiled, the others come from the cache, and the result still matches
// LLVM's whole link of the edited program.
func TestPartitionedHIPMatchesWholeLink(t *testing.T) {
	clang := findTool(t, "clang-22", "clang")
	wrapDir := buildWrapper(t)
	dir := t.TempDir()
	for _, f := range []string{"mini_hip.h", "stub.c", "main.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hip", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	const tus, kernels = 4, 6
	partitionHIP(t, dir, tus, kernels, "")
	archs := []string{"gfx90a", "gfx1100"}
	compile := []string{clang, "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-foffload-lto", "-nogpuinc", "-nogpulib", "-O2", "-c"}
	for _, a := range archs {
		compile = append(compile, "--offload-arch="+a)
	}
	cc := func(tu int) {
		sh(t, dir, nil, append(compile, fmt.Sprintf("tu%d.hip", tu), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	for tu := 0; tu < tus; tu++ {
		cc(tu)
	}
	sh(t, dir, nil, "gcc", "-c", "-fPIC", stubInclude(t), "stub.c", "-o", "stub.o")
	sh(t, dir, nil, "gcc", "-c", "main.c", "-o", "main.o")
	link := []string{clang, "--offload-new-driver", "-fgpu-rdc", "--hip-link", "-nogpulib", "-no-hip-rt", "-rdynamic"}
	for _, a := range archs {
		link = append(link, "--offload-arch="+a)
	}
	for tu := 0; tu < tus; tu++ {
		link = append(link, fmt.Sprintf("tu%d.o", tu))
	}
	link = append(link, "main.o", "stub.o", "-ldl", "-lzstd")
	cacheDir := filepath.Join(dir, "cache")
	linkOurs := func(out, parts string) string {
		args := append([]string{link[0], "-B" + wrapDir}, link[1:]...)
		args = append(args, "-o", out, "-Xlinker", "--device-partitions="+parts, "-Xlinker", "--wrapper-verbose", "-Xlinker", "--cache-dir="+cacheDir)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return string(b)
	}
	compare := func(whole, ours string) {
		t.Helper()
		want, got := hipImages(t, filepath.Join(dir, whole)), hipImages(t, filepath.Join(dir, ours))
		for _, a := range archs {
			require.Contains(t, want, a)
			require.Contains(t, got, a)
			w, g := viewOf(t, dir, whole+"."+a, want[a]), viewOf(t, dir, ours+"."+a, got[a])
			require.Len(t, w.Kernels, tus*kernels+2, "%s %s: kernels (and the two tk instances)", whole, a)
			assert.Equal(t, w.Kernels, g.Kernels, "%s: kernel sizes and resources", a)
			assert.Equal(t, w.Dynsyms, g.Dynsyms, "%s: exported symbols", a)
			assert.Equal(t, w.Code, g.Code, "%s: kernel instructions", a)
		}
		logW := fatbinEntry.ReplaceAllString(sh(t, dir, nil, "./"+whole), "")
		logG := fatbinEntry.ReplaceAllString(sh(t, dir, nil, "./"+ours), "")
		assert.Contains(t, logW, "RegisterFunction ok=1")
		assert.Equal(t, logW, logG, "registration log")
	}
	whole := func(out string) {
		sh(t, dir, nil, append(append([]string{}, link...), "-o", out, "-Xlinker", "--device-compiler=amdgcn-amd-amdhsa=-flto-partitions=1")...)
	}
	whole("whole")
	for _, parts := range []string{"3", "auto"} {
		log := linkOurs("ours-"+parts, parts)
		for _, a := range archs {
			if parts == "3" {
				assert.Contains(t, log, fmt.Sprintf("device link for amdgcn-amd-amdhsa %s: 3 parts, 3 compiled, 0 from the cache\n", a))
				continue
			}
			// auto: 32 parts, those that define nothing left out
			m := regexp.MustCompile(`device link for amdgcn-amd-amdhsa ` + a + `: (\d+) parts, (\d+) compiled, 0 from the cache \((\d+) of 32 empty\)`).FindStringSubmatch(log)
			require.NotNil(t, m, "%s: %s", a, log)
			n, _ := strconv.Atoi(m[1])
			empty, _ := strconv.Atoi(m[3])
			assert.Equal(t, m[1], m[2], "every part compiled")
			assert.Equal(t, 32, n+empty)
			assert.Greater(t, empty, 0, "%d kernels in 32 parts: some are empty", tus*kernels)
		}
		compare("whole", "ours-"+parts)
	}
	// One kernel edited: one part per processor is compiled again.
	partitionHIP(t, dir, tus, kernels, "1/2")
	cc(1)
	whole("whole-edit")
	log := linkOurs("ours-edit", "3")
	for _, a := range archs {
		assert.Contains(t, log, fmt.Sprintf("device link for amdgcn-amd-amdhsa %s: 3 parts, 1 compiled, 2 from the cache", a))
	}
	compare("whole-edit", "ours-edit")
}

// fakeCUDA makes a CUDA installation clang recognises (version 12.8) from
// the NVIDIA host tools make deps unpacks: bin/ is theirs; the version
// file, an include/cuda.h that names the version and an empty libdevice
// are enough for clang to pick the PTX version for the processors
// (without an installation it picks PTX 4.2, which sm_80 cannot use).
func fakeCUDA(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cuda")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "include"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nvvm", "libdevice"), 0o755))
	require.NoError(t, os.Symlink(filepath.Dir(cudatools.Tool(t, "ptxas")), filepath.Join(dir, "bin")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "version.json"), []byte(`{"cuda":{"name":"CUDA SDK","version":"12.8.0"}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "include", "cuda.h"), []byte("#define CUDA_VERSION 12080\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvvm", "libdevice", "libdevice.10.bc"), nil, 0o644))
	return dir
}

// resUsage is cuobjdump -res-usage of a fat binary (cudatools.ResUsage).
func resUsage(t *testing.T, fatbin string) map[string]string {
	t.Helper()
	out, err := exec.Command(cudatools.Tool(t, "cuobjdump"), "-res-usage", fatbin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return cudatools.ResUsage(out)
}

// TestPartitionedCUDAMatchesWholeLink is the NVPTX side of
// TestPartitionedHIPMatchesWholeLink: the same program in CUDA, for
// sm_80 and sm_90, device-linked whole by LLVM 22's wrapper (its
// clang-nvlink-wrapper: LTO, ptxas, nvlink) and by ours in 3 parts (LTO
// in-process, ptxas -c per part, nvlink). Every kernel and device
// function has the same registers, stack, shared, local and constant
// memory (cuobjdump -res-usage of the fat binaries); a one-kernel edit
// assembles one part per architecture again. The programs run on an H100
// in e2e/cuda (run-partitions.sh).
func TestPartitionedCUDAMatchesWholeLink(t *testing.T) {
	clang := findTool(t, "clang-22", "clang")
	llvmWrapper := llvmtools.Tool(t, "clang-linker-wrapper")
	wrapDir := buildWrapper(t)
	cuda := fakeCUDA(t)
	dir := t.TempDir()
	b, err := os.ReadFile("../../../e2e/cuda/mini_cuda.h")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mini_cuda.h"), b, 0o644))
	const tus, kernels = 3, 4
	partitionProgram(t, dir, "cuda", tus, kernels, "")
	compile := []string{clang, "-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-foffload-lto", "-nocudainc", "-nocudalib",
		"--cuda-path=" + cuda, "-Xclang", "-target-sdk-version=12.8", "-O2", "--offload-arch=sm_80", "--offload-arch=sm_90", "-c"}
	cc := func(tu int) {
		sh(t, dir, nil, append(compile, fmt.Sprintf("tu%d.cu", tu), "-o", fmt.Sprintf("tu%d.o", tu))...)
	}
	var objs []string
	for tu := 0; tu < tus; tu++ {
		cc(tu)
		objs = append(objs, fmt.Sprintf("tu%d.o", tu))
	}
	common := []string{"--host-triple=x86_64-unknown-linux-gnu", "--linker-path=/bin/true", "--cuda-path=" + cuda, "--emit-fatbin-only"}
	whole := func(out string) map[string]string {
		args := append(append([]string{llvmWrapper}, common...), "--device-compiler=nvptx64-nvidia-cuda=--cuda-path="+cuda, "-o", out)
		sh(t, dir, nil, append(args, objs...)...)
		return resUsage(t, filepath.Join(dir, out))
	}
	cacheDir := filepath.Join(dir, "cache")
	oursIn := func(out, parts, cacheDir string) (map[string]string, string) {
		args := append(append([]string{filepath.Join(wrapDir, "linker-wrapper")}, common...), "--device-partitions="+parts, "--wrapper-verbose", "--cache-dir="+cacheDir, "-o", out)
		cmd := exec.Command(args[0], append(args[1:], objs...)...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return resUsage(t, filepath.Join(dir, out)), string(b)
	}
	ours := func(out string) (map[string]string, string) { return oursIn(out, "3", cacheDir) }
	want := whole("whole.fatbin")
	require.GreaterOrEqual(t, len(want), 2*(tus*kernels+2), "kernels and the template instances, per architecture")
	// auto: 32 parts, most of them empty, a kernel or two in the others
	got, log := oursIn("ours-auto.fatbin", "auto", filepath.Join(dir, "cache-auto"))
	assert.Equal(t, want, got, "resources per function, auto")
	assert.Regexp(t, `nvptx64-nvidia-cuda sm_80: \d+ parts, \d+ compiled, 0 from the cache \(\d+ of 32 empty\)`, log)
	got, log = ours("ours.fatbin")
	assert.Equal(t, want, got, "resources per function")
	for _, a := range []string{"sm_80", "sm_90"} {
		assert.Contains(t, log, fmt.Sprintf("device link for nvptx64-nvidia-cuda %s: 3 parts, 3 compiled, 0 from the cache", a))
	}
	partitionProgram(t, dir, "cuda", tus, kernels, "1/2")
	cc(1)
	want = whole("whole-edit.fatbin")
	got, log = ours("ours-edit.fatbin")
	assert.Equal(t, want, got, "resources per function after the edit")
	for _, a := range []string{"sm_80", "sm_90"} {
		assert.Contains(t, log, fmt.Sprintf("device link for nvptx64-nvidia-cuda %s: 3 parts, 1 compiled, 2 from the cache", a))
	}
}
