package sycldev

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/llvmpool"
	"github.com/offload-kit/offload-kit/internal/run"
)

// withStdin runs f with fd 0 replaced by file (restored after).
func withStdin(t *testing.T, file *os.File, f func()) {
	t.Helper()
	saved, err := syscall.Dup(0)
	require.NoError(t, err)
	require.NoError(t, syscall.Dup2(int(file.Fd()), 0))
	defer func() {
		syscall.Dup2(saved, 0)
		syscall.Close(saved)
	}()
	f()
}

// TestStreamInputs: an input that is a FIFO, /dev/stdin (a pipe, or a
// regular file redirected), or /proc/self/fd/N of a pipe is read once by
// the tool and links exactly as the same bitcode given as a file, with
// LLVM in-process and as child processes (clang-sycl-linker 22 hangs on
// none of these but gives an image without kernels for a pipe). Before,
// /dev/stdin hung the tool and its helper forever, and a pipe gave an
// image without kernels and exit 0. Errors name the input as given.
func TestStreamInputs(t *testing.T) {
	dir := t.TempDir()
	bc := syclBitcode(t, dir, "a", srcA)
	data, err := os.ReadFile(bc)
	require.NoError(t, err)

	pool := llvmpool.New(llvmpool.Config{Helpers: 1})
	defer pool.Close()
	link := func(p *llvmpool.Pool, input string) ([]byte, error) {
		out := filepath.Join(t.TempDir(), "dev.out")
		o, err := ParseArgs([]string{"--triple=spirv64", "-o", out, input})
		require.NoError(t, err)
		var so, se bytes.Buffer
		env := &Env{Env: driverenv.Env{Stdout: &so, Stderr: &se, NumCPU: 2, Runner: run.Exec{}, LookupEnv: envVars("PATH", llvmBin+":/usr/bin")}}
		if p != nil {
			env.LLVM = p
		}
		if err := Run(context.Background(), env, *o); err != nil {
			return nil, err
		}
		return os.ReadFile(out)
	}
	// feed writes b into a new pipe and returns its reading end
	feed := func(b []byte) *os.File {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		go func() { w.Write(b); w.Close() }()
		t.Cleanup(func() { r.Close() })
		return r
	}
	for _, mode := range []struct {
		name string
		pool *llvmpool.Pool
	}{{"process", nil}, {"inproc", pool}} {
		want, err := link(mode.pool, bc)
		require.NoError(t, err)
		require.Contains(t, string(want), "KD", "the kernels are there")
		t.Run(mode.name+"/fifo", func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "k.fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			go func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Write(data)
					f.Close()
				}
			}()
			got, err := link(mode.pool, fifo)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
		t.Run(mode.name+"/stdin-pipe", func(t *testing.T) {
			withStdin(t, feed(data), func() {
				got, err := link(mode.pool, "/dev/stdin")
				require.NoError(t, err)
				assert.Equal(t, want, got)
			})
		})
		t.Run(mode.name+"/stdin-file", func(t *testing.T) {
			f, err := os.Open(bc)
			require.NoError(t, err)
			defer f.Close()
			withStdin(t, f, func() {
				got, err := link(mode.pool, "/dev/stdin")
				require.NoError(t, err)
				assert.Equal(t, want, got)
			})
		})
		t.Run(mode.name+"/proc-fd", func(t *testing.T) {
			r := feed(data)
			got, err := link(mode.pool, fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
		t.Run(mode.name+"/stdin-broken", func(t *testing.T) {
			withStdin(t, feed(data[:100]), func() {
				_, err := link(mode.pool, "/dev/stdin")
				require.Error(t, err)
				if mode.pool != nil { // llvm-dis names no file, for a regular file either
					assert.Contains(t, err.Error(), "/dev/stdin")
				}
				assert.NotContains(t, err.Error(), "input-stdin", "the copy's name stays hidden")
			})
		})
	}
	t.Run("dev-zero", func(t *testing.T) {
		// identified from its first 4 KiB: nothing more is read or copied
		_, err := link(pool, "/dev/zero")
		assert.EqualError(t, err, "/dev/zero: Unsupported file type")
	})
	t.Run("cap", func(t *testing.T) {
		old := maxStreamInput
		maxStreamInput = int64(len(data)) - 1 // one byte short
		defer func() { maxStreamInput = old }()
		withStdin(t, feed(data), func() {
			_, err := link(pool, "/dev/stdin")
			assert.ErrorContains(t, err, "/dev/stdin: input from a pipe or device is larger than")
		})
	})
}
