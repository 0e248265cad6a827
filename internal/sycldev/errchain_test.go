package sycldev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/format"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorChains: the pipeline's errors name the file in their one line
// and keep their cause, so errors.Is and errors.As find it: a missing
// input (fs.ErrNotExist), an object that is not one (format.ErrCorrupt),
// an output in a missing directory, a tool that failed because the run was
// cancelled (context.Canceled and the runner's error, whether or not the
// tool's message names its program), and LLVM's errors in-process
// (*llvmpool.Error, *llvmpool.CrashError). No LLVM tool runs.
func TestErrorChains(t *testing.T) {
	dir := t.TempDir()
	kernels := filepath.Join("..", "..", "split", "testdata", "features", "kernels.ll")
	linkWith := func(ctx context.Context, r run.Runner, args ...string) error {
		t.Helper()
		o, err := ParseArgs(args)
		require.NoError(t, err)
		var out, errb bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &out, Stderr: &errb, NumCPU: 2, Runner: r,
			LookupEnv: envVars("PATH", filepath.Join(dir, "bin"), "TMPDIR", dir)}}
		return Run(ctx, env, *o)
	}

	missing := filepath.Join(dir, "missing.bc")
	err := linkWith(context.Background(), &run.Fake{}, "--triple=spirv64", "-o", filepath.Join(dir, "out"), missing)
	require.Error(t, err)
	assert.Equal(t, missing+": no such file or directory", err.Error())
	assert.ErrorIs(t, err, fs.ErrNotExist)

	notELF := filepath.Join(dir, "bad.o")
	require.NoError(t, os.WriteFile(notELF, append([]byte("\x7fELF\x09\x01\x01"), make([]byte, 64)...), 0o644))
	err = linkWith(context.Background(), &run.Fake{}, "--triple=spirv64", "-o", filepath.Join(dir, "out"), notELF)
	require.Error(t, err)
	assert.Contains(t, err.Error(), notELF+": ")
	assert.ErrorIs(t, err, format.ErrCorrupt)
	var fe *format.FormatError
	assert.ErrorAs(t, err, &fe)

	table := filepath.Join(dir, "no-such-dir", "p.table")
	err = linkWith(context.Background(), &run.Fake{}, "--triple=spirv64", "--ir-output-only", "-S", "-o", table, kernels)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "no-such-dir")+string(filepath.Separator))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	// Two inputs are linked by llvm-link, here a runner that reports the
	// tool's error as the context's cancellation. Its message replaces the
	// error's text; the cause stays behind it.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "llvm-link"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct{ stderr, want string }{
		{"llvm-link: error: interrupted\n", kernels + ", " + kernels + ": error: interrupted"},
		{"some other failure\n", "llvm-link: some other failure"},
	} {
		runErr := &run.Error{Args: []string{"llvm-link"}, ExitCode: -1}
		fake := &run.Fake{Handler: func(c *run.Cmd) error {
			fmt.Fprint(c.Stderr, tc.stderr)
			return fmt.Errorf("%w: %w", runErr, context.Canceled)
		}}
		err = linkWith(ctx, fake, "--triple=spirv64", "-o", filepath.Join(dir, "out"), kernels, kernels)
		require.Error(t, err)
		assert.Equal(t, tc.want, err.Error())
		assert.ErrorIs(t, err, context.Canceled)
		var re *run.Error
		if assert.ErrorAs(t, err, &re) {
			assert.Same(t, runErr, re)
		}
	}

	// In-process LLVM (llvmErr): the message's first line, named by the
	// step's file unless it names one itself, over LLVM's error.
	le := &llvmpool.Error{Msg: "a.bc: error: Invalid bitcode signature\nmore"}
	err = llvmErr("a.bc, b.bc", le)
	assert.Equal(t, "a.bc: error: Invalid bitcode signature", err.Error())
	var gotLE *llvmpool.Error
	if assert.ErrorAs(t, err, &gotLE) {
		assert.Same(t, le, gotLE)
	}
	le = &llvmpool.Error{Msg: "expected type"}
	err = llvmErr("x (part p_0)", le)
	assert.Equal(t, "x (part p_0): expected type", err.Error())
	assert.ErrorAs(t, err, &gotLE)
	ce := &llvmpool.CrashError{Pid: 1, ExitCode: 1}
	err = llvmErr("x (part p_0)", fmt.Errorf("codegen: %w", ce))
	var gotCE *llvmpool.CrashError
	if assert.ErrorAs(t, err, &gotCE) {
		assert.Same(t, ce, gotCE)
	}
	assert.False(t, errors.Is(err, context.Canceled))
}
