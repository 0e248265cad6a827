package linkwrap

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/run"
)

// TestDeviceLinkCacheHashHashHashMemo: the real clang's -### output is
// remembered in the cache directory, so a warm relink runs neither
// clang -### nor ld --verbose (the device link itself is faked); it is
// asked again when the environment clang reads changes, and when a
// directory it named or looked at changes (here a sysroot gains the
// library directory clang searches), and the device-link cache still
// hits where it should.
func TestDeviceLinkCacheHashHashHashMemo(t *testing.T) {
	clang := findTool(t, "clang-22", "clang")
	dir := testDir(t)
	cacheDir := t.TempDir()
	sys := t.TempDir()
	env := map[string]string{"PATH": os.Getenv("PATH")}
	var hhh, ldv, links atomic.Int32
	handler := func(c *run.Cmd) error {
		last := c.Args[len(c.Args)-1]
		switch {
		case last == "-###":
			hhh.Add(1)
			return run.Exec{}.Run(context.Background(), c)
		case last == "--verbose":
			ldv.Add(1)
			return run.Exec{}.Run(context.Background(), c)
		}
		for _, a := range c.Args {
			if strings.HasPrefix(a, "--target=") {
				links.Add(1)
			}
		}
		return touchOutput(c)
	}
	link := func() string {
		args := []string{"--linker-path=/usr/bin/ld", "--clang-path=" + clang, "--cache-dir=" + cacheDir, "--wrapper-verbose",
			"--device-compiler=--sysroot=" + sys, "-o", filepath.Join(dir, "app"), filepath.Join(dir, "lib_main.o"), filepath.Join(dir, "libdev.a")}
		opts, err := ParseArgs(args)
		require.NoError(t, err)
		var fake run.Fake
		fake.Handler = handler
		var stderr bytes.Buffer
		err = Run(context.Background(), &Env{Env: driverenv.Env{Runner: &fake, Stderr: &stderr, NumCPU: 2, Now: time.Now,
			LookupEnv: driverenv.FromGetenv(func(k string) string { return env[k] })}}, *opts)
		require.NoError(t, err, stderr.String())
		return stderr.String()
	}
	// Directories changed within the racy window are not trusted yet.
	time.Sleep(2200 * time.Millisecond)
	out := link()
	require.Equal(t, int32(1), hhh.Load(), out)
	require.Equal(t, int32(1), links.Load())
	ld0 := ldv.Load()

	out = link()
	assert.Equal(t, int32(1), hhh.Load(), "warm relink: -### remembered\n%s", out)
	assert.Equal(t, ld0, ldv.Load(), "warm relink: ld --verbose remembered")
	assert.Equal(t, int32(1), links.Load(), "warm relink: a cache hit")
	assert.Contains(t, out, "1 hits")

	env["COMPILER_PATH"] = "/nonexistent/offload-kit-test"
	link()
	assert.Equal(t, int32(2), hhh.Load(), "COMPILER_PATH changed: -### runs again")
	link()
	assert.Equal(t, int32(2), hhh.Load())

	require.NoError(t, os.MkdirAll(filepath.Join(sys, "usr", "lib"), 0o755))
	link()
	assert.Equal(t, int32(3), hhh.Load(), "a library directory appeared in the sysroot: -### runs again")
	// Deeper: the sysroot's usr/lib gains the multiarch directory clang
	// searches (sysroot and usr are unchanged).
	time.Sleep(2200 * time.Millisecond)
	link()
	link()
	require.Equal(t, int32(4), hhh.Load(), "remembered again once the sysroot is older than the racy window")
	require.NoError(t, os.Mkdir(filepath.Join(sys, "usr", "lib", "x86_64-linux-gnu"), 0o755))
	link()
	assert.Equal(t, int32(5), hhh.Load(), "usr/lib/x86_64-linux-gnu appeared: -### runs again")
}
