package linkwrap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syclPoclKernels maps each kernel of testdata/sycl-pocl to the group of
// kernels that --module-split-mode=source puts in one image: the
// translation unit, with fp64 kernels apart (int_kernels.cpp has none).
var syclPoclKernels = map[string]string{
	"_ZTS5Iaxpy": "int", "_ZTS5Ihist": "int", "_ZTS9SpecScale": "int",
	"_ZTS5Dpoly": "fp64", "_ZTS4Dsum": "fp64",
}

// syclPoclLaunches is the order in which main.cpp launches the kernels,
// with the llvm-spirv --spec-const value each launch must use and the line
// main prints after checking the results.
var syclPoclLaunches = []struct{ kernel, spec, ok string }{
	{"_ZTS5Iaxpy", "", "Iaxpy ok"},
	{"_ZTS5Ihist", "", "Ihist ok"},
	{"_ZTS5Dpoly", "", "Dpoly ok"},
	{"_ZTS4Dsum", "", "Dsum ok"},
	{"_ZTS9SpecScale", "", "SpecScale=42 ok"},
	{"_ZTS9SpecScale", "0:i32:7", "SpecScale=7 ok"},
	{"_ZTS9SpecScale", "", "SpecScale=42 ok"},
}

var syclPoclLaunchRe = regexp.MustCompile(`^launch (\S+) image=(\d+)/(\d+) spec=\[(.*)\]$`)

// syclPoclTranscript checks the output of the pocl program against what
// the split mode implies and returns the number of images registered.
// The image index of each kernel is read from the launch lines; the
// kernels must be partitioned among the images as the mode says (none:
// one image; kernel: one image per kernel; source: the groups of
// syclPoclKernels), and then the whole transcript must equal the expected
// one: registration, every launch, one translation per image and
// specialization-constant value, every "ok" line, "all ok", unregister.
func syclPoclTranscript(t *testing.T, mode, out string) int {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	imageOf := map[string]int{}
	total := -1
	for _, l := range lines {
		if m := syclPoclLaunchRe.FindStringSubmatch(l); m != nil {
			i, _ := strconv.Atoi(m[2])
			n, _ := strconv.Atoi(m[3])
			if prev, ok := imageOf[m[1]]; ok {
				require.Equal(t, prev, i, "kernel %s launched from two images:\n%s", m[1], out)
			}
			imageOf[m[1]] = i
			total = n
		}
	}
	require.Equal(t, len(syclPoclKernels), len(imageOf), "every kernel launched:\n%s", out)
	// The partition of the kernels among images.
	byImage := map[int][]string{}
	for k, i := range imageOf {
		byImage[i] = append(byImage[i], k)
	}
	var got []string
	for _, ks := range byImage {
		sort.Strings(ks)
		got = append(got, strings.Join(ks, ","))
	}
	sort.Strings(got)
	var want []string
	switch mode {
	case "none":
		var ks []string
		for k := range syclPoclKernels {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		want = []string{strings.Join(ks, ",")}
	case "kernel":
		for k := range syclPoclKernels {
			want = append(want, k)
		}
	case "source":
		groups := map[string][]string{}
		for k, g := range syclPoclKernels {
			groups[g] = append(groups[g], k)
		}
		for _, ks := range groups {
			sort.Strings(ks)
			want = append(want, strings.Join(ks, ","))
		}
	}
	sort.Strings(want)
	require.Equal(t, want, got, "kernels per image, split mode %s:\n%s", mode, out)
	require.Equal(t, len(want), total, "images registered")

	exp := []string{fmt.Sprintf("register images=%d", total)}
	built := map[string]bool{}
	for _, l := range syclPoclLaunches {
		i := imageOf[l.kernel]
		exp = append(exp, fmt.Sprintf("launch %s image=%d/%d spec=[%s]", l.kernel, i, total, l.spec))
		if key := fmt.Sprint(i, l.spec); !built[key] {
			built[key] = true
			exp = append(exp, fmt.Sprintf("translate image=%d spec=[%s]", i, l.spec))
		}
		exp = append(exp, l.ok)
	}
	exp = append(exp, "all ok", fmt.Sprintf("unregister images=%d", total))
	assert.Equal(t, strings.Join(exp, "\n"), strings.Join(lines, "\n"), "transcript, split mode %s", mode)
	return total
}

// syclPipelines lists the ways the SYCL device link can run, each as the
// environment that selects it: OFFLOAD_KIT_LLVM=process runs LLVM's
// programs as child processes, auto runs LLVM in the tool's helper
// processes when a compatible libLLVM is found (internal/llvmpool). Until
// the SYCL pipeline reads OFFLOAD_KIT_LLVM, both run child processes.
func syclPipelines() []struct {
	name string
	env  []string
} {
	return []struct {
		name string
		env  []string
	}{{"child-process", []string{"OFFLOAD_KIT_LLVM=process"}}, {"in-process", []string{"OFFLOAD_KIT_LLVM=auto"}}}
}

// TestSYCLRunsOnPocl links a SYCL program of USM kernels (testdata/sycl-pocl:
// int kernels, fp64 kernels, a kernel reading a specialization constant)
// through clang++-22 -fsycl -B<our tools> in split modes none, kernel and
// source, with --spec-const=native, against a small OpenCL runtime of ours
// (runtime.c), and runs it on pocl's CPU device. The runtime finds each
// kernel's image through the registered entries, translates the image with
// llvm-spirv-15 -r to SPIR bitcode, builds it with clCreateProgramWithBinary,
// passes the kernel's closure by value and runs it; the program checks every
// result against the host's arithmetic, and runs the spec-constant kernel
// with its default (42), an overridden value (7, read from the image's
// "SYCL/specialization constants" property set, passed as --spec-const) and
// the default again. The transcript must show the kernels partitioned among
// the images as the split mode says, one translation per image and spec
// value, and every check passing.
func TestSYCLRunsOnPocl(t *testing.T) {
	if testing.Short() {
		t.Skip("needs clang 22, gcc, pocl, ocl-icd and llvm-spirv-15")
	}
	clang := findTool(t, "clang++-22")
	gcc := findTool(t, "gcc")
	spirv := findTool(t, "llvm-spirv-15")
	findTool(t, "llc")
	tools := buildSYCLTools(t)
	dir := t.TempDir()
	for _, f := range []string{"okit_sycl.h", "int_kernels.cpp", "fp64_kernels.cpp", "main.cpp", "runtime.c"} {
		b, err := os.ReadFile(filepath.Join("testdata", "sycl-pocl", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	var objs []string
	for _, f := range []string{"int_kernels", "fp64_kernels", "main"} {
		sh(t, dir, nil, clang, "-fsycl", "-O2", "-c", f+".cpp", "-o", f+".o")
		objs = append(objs, f+".o")
	}
	sh(t, dir, nil, gcc, "-O2", "-Wall", "-Wextra", "-Werror", "-c", stubInclude(t), "runtime.c", "-o", "runtime.o")
	objs = append(objs, "runtime.o")

	for _, p := range syclPipelines() {
		for _, mode := range []string{"none", "kernel", "source"} {
			t.Run(p.name+"/"+mode, func(t *testing.T) {
				exe := "app-" + p.name + "-" + mode
				args := append([]string{clang, "-fsycl", "-B" + tools, "-Xoffload-linker", "--spec-const=native",
					"-Xoffload-linker", "--module-split-mode=" + mode}, objs...)
				sh(t, dir, append(os.Environ(), p.env...), append(args, "-lOpenCL", "-o", exe)...)
				// pocl's kernel cache and the runtime's temporary files
				// stay in the test's directories.
				tmp := t.TempDir()
				env := append(os.Environ(), "POCL_CACHE_DIR="+t.TempDir(), "TMPDIR="+tmp, "OKIT_LLVM_SPIRV="+spirv)
				out := sh(t, dir, env, filepath.Join(dir, exe))
				syclPoclTranscript(t, mode, out)
				left, err := os.ReadDir(tmp)
				require.NoError(t, err)
				assert.Empty(t, left, "the runtime removes its temporary files")
			})
		}
	}
}

// TestSYCLLinkRefusesPrune: sycl-linker options that write files instead of
// images cannot come through -Xoffload-linker; nothing runs and nothing is
// written.
func TestSYCLLinkRefusesPrune(t *testing.T) {
	img := filepath.Join(t.TempDir(), "dev.img")
	for _, opt := range []string{"--prune-to-kernels", "--ir-output-only"} {
		d := &driver{opt: &Options{DeviceLinker: []string{opt}}}
		_, err := d.syclLink(context.Background(), &group{key: groupKey{"spirv64-unknown-unknown", ""}}, img)
		require.Error(t, err, opt)
		assert.Equal(t, "SYCL device link for spirv64-unknown-unknown: --help, --version, --ir-output-only and --prune-to-kernels cannot be forwarded to the in-process sycl-linker", err.Error())
		assert.NoFileExists(t, img)
	}
}
