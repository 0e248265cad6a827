package run

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProgressOf: both ways of finding a group's processes (its leader's
// descendants, a scan of /proc) see a sleeping group's fingerprint stay
// and a working grandchild's change.
func TestProgressOf(t *testing.T) {
	for _, tree := range []bool{true, false} {
		sleeper := exec.Command("/bin/sh", "-c", "sleep 30 & wait")
		sleeper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, sleeper.Start())
		time.Sleep(200 * time.Millisecond)
		a, ok := progressOf(sleeper.Process.Pid, tree)
		require.True(t, ok)
		time.Sleep(300 * time.Millisecond)
		b, _ := progressOf(sleeper.Process.Pid, tree)
		assert.Equal(t, a, b, "tree=%v: a sleeping group makes no progress", tree)
		killGroup(sleeper.Process.Pid, true)
		sleeper.Wait()

		worker := exec.Command("/bin/sh", "-c", "(while :; do :; done) & wait")
		worker.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, worker.Start())
		time.Sleep(200 * time.Millisecond)
		a, _ = progressOf(worker.Process.Pid, tree)
		time.Sleep(300 * time.Millisecond)
		b, _ = progressOf(worker.Process.Pid, tree)
		assert.NotEqual(t, a, b, "tree=%v: a busy grandchild is progress", tree)
		killGroup(worker.Process.Pid, true)
		worker.Wait()
	}
}
