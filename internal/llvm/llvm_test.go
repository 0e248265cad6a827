package llvm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/testutil/llvmtools"
)

// The oracle: LLVM 22's tools (scripts/install-deps.sh installs llvm-22
// and libllvm22, whose libLLVM.so.22.1 the dynamic loader finds).
const (
	llvmBin = llvmtools.Dir
	soname  = "libLLVM.so.22.1"
)

var (
	libOnce sync.Once
	lib     *Lib
	libErr  error
)

// testLib is one Lib per test binary (each Open takes a purego callback,
// of which a process has 2000).
func testLib(t *testing.T) *Lib {
	t.Helper()
	libOnce.Do(func() { lib, libErr = Open(soname) })
	require.NoError(t, libErr)
	return lib
}

func tool(t *testing.T, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(llvmBin, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &out, &errb
	require.NoError(t, cmd.Run(), "%s %v: %s", name, args, errb.String())
	return out.Bytes()
}

func asm(t *testing.T, ll string) []byte { return tool(t, []byte(ll), "llvm-as", "-", "-o", "-") }

const modA = `target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spirv64-unknown-unknown"

@g = addrspace(1) global i32 7, align 4

declare spir_func i32 @helper(i32)

define spir_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %v = load i32, ptr addrspace(1) @g, align 4
  %r = call spir_func i32 @helper(i32 %v)
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }

!llvm.ident = !{!0}
!0 = !{!"clang version 22.1.8"}
`

const modB = `target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spirv64-unknown-unknown"

define spir_func i32 @helper(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}

!llvm.ident = !{!0}
!0 = !{!"clang version 22.1.8"}
`

func TestVersion(t *testing.T) {
	l := testLib(t)
	want := strings.TrimSpace(string(tool(t, nil, "llvm-config", "--version")))
	assert.Equal(t, want, l.Version())
	assert.Equal(t, 22, l.Major)
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "libLLVM.so.22.1"))
	require.ErrorIs(t, err, ErrNotFound)
	// a library that is not libLLVM
	_, err = Open("libc.so.6")
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "no symbol LLVM")
}

// TestParseBitcodePrint: a parsed module prints as llvm-dis prints it.
func TestParseBitcodePrint(t *testing.T) {
	l := testLib(t)
	bc := asm(t, modA)
	dir := t.TempDir()
	in := filepath.Join(dir, "a.bc")
	require.NoError(t, os.WriteFile(in, bc, 0o644))
	want := tool(t, nil, "llvm-dis", in, "-o", "-")

	c := l.NewContext()
	defer c.Dispose()
	m, err := c.ParseBitcode(in, bc)
	require.NoError(t, err)
	defer m.Dispose()
	assert.Equal(t, string(want), m.String())
	out := filepath.Join(dir, "a.ll")
	require.NoError(t, m.PrintToFile(out))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	assert.Equal(t, "spirv64-unknown-unknown", m.Target())
	assert.True(t, strings.HasPrefix(m.DataLayout(), "e-i64:64"))
}

// TestLink: linking into an empty "llvm-link" module gives llvm-link's
// module (compared as llvm-dis text).
func TestLink(t *testing.T) {
	l := testLib(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.bc"), filepath.Join(dir, "b.bc")
	require.NoError(t, os.WriteFile(a, asm(t, modA), 0o644))
	require.NoError(t, os.WriteFile(b, asm(t, modB), 0o644))
	linked := filepath.Join(dir, "linked.bc")
	tool(t, nil, "llvm-link", a, b, "-o", linked)
	want := tool(t, nil, "llvm-dis", linked, "-o", "-")

	c := l.NewContext()
	defer c.Dispose()
	dst := c.NewModule("llvm-link")
	defer dst.Dispose()
	for _, p := range []string{a, b} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		m, err := c.ParseBitcode(p, data)
		require.NoError(t, err)
		require.NoError(t, dst.Link(m))
	}
	require.NoError(t, dst.Verify())
	dst.SetIdentifier(linked)
	assert.Equal(t, string(want), dst.String())
}

func TestLinkConflict(t *testing.T) {
	l := testLib(t)
	c := l.NewContext()
	defer c.Dispose()
	dst := c.NewModule("llvm-link")
	defer dst.Dispose()
	for i := 0; i < 2; i++ {
		m, err := c.ParseIR("b.ll", []byte(modB))
		require.NoError(t, err)
		err = dst.Link(m)
		if i == 1 {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "symbol multiply defined")
			var le *Error
			require.ErrorAs(t, err, &le)
			assert.Equal(t, "link", le.Op)
		} else {
			require.NoError(t, err)
		}
	}
}

// TestBitcodeRoundTrip: bitcode written from parsed text passes the
// verifier (opt -passes=verify) and disassembles to llvm-as's module.
func TestBitcodeRoundTrip(t *testing.T) {
	l := testLib(t)
	c := l.NewContext()
	defer c.Dispose()
	m, err := c.ParseIR("<stdin>", []byte(modA)) // as llvm-as - names it
	require.NoError(t, err)
	defer m.Dispose()
	require.NoError(t, m.Verify())
	bc := m.AppendBitcode([]byte("prefix"))
	require.True(t, bytes.HasPrefix(bc, []byte("prefixBC\xc0\xde")))
	bc = bc[len("prefix"):]
	tool(t, bc, "opt", "-passes=verify", "-disable-output", "-")
	assert.Equal(t, string(tool(t, asm(t, modA), "llvm-dis", "-o", "-")), string(tool(t, bc, "llvm-dis", "-o", "-")))
}

func TestParseErrors(t *testing.T) {
	l := testLib(t)
	c := l.NewContext()
	defer c.Dispose()
	_, err := c.ParseIR("bad.ll", []byte("define void @f() {\n  ret i32 0\n}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.ll:2")
	assert.Contains(t, err.Error(), "value doesn't match function result type")

	bc := asm(t, modA)
	_, err = c.ParseBitcode("cut.bc", bc[:len(bc)/2])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parse bitcode: ")
	assert.Greater(t, len(err.Error()), len("parse bitcode: "))

	_, err = c.ParseBitcode("empty.bc", nil)
	require.Error(t, err)
}

func TestVerifyError(t *testing.T) {
	l := testLib(t)
	c := l.NewContext()
	defer c.Dispose()
	// parses, but %x is used before it is defined in the block
	m, err := c.ParseIR("v.ll", []byte("define i32 @f() {\n  %y = add i32 %x, 1\n  %x = add i32 1, 1\n  ret i32 %y\n}\n"))
	require.NoError(t, err)
	defer m.Dispose()
	err = m.Verify()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Instruction does not dominate all uses!")
	// (the "verify" pass itself aborts the process on a broken module:
	// LLVM reports it as a fatal error)
	err = m.RunPasses("no-such-pass", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown pass name 'no-such-pass'")
}

// TestEmitSPIRV: the SPIR-V backend in-process gives llc's bytes, and
// spirv-val accepts them.
func TestEmitSPIRV(t *testing.T) {
	l := testLib(t)
	l.InitTargets()
	dir := t.TempDir()
	ll := filepath.Join(dir, "k.ll")
	require.NoError(t, os.WriteFile(ll, []byte(strings.Replace(modA, "declare spir_func i32 @helper(i32)\n", strings.SplitN(strings.SplitN(modB, "\n\n", 2)[1], "\n\n", 2)[0]+"\n", 1)), 0o644))
	src, err := os.ReadFile(ll)
	require.NoError(t, err)
	want := tool(t, nil, "llc", "-mtriple=spirv64", "-filetype=obj", ll, "-o", "-")

	c := l.NewContext()
	defer c.Dispose()
	m, err := c.ParseIR(ll, src)
	require.NoError(t, err)
	defer m.Dispose()
	triple := l.NormalizeTriple("spirv64")
	assert.Equal(t, "spirv64", triple) // as llc -mtriple=spirv64 sets it
	m.SetTarget(triple)
	require.NoError(t, m.Verify())
	tm, err := l.NewTargetMachine(triple, "", "", OptDefault)
	require.NoError(t, err)
	defer tm.Dispose()
	spv, err := tm.Emit(nil, m, ObjectFile)
	require.NoError(t, err)
	assert.Equal(t, want, spv)
	p := filepath.Join(dir, "k.spv")
	require.NoError(t, os.WriteFile(p, spv, 0o644))
	out, err := exec.Command("spirv-val", p).CombinedOutput()
	require.NoError(t, err, "%s", out)

	_, err = l.NewTargetMachine("bogus-none-none", "", "", OptDefault)
	require.Error(t, err)
}

// TestContextsInParallel: one context per goroutine.
func TestContextsInParallel(t *testing.T) {
	l := testLib(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := l.NewContext()
			defer c.Dispose()
			for j := 0; j < 20; j++ {
				m, err := c.ParseIR("b.ll", []byte(modB))
				if err != nil {
					errs[i] = err
					return
				}
				if len(m.AppendBitcode(nil)) == 0 {
					errs[i] = assert.AnError
				}
				m.Dispose()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}
