package sycldev

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"testing"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildCLI builds cmd/sycl-linker into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sycl-linker")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./cmd/sycl-linker")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var prunedDefRe = regexp.MustCompile(`(?m)^define ([^@]*)@([\w.$-]+)\(`)

// definedWithLinkage maps each function a module defines to the words of
// its header before the name (linkage, visibility, calling convention...).
func definedWithLinkage(ir []byte) map[string]string {
	out := map[string]string{}
	for _, m := range prunedDefRe.FindAllSubmatch(ir, -1) {
		out[string(m[2])] = string(m[1])
	}
	return out
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestPruneToKernelsCLI runs `sycl-linker --prune-to-kernels` on clang 22's
// HIP device code (split/testdata/reach.hip, -fgpu-rdc) linked with a
// textual module holding one more kernel and two unreachable functions.
// The output keeps the kernels and every function they reach (through an
// llvm.assume bundle, a function-pointer table, a struct in a global, a
// constant expression, a direct call) with the linkage each had, and
// nothing else; it verifies. -S writes the same module as text. Combined
// with a split mode, --ir-output-only or --spec-const it is a usage error
// that writes nothing.
func TestPruneToKernelsCLI(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as", "opt")
	bin := buildCLI(t)
	dir := t.TempDir()
	hip := filepath.Join(dir, "reach.bc")
	if out, err := exec.Command(filepath.Join(llvmBin, "clang"), "-x", "hip", "--offload-device-only", "-nogpulib", "-nogpuinc",
		"--offload-arch=gfx90a", "-fgpu-rdc", "-O2", "-c", "-emit-llvm", "-o", hip, "../../split/testdata/reach.hip").CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	extra := filepath.Join(dir, "extra.ll")
	require.NoError(t, os.WriteFile(extra, []byte(`target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"
define weak_odr void @helper(ptr addrspace(1) %p) {
  store i32 5, ptr addrspace(1) %p
  ret void
}
define amdgpu_kernel void @k_extra(ptr addrspace(1) %p) {
  call void @helper(ptr addrspace(1) %p)
  ret void
}
define void @host_only() {
  ret void
}
define internal void @unused_internal() {
  ret void
}
`), 0o644))

	cli := func(args ...string) (string, error) {
		var errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &errb
		cmd.Env = append(os.Environ(), "OFFLOAD_KIT_LLVM_DIR="+llvmBin)
		err := cmd.Run()
		return errb.String(), err
	}

	out := filepath.Join(dir, "pruned.bc")
	stderr, err := cli("--triple=amdgcn-amd-amdhsa", "--prune-to-kernels", "-o", out, hip, extra)
	require.NoError(t, err, stderr)
	assert.Empty(t, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte("BC\xc0\xde")), "bitcode")
	txt, err := exec.Command(filepath.Join(llvmBin, "llvm-dis"), out, "-o", "-").Output()
	require.NoError(t, err)
	if o, err := exec.Command(filepath.Join(llvmBin, "opt"), "-passes=verify", "-disable-output", out).CombinedOutput(); err != nil {
		t.Fatalf("opt -passes=verify: %v\n%s", err, o)
	}
	got := definedWithLinkage(txt)
	assert.Equal(t, []string{"_Z10via_structi", "_Z11k_constexprPl", "_Z13via_constexpri", "_Z2sqi", "_Z3negi",
		"_Z7k_tablePi", "_Z8k_bundlePi", "_Z8k_structPi", "_Z9in_bundlei", "helper", "k_extra"}, sortedNames(got))
	assert.Equal(t, "weak_odr void ", got["helper"], "linkage kept")
	assert.Regexp(t, `^hidden `, got["_Z9in_bundlei"], "linkage kept (not internalised)")
	assert.Regexp(t, `(?m)^@table = `, string(txt))
	assert.Regexp(t, `(?m)^@ops = `, string(txt))

	// -S: the same module as text
	outS := filepath.Join(dir, "pruned.ll")
	stderr, err = cli("--triple=amdgcn-amd-amdhsa", "--prune-to-kernels", "-S", "-o", outS, hip, extra)
	require.NoError(t, err, stderr)
	s, err := os.ReadFile(outS)
	require.NoError(t, err)
	assert.Equal(t, got, definedWithLinkage(s))

	for _, bad := range [][]string{{"--module-split-mode=kernel"}, {"--ir-output-only"}, {"--spec-const=native"}} {
		o := filepath.Join(dir, "bad.out")
		args := append([]string{"--triple=amdgcn-amd-amdhsa", "--prune-to-kernels", "-o", o, hip}, bad...)
		stderr, err := cli(args...)
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", bad)
		assert.Equal(t, 1, ee.ExitCode())
		assert.Regexp(t, `^sycl-linker: error: --prune-to-kernels writes one IR module: it cannot be combined with --[a-z-]+(=kernel)?\n$`, stderr)
		assert.NoFileExists(t, o)
	}
}
