package run

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeoutKillsGroup: a child that sleeps (and a grandchild that
// sleeps with it) makes no progress: both are killed once the limit has
// passed, and the error names the program and the limit. Without the
// watchdog the command runs for the full 30 s sleep.
func TestTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "llvm-link")
	pidFile := filepath.Join(dir, "pid")
	require.NoError(t, os.WriteFile(prog, []byte("#!/bin/sh\nsleep 30 &\necho $! > "+pidFile+"\nwait\n"), 0o755))
	start := time.Now()
	err := Exec{}.Run(context.Background(), &Cmd{Args: []string{prog, "k.bc"}, Timeout: 300 * time.Millisecond})
	took := time.Since(start)
	var e *Error
	require.ErrorAs(t, err, &e)
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "'llvm-link' made no progress (no output, no CPU time) for 300ms and was killed (OFFLOAD_KIT_LLVM_TIMEOUT sets the limit)", err.Error())
	assert.Less(t, took, 10*time.Second)
	assert.GreaterOrEqual(t, took, 300*time.Millisecond)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	// the grandchild went with the group (it may linger as a zombie of
	// init for a moment: poll)
	gone := false
	for range 100 {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			gone = true
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	assert.True(t, gone, "the grandchild sleep %d survived", pid)
}

// TestTimeoutProgress: a child that works (CPU) or writes now and then
// for longer than the limit is not killed; only silence counts.
func TestTimeoutProgress(t *testing.T) {
	for name, script := range map[string]string{
		"cpu":    `end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done`,
		"writes": `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo x >&2; sleep 0.1; done`,
	} {
		t.Run(name, func(t *testing.T) {
			var se strings.Builder
			err := Exec{}.Run(context.Background(), &Cmd{Args: []string{"/bin/sh", "-c", script}, Stderr: &se, Timeout: 500 * time.Millisecond})
			require.NoError(t, err)
		})
	}
	// a cancelled context still ends a timed child (its whole group)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := Exec{}.Run(ctx, &Cmd{Args: []string{"/bin/sh", "-c", "sleep 30"}, Timeout: time.Minute})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.NotErrorAs(t, err, new(*TimeoutError))
}

// TestTimed: Timed gives its limit to commands without one.
func TestTimed(t *testing.T) {
	var got []time.Duration
	f := &Fake{Handler: func(c *Cmd) error { got = append(got, c.Timeout); return nil }}
	r := Timed{Runner: f, Timeout: time.Second}
	require.NoError(t, r.Run(context.Background(), &Cmd{Args: []string{"a"}}))
	require.NoError(t, r.Run(context.Background(), &Cmd{Args: []string{"b"}, Timeout: time.Minute}))
	assert.Equal(t, []time.Duration{time.Second, time.Minute}, got)
}

// TestTimeoutLeftovers: a timed child that succeeds but leaves a process
// outside its group holding its output open succeeds after WaitDelay
// (what it printed itself is kept), instead of hanging as long as that
// process lives or failing.
func TestTimeoutLeftovers(t *testing.T) {
	var out strings.Builder
	start := time.Now()
	err := Exec{}.Run(context.Background(), &Cmd{Args: []string{"/bin/sh", "-c", "echo hi; setsid sleep 20 &"}, Stdout: &out, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, "hi\n", out.String())
}
