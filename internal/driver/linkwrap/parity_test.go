package linkwrap

// Dry-run command parity with LLVM 22.1.8's clang-linker-wrapper: the same
// argument lists must print the same commands, temporary names aside.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	tmpName   = regexp.MustCompile(`/tmp/(offload-kit-[0-9]+/)?([^ ]*?)-[0-9a-f]{6}\.([a-z]+)`)
	objcopyRe = regexp.MustCompile(`"[^"]*llvm-objcopy"`)
)

func normalize(s string) string {
	s = tmpName.ReplaceAllString(s, "<tmp>/$2.$3")
	return objcopyRe.ReplaceAllString(s, `"llvm-objcopy"`)
}

func dropLines(s, sub string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.Contains(l, sub) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// runBoth runs the reference and our wrapper (built by buildWrapper) with
// args in fresh directories holding the given files, and returns stderr.
func runBoth(t *testing.T, files map[string]string, args, ourExtra []string) (ref, ours string) {
	t.Helper()
	refBin := filepath.Join(llvmBin, "clang-linker-wrapper")
	oursBin := filepath.Join(buildWrapper(t), "clang-linker-wrapper")
	do := func(bin string, extra []string) string {
		dir := t.TempDir()
		for name, from := range files {
			data, err := os.ReadFile(from)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		var stderr bytes.Buffer
		err := run.Exec{}.Run(context.Background(), &run.Cmd{
			Args: append(append([]string{bin}, extra...), args...), Dir: dir, Stderr: &stderr,
			// No OFFLOAD_KIT_CLANG: our wrapper must find the same clang as
			// the reference (its own directory, /usr/lib/llvm-22/bin).
			// Both behave as LLVM 22 (the reference ignores the variable):
			// options such as '--' would otherwise name an older release.
			Env: []string{"PATH=" + os.Getenv("PATH"), "OFFLOAD_KIT_LLVM_RELEASE=22"},
		})
		require.NoError(t, err, "%s\n%s", bin, stderr.String())
		return normalize(stderr.String())
	}
	return do(refBin, nil), do(oursBin, ourExtra)
}

// fixtures compiles the OpenMP test sources once per test.
func fixtures(t *testing.T) map[string]string {
	t.Helper()
	cc := findTool(t, "clang-22", "clang")
	ob := findTool(t, "llvm-offload-binary-22", "llvm-offload-binary")
	ar := findTool(t, "llvm-ar-22", "llvm-ar", "ar")
	dir := t.TempDir()
	f := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-c"}
	sh(t, dir, nil, cmdline(cc, f, src("xtu_main.c"), src("xtu_dev.c"), src("lib_dev.c"), src("lib_unused.c"))...)
	sh(t, dir, nil, ar, "rcs", "libdev.a", "lib_dev.o", "lib_unused.o")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dev.bin"), []byte("device code\n"), 0o644))
	img := func(triple, arch, kind string) string {
		return "--image=file=dev.bin,triple=" + triple + ",arch=" + arch + ",kind=" + kind
	}
	sh(t, dir, nil, ob, "-o", "gpu.out",
		img("amdgcn-amd-amdhsa", "gfx90a", "openmp"), img("amdgcn-amd-amdhsa", "gfx90a:xnack+", "openmp"),
		img("nvptx64-nvidia-cuda", "sm_70", "openmp"), img("amdgcn-amd-amdhsa", "generic", "openmp"),
		img("amdgcn-amd-amdhsa", "gfx942", "openmp"))
	// HIP RDC object (device bitcode for two arches) and a stand-in runtime.
	hip, _ := filepath.Abs(filepath.Join("testdata", "hip", "dev_global.hip"))
	sh(t, dir, nil, cc, "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "--offload-arch=gfx90a", "--offload-arch=gfx942",
		"-nogpulib", "-nogpuinc", "-c", hip, "-o", "hip.o")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "libamdhip64.a"), []byte("!<arch>\n"), 0o644))
	sycl, _ := filepath.Abs(filepath.Join("testdata", "sycl", "empty.cpp"))
	sh(t, dir, nil, cc, "-fsycl", "-c", sycl, "-o", "sycl.o")
	out := map[string]string{}
	for _, n := range []string{"xtu_main.o", "xtu_dev.o", "libdev.a", "gpu.out", "hip.o", "libamdhip64.a", "sycl.o"} {
		out[n] = filepath.Join(dir, n)
	}
	return out
}

func TestDryRunParity(t *testing.T) {
	if testing.Short() {
		t.Skip("needs LLVM 22")
	}
	if _, ok := run.FindProgram("clang-linker-wrapper", []string{llvmBin}, ""); !ok {
		t.Skip("no reference clang-linker-wrapper")
	}
	files := fixtures(t)
	clangArgs := strings.Fields(`--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld --hash-style=gnu --build-id
		--eh-frame-hdr -m elf_x86_64 -pie -dynamic-linker /lib64/ld-linux-x86-64.so.2 -o app
		/lib/x86_64-linux-gnu/Scrt1.o /lib/x86_64-linux-gnu/crti.o -L/usr/lib/x86_64-linux-gnu -L/lib
		xtu_main.o xtu_dev.o -lomp -L/usr/lib/llvm-22/lib --as-needed -lpthread --no-as-needed -lc
		/lib/x86_64-linux-gnu/crtn.o`)
	llvm22 := []string{"--device-archives=llvm22"}
	cases := []struct {
		name  string
		args  []string
		extra []string
	}{
		{"clang-openmp-x86", clangArgs, nil},
		{"save-temps", append([]string{"--save-temps"}, clangArgs...), nil},
		{"archives", strings.Fields(`--linker-path=/usr/bin/ld -o out/app xtu_main.o xtu_dev.o -rpath /rp --rpath=/rp2
			--whole-archive libdev.a --no-whole-archive libdev.a -L. -ldev -L=/eq --sysroot=/sr --as-needed`), llvm22},
		{"device-options", strings.Fields(`--linker-path=/usr/bin/ld -o app xtu_main.o xtu_dev.o
			-mllvm -pass-remarks=foo --offload-opt=-pass-remarks=bar --device-linker=-zz
			--device-linker=x86_64-unknown-linux-gnu=-yy --device-linker=nvptx64-nvidia-cuda=-no
			--device-compiler=-O3 --linker-arg=LA --compiler-arg=CA --embed-bitcode --output=alias`), nil},
		{"gpu-groups", strings.Fields(`--save-temps --linker-path=/usr/bin/ld.lld -o app gpu.out
			--device-linker=amdgcn-amd-amdhsa=-AM --device-compiler=amdgcn-amd-amdhsa=-flto-partitions=8`), nil},
		// clang 22's HIP RDC link (clang --hip-link --offload-new-driver -fgpu-rdc).
		{"hip-rdc", strings.Fields(`--should-extract=gfx90a --should-extract=gfx942
			--device-compiler=amdgcn-amd-amdhsa=-flto-partitions=8 --host-triple=x86_64-pc-linux-gnu
			--linker-path=/usr/bin/ld -o app hip.o -L. -lamdhip64`), nil},
		{"sycl", strings.Fields(`--host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld -o app sycl.o`), nil},
		{"relocatable", strings.Fields(`--linker-path=/usr/bin/ld.lld -r -o part.o xtu_main.o xtu_dev.o`), nil},
		{"relocatable-save-temps", strings.Fields(`--save-temps --linker-path=/usr/bin/ld --relocatable -o part.o xtu_dev.o`), nil},
		{"forwarding", strings.Fields(`--linker-path=/usr/bin/ld --output x -output -v --v -- -z now /out:y
			-libpath:z /wholearchive:w --library-path=/q -library-path /r --library=lib --whole-program --triple=t
			--arch=a --should-extract q @missing.rsp`), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref, ours := runBoth(t, files, append([]string{"--dry-run"}, tc.args...), tc.extra)
			// HIP bundling is in-process here; the reference runs clang-offload-bundler.
			// The tool choice notes are ours only (tools_test.go).
			assert.Equal(t, dropLines(ref, "clang-offload-bundler"), dropLines(dropToolNotes(ours), "bundling"))
		})
	}
}
