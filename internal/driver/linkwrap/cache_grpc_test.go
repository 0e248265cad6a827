package linkwrap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/offload-kit/offload-kit/internal/run"
	"github.com/offload-kit/offload-kit/internal/testutil/buildgrid"
	"github.com/offload-kit/offload-kit/internal/testutil/tmproot"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeviceLinkCacheGRPCRemote: TestDeviceLinkCacheTwoCheckouts across
// machines, through a real BuildGrid: one project in two checkouts, each
// with its own cache directory, linked through clang-22 -B<bin> with
// OFFLOAD_KIT_CACHE_REMOTE=grpc://…/main. The first link misses and
// uploads; the second is a remote hit, and both programs run the device
// code (41).
func TestDeviceLinkCacheGRPCRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	cc := findTool(t, "clang-22", "clang")
	remote := "grpc://" + buildgrid.Start(t).Addr + "/main"
	bin := buildWrapper(t)
	lib := ompLibDir(t)
	one, two, f := twoCheckouts(t, cc, lib)

	link := func(dir, cacheDir string) string {
		var stderr bytes.Buffer
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OFFLOAD_KIT_CACHE_DIR=" + cacheDir,
			"OFFLOAD_KIT_CACHE_REMOTE=" + remote, "OFFLOAD_KIT_VERBOSE=1"}
		err := run.Exec{}.Run(context.Background(), &run.Cmd{Dir: dir, Env: tmproot.Env(env), Stderr: &stderr,
			Args: cmdline(cc, f, "-B"+bin, filepath.Join(dir, "main.o"), filepath.Join(dir, "host.o"),
				"-Xoffload-linker", "-L"+filepath.Join(dir, "lib"), "-Xoffload-linker", "-ldev", "-o", filepath.Join(dir, "app"))})
		require.NoError(t, err, stderr.String())
		assert.Equal(t, "41\n", sh(t, dir, []string{"LD_LIBRARY_PATH=" + lib, "PATH=" + os.Getenv("PATH")}, "./app"))
		return stderr.String()
	}
	out := link(one, filepath.Join(t.TempDir(), "cache-a"))
	assert.Contains(t, out, "1 misses; 1 inserts, 1 uploads; 0 corrupt, 0 remote errors")
	assert.Contains(t, out, "plaintext gRPC")
	out = link(two, filepath.Join(t.TempDir(), "cache-b"))
	assert.Contains(t, out, "1 lookups, 1 hits (0 local, 1 remote), 0 misses", "the second machine hits through BuildGrid")
	assert.Contains(t, out, "0 corrupt, 0 remote errors")
}
