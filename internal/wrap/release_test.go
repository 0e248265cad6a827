package wrap

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/release"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// The tests of this file check the registration objects of LLVM 16 and 19
// (Options.Release) against those releases' own clang-linker-wrapper:
// objects compiled by that release's clang, linked once with the wrapper
// object LLVM N's clang-linker-wrapper wrote (--save-temps) and once with
// ours, must give the same registration log.

// releases returns the older LLVM releases to test (llvmtools.Releases).
func releases(t *testing.T) []int {
	t.Helper()
	if testing.Short() {
		t.Skip("needs external tools; skipped under -short")
	}
	return llvmtools.Releases
}

// runCmdEnv is runCmd with extra environment variables.
func runCmdEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %s %s failed: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// releaseWrapper runs LLVM major's clang-linker-wrapper on fat objects in
// a fresh directory under dir, with --save-temps and the host link
// replaced by true, and returns that directory and the path of the
// registration object it wrote (<out>.image.wrapper.o in LLVM 16,
// <out>.<kind>.image.wrapper.o in 19).
func releaseWrapper(t *testing.T, major int, dir, name, triple string, env []string, objs ...string) (string, string) {
	t.Helper()
	sub := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(sub, 0o755))
	args := []string{"--host-triple=" + triple, "--linker-path=/bin/true", "--save-temps", "--", "-o", "a.out"}
	for _, o := range objs {
		args = append(args, filepath.Join(dir, o))
	}
	runCmdEnv(t, sub, env, llvmtools.ReleaseTool(t, major, "clang-linker-wrapper"), args...)
	m, err := filepath.Glob(filepath.Join(sub, "a.out*.image.wrapper.o"))
	require.NoError(t, err)
	require.Len(t, m, 1, "LLVM %d's wrapper object", major)
	return sub, m[0]
}

// fakeCUDA writes stand-ins for the CUDA tools that clang N and its
// linker-wrapper run: ptxas writes a small ELF object (LLVM 19's
// clang-nvlink-wrapper reads its inputs), nvlink an empty file, and
// fatbinary copies fatbin. It returns the PATH setting that finds them.
func fakeCUDA(t *testing.T, dir, fatbin string) []string {
	t.Helper()
	bin := filepath.Join(dir, "fake-cuda")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	writeFile(t, dir, "tiny.c", []byte("int tiny;\n"))
	runCmd(t, dir, "gcc", "-c", "tiny.c", "-o", "tiny.o")
	tiny := filepath.Join(dir, "tiny.o")
	for tool, body := range map[string]string{
		"ptxas":     `for a; do case "$p" in -o|--output-file) cp "` + tiny + `" "$a";; esac; p=$a; done`,
		"nvlink":    `for a; do case "$p" in -o) : > "$a";; esac; p=$a; done`,
		"fatbinary": `for a; do case "$p" in --create) cp "` + fatbin + `" "$a";; esac; case "$a" in --create=*) cp "` + fatbin + `" "${a#--create=}";; esac; p=$a; done`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\np=\n"+body+"\n"), 0o755))
	}
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// TestGPURegistrationRelease: for LLVM 16 and 19, the host objects that
// release's clang compiles from testdata/gpu/entries.cu (kernels, device
// globals, a constant; HIP also managed variables, a surface and a
// texture), with hand-written entries of that layout for every decoding
// case (testdata/gpu/synth_legacy.c), linked against the recording stub
// runtime: the log with our object (Options.Release) equals the log with
// the object LLVM N's own clang-linker-wrapper wrote around the same
// fatbin, on every available host.
func TestGPURegistrationRelease(t *testing.T) {
	src, err := filepath.Abs("testdata/gpu")
	require.NoError(t, err)
	for _, major := range releases(t) {
		for _, h := range hostEnvs(t) {
			t.Run(fmt.Sprintf("%d/%s", major, h.name), func(t *testing.T) { testGPURegistrationRelease(t, major, h, src) })
		}
	}
}

func testGPURegistrationRelease(t *testing.T, major int, h hostEnv, src string) {
	dir := t.TempDir()
	inc := stubInclude(t)
	runCmd(t, dir, h.cc, "-c", "-fPIC", inc, filepath.Join(src, "stub.c"), "-o", "stub.o")
	runCmd(t, dir, h.cc, "-c", "-fPIC", inc, filepath.Join(src, "synth_legacy.c"), "-o", "synth.o")
	fatbinFile := writeFile(t, dir, "test.fatbin", testFatbin(333))
	cudaEnv := fakeCUDA(t, dir, fatbinFile)
	clangxx := llvmtools.ReleaseTool(t, major, "clang++")
	rel := release.Of(major, "test")

	// What LLVM N's wrapper registers, by release: 16 registers a
	// variable only when its flags are 0 (extern 0, constant 0); 19
	// decodes type, extern and constant, and for HIP registers surfaces
	// and textures with the dimension clang 19 writes in reserved. No
	// legacy release registers managed variables.
	want := map[string][]string{
		"cuda": {
			"__cudaRegisterFatBinary magic=0x466243b1 version=1 len=333",
			"__cudaRegisterFunction h=ok addr=_Z21__device_stub__kern_aPi name=_Z6kern_aPi/_Z6kern_aPi same=1 limit=-1",
			"__cudaRegisterFunction h=ok addr=lsynth_kernel name=cuda_kernel/cuda_kernel same=1 limit=-1",
			"__cudaRegisterFunction h=ok addr=lsynth_kernel name=cuda_kernel_flagged/cuda_kernel_flagged same=1 limit=-1",
			"__cudaRegisterVar h=ok addr=dev_table name=dev_table/dev_table same=1 extern=0 size=128 constant=0 global=0",
			"__cudaRegisterVar h=ok addr=lsynth_plain name=cuda_plain/cuda_plain same=1 extern=0 size=12 constant=0 global=0",
			"__cudaRegisterFatBinaryEnd h=ok",
			"main\n__cudaUnregisterFatBinary h=ok\n",
		},
		"hip": {
			"__hipRegisterFatBinary: offload bundle, 2 entries",
			"__hipRegisterFunction h=ok addr=_Z6kern_tIiEvT_ name=_Z6kern_tIiEvT_/_Z6kern_tIiEvT_ same=1 limit=-1",
			"__hipRegisterFunction h=ok addr=lsynth_kernel name=hip_kernel_flagged/hip_kernel_flagged same=1 limit=-1",
			"__hipRegisterVar h=ok addr=dev_counter name=dev_counter/dev_counter same=1 extern=0 size=4 constant=0 global=0",
			"main\n__hipUnregisterFatBinary h=ok\n",
		},
	}
	unwanted := map[string][]string{
		"cuda": {"name=hip_", "RegisterManagedVar", "Surface", "Texture", "odd", "BAD"},
		"hip":  {"name=cuda_", "RegisterManagedVar", "RegisterFatBinaryEnd", "odd", "BAD"},
	}
	if major >= 18 {
		want["cuda"] = append(want["cuda"],
			"__cudaRegisterVar h=ok addr=const_coeffs name=const_coeffs/const_coeffs same=1 extern=0 size=16 constant=1 global=0",
			"__cudaRegisterVar h=ok addr=lsynth_ext_const name=cuda_ext_const/cuda_ext_const same=1 extern=1 size=8 constant=1 global=0",
			"__cudaRegisterVar h=ok addr=lsynth_plain name=cuda_plain_x/cuda_plain_x same=1 extern=1 size=12 constant=0 global=0")
		want["hip"] = append(want["hip"],
			"__hipRegisterVar h=ok addr=const_coeffs name=const_coeffs/const_coeffs same=1 extern=0 size=16 constant=1 global=0",
			"__hipRegisterSurface h=ok addr=surf_ref name=surf_ref/surf_ref dim=2 extern=0",
			"__hipRegisterTexture h=ok addr=tex_ref name=tex_ref/tex_ref dim=2 normalized=0 extern=0",
			"__hipRegisterSurface h=ok addr=lsynth_surf name=hip_surf/hip_surf dim=2 extern=1",
			"__hipRegisterSurface h=ok addr=lsynth_surf name=hip_surf_l/hip_surf_l dim=3 extern=0",
			"__hipRegisterTexture h=ok addr=lsynth_tex name=hip_tex/hip_tex dim=3 normalized=1 extern=1",
			"__hipRegisterTexture h=ok addr=lsynth_tex_n name=hip_tex_0/hip_tex_0 dim=2 normalized=0 extern=0")
	} else {
		want["cuda"] = append(want["cuda"],
			"__cudaRegisterVar h=ok addr=const_coeffs name=const_coeffs/const_coeffs same=1 extern=0 size=16 constant=0 global=0")
		want["hip"] = append(want["hip"],
			"__hipRegisterVar h=ok addr=const_coeffs name=const_coeffs/const_coeffs same=1 extern=0 size=16 constant=0 global=0")
		for _, k := range []string{"cuda", "hip"} {
			unwanted[k] = append(unwanted[k], "extern=1", "constant=1", "_ext_const", "_plain_x", "_plain_c", "Surface", "Texture")
		}
	}

	for _, tc := range []struct {
		kind  string
		flags []string
		build func(Options, []byte) ([]byte, error)
	}{
		{"cuda", []string{"-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nocudalib", "--offload-arch=sm_70",
			"-Xclang", "-target-sdk-version=12.0"}, CUDA},
		{"hip", []string{"-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a"}, HIP},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			fat := tc.kind + "-fat.o"
			args := append(append(append([]string{}, h.clangTarget...), tc.flags...), "-c", filepath.Join(src, "entries.cu"), "-o", fat)
			runCmdEnv(t, dir, cudaEnv, clangxx, args...)
			sections := runCmd(t, dir, llvmtools.ReleaseTool(t, major, "llvm-readelf"), "-S", fat)
			require.Contains(t, sections, " "+rel.EntrySection(tc.kind)+" ", "clang %d's entry section", major)

			sub, ref := releaseWrapper(t, major, dir, tc.kind+"-llvm", h.triple, cudaEnv, fat)
			fatbin := testFatbin(333)
			if tc.kind == "hip" {
				var err error
				fatbin, err = os.ReadFile(filepath.Join(sub, "a.out.hipfb"))
				require.NoError(t, err)
			}
			obj, err := tc.build(Options{Triple: h.triple, Release: rel}, fatbin)
			require.NoError(t, err)
			ours := writeFile(t, dir, tc.kind+"-ours.o", obj)

			logs := map[string]string{}
			for name, w := range map[string]string{"ours": ours, "ref": ref} {
				exe := tc.kind + "-" + name
				runCmd(t, dir, h.cc, "-rdynamic", "-o", exe, fat, "synth.o", "stub.o", w, "-ldl")
				logs[name] = h.exec(t, dir, exe)
			}
			if logs["ours"] != logs["ref"] {
				t.Fatalf("logs differ\n--- ours ---\n%s--- LLVM %d ---\n%s", logs["ours"], major, logs["ref"])
			}
			for _, w := range want[tc.kind] {
				assert.Contains(t, logs["ours"], w)
			}
			for _, u := range unwanted[tc.kind] {
				assert.NotContains(t, logs["ours"], u)
			}
			if h.name == "x86_64" && tc.kind == "cuda" { // the HIP log holds the bundle's hash, which depends on the installed LLVM
				golden(t, fmt.Sprintf("gpu-cuda-llvm%d.log", major), logs["ours"])
			}

			sameAsRelease(t, ours, ref)

			// No entries at all: the wrapper's empty section only.
			writeFile(t, dir, "main.c", []byte("#include <stdio.h>\nint main(void) { puts(\"main\"); return 0; }\n"))
			for name, w := range map[string]string{"ours": ours, "ref": ref} {
				exe := tc.kind + "-empty-" + name
				runCmd(t, dir, h.cc, "-rdynamic", "-o", exe, "main.c", "stub.o", w, "-ldl")
				logs[name] = h.exec(t, dir, exe)
			}
			assert.Equal(t, logs["ref"], logs["ours"])
			assert.NotContains(t, logs["ours"], "RegisterFunction")
			assert.NotContains(t, logs["ours"], "RegisterVar")
		})
	}
}

// TestOpenMPRegistrationStubRelease: for LLVM 16 and 19, the object LLVM
// N's clang-linker-wrapper writes for a program clang N compiled, and ours
// around the same image bytes (read from its .llvm.offloading), give the
// same log from the recording __tgt_register_lib stub, whose entries are
// in the legacy layout (testdata/omp/stub.c -DLEGACY): the descriptor, the
// entries, the registered range (16: the whole OffloadBinary; 19: its
// payload) and the unregistration after main (16: a destructor; 19:
// atexit).
func TestOpenMPRegistrationStubRelease(t *testing.T) {
	src, err := filepath.Abs("testdata/omp/stub.c")
	require.NoError(t, err)
	for _, major := range releases(t) {
		for _, h := range hostEnvs(t) {
			t.Run(fmt.Sprintf("%d/%s", major, h.name), func(t *testing.T) {
				dir := t.TempDir()
				writeFile(t, dir, "prog.c", []byte(ompRegionProg))
				clang := llvmtools.ReleaseTool(t, major, "clang")
				args := append(append([]string{}, h.clangTarget...), "-fopenmp", "-fopenmp-targets="+hostTriple,
					"--offload-new-driver", "-c", "prog.c", "-o", "prog.o")
				runCmd(t, dir, clang, args...)
				_, ref := releaseWrapper(t, major, dir, "omp-ref", h.triple, nil, "prog.o")
				image := sectionData(t, ref, ".llvm.offloading")
				rel := release.Of(major, "test")
				obj, err := OpenMP(Options{Triple: h.triple, Release: rel}, [][]byte{image})
				require.NoError(t, err)
				writeFile(t, dir, "ours.o", obj)

				logs := map[string]string{}
				for name, w := range map[string]string{"ours": "ours.o", "ref": ref} {
					runCmd(t, dir, h.cc, "-DLEGACY", stubInclude(t), "-o", name, src, w)
					logs[name] = h.exec(t, dir, name)
				}
				assert.Equal(t, logs["ref"], logs["ours"])

				registered := image
				if major >= 18 {
					im, err := OpenMPImageOf(image)
					require.NoError(t, err)
					registered = image[im.Start:im.End]
				}
				want := "register images=1 entries=2\n" +
					" entry kind=1 size=0 name=__omp_offloading_region_a\n" +
					" entry kind=1 size=12 name=global_b\n" +
					fmt.Sprintf(" image 0 size=%d fnv=%s same-entries=1,1 head=%.3s\n", len(registered), fnv(registered), registered) +
					"main\nunregister same=1\n"
				assert.Equal(t, want, logs["ours"])

				sameAsRelease(t, filepath.Join(dir, "ours.o"), ref)
			})
		}
	}
}

// sameAsRelease checks our object against the one LLVM N's
// clang-linker-wrapper wrote: the same sections (name, type, flags,
// alignment, order) and symbols (name, binding, type, visibility, section,
// size except function sizes), as TestReferenceStructure does for LLVM 22,
// and the same Describe text.
func sameAsRelease(t *testing.T, ours, ref string) {
	t.Helper()
	skip := func(n string) bool {
		return strings.HasSuffix(n, "strtab") || n == ".symtab" || strings.HasSuffix(n, ".rodata")
	}
	s1, y1 := shape(t, ours, skip)
	s2, y2 := shape(t, ref, skip)
	assert.Equal(t, strings.Join(s2, "\n"), strings.Join(s1, "\n"), "sections")
	noSize := func(v []string) string {
		var out []string
		for _, s := range v {
			if strings.Contains(s, "STT_FUNC") {
				s = s[:strings.LastIndex(s, " size=")]
			}
			out = append(out, s)
		}
		return strings.Join(out, "\n")
	}
	assert.Equal(t, noSize(y2), noSize(y1), "symbols")
	var desc [2]string
	for i, p := range []string{ours, ref} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		desc[i], err = Describe(b)
		require.NoError(t, err)
	}
	assert.Equal(t, desc[1], desc[0], "Describe")
}

// ompRegionProg is an OpenMP program with a target region and a declare
// target variable, without headers (it is compiled for every host).
const ompRegionProg = `int printf(const char *, ...);
int gvar[4];
#pragma omp declare target(gvar)
int main(void) {
  int sum = 0;
#pragma omp target map(tofrom: sum)
  { sum = 5 + gvar[0]; }
  printf("%d\n", sum);
  return 0;
}
`

// sectionData returns the contents of an ELF object's section.
func sectionData(t *testing.T, file, name string) []byte {
	t.Helper()
	f, err := elf.Open(file)
	require.NoError(t, err)
	defer f.Close()
	s := f.Section(name)
	require.NotNil(t, s, "%s has no %s", file, name)
	b, err := s.Data()
	require.NoError(t, err)
	return b
}

// TestOpenMPHostOffloadRelease is the end-to-end proof for LLVM 16 and 19:
// ompProg compiled by clang N runs its target region on the x86_64 host
// device through LLVM N's libomptarget, registered only by our object
// (Options.Release N) around the image LLVM N's clang-linker-wrapper
// built; LLVM N's own object gives the same output. With LLVM 22's layout
// instead, libomptarget N finds no entries and the region cannot run on
// the device (the failure issue 21 reports).
func TestOpenMPHostOffloadRelease(t *testing.T) {
	for _, major := range releases(t) {
		t.Run(fmt.Sprint(major), func(t *testing.T) {
			lib := llvmtools.RuntimeLib(t, major)
			clang := llvmtools.ReleaseTool(t, major, "clang")
			dir := t.TempDir()
			writeFile(t, dir, "prog.c", []byte(ompProg))
			inc := filepath.Join(filepath.Dir(lib), "lib", "clang", fmt.Sprint(major), "include")
			runCmd(t, dir, clang, "-fopenmp", "-fopenmp-targets="+hostTriple, "--offload-new-driver", "-I"+inc,
				"-c", "prog.c", "-o", "prog.o")
			_, ref := releaseWrapper(t, major, dir, "omp-ref", hostTriple, []string{"LIBRARY_PATH=" + lib}, "prog.o")
			image := sectionData(t, ref, ".llvm.offloading")
			run := func(name string, opts Options) (string, error) {
				obj, err := OpenMP(opts, [][]byte{image})
				require.NoError(t, err)
				writeFile(t, dir, name+".o", obj)
				return linkRunOMP(t, dir, lib, name, name+".o")
			}
			rel := release.Of(major, "test")
			out, err := run("ours", Options{Triple: hostTriple, Release: rel})
			require.NoError(t, err, out)
			assert.Equal(t, "on_device=1 sum=2016\n", out)
			refOut, err := linkRunOMP(t, dir, lib, "ref", ref)
			require.NoError(t, err, refOut)
			assert.Equal(t, "on_device=1 sum=2016\n", refOut)

			// The LLVM 22 layout for the same program does not work.
			bad, _ := run("as22", Options{Triple: hostTriple})
			assert.NotEqual(t, "on_device=1 sum=2016\n", bad)
			t.Logf("with LLVM 22's registration object: %q", bad)
		})
	}
}

// linkRunOMP links prog.o with a wrapper object against LLVM N's OpenMP
// runtime in lib and runs it (LD_LIBRARY_PATH=lib, as the plugins dlopen
// libomp by name), returning its standard output.
func linkRunOMP(t *testing.T, dir, lib, exe, wrapper string) (string, error) {
	t.Helper()
	// libomptarget calls into libomp, which prog.o itself may not need:
	// --no-as-needed keeps it.
	runCmd(t, dir, "gcc", "-o", exe, "prog.o", wrapper, "-L"+lib, "-Wl,--no-as-needed", "-lomp", "-lomptarget", "-Wl,-rpath,"+lib)
	cmd := exec.Command(filepath.Join(dir, exe))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+lib)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return stdout.String(), err
}

// TestReleaseWindowsUnsupported: LLVM 16-19 objects for a Windows host
// are refused with an error that names the release and wraps
// format.ErrUnsupported; LLVM 20 and later are not.
func TestReleaseWindowsUnsupported(t *testing.T) {
	for _, major := range []int{16, 19} {
		opts := Options{Triple: "x86_64-pc-windows-msvc", Release: release.Of(major, "test")}
		for name, build := range map[string]func() ([]byte, error){
			"openmp": func() ([]byte, error) { return OpenMP(opts, [][]byte{[]byte("img")}) },
			"cuda":   func() ([]byte, error) { return CUDA(opts, testFatbin(16)) },
			"hip":    func() ([]byte, error) { return HIP(opts, testFatbin(16)) },
		} {
			_, err := build()
			require.Error(t, err, "%s LLVM %d", name, major)
			assert.ErrorIs(t, err, format.ErrUnsupported)
			assert.Contains(t, err.Error(), fmt.Sprintf("LLVM %d", major))
		}
	}
	_, err := CUDA(Options{Triple: "x86_64-pc-windows-msvc", Release: release.Of(20, "test")}, testFatbin(16))
	assert.NoError(t, err)
}

// TestReleaseZeroIsNewest: the zero Release is LLVM 22, byte for byte.
func TestReleaseZeroIsNewest(t *testing.T) {
	for name, build := range map[string]func(Options) ([]byte, error){
		"openmp": func(o Options) ([]byte, error) { return OpenMP(o, [][]byte{[]byte("img")}) },
		"cuda":   func(o Options) ([]byte, error) { return CUDA(o, testFatbin(40)) },
		"hip":    func(o Options) ([]byte, error) { return HIP(o, testFatbin(40)) },
	} {
		zero, err := build(Options{Triple: hostTriple})
		require.NoError(t, err)
		for _, major := range []int{20, 22} {
			b, err := build(Options{Triple: hostTriple, Release: release.Of(major, "test")})
			require.NoError(t, err)
			assert.Equal(t, zero, b, "%s: LLVM %d", name, major)
		}
		old, err := build(Options{Triple: hostTriple, Release: release.Of(19, "test")})
		require.NoError(t, err)
		assert.NotEqual(t, zero, old, name)
	}
}

// TestReleaseRelocatable: with Relocatable (linker-wrapper -r), LLVM 19's
// wrapper puts OpenMP images in .llvm.offloading.relocatable, as 22's does;
// LLVM 16's has no -r handling and keeps .llvm.offloading (both seen with
// each release's clang-linker-wrapper -r --print-wrapped-module).
func TestReleaseRelocatable(t *testing.T) {
	for major, want := range map[int]string{16: ".llvm.offloading", 19: ".llvm.offloading.relocatable", 22: ".llvm.offloading.relocatable"} {
		obj, err := OpenMP(Options{Triple: hostTriple, Relocatable: true, Release: release.Of(major, "test")}, [][]byte{[]byte("img")})
		require.NoError(t, err)
		f, err := elf.NewFile(strings.NewReader(string(obj)))
		require.NoError(t, err)
		s := f.Section(want)
		require.NotNil(t, s, "LLVM %d: no %s", major, want)
		assert.Equal(t, elf.SectionType(format.SHT_LLVM_OFFLOADING), s.Type)
		if major == 16 {
			assert.Nil(t, f.Section(".llvm.offloading.relocatable"))
		}
	}
}
