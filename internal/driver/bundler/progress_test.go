package bundler

import (
	"bytes"
	"context"
	"github.com/offload-kit/offload-kit/internal/driverenv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/cli/diag"
	"github.com/offload-kit/offload-kit/internal/progress"
)

// runWithProgress runs the personality with a progress sink whose clock
// moves a second per reading, so every update is past the delay.
func runWithProgress(t *testing.T, dir string, sink bool, args ...string) (stderr string, code int) {
	t.Helper()
	var so, se bytes.Buffer
	env := &Env{driverenv.Env{Stdout: &so, Stderr: &se, Tool: oracle, Dir: dir, Stdin: strings.NewReader(""), Now: time.Now}}
	if sink {
		clock := time.Unix(0, 0)
		env.Progress = &progress.Sink{W: &se, Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	}
	err := Main(context.Background(), env, oracle, args)
	return se.String(), diag.ExitCode(&se, oracle, err)
}

// TestProgress: compressing and unbundling a large bundle report progress
// on the sink and erase the line at the end; without a sink (stderr not
// a terminal, or quiet) nothing is printed.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "dev.bin", codeLike(24<<20, 5))
	targets := "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a"
	bundleArgs := []string{"-type=o", targets, "-input=/dev/null", "-input=dev.bin", "-output=b.ccob", "-compress"}
	unbundleArgs := []string{"-type=o", "-targets=hip-amdgcn-amd-amdhsa--gfx90a", "-input=b.ccob", "-output=out.bin", "-unbundle"}

	se, code := runWithProgress(t, dir, true, bundleArgs...)
	require.Equal(t, 0, code, se)
	assert.Contains(t, se, "\rcompressing: ")
	assert.Contains(t, se, "100% (24.0 MiB of 24.0 MiB)")
	assert.Regexp(t, `\r +\r$`, se, "the line is erased at the end")

	se, code = runWithProgress(t, dir, true, unbundleArgs...)
	require.Equal(t, 0, code, se)
	assert.Contains(t, se, "\rdecompressing: ")
	assert.Equal(t, read(t, dir, "dev.bin"), read(t, dir, "out.bin"))

	for _, args := range [][]string{bundleArgs, unbundleArgs} {
		se, code = runWithProgress(t, dir, false, args...)
		require.Equal(t, 0, code, se)
		assert.Empty(t, se)
	}
}
