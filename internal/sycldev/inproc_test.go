package sycldev

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/offload"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
)

// This test binary serves as the in-process LLVM's helper processes.
func TestMain(m *testing.M) {
	if llvmpool.IsHelper(os.Args) {
		os.Exit(llvmpool.Serve(os.Args, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// two SYCL translation units (clang 22 -fsycl-is-device) for the
// differential tests: three kernels, one using double
const srcA = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }
struct KD; struct KI;
int shared_helper(int x);
void f(double *d, int *i) {
  kl<KD>([=] { d[0] = d[1] * 2.5; });
  kl<KI>([=] { i[0] = shared_helper(i[1]) + 1; });
}
`

const srcB = `
template <typename N, typename K>
[[clang::sycl_kernel_entry_point(N)]] void kl(K k) { k(); }
struct KB;
int shared_helper(int x) { return x * 3; }
void g(int *i) {
  kl<KB>([=] { i[0] = shared_helper(i[2]); });
}
`

func syclBitcode(t *testing.T, dir, name, src string) string {
	t.Helper()
	cpp, bc := filepath.Join(dir, name+".cpp"), filepath.Join(dir, name+".bc")
	require.NoError(t, os.WriteFile(cpp, []byte(src), 0o644))
	var errb bytes.Buffer
	require.NoError(t, run.Exec{}.Run(context.Background(), &run.Cmd{
		Args:   []string{filepath.Join(llvmBin, "clang"), "-cc1", "-fsycl-is-device", "-triple", "spirv64", "-O2", "-emit-llvm-bc", cpp, "-o", bc},
		Stderr: &errb,
	}), errb.String())
	return bc
}

// runBoth runs the same command line with LLVM's programs as child
// processes and in-process, each into its own output directory (the
// command names it as OUT), and returns both directories and -v outputs.
func runBoth(t *testing.T, args ...string) (child, inproc string, childLog, inprocLog string) {
	t.Helper()
	do := func(pool *llvmpool.Pool) (string, string) {
		dir := t.TempDir()
		var a []string
		for _, x := range args {
			a = append(a, strings.ReplaceAll(x, "OUT", dir))
		}
		o, err := ParseArgs(append(a, "-v"))
		require.NoError(t, err)
		var out, errb bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}, LLVM: pool}
		require.NoError(t, Run(context.Background(), env, *o), errb.String())
		return dir, errb.String()
	}
	child, childLog = do(nil)
	pool := llvmpool.New(llvmpool.Config{Helpers: 2})
	defer pool.Close()
	inproc, inprocLog = do(pool)
	assert.Contains(t, childLog, "sycl-linker: LLVM runs as child processes")
	assert.Regexp(t, `sycl-linker: LLVM runs in-process: libLLVM 22\.[0-9.]+ \(.*\), up to 2 helper processes`, inprocLog)
	return
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// TestInProcessIROutputs: the per-kernel split of two linked TUs writes
// the same files both ways; .ll, .prop, .sym and the table are
// byte-identical, the .bc files verify and disassemble to the same text.
func TestInProcessIROutputs(t *testing.T) {
	needTools(t, "clang", "llvm-link", "llvm-dis", "llvm-as", "opt")
	dir := t.TempDir()
	a, b := syclBitcode(t, dir, "a", srcA), syclBitcode(t, dir, "b", srcB)
	for _, text := range []bool{true, false} {
		args := []string{"--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-o", "OUT/out.table", a, b}
		if text {
			args = append(args, "-S")
		}
		child, inproc, childLog, inprocLog := runBoth(t, args...)
		require.Equal(t, listDir(t, child), listDir(t, inproc))
		assert.Len(t, listDir(t, child), 1+3*3, "a table and three parts")
		assert.Contains(t, inprocLog, "in-process: \"llvm-link\" "+a+" "+b+" -o ")
		assert.NotContains(t, inprocLog, llvmBin+"/llvm-link\"")
		assert.Contains(t, childLog, llvmBin+"/llvm-link\"")
		for _, n := range listDir(t, child) {
			c, i := readBytes(t, filepath.Join(child, n)), readBytes(t, filepath.Join(inproc, n))
			switch filepath.Ext(n) {
			case ".bc":
				llvm(t, "opt", "-passes=verify", "-disable-output", filepath.Join(inproc, n))
				dc, di := filepath.Join(dir, "c.ll"), filepath.Join(dir, "i.ll")
				llvm(t, "llvm-dis", filepath.Join(child, n), "-o", dc)
				llvm(t, "llvm-dis", filepath.Join(inproc, n), "-o", di)
				assert.Equal(t, strings.ReplaceAll(string(readBytes(t, dc)), child, "OUT"), strings.ReplaceAll(string(readBytes(t, di)), inproc, "OUT"), n)
			default:
				assert.Equal(t, strings.ReplaceAll(string(c), child, "OUT"), strings.ReplaceAll(string(i), inproc, "OUT"), n)
			}
		}
	}
}

// TestInProcessSPIRV: per-kernel SPIR-V images are llc's bytes and pass
// spirv-val (--spirv-val runs it on the in-process images); without a
// split, --print-linked-module prints llvm-dis's text.
func TestInProcessSPIRV(t *testing.T) {
	needTools(t, "clang", "llvm-link", "llvm-dis", "llc")
	dir := t.TempDir()
	a, b := syclBitcode(t, dir, "a", srcA), syclBitcode(t, dir, "b", srcB)
	for _, split := range []string{"kernel", "none"} {
		child, inproc, _, inprocLog := runBoth(t, "--triple=spirv64", "--module-split-mode="+split, "--spirv-val", "-o", "OUT/dev.out", a, b)
		assert.Contains(t, inprocLog, "in-process: \"llc\" -mtriple=spirv64 -filetype=obj ")
		cb, ib := readBytes(t, filepath.Join(child, "dev.out")), readBytes(t, filepath.Join(inproc, "dev.out"))
		cbins, err := offload.ParseAll(cb, offload.ReadOptions{})
		require.NoError(t, err)
		ibins, err := offload.ParseAll(ib, offload.ReadOptions{})
		require.NoError(t, err)
		require.Len(t, ibins, len(cbins))
		if split == "kernel" {
			assert.Len(t, ibins, 3)
		}
		assert.Equal(t, cb, ib, "the same OffloadBinaries, byte for byte")
		assert.Equal(t, []string{"dev.out"}, listDir(t, inproc), "no .spv or .ll left beside the output")
	}

	// --print-linked-module: llvm-dis's text of llvm-link's module
	var outs []string
	for _, pool := range []*llvmpool.Pool{nil, llvmpool.New(llvmpool.Config{Helpers: 1})} {
		o, err := ParseArgs([]string{"--triple=spirv64", "--print-linked-module", "--save-temps", "-o", filepath.Join(t.TempDir(), "dev.out"), a, b})
		require.NoError(t, err)
		var out, errb bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}, LLVM: pool}
		require.NoError(t, Run(context.Background(), env, *o), errb.String())
		outs = append(outs, strings.ReplaceAll(out.String(), filepath.Dir(o.Output), "OUT"))
		pool.Close()
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[1], "; ModuleID = 'OUT/dev-linked.bc'")
}

// TestInProcessDisabled: OFFLOAD_KIT_LLVM=process (Mode "process") and an
// unusable library keep the child processes, and -v says why.
func TestInProcessDisabled(t *testing.T) {
	needTools(t, "clang", "llvm-dis", "llc")
	dir := t.TempDir()
	a := syclBitcode(t, dir, "a", srcA)
	for mode, why := range map[string]string{
		"process":                      "in-process LLVM disabled (OFFLOAD_KIT_LLVM=process)",
		filepath.Join(dir, "no.so.22"): "no usable libLLVM",
	} {
		pool := llvmpool.New(llvmpool.Config{Mode: mode, Major: 99})
		o, err := ParseArgs([]string{"--triple=spirv64", "-v", "-o", filepath.Join(dir, "dev.out"), a})
		require.NoError(t, err)
		var out, errb bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}, LLVM: pool}
		require.NoError(t, Run(context.Background(), env, *o), errb.String())
		assert.Contains(t, errb.String(), "sycl-linker: LLVM runs as child processes: "+why)
		assert.Contains(t, errb.String(), llvmBin+"/llc\"")
		pool.Close()
	}
}

// TestInProcessErrors: LLVM's errors name the input, and a failed run
// leaves no output behind.
func TestInProcessErrors(t *testing.T) {
	needTools(t, "clang")
	dir := t.TempDir()
	a := syclBitcode(t, dir, "a", srcA)
	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	defer pool.Close()
	runErr := func(args ...string) error {
		o, err := ParseArgs(args)
		require.NoError(t, err)
		var out, errb bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}, LLVM: pool}
		return Run(context.Background(), env, *o)
	}
	bc := readBytes(t, a)
	cut := filepath.Join(dir, "cut.bc")
	require.NoError(t, os.WriteFile(cut, bc[:len(bc)/2], 0o644))
	out := filepath.Join(t.TempDir(), "o")
	require.NoError(t, os.Mkdir(out, 0o755))
	err := runErr("--triple=spirv64", "-o", filepath.Join(out, "dev.out"), cut)
	require.Error(t, err)
	assert.Regexp(t, `^`+cut+`: `, err.Error())
	assert.NotContains(t, err.Error(), "\n")
	err = runErr("--triple=spirv64", "-o", filepath.Join(out, "dev.out"), a, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symbol multiply defined")
	err = runErr("--triple=spirv64", "--module-split-mode=kernel", "--ir-output-only", "-o", filepath.Join(out, "t.table"), cut)
	require.Error(t, err)
	assert.Empty(t, listDir(t, out))
}
