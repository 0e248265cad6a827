package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/driverenv"
	"github.com/offload-kit/offload-kit/internal/run"
)

// TestChildTimeout: a device-link clang that hangs (a fake that sleeps,
// making no output and using no CPU) is killed once
// $OFFLOAD_KIT_LLVM_TIMEOUT has passed, and the error names the program,
// the device link and the user's object. Before, the link waited for it
// forever. The host linker is held to the same rule.
func TestChildTimeout(t *testing.T) {
	dir := testDir(t)
	fake := t.TempDir()
	clang := filepath.Join(fake, "clang")
	require.NoError(t, os.WriteFile(clang, []byte("#!/bin/sh\nsleep 20\n"), 0o755))
	link := func(args ...string) (error, time.Duration) {
		opts, err := ParseArgs(args)
		require.NoError(t, err)
		var se bytes.Buffer
		start := time.Now()
		err = Run(context.Background(), &Env{
			Env: driverenv.Env{Stderr: &se, NumCPU: 2, Dir: dir, LookupEnv: driverenv.FromGetenv(func(k string) string {
				if k == "OFFLOAD_KIT_LLVM_TIMEOUT" {
					return "0.3"
				}
				return ""
			}), Runner: run.Exec{}},
		}, *opts)
		return err, time.Since(start)
	}
	err, took := link("--linker-path=/usr/bin/ld", "--clang-path="+clang, "-o", filepath.Join(dir, "app"), filepath.Join(dir, "lib_main.o"))
	require.Error(t, err)
	assert.Less(t, took, 10*time.Second)
	assert.Equal(t, "device link for x86_64-unknown-linux-gnu of "+filepath.Join(dir, "lib_main.o")+": 'clang' made no progress (no output, no CPU time) for 300ms and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", err.Error())

	err, took = link("--linker-path="+clang, "-o", filepath.Join(dir, "app"))
	require.Error(t, err)
	assert.Less(t, took, 10*time.Second)
	assert.Equal(t, "host link of "+filepath.Join(dir, "app")+": 'clang' made no progress (no output, no CPU time) for 300ms and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", err.Error())
}
