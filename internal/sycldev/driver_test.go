package sycldev

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
	"github.com/offload-kit/offload-kit/split"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two SYCL translation units in the style clang 22 accepts: kernels through
// [[clang::sycl_kernel_entry_point]]; one kernel does fp64 arithmetic, one
// uses double only for conversions, the others no double at all.
const splitSrcA = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KF; struct KD; struct KC;
int main() {
  int *out = nullptr;
  single_task<KF>([=]() { out[0] = 1 + out[1]; });
  single_task<KD>([=]() { double x = out[0]; out[0] = (int)(x * 2.5); });
  single_task<KC>([=]() { double *dp = (double *)out; out[1] = (int)dp[1]; });
  return 0;
}
`

const splitSrcB = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void single_task(K k) { k(); }
struct KB;
int helper(int x) { return x * 3; }
int main() {
  int *out = nullptr;
  single_task<KB>([=]() { out[0] = helper(out[1]); });
  return 0;
}
`

func compile(t *testing.T, dir, name, src string) string {
	t.Helper()
	cpp := filepath.Join(dir, name+".cpp")
	bc := filepath.Join(dir, name+".bc")
	if err := os.WriteFile(cpp, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(llvmBin, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", cpp, "-o", bc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	return bc
}

func testEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{},
		LookupEnv: envVars("PATH", llvmBin+string(os.PathListSeparator)+os.Getenv("PATH"))}}, &out, &errb
}

// envVars is a LookupEnv of the variables kv (name, value, ...).
func envVars(kv ...string) func(string) (string, bool) {
	vars := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		vars[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func link(t *testing.T, args ...string) (error, string) {
	t.Helper()
	o, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	env, _, errb := testEnv()
	return Run(context.Background(), env, *o), errb.String()
}

func spirvDis(t *testing.T, img []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "x.spv")
	if err := os.WriteFile(f, img, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("spirv-val", f).CombinedOutput(); err != nil {
		t.Errorf("spirv-val: %v\n%s", err, out)
	}
	out, err := exec.Command("spirv-dis", f).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestLinkSplitSourceSPIRV(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llc", "llvm-nm")
	for _, n := range []string{"spirv-val", "spirv-dis"} {
		_, err := exec.LookPath(n)
		require.NoError(t, err, "SPIRV-Tools (scripts/install-deps.sh installs them)")
	}
	dir := t.TempDir()
	a, b := compile(t, dir, "a", splitSrcA), compile(t, dir, "b", splitSrcB)
	out := filepath.Join(dir, "dev.out")
	err, stderr := link(t, "--triple=spirv64", "--module-split-mode=source", "--spirv-val", "-o", out, a, b)
	assert.NoError(t, err, stderr)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	require.NoError(t, err)
	got := map[string]string{}
	var syms []string
	for _, bin := range bins {
		assert.Equal(t, format.ImgSPIRV, bin.ImageKind)
		assert.Equal(t, format.OfkSYCL, bin.OffloadKind)
		assert.Equal(t, "spirv64", bin.Triple())
		assert.Equal(t, []string{"triple", "arch", "symbols", "properties"}, keys(bin.Strings))
		dis := spirvDis(t, bin.Image)
		got[bin.Get("symbols")] = map[bool]string{true: "fp64", false: "no-fp64"}[strings.Contains(dis, "OpCapability Float64")]
		syms = append(syms, bin.Get("symbols"))
	}
	// a.cpp: KF (no double), KD (fp64 arithmetic), KC (conversion only) in
	// three images; b.cpp's KB in its own (per-source by input file).
	assert.Equal(t, map[string]string{"_ZTS2KF": "no-fp64", "_ZTS2KD": "fp64", "_ZTS2KC": "fp64", "_ZTS2KB": "no-fp64"}, got)
	sort.Strings(syms)
	assert.Equal(t, []string{"_ZTS2KB", "_ZTS2KC", "_ZTS2KD", "_ZTS2KF"}, syms)
	for _, bin := range bins {
		if bin.Get("symbols") == "_ZTS2KD" {
			assert.Contains(t, bin.Get("properties"), "aspects=2|gAAAAAAAAAgBAAAA")
		}
	}
}

func keys(kv []offload.KV) []string {
	var out []string
	for _, k := range kv {
		out = append(out, k.Key)
	}
	return out
}

func TestLinkNoSplitLikeClangSYCLLinker(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	out := filepath.Join(dir, "dev.out")
	dump := filepath.Join(dir, "dump")
	require.NoError(t, os.Mkdir(dump, 0o755))
	err, stderr := link(t, "--triple=spirv64", "-v", "--spirv-dump-device-code="+dump, "-o", out, a)
	require.NoError(t, err, stderr)
	assert.Contains(t, stderr, "sycl-device-link: inputs: "+a+" libfiles:  output: ")
	assert.Contains(t, stderr, "SPIR-V Backend: input: ")
	assert.Contains(t, stderr, "llc\" -mtriple=spirv64 -filetype=obj ")
	data, _ := os.ReadFile(out)
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, bins, 1)
	assert.Equal(t, "_ZTS2KF\n_ZTS2KD\n_ZTS2KC", bins[0].Get("symbols"))
	assert.Equal(t, "", bins[0].Arch())
	dumped, err := os.ReadFile(filepath.Join(dump, "dev_0.spv"))
	require.NoError(t, err)
	assert.Equal(t, bins[0].Image, dumped)
}

func TestIROutputOnlyKernel(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as", "opt")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	for _, text := range []bool{true, false} {
		sub := filepath.Join(dir, map[bool]string{true: "ll", false: "bc"}[text])
		require.NoError(t, os.Mkdir(sub, 0o755))
		args := []string{"--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-o", filepath.Join(sub, "parts.table"), a}
		if text {
			args = append(args, "-S")
		}
		err, stderr := link(t, args...)
		require.NoError(t, err, stderr)
		tab, err := os.ReadFile(filepath.Join(sub, "parts.table"))
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(tab)), "\n")
		require.Len(t, lines, 4)
		assert.Equal(t, "[Code|Properties|Symbols]", lines[0])
		var syms []string
		for _, row := range lines[1:] {
			cells := strings.Split(row, "|")
			require.Len(t, cells, 3)
			s, err := os.ReadFile(cells[2])
			require.NoError(t, err)
			syms = append(syms, string(s))
			if out, err := exec.Command(filepath.Join(llvmBin, "opt"), "-passes=verify", "-disable-output", cells[0]).CombinedOutput(); err != nil {
				t.Errorf("verify %s: %v\n%s", cells[0], err, out)
			}
		}
		// descending name order
		assert.Equal(t, []string{"_ZTS2KF\n", "_ZTS2KD\n", "_ZTS2KC\n"}, syms)
		ents, _ := os.ReadDir(sub)
		for _, e := range ents {
			assert.False(t, strings.Contains(e.Name(), ".tmp"), e.Name())
		}
	}
}

func TestDryRunAOT(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	out := filepath.Join(dir, "dev.out")
	err, stderr := link(t, "--triple=spirv64", "--arch=intel_gpu_pvc", "--dry-run", "--ocloc-options=-q", "-o", out, a)
	require.NoError(t, err, stderr)
	assert.Contains(t, stderr, "ocloc\" -output_no_suffix -spirv_input -device pvc -q -output")
	_, err = os.Stat(out)
	assert.NoError(t, err)
	// without --dry-run a missing ocloc is a clear error, and nothing is written
	out2 := filepath.Join(dir, "dev2.out")
	o, _ := ParseArgs([]string{"--triple=spirv64", "--arch=intel_gpu_pvc", "-o", out2, a})
	env, _, _ := testEnv()
	env.LookupEnv = envVars("PATH", llvmBin+":/nonexistent")
	err = Run(context.Background(), env, *o)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "ocloc: tool not found")
	}
	_, err = os.Stat(out2)
	assert.True(t, os.IsNotExist(err))
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "t.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	bc := filepath.Join(dir, "x.bc")
	os.WriteFile(bc, []byte("BC\xc0\xde...."), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--triple=spirv64", bc}, "Output file must be specified"},
		{[]string{"-o", "x", bc}, "Target triple must be specified"},
		{[]string{"--triple=spirv64", "-o", "x", txt}, txt + ": Unsupported file type"},
		{[]string{"--triple=spirv64", "-o", "x", filepath.Join(dir, "nope.bc")}, "nope.bc: no such file or directory"},
		{[]string{"--triple=spirv64", "-o", "x", "--device-libs=", bc}, "Number of device library files cannot be zero."},
		{[]string{"--triple=spirv64", "-o", "x", "--device-libs=libm.bc", "--library-path=" + dir, bc}, "'libm.bc' SYCL device library file is not found."},
		{[]string{"--triple=spirv64", "-o", "x", "-lfoo", "-L", dir}, "-lfoo: library not found"},
	} {
		err, _ := link(t, tc.args...)
		if assert.Error(t, err, tc.args) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	// missing tool
	o, _ := ParseArgs([]string{"--triple=spirv64", "-o", filepath.Join(dir, "o"), bc})
	env, _, _ := testEnv()
	env.LookupEnv = envVars("PATH", dir)
	err := Run(context.Background(), env, *o)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "llvm-dis: tool not found (searched PATH)")
	}
}

func TestParseArgs(t *testing.T) {
	o, err := ParseArgs([]string{"--triple=spirv64", "-triple", "spirv32", "--arch=", "-o", "out", "--device-libs=a.bc,b.bc",
		"--library-path=/l", "-L/m", "-lx", "-v", "--dry-run", "--save-temps", "--print-linked-module",
		"--spirv-dump-device-code=/d", "--module-split-mode=kernel", "--spec-const=emulation", "--ir-output-only", "-S",
		"-j", "3", "in.bc"})
	require.NoError(t, err)
	assert.Equal(t, "spirv32", o.Triple)
	assert.Equal(t, []string{"a.bc", "b.bc"}, o.DeviceLibs)
	assert.Equal(t, []string{"/l", "/m"}, o.LibraryPaths)
	assert.Equal(t, []string{"x"}, o.Libraries)
	assert.Equal(t, []string{"in.bc"}, o.Inputs)
	assert.Equal(t, 3, o.Jobs)
	assert.True(t, o.Verbose && o.DryRun && o.SaveTemps && o.PrintLinked && o.IROutputOnly && o.TextIR)
	assert.Equal(t, split.SpecEmulation, o.SpecConst)
	for _, bad := range [][]string{{"--bogus"}, {"--module-split-mode=x"}, {"-o"}, {"-j", "0"}, {"--spec-const=x"}} {
		_, err := ParseArgs(bad)
		assert.Error(t, err, bad)
	}
	_, err = ParseArgs([]string{"--bogus"})
	assert.Equal(t, "unknown argument '--bogus'", err.Error())
}

// failing runs real tools except llvm-as on the second part, which fails.
type failing struct{ real run.Runner }

func (f failing) Run(ctx context.Context, c *run.Cmd) error {
	if filepath.Base(c.Args[0]) == "llvm-as" && strings.Contains(strings.Join(c.Args, " "), "parts_1.") {
		return &run.Error{Args: c.Args, ExitCode: 1, Stderr: []byte("llvm-as: parts_1.ll:3:1: error: simulated failure\n")}
	}
	return f.real.Run(ctx, c)
}

func TestIROutputOnlyNothingHalfWritten(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llvm-as")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	sub := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(sub, 0o755))
	o, err := ParseArgs([]string{"--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-j1", "-o", filepath.Join(sub, "parts.table"), a})
	require.NoError(t, err)
	env, _, _ := testEnv()
	env.Runner = failing{run.Exec{}}
	err = Run(context.Background(), env, *o)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "llvm-as: llvm-as: parts_1.ll:3:1: error: simulated failure")
	}
	ents, _ := os.ReadDir(sub)
	assert.Equal(t, 0, len(ents), "left behind: %v", ents)
}

func TestFatObjectInput(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-offload-binary", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	pkg, host, obj := filepath.Join(dir, "pkg.out"), filepath.Join(dir, "host.c"), filepath.Join(dir, "host.o")
	require.NoError(t, os.WriteFile(host, []byte("int main(void) { return 0; }\n"), 0o644))
	for _, argv := range [][]string{
		{filepath.Join(llvmBin, "llvm-offload-binary"), "-o", pkg, "--image=file=" + a + ",triple=spirv64,arch=,kind=sycl"},
		{filepath.Join(llvmBin, "clang"), "-c", host, "-Xclang", "-fembed-offload-object=" + pkg, "-o", obj},
	} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	out := filepath.Join(dir, "dev.out")
	err, stderr := link(t, "--triple=spirv64", "-o", out, obj)
	require.NoError(t, err, stderr)
	data, _ := os.ReadFile(out)
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, bins, 1)
	assert.Equal(t, "_ZTS2KF\n_ZTS2KD\n_ZTS2KC", bins[0].Get("symbols"))
	err, _ = link(t, "--triple=spirv32", "-o", out+"2", obj)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "host.o: no bitcode image for triple spirv32")
	}
}

// LLVM 22's llvm-offload-binary reads every image of our output.
func TestOutputReadByLLVM(t *testing.T) {
	llvmtools.Tools(t, "clang", "llvm-link", "llvm-dis", "llc", "llvm-offload-binary")
	dir := t.TempDir()
	a := compile(t, dir, "a", splitSrcA)
	out := filepath.Join(dir, "k.out")
	err, stderr := link(t, "--triple=spirv64", "--module-split-mode=kernel", "-o", out, a)
	require.NoError(t, err, stderr)
	ex := filepath.Join(dir, "ex")
	require.NoError(t, os.Mkdir(ex, 0o755))
	cmd := exec.Command(filepath.Join(llvmBin, "llvm-offload-binary"), out, "--image=triple=spirv64")
	cmd.Dir = ex
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("llvm-offload-binary: %v\n%s", err, b)
	}
	ents, _ := os.ReadDir(ex)
	assert.Len(t, ents, 3)
}

// Another target: amdgpu kernels are split too and llc writes objects.
func TestAMDGPUSplit(t *testing.T) {
	llvmtools.Tools(t, "llvm-as", "llvm-dis", "llc")
	dir := t.TempDir()
	ll := filepath.Join(dir, "hip.ll")
	src := "target triple = \"amdgcn-amd-amdhsa\"\n" +
		"define internal void @h(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n" +
		"define amdgpu_kernel void @k1(ptr addrspace(1) %p) {\n  call void @h(ptr addrspace(1) %p)\n  ret void\n}\n" +
		"define amdgpu_kernel void @k2(ptr addrspace(1) %p) {\n  store i32 2, ptr addrspace(1) %p\n  ret void\n}\n"
	require.NoError(t, os.WriteFile(ll, []byte(src), 0o644))
	bc := filepath.Join(dir, "hip.bc")
	if out, err := exec.Command(filepath.Join(llvmBin, "llvm-as"), ll, "-o", bc).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out := filepath.Join(dir, "dev.out")
	err, stderr := link(t, "--triple=amdgcn-amd-amdhsa", "--arch=gfx90a", "--module-split-mode=kernel", "-o", out, bc)
	require.NoError(t, err, stderr)
	data, _ := os.ReadFile(out)
	bins, err := offload.ParseAll(data, offload.ReadOptions{})
	require.NoError(t, err)
	require.Len(t, bins, 2)
	for _, b := range bins {
		assert.Equal(t, format.ImgObject, b.ImageKind)
		assert.Equal(t, "gfx90a", b.Arch())
		assert.Equal(t, format.KindELF, format.Identify(b.Image))
	}
	assert.Equal(t, "k2", bins[0].Get("symbols"))
}
