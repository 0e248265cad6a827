package wrap

import (
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testFatbin returns deterministic fatbin bytes that start with their
// payload length, as testdata/gpu/stub.c expects.
func testFatbin(n int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(n))
	x := uint32(2463534242)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b = append(b, byte(x))
	}
	return b
}

// hostEnv is a host to link and run test programs for: the native x86-64
// toolchain, or AArch64 through a cross gcc and qemu-user when installed.
type hostEnv struct {
	name, triple string
	cc           string   // C compiler / linker driver
	run          []string // runner prefix (qemu) or nil
	clangTarget  []string // extra clang flags for host-side compiles
}

// hostEnvs returns the hosts available on this machine; x86-64 is
// required, AArch64 is added when aarch64-linux-gnu-gcc and qemu-aarch64
// are installed (apt: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user).
func hostEnvs(t *testing.T) []hostEnv {
	t.Helper()
	envs := []hostEnv{{name: "x86_64", triple: hostTriple, cc: tool(t, "gcc")}}
	cc, err1 := exec.LookPath("aarch64-linux-gnu-gcc")
	qemu, err2 := exec.LookPath("qemu-aarch64")
	if err1 == nil && err2 == nil && fileExists("/usr/aarch64-linux-gnu/lib") {
		envs = append(envs, hostEnv{name: "aarch64", triple: "aarch64-unknown-linux-gnu", cc: cc,
			run: []string{qemu, "-L", "/usr/aarch64-linux-gnu"}, clangTarget: []string{"--target=aarch64-linux-gnu"}})
	} else {
		t.Log("aarch64 cross toolchain or qemu-aarch64 not installed: aarch64 runs skipped")
	}
	return envs
}

// exec runs a linked test program on the host.
func (h hostEnv) exec(t *testing.T, dir, exe string) string {
	t.Helper()
	p := filepath.Join(dir, exe)
	if h.run != nil {
		return runCmd(t, dir, h.run[0], append(h.run[1:], p)...)
	}
	return runCmd(t, dir, p)
}

// TestGPURegistration links a host program with real offload entries
// (clang's host-only CUDA/HIP compile of testdata/gpu/entries.cu) and
// hand-written entries covering every dispatch case (testdata/gpu/synth.c)
// against a recording stub runtime (testdata/gpu/stub.c), once with our
// wrapper object and once with LLVM's (llvm-offload-wrapper + llc). The
// two logs must be identical. It runs for every available host.
func TestGPURegistration(t *testing.T) {
	clang := tool(t, "clang++")
	src, err := filepath.Abs("testdata/gpu")
	require.NoError(t, err)
	for _, h := range hostEnvs(t) {
		t.Run(h.name, func(t *testing.T) { testGPURegistration(t, h, clang, src) })
	}
}

func testGPURegistration(t *testing.T, h hostEnv, clang, src string) {
	dir := t.TempDir()
	gcc, inc := h.cc, stubInclude(t)
	runCmd(t, dir, gcc, "-c", "-fPIC", inc, filepath.Join(src, "stub.c"), "-o", "stub.o")
	runCmd(t, dir, gcc, "-c", "-fPIC", inc, filepath.Join(src, "synth.c"), "-o", "synth.o")
	alignManaged := map[string]string{"x86_64": "16", "aarch64": "4"}[h.name]
	for _, tc := range []struct {
		kind  string
		flags []string
		build func(Options, []byte) ([]byte, error)
		want  []string
	}{
		{"cuda", []string{"-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nocudalib",
			"--offload-arch=sm_90", "-Xclang", "-target-sdk-version=12.8", "--cuda-host-only"}, CUDA,
			[]string{
				"__cudaRegisterFatBinary magic=0x466243b1 version=1 len=333",
				"__cudaRegisterFunction h=ok addr=_Z21__device_stub__kern_aPi name=_Z6kern_aPi/_Z6kern_aPi same=1 limit=-1",
				"__cudaRegisterVar h=ok addr=const_coeffs name=const_coeffs/const_coeffs same=1 extern=0 size=16 constant=1",
				"__cudaRegisterManagedVar h=ok aux=synth_managed_ptr addr=synth_managed name=synth_managed size=8 align=16",
				"__cudaRegisterFatBinaryEnd h=ok",
				"main\n__cudaUnregisterFatBinary h=ok\n",
			}},
		{"hip", []string{"-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib",
			"--offload-arch=gfx90a", "--cuda-host-only"}, HIP,
			[]string{
				"__hipRegisterFatBinary magic=0x48495046 version=1 len=333",
				"__hipRegisterFunction h=ok addr=_Z6kern_tIiEvT_",
				"__hipRegisterManagedVar h=ok aux=managed_total addr=",
				"__hipRegisterSurface h=ok addr=surf_ref name=surf_ref/surf_ref dim=2 extern=0",
				"__hipRegisterTexture h=ok addr=tex_ref name=tex_ref/tex_ref dim=2 normalized=0 extern=0",
				"__hipRegisterTexture h=ok addr=synth_tex name=synth_tex/synth_tex dim=3 normalized=1 extern=1",
				"__hipRegisterSurface h=ok addr=synth_surf name=synth_surf_l/synth_surf_l dim=3 extern=0",
				"__hipRegisterManagedVar h=ok aux=managed_flags addr=managed_flags.managed name=managed_flags size=32 align=" + alignManaged,
				"main\n__hipUnregisterFatBinary h=ok\n",
			}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			host := tc.kind + "-host.o"
			args := append(append(append([]string{}, h.clangTarget...), tc.flags...), "-c", filepath.Join(src, "entries.cu"), "-o", host)
			runCmd(t, dir, clang, args...)
			fatbin := testFatbin(333)
			obj, err := tc.build(Options{Triple: h.triple}, fatbin)
			require.NoError(t, err)
			ours := writeFile(t, dir, tc.kind+"-ours.o", obj)
			ref := refWrapperFor(t, dir, h.triple, tc.kind, fatbin)
			logs := map[string]string{}
			for name, w := range map[string]string{"ours": ours, "ref": ref} {
				exe := tc.kind + "-" + name
				runCmd(t, dir, gcc, "-rdynamic", "-o", exe, host, "synth.o", "stub.o", w, "-ldl")
				logs[name] = h.exec(t, dir, exe)
			}
			if logs["ours"] != logs["ref"] {
				t.Fatalf("logs differ\n--- ours ---\n%s--- reference ---\n%s", logs["ours"], logs["ref"])
			}
			for _, w := range tc.want {
				assert.Contains(t, logs["ours"], w)
			}
			if strings.Contains(logs["ours"], "BAD") || strings.Contains(logs["ours"], "odd") ||
				strings.Contains(logs["ours"], "omp_entry") || strings.Contains(logs["ours"], "kind3") {
				t.Errorf("unexpected registrations:\n%s", logs["ours"])
			}
			if h.name == "x86_64" {
				golden(t, "gpu-"+tc.kind+".log", logs["ours"])

				// The Windows x64 template, run on Linux in an ELF
				// container against an ms_abi build of the stub, must
				// log exactly the same.
				win, err := tc.build(Options{Triple: hostTriple, winABI: true}, fatbin)
				require.NoError(t, err)
				if string(win) == string(obj) {
					t.Fatal("winABI gave the System V object")
				}
				writeFile(t, dir, tc.kind+"-win.o", win)
				runCmd(t, dir, gcc, "-c", "-fPIC", "-DMS_ABI", inc, filepath.Join(src, "stub.c"), "-o", "stub-ms.o")
				runCmd(t, dir, gcc, "-rdynamic", "-o", tc.kind+"-win", host, "synth.o", "stub-ms.o", tc.kind+"-win.o", "-ldl")
				assert.Equal(t, logs["ours"], h.exec(t, dir, tc.kind+"-win"))
			}

			// No entries at all: only the wrapper's empty section, so
			// __start_ == __stop_ and globals_reg registers nothing.
			writeFile(t, dir, "main.c", []byte("#include <stdio.h>\nint main(void) { puts(\"main\"); return 0; }\n"))
			for name, w := range map[string]string{"ours": ours, "ref": ref} {
				exe := tc.kind + "-empty-" + name
				runCmd(t, dir, gcc, "-rdynamic", "-o", exe, "main.c", "stub.o", w, "-ldl")
				logs[name] = h.exec(t, dir, exe)
			}
			assert.Equal(t, logs["ref"], logs["ours"])
			assert.Equal(t, map[string]int{"cuda": 4, "hip": 3}[tc.kind], strings.Count(logs["ours"], "\n"))
		})
	}
}
