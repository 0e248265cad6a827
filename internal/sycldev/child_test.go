package sycldev

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
)

// linkModes runs f once with LLVM's programs as child processes and once
// in-process (a pool of one helper).
func linkModes(t *testing.T, f func(t *testing.T, pool *llvmpool.Pool)) {
	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	t.Cleanup(func() { pool.Close() })
	t.Run("process", func(t *testing.T) { f(t, nil) })
	t.Run("inproc", func(t *testing.T) { f(t, pool) })
}

// linkWith runs sycl-linker's pipeline on args (-o and --triple added)
// with pool (nil: child processes), the tools of dirs before LLVM's and
// the environment vars; it returns the output, standard error and error.
func linkWith(t *testing.T, pool *llvmpool.Pool, dirs []string, vars map[string]string, args ...string) ([]byte, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "dev.out")
	o, err := ParseArgs(append([]string{"--triple=spirv64", "-o", out}, args...))
	require.NoError(t, err)
	var so, se bytes.Buffer
	// the tools of dirs, then LLVM's, then /usr/bin
	path := strings.Join(append(append(dirs[:len(dirs):len(dirs)], llvmBin), "/usr/bin"), string(os.PathListSeparator))
	env := &Env{Env: driverenv.Env{Stdout: &so, Stderr: &se, NumCPU: 2, LookupEnv: func(k string) (string, bool) {
		if k == "PATH" {
			return path, true
		}
		v, ok := vars[k]
		return v, ok
	}, Runner: run.Exec{}}}
	if pool != nil {
		env.LLVM = pool
	}
	err = Run(context.Background(), env, *o)
	b, _ := os.ReadFile(out)
	return b, se.String(), err
}

// TestChildTimeout: a child LLVM program that hangs (a fake llvm-link
// that sleeps) is killed once it has made no progress for
// $OFFLOAD_KIT_LLVM_TIMEOUT, and the error names the program and the
// step's inputs. Before, the link waited for it forever.
func TestChildTimeout(t *testing.T) {
	dir := t.TempDir()
	a := syclBitcode(t, dir, "a", srcA)
	b := syclBitcode(t, dir, "b", srcB)
	fake := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(fake, "llvm-link"), []byte("#!/bin/sh\nsleep 20\n"), 0o755))
	start := time.Now()
	_, _, err := linkWith(t, nil, []string{fake}, map[string]string{"OFFLOAD_KIT_LLVM_TIMEOUT": "0.3"}, a, b)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, a+", "+b+": 'llvm-link' made no progress (no output, no CPU time) for 300ms and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", err.Error())
	var te *run.TimeoutError
	assert.ErrorAs(t, err, &te)
}

// llvmAs assembles IR text into dir/name.bc.
func llvmAs(t *testing.T, dir, name, text string) string {
	t.Helper()
	ll, bc := filepath.Join(dir, name+".ll"), filepath.Join(dir, name+".bc")
	require.NoError(t, os.WriteFile(ll, []byte(text), 0o644))
	out, err := exec.Command(filepath.Join(llvmBin, "llvm-as"), ll, "-o", bc).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bc
}

// referenceStderr runs an LLVM program and returns its standard error's
// non-empty lines and whether it succeeded.
func referenceStderr(t *testing.T, prog string, args ...string) ([]string, bool) {
	t.Helper()
	var se bytes.Buffer
	cmd := exec.Command(filepath.Join(llvmBin, prog), args...)
	cmd.Stderr = &se
	err := cmd.Run()
	var lines []string
	for _, l := range strings.Split(se.String(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, err == nil
}

const hostIR = `target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @hostfn(i32 %x) {
  ret i32 %x
}
`

// TestDeviceLibWarnings: llvm-link's warnings from the device-library link
// (--only-needed of --device-libs, a library whose data layout differs)
// reach the user as llvm-link prints them, with LLVM in-process and as
// child processes. Before, they were dropped.
func TestDeviceLibWarnings(t *testing.T) {
	dir := t.TempDir()
	k := syclBitcode(t, dir, "a", srcA)
	lib := llvmAs(t, dir, "lib", `target datalayout = "e-m:e-i64:64"
target triple = "spirv64"

define spir_func i32 @_Z13shared_helperi(i32 %x) {
  ret i32 %x
}
`)
	want, ok := referenceStderr(t, "llvm-link", "--only-needed", k, lib, "-o", os.DevNull)
	require.True(t, ok)
	require.Len(t, want, 1)
	require.Contains(t, want[0], "warning: Linking two modules of different data layouts: '"+lib+"' is ")
	linkModes(t, func(t *testing.T, pool *llvmpool.Pool) {
		_, se, err := linkWith(t, pool, nil, nil, "--device-libs="+lib, k)
		require.NoError(t, err, se)
		assert.Equal(t, want[0]+"\n", se)
	})
}

// TestFailingStepWarnings: when a step fails, the warnings LLVM gave on
// the way reach the user as llvm-link prints them, before the error, and
// the error holds only the error: three modules of which two define the
// same function and one has another triple and data layout. With child
// processes they come from llvm-link's standard error; in process, with
// the helper's error response (llvmpool's status 3).
func TestFailingStepWarnings(t *testing.T) {
	dir := t.TempDir()
	k := syclBitcode(t, dir, "a", srcA)
	x := llvmAs(t, dir, "x", hostIR)
	dup := llvmAs(t, dir, "dup", strings.Replace(hostIR, "ret i32 %x", "ret i32 0", 1))
	ref, ok := referenceStderr(t, "llvm-link", k, x, dup, "-o", os.DevNull)
	require.False(t, ok)
	require.Len(t, ref, 3)
	require.Equal(t, "error: Linking globals named 'hostfn': symbol multiply defined!", ref[2])
	linkModes(t, func(t *testing.T, pool *llvmpool.Pool) {
		_, se, err := linkWith(t, pool, nil, nil, k, x, dup)
		require.Error(t, err)
		assert.Equal(t, strings.Join(ref[:2], "\n")+"\n", se, "the warnings before the failure")
		if pool == nil {
			assert.Equal(t, "llvm-link: "+ref[2], err.Error())
		} else {
			assert.Contains(t, err.Error(), "Linking globals named 'hostfn': symbol multiply defined!")
		}
	})
}

// TestCorruptLoneInput: a lone input that is corrupt bitcode fails with
// one line naming the user's file, in-process and with child processes
// (llvm-dis's own message names no file).
func TestCorruptLoneInput(t *testing.T) {
	dir := t.TempDir()
	k := syclBitcode(t, dir, "a", srcA)
	data, err := os.ReadFile(k)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.bc")
	require.NoError(t, os.WriteFile(bad, data[:100], 0o644))
	ref, ok := referenceStderr(t, "llvm-dis", bad, "-o", os.DevNull)
	require.False(t, ok)
	require.Len(t, ref, 1)
	_, llvmMsg, found := strings.Cut(ref[0], ": error: ")
	require.True(t, found, ref[0])
	linkModes(t, func(t *testing.T, pool *llvmpool.Pool) {
		_, _, err := linkWith(t, pool, nil, nil, bad)
		require.Error(t, err)
		assert.Equal(t, bad+": error: "+llvmMsg, err.Error())
	})
}

// fifoOf makes a FIFO in dir named name that serves data once.
func fifoOf(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	fifo := filepath.Join(dir, name)
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	return fifo
}

// TestStreamLibraries: a -l library and a --device-libs file given as a
// FIFO, or as /dev/stdin, are read once and link exactly as the same
// bytes from a regular file, in-process and with child processes. Before,
// a FIFO lib<name>.a was not found and a --device-libs FIFO could not be
// mapped to read its triple.
func TestStreamLibraries(t *testing.T) {
	dir := t.TempDir()
	k := syclBitcode(t, dir, "a", srcA)
	helper := syclBitcode(t, dir, "h", "int shared_helper(int x) { return x * 3; }\n")
	helperData, err := os.ReadFile(helper)
	require.NoError(t, err)
	lib := llvmAs(t, dir, "lib", `target triple = "spirv64"

define spir_func i32 @_Z13shared_helperi(i32 %x) {
  ret i32 %x
}
`)
	libData, err := os.ReadFile(lib)
	require.NoError(t, err)
	linkModes(t, func(t *testing.T, pool *llvmpool.Pool) {
		t.Run("l", func(t *testing.T) {
			regular, fifos := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(regular, "libh.bc"), helperData, 0o644))
			want, se, err := linkWith(t, pool, nil, nil, k, "-L"+regular, "-lh")
			require.NoError(t, err, se)
			without, _, err := linkWith(t, pool, nil, nil, k)
			require.NoError(t, err)
			require.NotEqual(t, without, want, "the library is linked")
			fifoOf(t, fifos, "libh.bc", helperData)
			got, se, err := linkWith(t, pool, nil, nil, k, "-L"+fifos, "-lh")
			require.NoError(t, err, se)
			assert.Equal(t, want, got)
		})
		t.Run("device-libs", func(t *testing.T) {
			want, se, err := linkWith(t, pool, nil, nil, "--device-libs="+lib, k)
			require.NoError(t, err, se)
			without, _, err := linkWith(t, pool, nil, nil, k)
			require.NoError(t, err)
			require.NotEqual(t, without, want, "the library is linked")
			fifo := fifoOf(t, t.TempDir(), "lib.bc", libData)
			got, se, err := linkWith(t, pool, nil, nil, "--device-libs="+fifo, k)
			require.NoError(t, err, se)
			assert.Equal(t, want, got)
			f, err := os.Open(lib)
			require.NoError(t, err)
			defer f.Close()
			withStdin(t, f, func() {
				got, se, err = linkWith(t, pool, nil, nil, "--device-libs=/dev/stdin", k)
			})
			require.NoError(t, err, se)
			assert.Equal(t, want, got)
			// --ir-output-only checks its outputs against the libraries:
			// the FIFOs are not opened again (that waited for a writer
			// forever)
			irOut := func(lib, libDir string) map[string]string {
				out := t.TempDir()
				done := make(chan error, 1)
				go func() {
					_, _, err := linkWith(t, pool, nil, nil, "--ir-output-only", "--module-split-mode=kernel", "--out-dir="+out, "--device-libs="+lib, "-L"+libDir, "-lh", k)
					done <- err
				}()
				select {
				case err := <-done:
					require.NoError(t, err)
				case <-time.After(60 * time.Second):
					t.Fatal("--ir-output-only with FIFO libraries hangs")
				}
				files := map[string]string{}
				ents, err := os.ReadDir(out)
				require.NoError(t, err)
				for _, e := range ents {
					b, err := os.ReadFile(filepath.Join(out, e.Name()))
					require.NoError(t, err)
					files[e.Name()] = string(b)
				}
				require.NotEmpty(t, files)
				return files
			}
			regular := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(regular, "libh.bc"), helperData, 0o644))
			wantIR := irOut(lib, regular)
			fifos := t.TempDir()
			fifoOf(t, fifos, "libh.bc", helperData)
			assert.Equal(t, wantIR, irOut(fifoOf(t, t.TempDir(), "lib.bc", libData), fifos))
			// a bad library from a FIFO is named as given
			fifo = fifoOf(t, t.TempDir(), "bad.bc", []byte("junk\n"))
			_, _, err = linkWith(t, pool, nil, nil, "--device-libs="+fifo, k)
			assert.EqualError(t, err, fifo+": expected top-level entity")
		})
	})
}
