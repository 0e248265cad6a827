package hardening

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLinker is a host linker that writes a partial, executable -o and
// then, by $MODE, exits 0 ("ok"), fails ("fail"), fails without touching
// -o ("fail-untouched") or hangs ("hang") until signalled.
const fakeLinker = `#!/bin/sh
out=a.out
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift;; esac
  shift
done
[ "$MODE" = fail-untouched ] && exit 1
printf 'partial executable' > "$out"
chmod +x "$out"
case "$MODE" in
  fail) exit 1;;
  hang) exec sleep 30;;
esac
exit 0
`

func writeFakeLinker(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "fake-ld")
	require.NoError(t, os.WriteFile(p, []byte(fakeLinker), 0o755))
	return p
}

// TestLinkerWrapperPartialOutput: when the host linker fails or the
// wrapper is interrupted, the output the linker created or changed is
// removed (make must not see a truncated executable as up to date); an
// earlier output the linker did not touch stays.
func TestLinkerWrapperPartialOutput(t *testing.T) {
	bin := toolPath(t, "linker-wrapper")
	ld := writeFakeLinker(t)
	host := filepath.Join(repoRoot, "elfembed/testdata/hello-x86_64-linux-gnu.o")
	start := func(dir, mode string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, "--linker-path="+ld, "-o", filepath.Join(dir, "app"), host)
		cmd.Env = append(os.Environ(), "MODE="+mode)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		return cmd, &stderr
	}
	t.Run("ok", func(t *testing.T) {
		dir := t.TempDir()
		cmd, stderr := start(dir, "ok")
		require.NoError(t, cmd.Wait(), stderr.String())
		assert.FileExists(t, filepath.Join(dir, "app"))
	})
	t.Run("fail", func(t *testing.T) {
		dir := t.TempDir()
		cmd, stderr := start(dir, "fail")
		require.Error(t, cmd.Wait())
		assert.Equal(t, 1, cmd.ProcessState.ExitCode(), stderr.String())
		assert.Empty(t, tree(t, dir), "the failed link's output remains")
	})
	t.Run("fail-untouched", func(t *testing.T) {
		dir := t.TempDir()
		old := filepath.Join(dir, "app")
		require.NoError(t, os.WriteFile(old, []byte("an earlier, complete link"), 0o755))
		cmd, _ := start(dir, "fail-untouched")
		require.Error(t, cmd.Wait())
		b, err := os.ReadFile(old)
		require.NoError(t, err)
		assert.Equal(t, "an earlier, complete link", string(b))
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("hang/"+sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, stderr := start(dir, "hang")
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			deadline := time.Now().Add(20 * time.Second)
			for {
				if fi, err := os.Stat(filepath.Join(dir, "app")); err == nil && fi.Mode()&0o100 != 0 {
					break
				}
				require.True(t, time.Now().Before(deadline), "the fake linker never wrote its output")
				time.Sleep(5 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 3 s after %v", sig)
			}
			assert.Equal(t, 128+int(sig), cmd.ProcessState.ExitCode(), stderr.String())
			assert.Empty(t, tree(t, dir), "the interrupted link's output remains")
		})
	}
}

// TestSaveTempsPlantedSymlinks: with --save-temps the intermediate files
// have predictable names in the output directory. A symlink planted at
// each of them, pointing at a victim, must never be written through: the
// victims keep their contents and the names end up as regular files.
func TestSaveTempsPlantedSymlinks(t *testing.T) {
	bin := toolPath(t, "linker-wrapper")
	ld := writeFakeLinker(t)
	omp := wrapperInputs(t)["omp.o"]
	link := func(dir string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "omp.o"), omp, 0o644))
		cmd := exec.Command(bin, "--save-temps", "--host-triple=x86_64-unknown-linux-gnu", "--linker-path="+ld, "-o", "app", "omp.o")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "MODE=ok")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	// Learn the names from a clean run.
	clean := t.TempDir()
	link(clean)
	var temps []string
	for _, n := range tree(t, clean) {
		if n != "omp.o" && n != "app" {
			temps = append(temps, n)
		}
	}
	require.NotEmpty(t, temps, "--save-temps kept nothing")
	sort.Strings(temps)

	dir := t.TempDir()
	victims := t.TempDir()
	for _, n := range temps {
		v := filepath.Join(victims, n)
		require.NoError(t, os.WriteFile(v, []byte("victim "+n), 0o644))
		require.NoError(t, os.Symlink(v, filepath.Join(dir, n)))
	}
	link(dir)
	for _, n := range temps {
		b, err := os.ReadFile(filepath.Join(victims, n))
		require.NoError(t, err)
		assert.Equal(t, "victim "+n, string(b), "written through the symlink planted at %s", n)
		fi, err := os.Lstat(filepath.Join(dir, n))
		if assert.NoError(t, err) {
			assert.True(t, fi.Mode().IsRegular(), "%s is %v", n, fi.Mode())
		}
	}
	assert.False(t, strings.Contains(strings.Join(tree(t, dir), " "), ".tmp-"), "temporaries left: %v", tree(t, dir))
}
