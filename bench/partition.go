package main

// Issue 27: HIP device links at scale, partitioned (linker-wrapper
// --device-partitions) against LLVM 22's own clang --hip-link.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/offload-kit/offload-kit/elfembed"
	"github.com/offload-kit/offload-kit/format/bundle"
	"github.com/offload-kit/offload-kit/format/codeobj"
)

// The scale fixture: hipTUs files of hipKernels kernels each, for four
// processors (two CDNA, two RDNA), compiled with -foffload-lto.
const (
	hipTUs     = 8
	hipKernels = 100
)

var hipArchs = []string{"gfx90a", "gfx942", "gfx1100", "gfx1030"}

const miniHIP = `#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
typedef unsigned long size_t;
struct dim3 { unsigned x, y, z; __host__ __device__ dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {} };
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;
extern "C" hipError_t hipLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm, hipStream_t s);
extern "C" hipError_t __hipPushCallConfiguration(dim3 g, dim3 b, size_t shm = 0, hipStream_t s = 0);
extern "C" hipError_t __hipPopCallConfiguration(dim3 *g, dim3 *b, size_t *shm, hipStream_t *s);
`

// gpuSource is file tu of the HIP ("hip") or CUDA ("cuda") scale
// fixture, kernels kernels; edited changes kernel 0's body.
func gpuSource(lang string, kernels, tu int, edited bool) string {
	header, tid, barrier := "mini_hip.h", "__builtin_amdgcn_workitem_id_x()", "__builtin_amdgcn_s_barrier()"
	if lang == "cuda" {
		header, tid, barrier = "mini_cuda.h", "__nvvm_read_ptx_sreg_tid_x()", "__nvvm_bar_sync(0)"
	}
	var b strings.Builder
	p := func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	p(`#include "%s"`, header)
	p(`extern __device__ int g_total;`)
	p(`__device__ int shared_mix(int a, int b);`)
	if tu == 0 {
		p(`__device__ int g_total;`)
		p(`__device__ __attribute__((noinline)) int shared_mix(int a, int b) { return (a*31) ^ (b+g_total); }`)
	}
	p(`__device__ float table_%d[256];`, tu)
	p(`__device__ __attribute__((noinline)) float smooth_%d(float x, int i) { float a = x; for (int k = 0; k < 8; k++) a = a * table_%d[(i+k)&255] + 0.5f * a; return a; }`, tu, tu)
	for k := 0; k < kernels; k++ {
		extra := ""
		if edited && k == 0 {
			extra = " p[i + 1] = acc * 3.0f;"
		}
		p(`__global__ void kern_%d_%d(float *p, int *q, int n) {`, tu, k)
		p(`  __shared__ float tile[%d];`, 64+(k%4)*64)
		p(`  int i = %s;`, tid)
		p(`  tile[i & 63] = p[i];`)
		p(`  %s;`, barrier)
		p(`  float acc = 0.f;`)
		p(`  for (int j = 0; j < n; j++) acc += smooth_%d(tile[(i + j) & 63], j + %d) * %d.0f;`, tu, k, k%7+1)
		p(`  if (acc > %d.0f) q[i] = shared_mix(i, %d);`, k, k)
		p(`  p[i] = acc;%s`, extra)
		p(`}`)
	}
	p(`void launch_%d(float *p, int *q) {`, tu)
	for k := 0; k < kernels; k++ {
		p(`  kern_%d_%d<<<1, 64>>>(p, q, 16);`, tu, k)
	}
	p(`}`)
	return b.String()
}

// hipScale makes the fixture in hip-scale/: tu*.o, tu0-edit.o (kernel 0
// of tu0 edited) and the registration stub, and the partition cache a
// cold link of it leaves (the relink row's starting point).
func hipScale(c *config) error {
	dir := c.p("hip-scale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name, text string) error { return os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644) }
	if err := write("mini_hip.h", miniHIP); err != nil {
		return err
	}
	// the registration calls resolve to no-ops: the program is linked,
	// not run (no AMD GPU here); its images are compared
	stub := "void **__hipRegisterFatBinary(const void *w) { static void *h; return &h; }\n" +
		"void __hipUnregisterFatBinary(void *h) {}\n" +
		"void __hipRegisterFunction(void *h, const void *f, char *a, const char *b, int l, void *c, void *d, void *e, void *g, int *i) {}\n" +
		"void __hipRegisterVar(void *h, char *a, char *b, const char *c, int e, unsigned long s, int k, int g) {}\n" +
		"void __hipRegisterManagedVar(void *h, void **p, char *a, const char *b, unsigned long s, unsigned a2) {}\n" +
		"void __hipRegisterSurface() {}\nvoid __hipRegisterTexture() {}\n" +
		"int hipLaunchKernel(const void *f, ...) { return 0; }\n" +
		"int __hipPushCallConfiguration() { return 0; }\nint __hipPopCallConfiguration() { return 0; }\n" +
		"int main(void) { return 0; }\n"
	if err := write("stub.c", stub); err != nil {
		return err
	}
	if err := c.sh(dir, "gcc", "-c", "-fPIC", "stub.c", "-o", "stub.o"); err != nil {
		return err
	}
	compile := []string{c.tool("clang"), "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-foffload-lto", "-nogpuinc", "-nogpulib", "-O3", "-c"}
	for _, a := range hipArchs {
		compile = append(compile, "--offload-arch="+a)
	}
	gen := func(tu int, edited bool) string { return gpuSource("hip", hipKernels, tu, edited) }
	if err := editedFixture(c, dir, "hip", hipTUs, gen, compile); err != nil {
		return err
	}
	return partSnapshot(c, "hip-scale", hipLinkArgv)
}

// hipLinkArgv is clang's --hip-link of the fixture (tu0 replaced by the
// edited one with edit); ours goes through -B with partitions and a cache.
func hipLinkArgv(c *config, ours, edit bool, out string) []string {
	var argv []string
	if ours {
		// ours says per processor how many parts it compiled
		// (--wrapper-verbose), into out.log, which the validator reads
		argv = append(argv, "sh", "-c", `exec "$@" 2>`+out+".log", "sh",
			"env", "OFFLOAD_KIT_DEVICE_PARTITIONS=auto", "OFFLOAD_KIT_CACHE_DIR="+c.p("hip-scale", "cache"))
	}
	argv = append(argv, c.tool("clang"))
	if ours {
		argv = append(argv, "-B"+c.bin)
	}
	argv = append(argv, "--offload-new-driver", "-fgpu-rdc", "--hip-link", "-nogpulib", "-no-hip-rt", "-O3")
	for _, a := range hipArchs {
		argv = append(argv, "--offload-arch="+a)
	}
	for tu := 0; tu < hipTUs; tu++ {
		if tu == 0 && edit {
			argv = append(argv, "tu0-edit.o")
			continue
		}
		argv = append(argv, fmt.Sprintf("tu%d.o", tu))
	}
	argv = append(argv, "stub.o", "-o", out)
	if ours {
		argv = append(argv, "-Xlinker", "--wrapper-verbose")
	}
	return argv
}

// hipKernelView reads a linked program's code objects: per processor,
// every kernel's code size and resources.
func hipKernelView(path string) (map[string]map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	o, err := elfembed.Parse(data)
	if err != nil {
		return nil, err
	}
	s := o.Section(".hip_fatbin")
	if s == nil {
		return nil, fmt.Errorf("%s: no .hip_fatbin", path)
	}
	b, err := bundle.Parse(s.Data)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, e := range b.Entries {
		_, arch, ok := strings.Cut(e.ID, "amdgcn-amd-amdhsa--")
		if !ok {
			continue
		}
		obj, err := codeobj.Parse(e.Data)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", path, arch, err)
		}
		ks := map[string]string{}
		for _, f := range obj.Functions {
			if f.Kernel && f.Resources != nil {
				ks[f.Name] = fmt.Sprintf("size=%d %+v", f.Size, *f.Resources)
			}
		}
		out[arch] = ks
	}
	return out, nil
}

// validateHIPScale: both sides' programs have every processor, all
// kernels, and the same size and resources for each kernel; ours is
// checked against the reference's last output.
func validateHIPScale(c *config, who, out, ref string) error {
	v, err := hipKernelView(filepath.Join(c.p("hip-scale"), out))
	if err != nil {
		return err
	}
	for _, a := range hipArchs {
		if len(v[a]) != hipTUs*hipKernels {
			return fmt.Errorf("%s: %s has %d kernels, want %d", out, a, len(v[a]), hipTUs*hipKernels)
		}
	}
	if who == "ref" {
		return nil
	}
	if !exists(filepath.Join(c.p("hip-scale"), ref)) {
		// the reference's program, untimed, when its side has not run yet
		if err := c.sh(c.p("hip-scale"), hipLinkArgv(c, false, strings.Contains(ref, "edit"), ref)...); err != nil {
			return err
		}
	}
	w, err := hipKernelView(filepath.Join(c.p("hip-scale"), ref))
	if err != nil {
		return fmt.Errorf("the reference's program: %v", err)
	}
	for _, a := range hipArchs {
		var diff []string
		for k, want := range w[a] {
			if v[a][k] != want {
				diff = append(diff, k)
			}
		}
		if len(diff) > 0 {
			sort.Strings(diff)
			return fmt.Errorf("%s: %d kernels differ from the whole link's, e.g. %s: %s against %s", a, len(diff), diff[0], v[a][diff[0]], w[a][diff[0]])
		}
	}
	return nil
}

// hipGroups names the fixture's device links as the wrapper's log does.
func hipGroups() []string {
	var g []string
	for _, a := range hipArchs {
		g = append(g, "amdgcn-amd-amdhsa "+a)
	}
	return g
}

func partitionCases() []benchCase {
	const method = "clang 22 `--hip-link` of %d HIP files × %d kernels (each calls a device function of its file and one shared across files; LDS tiles of four sizes), compiled with `-fgpu-rdc -foffload-lto -O3` for gfx90a, gfx942, gfx1100 and gfx1030, host stub registration; LLVM's side is its own clang-linker-wrapper (which passes `-flto-partitions=8` to ld.lld for HIP), ours is `-B bin` with `OFFLOAD_KIT_DEVICE_PARTITIONS=auto` (32 parts) and a `--cache-dir`; its `--wrapper-verbose` log must say that every processor's link was partitioned, and how many parts it compiled. RSS: the largest process of the tree. Validated: every processor's image has all kernels, and each kernel's code size and resources (SGPRs, VGPRs, AGPRs, LDS, scratch, spills, kernarg) equal those of LLVM's link."
	dir := func(c *config) string { return c.p("hip-scale") }
	return []benchCase{
		{
			name: fmt.Sprintf("HIP device link, %d kernels × 4 archs, cold", hipTUs*hipKernels), issue: 27, refDesc: "clang++ --hip-link (LLVM's clang-linker-wrapper)",
			setup: hipScale,
			ours: func(c *config) side {
				return side{argv: hipLinkArgv(c, true, false, "app.ours"), dir: dir(c), fresh: []string{c.p("hip-scale", "cache")}}
			},
			ref:    func(c *config) side { return side{argv: hipLinkArgv(c, false, false, "app.ref"), dir: dir(c)} },
			target: fixed(target{maxWallRatio: 1.0, text: "≤ 1.0× wall"}),
			runs:   3,
			validate: func(c *config, who string, s side) error {
				if who == "ours" {
					if err := logParts(c, "hip-scale", "app.ours", -1, hipGroups()...); err != nil {
						return err
					}
				}
				return validateHIPScale(c, who, "app."+who, "app.ref")
			},
			method: fmt.Sprintf(method, hipTUs, hipKernels) + " Cold: the cache emptied before each run.",
		},
		{
			name: "HIP relink after a one-kernel edit (same program)", issue: 27, refDesc: "clang++ --hip-link (LLVM's clang-linker-wrapper), which links everything again",
			setup: hipScale,
			ours: func(c *config) side {
				return side{argv: hipLinkArgv(c, true, true, "app-edit.ours"), dir: dir(c), prep: restoreSnapshot(c, "hip-scale")}
			},
			ref:    func(c *config) side { return side{argv: hipLinkArgv(c, false, true, "app-edit.ref"), dir: dir(c)} },
			target: fixed(target{maxWallRatio: 0.25, text: "≤ 0.25× wall"}),
			runs:   3,
			validate: func(c *config, who string, s side) error {
				if who == "ours" {
					if err := logParts(c, "hip-scale", "app-edit.ours", 1, hipGroups()...); err != nil {
						return err
					}
				}
				return validateHIPScale(c, who, "app-edit."+who, "app-edit.ref")
			},
			method: fmt.Sprintf(method, hipTUs, hipKernels) + " Relink: kernel 0 of the first file edited in place and that file recompiled (untimed); ours starts each run from the cache a cold link of the unedited program left (restored untimed), and its log must say that exactly one part per processor was compiled again.",
		},
	}
}
