package linkwrap

// Windows programs that run: clang 22 (--target=x86_64-pc-windows-msvc) and
// lld-link build each program twice, once with LLVM's clang-linker-wrapper
// and once with ours (-B), and both run under wine against recording stub
// runtimes (testdata/win): their registration logs must be identical.
// There is no MSVC CRT or Windows SDK here: testdata/win/crt.c is a minimal
// C runtime and kernel32.lib is made from testdata/win/kernel32.def. See
// docs/e2e.md, "Windows programs under wine".

import (
	"bytes"
	"context"
	"debug/pe"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// winKit is what every case shares: the tools, the stub runtimes and C
// runtime objects built once (in shared), and one wine prefix.
type winKit struct {
	clang, clangxx, lldLink, llvmLib, wine string
	src                                    string // testdata/win, absolute
	shared                                 string
	bin                                    string   // our clang-linker-wrapper (and clang-sycl-linker)
	env                                    []string // PATH (LLVM 22 first, stand-in CUDA tools), WINEPREFIX, WINEDEBUG
	winCmd                                 []string // wine's command line prefix
}

// findWine returns the wine loader: Debian's wine64 package installs only
// /usr/lib/wine/wine64 (the wine package adds /usr/bin/wine).
func findWine(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"wine64", "wine"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	for _, p := range []string{"/usr/lib/wine/wine64", "/usr/lib/wine/wine"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("wine is not installed (scripts/install-deps.sh installs Debian's wine64)")
	return ""
}

func (k *winKit) cc(t *testing.T, dir string, args ...string) {
	t.Helper()
	sh(t, dir, k.env, append([]string{k.clang, "--target=x86_64-pc-windows-msvc"}, args...)...)
}

// stubDLL builds a stub runtime <dll> with the import library <lib> from
// testdata/win/<src>.
func (k *winKit) stubDLL(t *testing.T, src, dll, lib string) {
	t.Helper()
	obj := strings.TrimSuffix(src, ".c") + ".obj"
	k.cc(t, k.shared, "-ffreestanding", "-O1", stubInclude(t), "-c", filepath.Join(k.src, src), "-o", obj)
	sh(t, k.shared, nil, k.lldLink, "/dll", "/noentry", "/nodefaultlib", "/out:"+dll, "/implib:"+lib, obj, "kernel32.lib")
}

func newWinKit(t *testing.T) *winKit {
	t.Helper()
	k := &winKit{
		clang:   findTool(t, "clang"),
		clangxx: findTool(t, "clang++"),
		lldLink: findTool(t, "lld-link"),
		llvmLib: findTool(t, "llvm-lib"),
		wine:    findWine(t),
		bin:     buildSYCLTools(t),
		shared:  t.TempDir(),
	}
	refSYCL := findTool(t, "clang-sycl-linker")
	src, err := filepath.Abs(filepath.Join("testdata", "win"))
	require.NoError(t, err)
	k.src = src

	// One wine prefix for the whole run, made in the background while
	// the runtimes build (wineboot takes seconds). Its wineserver is
	// started first and kept (-p) until the test ends: a wineserver that
	// a program's wine started would hold that program's standard output
	// open for seconds after it exits, and the wine processes wineboot
	// leaves running inherit its output, which therefore goes to a file.
	prefix := filepath.Join(k.shared, "wineprefix")
	wineEnv := []string{"WINEPREFIX=" + prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="}
	k.winCmd = []string{k.wine}
	server := filepath.Join(filepath.Dir(k.wine), "wineserver")
	if _, err := os.Stat(server); err != nil {
		server = "wineserver"
	}
	wineserver := func(arg string) error {
		c := exec.Command(server, arg)
		c.Env = append(os.Environ(), wineEnv...)
		return c.Run()
	}
	require.NoError(t, os.MkdirAll(prefix, 0o755))
	require.NoError(t, wineserver("-p"), "wineserver -p")
	var boot sync.WaitGroup
	t.Cleanup(boot.Wait) // after the wineserver is gone (cleanups run last first)
	t.Cleanup(func() {
		// Stop this prefix's wineserver (and the wine processes it
		// serves) before the temporary directory goes.
		_ = wineserver("-k")
		_ = wineserver("-w")
	})
	bootLog := filepath.Join(k.shared, "wineboot.log")
	var bootErr error
	boot.Add(1)
	go func() {
		defer boot.Done()
		f, err := os.Create(bootLog)
		if err != nil {
			bootErr = err
			return
		}
		defer f.Close()
		c := exec.Command(k.wine, "wineboot", "--init")
		c.Env = append(os.Environ(), wineEnv...)
		c.Stdout, c.Stderr = f, f
		bootErr = c.Run()
	}()

	// Stand-in CUDA tools (no CUDA toolkit here): ptxas writes a small
	// ELF object, nvlink an empty file, fatbinary hands back the fatbin
	// NVIDIA's tools made on the H100 machine (testdata/cuda); both
	// wrappers and clang find them on PATH.
	fake := filepath.Join(k.shared, "fake-cuda")
	require.NoError(t, os.MkdirAll(fake, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(k.shared, "tiny.c"), []byte("int tiny;\n"), 0o644))
	sh(t, k.shared, nil, "gcc", "-c", "tiny.c", "-o", "tiny.o")
	fatbin, err := filepath.Abs(filepath.Join("testdata", "cuda", "saxpy.fatbin"))
	require.NoError(t, err)
	tiny := filepath.Join(k.shared, "tiny.o")
	for tool, body := range map[string]string{
		"ptxas":     `for a; do case "$p" in -o|--output-file) cp "` + tiny + `" "$a";; esac; p=$a; done`,
		"nvlink":    `for a; do case "$p" in -o) : > "$a";; esac; p=$a; done`,
		"fatbinary": `for a; do case "$p" in --create) cp "` + fatbin + `" "$a";; esac; case "$a" in --create=*) cp "` + fatbin + `" "${a#--create=}";; esac; p=$a; done`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(fake, tool), []byte("#!/bin/sh\np=\n"+body+"\n"), 0o755))
	}
	// clang runs clang-sycl-linker by name: LLVM's must come first in PATH
	// for the reference (ours is found beside our wrapper).
	path := filepath.Dir(refSYCL) + string(os.PathListSeparator) + fake + string(os.PathListSeparator) + os.Getenv("PATH")
	k.env = append(append(os.Environ(), "PATH="+path), wineEnv...)

	// The minimal C runtime (exe and DLL), kernel32.lib, the stub runtimes
	// and the stand-in OpenMP device runtime.
	sh(t, k.shared, nil, findTool(t, "llvm-dlltool"), "-m", "i386:x86-64", "-d", filepath.Join(src, "kernel32.def"), "-l", "kernel32.lib")
	k.cc(t, k.shared, "-ffreestanding", "-O1", "-c", filepath.Join(src, "crt.c"), "-o", "crt.obj")
	k.cc(t, k.shared, "-ffreestanding", "-O1", "-DOKIT_DLL", "-c", filepath.Join(src, "crt.c"), "-o", "dllcrt.obj")
	k.stubDLL(t, "amdhip64.c", "amdhip64.dll", "amdhip64.lib")
	k.stubDLL(t, "cudart.c", "cudart64_12.dll", "cudart.lib")
	k.stubDLL(t, "omptarget.c", "omptarget.dll", "omptarget.lib")
	k.stubDLL(t, "sycl.c", "sycl.dll", "sycl.lib")
	sh(t, k.shared, nil, k.clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib", "-O1", "-c",
		filepath.Join(src, "omp_devrtl.c"), "-o", "omp_devrtl.o")

	boot.Wait()
	if bootErr != nil {
		out, _ := os.ReadFile(bootLog)
		t.Fatalf("wineboot --init: %v\n%s", bootErr, out)
	}
	return k
}

func (k *winKit) lib(name string) string { return filepath.Join(k.shared, name) }

// winCase is one program. link links it into out (p.exe, and p.dll for
// the DLL case); wrapper is nil for LLVM's clang-linker-wrapper and
// {-B<ours>} for ours.
type winCase struct {
	name string
	dlls []string // stub runtimes the program loads, copied beside it
	// build compiles the case's objects into dir (once for both links).
	build func(t *testing.T, k *winKit, dir string)
	link  func(t *testing.T, k *winKit, dir, out string, wrapper []string)
	// refLink, when set, links the reference instead of link: for a
	// program that LLVM 22 links wrongly, the same program linked in a
	// way it gets right.
	refLink func(t *testing.T, k *winKit, dir, out string, wrapper []string)
	// want are lines (after symbolization) the reference log must hold, so
	// that the reference shows kernels and variables registered.
	want []string
}

// The common link flags: no CRT or SDK libraries, lld-link, a COFF
// symbol table in the image (for symbolize).
var winLinkFlags = []string{"--target=x86_64-pc-windows-msvc", "-fuse-ld=lld", "-nostdlib", "-Wl,/debug:symtab"}

var (
	hipCompile = []string{"--target=x86_64-pc-windows-msvc", "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib",
		"--offload-arch=gfx90a", "--offload-arch=gfx1100", "-c"}
	hipLink = []string{"--offload-new-driver", "-fgpu-rdc", "--hip-link", "--offload-arch=gfx90a", "--offload-arch=gfx1100", "-nogpulib", "-no-hip-rt"}
)

func (k *winKit) link(t *testing.T, dir string, driver string, wrapper []string, args ...any) {
	t.Helper()
	sh(t, dir, k.env, cmdline(append([]any{driver, wrapper, winLinkFlags}, args...)...)...)
}

func buildHIP(t *testing.T, k *winKit, dir string) {
	sh(t, dir, k.env, cmdline(k.clang, hipCompile, filepath.Join(k.src, "hip_a.hip"), "-o", "a.obj")...)
	sh(t, dir, k.env, cmdline(k.clang, hipCompile, filepath.Join(k.src, "hip_b.hip"), "-o", "b.obj")...)
	k.cc(t, dir, "-O1", "-c", filepath.Join(k.src, "hip_main.cpp"), "-o", "main.obj")
}

// hipWant: the kernels (a template's too), variables, surface and texture
// of hip_a.hip and hip_b.hip, for both architectures.
var hipWant = []string{
	"hip:   entry hip-amdgcn-amd-amdhsa--gfx90a ",
	"hip:   entry hip-amdgcn-amd-amdhsa--gfx1100 ",
	"hip: RegisterFunction ok=1 addr=p.exe:?kern_a@@YAXPEAH@Z name=_Z6kern_aPi same=1 limit=-1 rest=null,null,null,null,null",
	"hip: RegisterFunction ok=1 addr=p.exe:?kern_c@@YAXXZ name=_Z6kern_cv same=1 limit=-1 rest=null,null,null,null,null",
	"hip: RegisterVar ok=1 addr=p.exe:?counter@@3HA name=counter same=1 extern=0 size=4 constant=0 global=0",
	"hip: RegisterVar ok=1 addr=p.exe:?table@@3PAHA name=table same=1 extern=0 size=16 constant=1 global=0",
	"hip: RegisterManagedVar ok=1 ptr=p.exe:?managed_v@@3HA init=p.exe:?managed_v@@3HA.managed name=managed_v size=4 align=4",
	"hip: RegisterFunction ok=1 addr=p.exe:??$kern_t@H@@YAXH@Z name=_Z6kern_tIiEvT_ same=1 limit=-1 rest=null,null,null,null,null",
	"hip: RegisterSurface ok=1 addr=p.exe:?surf_ref@@3U?$surface@X$01@@A name=surf_ref dim=2 extern=0",
	"hip: RegisterTexture ok=1 addr=p.exe:?tex_ref@@3U?$texture@M$02$00@@A name=tex_ref dim=3 normalized=1 extern=0",
	"hip: LaunchKernel p.exe:?kern_a@@YAXPEAH@Z",
	"hip: UnregisterFatBinary ok=1",
}

func winCases() []winCase {
	hipObjs := []string{"a.obj", "b.obj", "main.obj"}
	return []winCase{
		{
			name:  "hip",
			dlls:  []string{"amdhip64.dll"},
			build: buildHIP,
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, hipObjs, k.lib("crt.obj"), k.lib("amdhip64.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: hipWant,
		},
		{
			name:  "hip-compressed",
			dlls:  []string{"amdhip64.dll"},
			build: buildHIP,
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, "--offload-compress", hipObjs, k.lib("crt.obj"), k.lib("amdhip64.lib"), k.lib("kernel32.lib"),
					"-o", filepath.Join(out, "p.exe"))
			},
			want: append([]string{"hip:   compressed bundle version=3 method=1 "}, hipWant[2:]...),
		},
		{
			// The HIP objects in a static library: the host link takes
			// hip_a's object for main's launch, hip_b's stays out (its
			// device code is still linked: kern_a calls its bump).
			name: "hip-static-lib",
			dlls: []string{"amdhip64.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				buildHIP(t, k, dir)
				sh(t, dir, nil, k.llvmLib, "/out:hip.lib", "a.obj", "b.obj")
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, "main.obj", "hip.lib", k.lib("crt.obj"), k.lib("amdhip64.lib"), k.lib("kernel32.lib"),
					"-o", filepath.Join(out, "p.exe"))
			},
			want: []string{
				"hip:   entry hip-amdgcn-amd-amdhsa--gfx90a ",
				"hip: RegisterFunction ok=1 addr=p.exe:?kern_a@@YAXPEAH@Z name=_Z6kern_aPi",
				"hip: RegisterFunction ok=1 addr=p.exe:?kern_b@@YAXPEAMH@Z name=_Z6kern_bPfi",
				"hip: LaunchKernel p.exe:?kern_a@@YAXPEAH@Z",
			},
		},
		{
			// Beyond LLVM 22: the same library named by /DEFAULTLIB: and
			// found through /libpath:. LLVM 22's wrapper never reads such
			// libraries, so its program registers nothing (and launches
			// an unregistered kernel); ours reads them for device code.
			// The reference is the hip-static-lib program, the library
			// named as a file.
			name: "hip-defaultlib",
			dlls: []string{"amdhip64.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				buildHIP(t, k, dir)
				sh(t, dir, nil, k.llvmLib, "/out:hip.lib", "a.obj", "b.obj")
			},
			refLink: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, "main.obj", "hip.lib", k.lib("crt.obj"), k.lib("amdhip64.lib"), k.lib("kernel32.lib"),
					"-o", filepath.Join(out, "p.exe"))
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, "main.obj", "-Wl,/libpath:"+dir, "-Wl,/defaultlib:hip.lib", k.lib("crt.obj"),
					k.lib("amdhip64.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: []string{
				"hip: RegisterFunction ok=1 addr=p.exe:?kern_a@@YAXPEAH@Z name=_Z6kern_aPi",
				"hip: LaunchKernel p.exe:?kern_a@@YAXPEAH@Z",
			},
		},
		{
			// An executable and a DLL that each carry device code: each
			// registers its own fat binary from its own initializers (the
			// DLL's from _DllMainCRTStartup), and unregisters it.
			name: "hip-exe-and-dll",
			dlls: []string{"amdhip64.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				buildHIP(t, k, dir)
				sh(t, dir, k.env, cmdline(k.clang, hipCompile, filepath.Join(k.src, "hip_dll.hip"), "-o", "d.obj")...)
				k.cc(t, dir, "-O1", "-DWITH_DLL", "-c", filepath.Join(k.src, "hip_main.cpp"), "-o", "dmain.obj")
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, "-shared", "d.obj", k.lib("dllcrt.obj"), k.lib("amdhip64.lib"), k.lib("kernel32.lib"),
					"-o", filepath.Join(out, "p.dll"))
				k.link(t, dir, k.clang, w, hipLink, "dmain.obj", "a.obj", "b.obj", filepath.Join(out, "p.lib"), k.lib("crt.obj"),
					k.lib("amdhip64.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: append([]string{
				"crt(dll): initializers",
				"hip: RegisterFunction ok=1 addr=p.dll:?kern_dll@@YAXPEAH@Z name=_Z8kern_dllPi same=1 limit=-1 rest=null,null,null,null,null",
				"hip: RegisterVar ok=1 addr=p.dll:?dll_counter@@3HA name=dll_counter same=1 extern=0 size=4 constant=0 global=0",
				"hip: LaunchKernel p.dll:?kern_dll@@YAXPEAH@Z",
				"crt(dll): 1 atexit handlers ran; terminators",
			}, hipWant...),
		},
		{
			// Import libraries found through -L/-l (clang passes
			// -libpath: and <name>.lib), not named as files: the
			// wrapper must read lld-link's and llvm-dlltool's import
			// libraries (short import members) in the library search.
			name:  "hip-import-libraries",
			dlls:  []string{"amdhip64.dll"},
			build: buildHIP,
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, hipLink, hipObjs, k.lib("crt.obj"), "-L"+k.shared, "-lamdhip64", "-lkernel32",
					"-o", filepath.Join(out, "p.exe"))
			},
			want: hipWant,
		},
		{
			// CUDA with stand-in ptxas/nvlink/fatbinary (see newWinKit):
			// the registered fatbin is the H100-made one.
			name: "cuda",
			dlls: []string{"cudart64_12.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				c := []string{k.clang, "--target=x86_64-pc-windows-msvc", "-x", "cuda", "--offload-new-driver", "-fgpu-rdc", "-nocudainc", "-nocudalib",
					"--offload-arch=sm_90", "--cuda-feature=+ptx80", "-Xclang", "-target-sdk-version=12.8", "-c"}
				sh(t, dir, k.env, cmdline(c, filepath.Join(k.src, "cuda_a.cu"), "-o", "a.obj")...)
				sh(t, dir, k.env, cmdline(c, filepath.Join(k.src, "cuda_b.cu"), "-o", "b.obj")...)
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clang, w, "--offload-new-driver", "-fgpu-rdc", "--offload-arch=sm_90", "-nocudalib", "a.obj", "b.obj",
					k.lib("crt.obj"), k.lib("cudart.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: []string{
				"cuda: RegisterFatBinary wrapper=0x466243b1 version=1 reserved=null fatbin=0xba55ed50 v1 header=16 bytes=4280 ",
				"cuda: RegisterFunction ok=1 addr=p.exe:?__device_stub__kern_a@@YAXPEAH@Z name=_Z6kern_aPi same=1 limit=-1 rest=null,null,null,null,null",
				"cuda: RegisterFunction ok=1 addr=p.exe:?__device_stub__kern_c@@YAXXZ name=_Z6kern_cv",
				"cuda: RegisterFunction ok=1 addr=p.exe:??$__device_stub__kern_t@H@@YAXH@Z name=_Z6kern_tIiEvT_",
				"cuda: RegisterVar ok=1 addr=p.exe:?counter@@3HA name=counter same=1 extern=0 size=4 constant=0 global=0",
				"cuda: RegisterVar ok=1 addr=p.exe:?table@@3PAHA name=table same=1 extern=0 size=16 constant=1 global=0",
				"cuda: RegisterVar ok=1 addr=p.exe:?scale@@3MA name=scale same=1 extern=0 size=4 constant=0 global=0",
				"cuda: RegisterFatBinaryEnd ok=1",
				"cuda: UnregisterFatBinary ok=1",
			},
		},
		{
			// OpenMP offload to gfx90a; the device runtime is a stand-in
			// (testdata/win/omp_devrtl.c) given with -Xoffload-linker.
			name: "openmp",
			dlls: []string{"omptarget.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				k.cc(t, dir, "-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-nogpuinc", "-O1", "-c", filepath.Join(k.src, "omp.c"), "-o", "omp.obj")
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				// -nostdlib leaves clang's -defaultlib:libomp.lib (the stub
				// libomptarget needs no libomp).
				k.link(t, dir, k.clang, w, "-fopenmp", "--offload-arch=gfx90a", "-nogpulib", "-Wl,/nodefaultlib:libomp.lib",
					"-Xoffload-linker", k.lib("omp_devrtl.o"), "omp.obj",
					k.lib("crt.obj"), k.lib("omptarget.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: []string{
				"omp: register_lib images=1",
				"omp:   descriptor entries=4",
				"omp:     entry version=1 kind=1 flags=0 name=dev_count size=4 data=0 addr=p.exe:dev_count aux=null reserved=0",
				"omp:     entry version=1 kind=1 flags=0 name=dev_table size=32 data=0 addr=p.exe:dev_table aux=null reserved=0",
				"omp: unregister_lib same=1",
			},
		},
		{
			// SYCL: LLVM's clang-sycl-linker against ours (in-process);
			// the image bytes, format and property sets legitimately
			// differ and are logged "(not compared)".
			name: "sycl",
			dlls: []string{"sycl.dll"},
			build: func(t *testing.T, k *winKit, dir string) {
				sh(t, dir, k.env, k.clangxx, "--target=x86_64-pc-windows-msvc", "-fsycl", "-O2", "-c", filepath.Join(k.src, "sycl_kernels.cpp"), "-o", "k.obj")
			},
			link: func(t *testing.T, k *winKit, dir, out string, w []string) {
				k.link(t, dir, k.clangxx, w, "-fsycl", "k.obj", k.lib("crt.obj"), k.lib("sycl.lib"), k.lib("kernel32.lib"), "-o", filepath.Join(out, "p.exe"))
			},
			want: []string{
				"sycl: register_lib version=1 images=1 host_entries=0",
				"sycl:     entry version=1 kind=8 flags=0 name=_ZTS6Ishift size=0 data=0 addr=null aux=null",
				"sycl:     entry version=1 kind=8 flags=0 name=_ZTS4Ixor size=0 data=0 addr=null aux=null",
				"sycl:     entry version=1 kind=8 flags=0 name=_ZTS6Fscale size=0 data=0 addr=null aux=null",
				"sycl: unregister_lib same=1",
				"crt(exe): 1 terminators ran",
			},
		},
	}
}

var winAddrRe = regexp.MustCompile(`([A-Za-z0-9_.-]+\.(?:exe|dll))\+0x([0-9a-f]+)`)

// symbolize replaces every <module>+0x<rva> of a stub's log with
// <module>:<symbol>: the external (else static, not a section's) symbol at that
// address in the module's COFF symbol table, "<unknown>" when there is none.
func symbolize(t *testing.T, dir, log string) string {
	t.Helper()
	tables := map[string]map[uint32]string{}
	table := func(module string) map[uint32]string {
		if m, ok := tables[module]; ok {
			return m
		}
		m := map[uint32]string{}
		tables[module] = m
		f, err := pe.Open(filepath.Join(dir, module))
		if err != nil {
			return m
		}
		defer f.Close()
		static := map[uint32]string{}
		for _, s := range f.Symbols {
			if s.SectionNumber <= 0 || int(s.SectionNumber) > len(f.Sections) {
				continue
			}
			rva := f.Sections[s.SectionNumber-1].VirtualAddress + s.Value
			switch {
			case s.StorageClass == 2: // IMAGE_SYM_CLASS_EXTERNAL
				if _, ok := m[rva]; !ok {
					m[rva] = s.Name
				}
			case !strings.HasPrefix(s.Name, "."): // not a section symbol
				if _, ok := static[rva]; !ok {
					static[rva] = s.Name
				}
			}
		}
		for rva, n := range static {
			if _, ok := m[rva]; !ok {
				m[rva] = n
			}
		}
		return m
	}
	return winAddrRe.ReplaceAllStringFunc(log, func(s string) string {
		sub := winAddrRe.FindStringSubmatch(s)
		rva, err := strconv.ParseUint(sub[2], 16, 32)
		name, ok := table(sub[1])[uint32(rva)]
		if err != nil || !ok {
			name = "<unknown>"
		}
		return sub[1] + ":" + name
	})
}

// runWine runs out/p.exe under wine and returns its symbolized log.
func (k *winKit) runWine(t *testing.T, out string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := run.Exec{}.Run(ctx, &run.Cmd{Args: append(append([]string(nil), k.winCmd...), "p.exe"), Dir: out, Env: k.env, Stdout: &stdout, Stderr: &stderr})
	require.NoError(t, err, "wine %s/p.exe\nstdout:\n%s\nstderr:\n%s", out, stdout.String(), stderr.String())
	return symbolize(t, out, strings.ReplaceAll(stdout.String(), "\r\n", "\n"))
}

// compared drops the lines a stub marks "(not compared)".
func compared(log string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(log, "\n") {
		if !strings.Contains(l, "(not compared)") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestWindowsProgramsUnderWine: for each case, the program linked by LLVM's
// clang-linker-wrapper and the one linked by ours (clang -B) run under wine
// and log the same registration calls.
func TestWindowsProgramsUnderWine(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	k := newWinKit(t)
	for _, c := range winCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.build(t, k, dir)
			logs := map[string]string{}
			for _, side := range []string{"ref", "ours"} {
				out := filepath.Join(dir, side)
				require.NoError(t, os.MkdirAll(out, 0o755))
				for _, d := range c.dlls {
					b, err := os.ReadFile(k.lib(d))
					require.NoError(t, err)
					require.NoError(t, os.WriteFile(filepath.Join(out, d), b, 0o755))
				}
				var w []string
				if side == "ours" {
					w = []string{"-B" + k.bin}
				}
				if side == "ref" && c.refLink != nil {
					c.refLink(t, k, dir, out, w)
				} else {
					c.link(t, k, dir, out, w)
				}
				logs[side] = k.runWine(t, out)
			}
			ref := logs["ref"]
			t.Logf("reference log:\n%s", ref)
			for _, want := range c.want {
				assert.Contains(t, ref, want, "the reference (LLVM's clang-linker-wrapper) log")
			}
			assert.Contains(t, ref, "crt(exe): main returned 0\n")
			assert.NotContains(t, ref, ":<unknown>", "every address in the reference log is a symbol")
			assert.Equal(t, compared(ref), compared(logs["ours"]),
				"registration log of the program linked by our linker-wrapper (right) against LLVM's (left)\nreference:\n%s", ref)
			if t.Failed() {
				t.Log(fmt.Sprintf("ours:\n%s", logs["ours"]))
			}
		})
	}
}
