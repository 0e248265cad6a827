package cli

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/driverenv"
)

// openPTY opens a pseudo-terminal pair (as openpty(3) does, with the
// /dev/ptmx ioctls), so the terminal test needs no extra module.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	var unlock int32
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock)))
	require.Zero(t, e)
	var n uint32
	_, _, e = syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n)))
	require.Zero(t, e)
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return m, s
}

func TestProgressOnlyOnTerminal(t *testing.T) {
	_, tty := openPTY(t)
	require.True(t, IsTerminal(tty))
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	f, err := os.CreateTemp(t.TempDir(), "log")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, IsTerminal(pw), "a pipe")
	assert.False(t, IsTerminal(f), "a file")
	assert.False(t, IsTerminal(nil))

	// The variable is read through the driver's environment, not the
	// process's: OFFLOAD_KIT_PROGRESS=0 in the process changes nothing here.
	t.Setenv(ProgressEnv, "0")
	on := func(w io.Writer, progress string) *driverenv.Env {
		return &driverenv.Env{Stderr: w, LookupEnv: func(k string) (string, bool) { return progress, k == ProgressEnv }}
	}
	s := Progress(on(tty, ""), false)
	require.NotNil(t, s)
	assert.Same(t, tty, s.W)
	assert.NotNil(t, s.Now)
	assert.Nil(t, Progress(on(tty, ""), true), "--quiet")
	assert.Nil(t, Progress(on(pw, ""), false), "not a terminal")
	assert.Nil(t, Progress(on(f, ""), false), "not a terminal")
	assert.Nil(t, Progress(on(tty, "0"), false), ProgressEnv+"=0")
	assert.NotNil(t, Progress(on(tty, "1"), false), ProgressEnv+"=1")
}
