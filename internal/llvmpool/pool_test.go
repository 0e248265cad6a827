package llvmpool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

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
	if os.Getenv("LLVMPOOL_TEST_ARENAS") != "" {
		probeArenas()
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

// spirvModules returns n distinct SPIR-V modules with many basic
// blocks: each has a kernel that calls eight to fourteen functions, each a loop
// around a chain of if/else diamonds, and ends in a switch.
func spirvModules(n int) []string {
	mods := make([]string, n)
	for i := range mods {
		var b strings.Builder
		b.WriteString(modA[:strings.Index(modA, "\n\n")+2])
		nf := 8 + i%7
		for j := range nf {
			fmt.Fprintf(&b, "define spir_func i32 @f%d_%d(i32 %%x, i32 %%n) {\nentry:\n  br label %%loop\nloop:\n", i, j)
			fmt.Fprintf(&b, "  %%i = phi i32 [ 0, %%entry ], [ %%i.next, %%latch ]\n  %%acc0 = phi i32 [ %%x, %%entry ], [ %%acc.next, %%latch ]\n  br label %%d0\n")
			nd := 4 + (i+j)%8
			for d := range nd {
				fmt.Fprintf(&b, "d%d:\n  %%c%d = icmp slt i32 %%acc%d, %d\n  br i1 %%c%d, label %%t%d, label %%e%d\n", d, d, d, 100+i*7+d, d, d, d)
				fmt.Fprintf(&b, "t%d:\n  %%m%d = mul i32 %%acc%d, %d\n  br label %%j%d\n", d, d, d, 3+d+j, d)
				fmt.Fprintf(&b, "e%d:\n  %%s%d = sub i32 %%acc%d, %d\n  br label %%j%d\n", d, d, d, i+d+1, d)
				next := fmt.Sprintf("d%d", d+1)
				if d == nd-1 {
					next = "latch"
				}
				fmt.Fprintf(&b, "j%d:\n  %%acc%d = phi i32 [ %%m%d, %%t%d ], [ %%s%d, %%e%d ]\n  br label %%%s\n", d, d+1, d, d, d, d, next)
			}
			fmt.Fprintf(&b, "latch:\n  %%acc.next = add i32 %%acc%d, %d\n  %%i.next = add i32 %%i, 1\n  %%done = icmp sge i32 %%i.next, %%n\n  br i1 %%done, label %%exit, label %%loop\nexit:\n  ret i32 %%acc.next\n}\n\n", nd, j+1)
		}
		fmt.Fprintf(&b, "define spir_kernel void @k%d(ptr addrspace(1) %%out, i32 %%n) {\nentry:\n  %%v0 = load i32, ptr addrspace(1) %%out, align 4\n", i)
		for j := range nf {
			fmt.Fprintf(&b, "  %%v%d = call spir_func i32 @f%d_%d(i32 %%v%d, i32 %%n)\n", j+1, i, j, j)
		}
		fmt.Fprintf(&b, "  %%sel = and i32 %%v%d, 3\n  switch i32 %%sel, label %%def [\n    i32 0, label %%s0\n    i32 1, label %%s1\n    i32 2, label %%s2\n  ]\n", nf)
		for c := range 3 {
			fmt.Fprintf(&b, "s%d:\n  %%w%d = add i32 %%v%d, %d\n  store i32 %%w%d, ptr addrspace(1) %%out, align 4\n  br label %%end\n", c, c, nf, c*11+i, c)
		}
		b.WriteString("def:\n  br label %end\nend:\n  ret void\n}\n")
		mods[i] = b.String()
	}
	return mods
}

// llcSPIRV is llc's SPIR-V for each module (run two at a time).
func llcSPIRV(t *testing.T, dir string, mods []string) [][]byte {
	want := make([][]byte, len(mods))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, m := range mods {
		ll := filepath.Join(dir, fmt.Sprintf("m%d.ll", i))
		require.NoError(t, os.WriteFile(ll, []byte(m), 0o644))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := exec.Command(filepath.Join(llvmBin, "llc"), "-mtriple=spirv64", "-filetype=obj", ll, "-o", "-").Output()
			assert.NoError(t, err, "llc %s", ll)
			want[i] = out
		}()
	}
	wg.Wait()
	return want
}

// TestSPIRVCodegenDistinctModules: distinct many-block modules, generated
// one after another through one helper slot (more than one helper's
// worth, spirvModulesPerHelper), give llc's bytes, every one. Without
// the workaround (LLVMPOOL_TEST_SPIRV_REUSE: plain reuse of one process,
// as LLVM 22 would need it), these modules mostly come out wrong: the
// second half of the test shows that the first half can fail.
func TestSPIRVCodegenDistinctModules(t *testing.T) {
	dir := t.TempDir()
	mods := spirvModules(spirvModulesPerHelper + 16)
	want := llcSPIRV(t, dir, mods)
	gen := func() (wrong int, invalid []int) {
		p := New(Config{Helpers: 1})
		defer p.Close()
		for i, m := range mods {
			got, err := p.Codegen(context.Background(), CodegenRequest{Name: fmt.Sprintf("m%d.ll", i), Text: []byte(m), Triple: "spirv64"})
			if err != nil || !bytes.Equal(want[i], got) {
				wrong++
				invalid = append(invalid, i)
			}
		}
		return wrong, invalid
	}
	wrong, which := gen()
	assert.Zero(t, wrong, "modules whose SPIR-V differs from llc's: %v", which)

	t.Setenv("LLVMPOOL_TEST_SPIRV_REUSE", "1")
	wrong, which = gen()
	t.Logf("plain reuse of one helper: %d of %d modules differ from llc: %v", wrong, len(mods), which)
	assert.Greater(t, wrong, len(mods)/2, "these modules no longer show LLVM 22's SPIR-V static state: the test above proves nothing")

	assert.True(t, spirvStatic(""), "no triple: the module's own may be SPIR-V")
	assert.True(t, spirvStatic("spirv64v1.5-unknown-unknown"))
	assert.False(t, spirvStatic("x86_64-unknown-linux-gnu"))
}

// TestSPIRVCodegenRetires: a helper retires after
// spirvModulesPerHelper SPIR-V modules, and serves other requests as
// before.
func TestSPIRVCodegenRetires(t *testing.T) {
	src, ll, want := spirvModule(t)
	p := newPool(t, Config{Helpers: 1})
	for range 3 {
		_, err := p.Assemble(context.Background(), "k.ll", []byte(src))
		require.NoError(t, err)
	}
	n := spirvModulesPerHelper + 3
	for i := range n {
		got, err := p.Codegen(context.Background(), CodegenRequest{Name: ll, Text: []byte(src), Triple: "spirv64"})
		require.NoError(t, err)
		require.Equal(t, want, got, "module %d", i)
	}
	assert.Equal(t, int64(2), p.started.Load(), "helpers for three assemblies and %d SPIR-V modules", n)
}

// TestFreshArenas: the workaround's check (spirv.go) on this glibc, in a
// new process as a helper would run it (glibc fixes its arena limit once
// a process has more than eight arenas, so the limit must be raised
// early): a goroutine that locks a new thread allocates from an arena of
// its own, which it finds at the start of its first heap, and threads that
// park for good keep theirs, so each finds a different one.
func TestFreshArenas(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LLVMPOOL_TEST_ARENAS=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}

// probeArenas is TestFreshArenas' child: it reports what went wrong, or
// "ok".
func probeArenas() {
	runtime.LockOSThread() // as Serve: the main thread (main arena) is not lent
	g, err := openGlibc()
	if err != nil {
		fmt.Println("this test runs on glibc:", err)
		return
	}
	g.mallopt(mArenaMax, 256)
	type res struct {
		arena  unsafe.Pointer
		ok     bool
		stayed bool
	}
	seen := map[unsafe.Pointer]bool{}
	for i := range 64 {
		ch := make(chan res)
		go func() {
			runtime.LockOSThread() // parks for good below: never unlocked
			a, ok := g.freshArena()
			ch <- res{a, ok, g.arenaStayed(a)}
			select {}
		}()
		switch r := <-ch; {
		case !r.ok:
			fmt.Printf("thread %d: no arena of its own found\n", i)
			return
		case !r.stayed:
			fmt.Printf("thread %d: a new arena has more than one heap\n", i)
			return
		case seen[r.arena]:
			fmt.Printf("thread %d: an arena seen before\n", i)
			return
		default:
			seen[r.arena] = true
		}
	}
	fmt.Println("ok")
}

// TestSPIRVCodegenFallback: where no module after a helper's first passes
// the arena check (LLVMPOOL_TEST_SPIRV_NO_ARENA), the helper refuses it
// ("retry") and retires, and the pool sends the module to a fresh helper.
// Every image is still llc's.
func TestSPIRVCodegenFallback(t *testing.T) {
	t.Setenv("LLVMPOOL_TEST_SPIRV_NO_ARENA", "1")
	dir := t.TempDir()
	mods := spirvModules(6)
	want := llcSPIRV(t, dir, mods)
	p := newPool(t, Config{Helpers: 2})
	var wg sync.WaitGroup
	for i, m := range mods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := p.Codegen(context.Background(), CodegenRequest{Name: fmt.Sprintf("m%d.ll", i), Text: []byte(m), Triple: "spirv64"})
			assert.NoError(t, err, "module %d", i)
			assert.Equal(t, want[i], got, "module %d", i)
		}()
	}
	wg.Wait()
	assert.GreaterOrEqual(t, p.started.Load(), int64(len(mods)), "one helper per SPIR-V module")
	assert.Greater(t, p.requests.Load(), int64(len(mods)), "refused requests sent again")
}

func TestTunable(t *testing.T) {
	const name = "glibc.malloc.hugetlb"
	assert.Equal(t, "", tunable("", name))
	assert.Equal(t, "2", tunable("glibc.malloc.hugetlb=2", name))
	assert.Equal(t, "1", tunable("glibc.malloc.arena_max=4:glibc.malloc.hugetlb=2:glibc.malloc.hugetlb=1", name))
	assert.Equal(t, "", tunable("glibc.malloc.hugetlbx=2", name))
}
