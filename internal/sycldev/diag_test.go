package sycldev

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
)

// TestLLVMWarningsReachUser: linking a module of another triple and data
// layout prints LLVM's two warnings on standard error, in the words
// llvm-link 22 prints them (clang-sycl-linker prints the same with
// 'sycl-device-link' for our 'llvm-link' as the module linked into), with
// LLVM in-process and as child processes. They used to be dropped.
func TestLLVMWarningsReachUser(t *testing.T) {
	dir := t.TempDir()
	k := syclBitcode(t, dir, "a", srcA)
	xll, x := filepath.Join(dir, "x.ll"), filepath.Join(dir, "x.bc")
	require.NoError(t, os.WriteFile(xll, []byte(`target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @hostfn(i32 %x) {
  ret i32 %x
}
`), 0o644))
	require.NoError(t, exec.Command(filepath.Join(llvmBin, "llvm-as"), xll, "-o", x).Run())
	var ref bytes.Buffer
	cmd := exec.Command(filepath.Join(llvmBin, "llvm-link"), k, x, "-o", os.DevNull)
	cmd.Stderr = &ref
	require.NoError(t, cmd.Run())
	var want []string
	for _, l := range strings.Split(ref.String(), "\n") {
		if l != "" {
			want = append(want, l)
		}
	}
	require.Len(t, want, 2, ref.String())
	assert.Contains(t, want[1], "warning: Linking two modules of different target triples: ")

	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	defer pool.Close()
	for _, mode := range []struct {
		name string
		pool *llvmpool.Pool
	}{{"process", nil}, {"inproc", pool}} {
		t.Run(mode.name, func(t *testing.T) {
			o, err := ParseArgs([]string{"--triple=spirv64", "-o", filepath.Join(t.TempDir(), "dev.out"), k, x})
			require.NoError(t, err)
			var so, se bytes.Buffer
			env := &Env{Env: driverenv.Env{Stdout: &so, Stderr: &se, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}}
			if mode.pool != nil {
				env.LLVM = mode.pool
			}
			require.NoError(t, Run(context.Background(), env, *o), se.String())
			// then sycl-linker's own warning (srcA calls a function it does not define)
			assert.True(t, strings.HasPrefix(se.String(), strings.Join(want, "\n")+"\n"), "%s", se.String())
			assert.Equal(t, 2, strings.Count(se.String(), "\nwarning: ")+1)
		})
	}
}
