package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// environWith is the test's environment with key set to value.
func environWith(key, value string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// runIn runs argv in dir with env and returns stderr and the error.
func runIn(dir string, env []string, argv ...string) (string, error) {
	var stderr bytes.Buffer
	err := run.Exec{}.Run(context.Background(), &run.Cmd{Args: argv, Dir: dir, Env: env, Stderr: &stderr})
	return stderr.String(), err
}

// TestBrokenToolsFirstInPATH puts a clang, clang-22, clang++ and ld.lld
// that fail as Debian's clang 14 fails a device link ("unsupported option
// '--no-default-config'") first in PATH. Programs linked through
// clang-22 -B<dir> still link with LLVM 22's clang and ld.lld, and run; an
// explicit OFFLOAD_KIT_CLANG still wins; the wrapper run by hand takes the
// LLVM 22 installation that produced its inputs.
func TestBrokenToolsFirstInPATH(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	require.True(t, filepath.IsAbs(cc), cc)
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	broken := t.TempDir()
	for _, n := range []string{"clang", "clang-22", "clang++", "ld.lld"} {
		require.NoError(t, os.WriteFile(filepath.Join(broken, n), []byte("#!/bin/sh\n"+brokenClang), 0o755))
	}
	env := environWith("PATH", broken+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The broken clang is what PATH offers.
	if out, err := runIn(t.TempDir(), env, "sh", "-c", "clang --no-default-config --version"); assert.Error(t, err) {
		assert.Contains(t, out, "unsupported option '--no-default-config'")
	}
	llvmClang, err := filepath.EvalSymlinks(cc)
	require.NoError(t, err)
	omp := []string{"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu", "-L" + lib, "-Wno-unused-command-line-argument"}

	t.Run("openmp through clang -B", func(t *testing.T) {
		dir := t.TempDir()
		stderr, err := runIn(dir, env, cmdline(cc, omp, "-B"+bin, src("single.c"), "-o", "single", "-Xlinker", "--wrapper-verbose")...)
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, "clang-linker-wrapper: note: clang: using "+llvmClang+" (the clang that invoked this link (pid ")
		assert.Contains(t, stderr, ` "`+llvmClang+`" --no-default-config`)
		assert.NotContains(t, stderr, broken)
		assert.Equal(t, "on_device=1\nsum=6048\n", sh(t, dir, env, "./single"))
	})

	t.Run("-flto -fuse-ld=lld host", func(t *testing.T) {
		dir := t.TempDir()
		stderr, err := runIn(dir, env, cmdline(cc, omp, "-B"+bin, "-flto", "-fuse-ld=lld", src("xtu_main.c"), src("xtu_dev.c"), "-o", "xtu", "-Xlinker", "--wrapper-verbose")...)
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, "/ld.lld\" ")
		assert.NotContains(t, stderr, broken)
		assert.Equal(t, "on_device=1\nsquare=49 cube=27\n", sh(t, dir, env, "./xtu"))
	})

	t.Run("HIP through clang -B (ld.lld links amdgcn)", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"a.hip", "b.hip", "mini_hip.h", "stub.c", "main.c"} {
			b, err := os.ReadFile(filepath.Join("testdata", "hip", f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		}
		compile := []string{"-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-nogpuinc", "-nogpulib", "--offload-arch=gfx90a", "-c"}
		sh(t, dir, env, cmdline(cc, compile, "a.hip", "-o", "a.o")...)
		sh(t, dir, env, cmdline(cc, compile, "b.hip", "-o", "b.o")...)
		sh(t, dir, env, "gcc", "-c", "-fPIC", stubInclude(t), "stub.c", "-o", "stub.o")
		sh(t, dir, env, "gcc", "-c", "main.c", "-o", "main.o")
		stderr, err := runIn(dir, env, cmdline(cc, "-B"+bin, "--offload-new-driver", "-fgpu-rdc", "--hip-link", "--offload-arch=gfx90a",
			"-nogpulib", "-no-hip-rt", "-rdynamic", "a.o", "b.o", "main.o", "stub.o", "-ldl", "-lzstd", "-o", "app", "-Xlinker", "--wrapper-verbose")...)
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, ` "`+llvmClang+`" --no-default-config`)
		assert.Contains(t, stderr, "--target=amdgcn-amd-amdhsa -mcpu=gfx90a")
		assert.Contains(t, sh(t, dir, env, "./app"), "entry hip-amdgcn-amd-amdhsa--gfx90a ")
	})

	t.Run("OFFLOAD_KIT_CLANG overrides", func(t *testing.T) {
		dir := t.TempDir()
		over := append(env, "OFFLOAD_KIT_CLANG="+filepath.Join(broken, "clang"))
		stderr, err := runIn(dir, over, cmdline(cc, omp, "-B"+bin, src("single.c"), "-o", "single", "-Xlinker", "--wrapper-verbose")...)
		require.Error(t, err)
		assert.Contains(t, stderr, "clang-linker-wrapper: note: clang: using "+filepath.Join(broken, "clang")+" ($OFFLOAD_KIT_CLANG)")
		assert.Contains(t, stderr, "error: unsupported option '--no-default-config'")
		assert.Contains(t, stderr, "clang-linker-wrapper: error: 'clang' failed with exit code 1")
		_, statErr := os.Stat(filepath.Join(dir, "single"))
		assert.True(t, os.IsNotExist(statErr), "no output after a failed device link")
	})

	t.Run("run by hand: the inputs' LLVM", func(t *testing.T) {
		dir := t.TempDir()
		sh(t, dir, env, cmdline(cc, omp, "-c", src("single.c"), "-o", "single.o")...)
		wrapper := filepath.Join(bin, "clang-linker-wrapper")
		args := []string{"--dry-run", "--linker-path=/usr/bin/ld", "-o", "app", "single.o"}
		stderr, err := runIn(dir, env, append([]string{wrapper}, args...)...)
		require.NoError(t, err, stderr)
		llvmDir := filepath.Dir(llvmClang)
		assert.Contains(t, stderr, "clang-linker-wrapper: note: clang: using "+llvmClang+" (the LLVM 22 installation that produced the inputs ("+llvmDir+"))\n")
		assert.Contains(t, stderr, ` "`+llvmClang+`" --no-default-config`)
		// --clang-path overrides it.
		stderr, err = runIn(dir, env, append([]string{wrapper, "--clang-path=" + filepath.Join(broken, "clang")}, args...)...)
		require.NoError(t, err, stderr)
		assert.Contains(t, stderr, "clang-linker-wrapper: note: clang: using "+filepath.Join(broken, "clang")+" (--clang-path)\n")
		assert.Contains(t, stderr, ` "`+filepath.Join(broken, "clang")+`" --no-default-config`)
	})
}
