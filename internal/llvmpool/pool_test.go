package llvmpool

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/format/ar"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// This test binary serves as its own helper.
func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		helperTestHooks()
		os.Exit(Serve(os.Args, os.Stdin, os.Stdout))
	}
	if testParent() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const llvmBin = llvmtools.Dir

func tool(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(llvmBin, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "%s %v: %s", name, args, errb.String())
	return out.Bytes()
}

const modA = `target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spirv64-unknown-unknown"

declare spir_func i32 @helper(i32)

define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %v = load i32, ptr addrspace(1) %out, align 4
  %r = call spir_func i32 @helper(i32 %v)
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}
`

const modB = `target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spirv64-unknown-unknown"

define spir_func i32 @helper(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
`

func files(t *testing.T) (dir, a, b string) {
	dir = t.TempDir()
	for n, src := range map[string]string{"a": modA, "b": modB} {
		ll := filepath.Join(dir, n+".ll")
		require.NoError(t, os.WriteFile(ll, []byte(src), 0o644))
		tool(t, "llvm-as", ll, "-o", filepath.Join(dir, n+".bc"))
	}
	return dir, filepath.Join(dir, "a.bc"), filepath.Join(dir, "b.bc")
}

func newPool(t *testing.T, cfg Config) *Pool {
	p := New(cfg)
	t.Cleanup(func() { p.Close() })
	return p
}

func TestStartDescribe(t *testing.T) {
	p := newPool(t, Config{Helpers: 2})
	require.NoError(t, p.Start(context.Background()))
	assert.Regexp(t, `^libLLVM 22\.\d+\.\d+ \(.*libLLVM.so.22.1\), up to 2 helper processes$`, p.Describe())
}

func TestDisabledAndMissing(t *testing.T) {
	p := newPool(t, Config{Mode: "process"})
	require.ErrorIs(t, p.Start(context.Background()), ErrDisabled)

	// a library that is not there, and one of another release: the
	// helper says why (the soname fallback is of the wrong release too)
	p = newPool(t, Config{Mode: filepath.Join(t.TempDir(), "libLLVM.so.22.1"), Major: 19})
	err := p.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no usable libLLVM")
	assert.Regexp(t, `libLLVM.so.19.1 (\(LLVM 19\.\d+\.\d+\): no symbol|is LLVM 19\.)`, err.Error())

	// an executable that is not a helper
	p = newPool(t, Config{Exe: "/bin/true"})
	err = p.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not start")

	var nilPool *Pool
	require.Error(t, nilPool.Start(context.Background()))
	require.NoError(t, nilPool.Close())
}

// TestCandidates: the link's LLVM first (llvm-config --libdir, then
// beside llc), the LLVM-22 directory, the soname last.
func TestCandidates(t *testing.T) {
	dir := t.TempDir()
	bin, lib := filepath.Join(dir, "bin"), filepath.Join(dir, "lib")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.MkdirAll(lib, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "libLLVM.so.22.1"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(lib, "libLLVM.so"), nil, 0o644))
	for _, n := range []string{"llvm-config", "llc"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\necho "+lib+"\n"), 0o755))
	}
	// llvm-config names another directory
	lib2 := filepath.Join(dir, "lib64")
	require.NoError(t, os.MkdirAll(lib2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lib2, "libLLVM-22.so"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "llvm-config"), []byte("#!/bin/sh\necho "+lib2+"\n"), 0o755))
	tc := &run.Toolchain{LLVMDir: bin, LLVMDirWhy: "test"}
	p := New(Config{Tools: tc, Mode: "/opt/x/libLLVM.so.22.1"})
	got := p.candidates(context.Background())
	want := []string{"/opt/x/libLLVM.so.22.1", filepath.Join(lib, "libLLVM.so.22.1"), filepath.Join(lib, "libLLVM.so"), filepath.Join(lib2, "libLLVM-22.so")}
	require.GreaterOrEqual(t, len(got), 5, "%q", got)
	assert.Equal(t, want, got[:4])
	assert.Equal(t, "libLLVM.so.22.1", got[len(got)-1])
}

// TestDis: reading one module gives llvm-dis's text.
func TestDis(t *testing.T) {
	_, a, _ := files(t)
	p := newPool(t, Config{Helpers: 1})
	out := filepath.Join(t.TempDir(), "a.ll")
	require.NoError(t, p.Link(context.Background(), LinkRequest{Inputs: []string{a}, LL: out}))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(tool(t, "llvm-dis", a, "-o", "-")), string(got))
}

// TestLink: linking two modules and an archive gives llvm-link's module
// (as llvm-dis prints it, with the same ModuleID).
func TestLink(t *testing.T) {
	dir, a, b := files(t)
	// an archive holding b.bc
	bb, err := os.ReadFile(b)
	require.NoError(t, err)
	lib := filepath.Join(dir, "libb.a")
	f, err := os.Create(lib)
	require.NoError(t, err)
	require.NoError(t, ar.WriteGNU(f, []ar.WriteMember{{Name: "b.bc", Data: bb}}))
	require.NoError(t, f.Close())
	p := newPool(t, Config{Helpers: 2})
	for _, inputs := range [][]string{{a, b}, {a, lib}} {
		ref := filepath.Join(dir, "ref.bc")
		tool(t, "llvm-link", append(inputs, "-o", ref)...)
		want := tool(t, "llvm-dis", ref, "-o", "-")
		ll, bc := filepath.Join(dir, "ours.ll"), filepath.Join(dir, "ours.bc")
		require.NoError(t, p.Link(context.Background(), LinkRequest{Link: true, Inputs: inputs, Ident: ref, LL: ll, BC: bc}))
		got, err := os.ReadFile(ll)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%v", inputs)
		tool(t, "opt", "-passes=verify", "-disable-output", bc)
	}
	// a conflict, a missing input, a non-bitcode archive member
	err = p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{b, b}, LL: filepath.Join(dir, "x.ll")})
	require.Error(t, err)
	assert.Equal(t, b+": link: Linking globals named 'helper': symbol multiply defined!", err.Error())
	err = p.Link(context.Background(), LinkRequest{Link: true, Inputs: []string{a, filepath.Join(dir, "none.bc")}, LL: filepath.Join(dir, "x.ll")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "none.bc: no such file or directory")
	var le *Error
	require.ErrorAs(t, err, &le)
}

func TestAssemble(t *testing.T) {
	dir, _, _ := files(t)
	p := newPool(t, Config{Helpers: 1})
	bc, err := p.Assemble(context.Background(), "a.ll", []byte(modA))
	require.NoError(t, err)
	out := filepath.Join(dir, "x.bc")
	require.NoError(t, os.WriteFile(out, bc, 0o644))
	tool(t, "opt", "-passes=verify", "-disable-output", out)
	assert.Contains(t, string(tool(t, "llvm-dis", out, "-o", "-")), "define spir_kernel void @k(")

	_, err = p.Assemble(context.Background(), "bad.ll", []byte("define void @f() {\n  ret i32 0\n}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.ll:2:")
	// parses, but does not verify: llvm-as refuses it too
	_, err = p.Assemble(context.Background(), "v.ll", []byte("define i32 @f() {\n  %y = add i32 %x, 1\n  %x = add i32 1, 1\n  ret i32 %y\n}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Instruction does not dominate all uses!")
}

// spirvModule writes modA with @helper defined to a temporary k.ll and
// returns its text, its path and llc's SPIR-V for it.
func spirvModule(t *testing.T) (src, ll string, want []byte) {
	src = strings.Replace(modA, "declare spir_func i32 @helper(i32)\n", "define spir_func i32 @helper(i32 %x) {\n  ret i32 %x\n}\n", 1)
	ll = filepath.Join(t.TempDir(), "k.ll")
	require.NoError(t, os.WriteFile(ll, []byte(src), 0o644))
	return src, ll, tool(t, "llc", "-mtriple=spirv64", "-filetype=obj", ll, "-o", "-")
}

// TestCodegen: llc's bytes, from parallel requests on two helpers.
func TestCodegen(t *testing.T) {
	src, ll, want := spirvModule(t)
	p := newPool(t, Config{Helpers: 2})
	var wg sync.WaitGroup
	got := make([][]byte, 6)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = p.Codegen(context.Background(), CodegenRequest{Name: ll, Text: []byte(src), Triple: "spirv64"})
		}()
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		assert.Equal(t, want, got[i])
	}
	spv := filepath.Join(filepath.Dir(ll), "k.spv")
	require.NoError(t, os.WriteFile(spv, got[0], 0o644))
	out, err := exec.Command("spirv-val", spv).CombinedOutput()
	require.NoError(t, err, "%s", out)

}

// TestOptions: LLVM options go to a helper group of their own (they are
// per process): inline assembly needs a SPIR-V extension.
func TestOptions(t *testing.T) {
	dir := t.TempDir()
	ll := filepath.Join(dir, "asm.ll")
	require.NoError(t, os.WriteFile(ll, []byte(inlineAsm), 0o644))
	const ext = "--spirv-ext=+SPV_INTEL_inline_assembly"
	p := newPool(t, Config{Helpers: 1})
	got, err := p.Codegen(context.Background(), CodegenRequest{Name: ll, Text: []byte(inlineAsm), Triple: "spirv64", Options: []string{ext}})
	require.NoError(t, err)
	assert.Equal(t, tool(t, "llc", "-mtriple=spirv64", "-filetype=obj", ext, ll, "-o", "-"), got)
}

const inlineAsm = "define spir_func void @f() {\n  call void asm sideeffect \"nop\", \"\"()\n  ret void\n}\n"

// TestCrash: a fatal error inside LLVM ends the helper, not the caller;
// the request fails with LLVM's message and the next one gets a new
// helper.
func TestCrash(t *testing.T) {
	p := newPool(t, Config{Helpers: 1})
	_, err := p.Codegen(context.Background(), CodegenRequest{Name: "asm.ll", Text: []byte(inlineAsm), Triple: "spirv64"})
	require.Error(t, err)
	var ce *CrashError
	require.True(t, errors.As(err, &ce), "%T %v", err, err)
	assert.Contains(t, err.Error(), "LLVM crashed: LLVM ERROR: Inline assembly instructions require the following SPIR-V extension")
	assert.Contains(t, err.Error(), "(helper process ")
	assert.NotContains(t, err.Error(), "\n")

	bc, err := p.Assemble(context.Background(), "b.ll", []byte(modB))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(bc, []byte("BC")))
}

// TestCancel: a cancelled request kills its helper.
func TestCancel(t *testing.T) {
	p := newPool(t, Config{Helpers: 1})
	require.NoError(t, p.Start(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Assemble(ctx, "b.ll", []byte(modB))
	require.ErrorIs(t, err, context.Canceled)
	_, err = p.Assemble(context.Background(), "b.ll", []byte(modB))
	require.NoError(t, err)
}

// TestSPIRVCodegenOnePerHelper: a helper generates SPIR-V once, then ends
// (LLVM 22's SPIR-V backend keeps module state in a static, so a second
// module in one process may get colliding result IDs); other requests
// reuse helpers. Forty modules through one helper slot each match llc and
// validate.
func TestSPIRVCodegenOnePerHelper(t *testing.T) {
	src, ll, want := spirvModule(t)

	p := newPool(t, Config{Helpers: 1})
	for range 3 {
		_, err := p.Assemble(context.Background(), "k.ll", []byte(src))
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), p.started.Load(), "helpers started for three assemblies")
	const n = 40
	for i := range n {
		got, err := p.Codegen(context.Background(), CodegenRequest{Name: ll, Text: []byte(src), Triple: "spirv64"})
		require.NoError(t, err)
		require.Equal(t, want, got, "module %d", i)
	}
	// the first module goes to the helper that assembled, which has
	// generated no SPIR-V yet; every later one to a new helper
	assert.Equal(t, int64(n), p.started.Load(), "one helper per SPIR-V module")
	assert.Equal(t, int64(3+n), p.requests.Load())
	assert.True(t, spirvStatic(""), "no triple: the module's own may be SPIR-V")
	assert.True(t, spirvStatic("spirv64v1.5-unknown-unknown"))
	assert.False(t, spirvStatic("x86_64-unknown-linux-gnu"))
}
