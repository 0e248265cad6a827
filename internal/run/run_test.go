package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExecError(t *testing.T) {
	var stderr bytes.Buffer
	err := Exec{}.Run(context.Background(), &Cmd{
		Path:   "/bin/sh",
		Args:   []string{"/bin/sh", "-c", "echo boom >&2; exit 3"},
		Stderr: &stderr,
	})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 3, e.ExitCode)
	assert.Equal(t, "boom\n", string(e.Stderr))
	assert.Equal(t, "boom\n", stderr.String(), "stderr is streamed too")
	assert.Equal(t, "'sh' failed with exit code 3", err.Error())
	full := fmt.Sprintf("%+v", err)
	assert.Contains(t, full, `command: "/bin/sh" -c echo boom >&2; exit 3`)
	assert.Contains(t, full, "stderr:\nboom")
	assert.Equal(t, err.Error(), fmt.Sprintf("%v", err))
}

func TestExecOKAndMissing(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Exec{}.Run(context.Background(), &Cmd{Args: []string{"/bin/echo", "hi"}, Stdout: &out}))
	assert.Equal(t, "hi\n", out.String())
	err := Exec{}.Run(context.Background(), &Cmd{Args: []string{"/nonexistent/tool"}})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, -1, e.ExitCode)
	assert.True(t, errors.Is(err, os.ErrNotExist) || strings.Contains(err.Error(), "no such file"), err.Error())
}

func TestPrinter(t *testing.T) {
	var w bytes.Buffer
	f := &Fake{}
	p := &Printer{Runner: f, W: &w, DryRun: true}
	require.NoError(t, p.Run(context.Background(), &Cmd{Args: []string{"/usr/bin/ld", "-o", "a b", "x.o"}}))
	assert.Equal(t, " \"/usr/bin/ld\" -o a b x.o\n", w.String())
	assert.Equal(t, 0, len(f.Commands()))
	p.DryRun = false
	require.NoError(t, p.Run(context.Background(), &Cmd{Args: []string{"clang"}}))
	assert.Equal(t, [][]string{{"clang"}}, f.Commands())
}

func TestFindProgram(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "noexec"), nil, 0o644))
	p, ok := FindProgram("tool", nil, "/nonexistent:"+dir)
	assert.True(t, ok)
	assert.Equal(t, exe, p)
	_, ok = FindProgram("noexec", []string{dir}, "")
	assert.True(t, !ok)
	p, ok = FindProgram("tool", []string{dir}, "")
	assert.True(t, ok && p == exe)
}

func TestJobserverAuth(t *testing.T) {
	for in, want := range map[string]string{
		" -j4 --jobserver-auth=3,4":                         "3,4",
		"--jobserver-fds=5,6 -j":                            "5,6",
		"-j --jobserver-auth=fifo:/tmp/GMfifo1":             "fifo:/tmp/GMfifo1",
		"--jobserver-auth=3,4 --jobserver-auth=fifo:/tmp/x": "fifo:/tmp/x",
	} {
		got, ok := JobserverAuth(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	_, ok := JobserverAuth("-k -j4")
	assert.True(t, !ok)
	_, err := OpenJobserver("-k")
	assert.True(t, errors.Is(err, ErrNoJobserver))
	_, err = OpenJobserver("--jobserver-auth=900,901")
	assert.True(t, errors.Is(err, ErrNoJobserver))
}

// exerciseJobserver checks: the implicit slot plus the two tokens in the
// pipe give three slots; a fourth waits until one is released, and every
// token goes back.
func exerciseJobserver(t *testing.T, j *Jobserver, pending func() int) {
	ctx := context.Background()
	var rels []func()
	for i := 0; i < 3; i++ {
		r, err := j.Acquire(ctx)
		require.NoError(t, err)
		rels = append(rels, r)
	}
	tctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err := j.Acquire(tctx)
	cancel()
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "fourth slot must wait")
	done := make(chan func())
	go func() {
		r, err := j.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	rels[1]()
	rels[1]() // idempotent
	r4 := <-done
	r4()
	rels[0]()
	rels[2]()
	// The goroutine abandoned by the timed-out Acquire also gives its token back.
	deadline := time.Now().Add(2 * time.Second)
	for pending() != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, 2, pending())
}

func TestJobserverPipe(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, err = w.Write([]byte("++"))
	require.NoError(t, err)
	j, err := OpenJobserver(fmt.Sprintf("-j3 --jobserver-auth=%d,%d", r.Fd(), w.Fd()))
	require.NoError(t, err)
	exerciseJobserver(t, j, func() int { return pipeLen(t, r) })
}

func TestJobserverFifo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	keep, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer keep.Close()
	_, err = keep.Write([]byte("++"))
	require.NoError(t, err)
	j, err := OpenJobserver("-j3 --jobserver-auth=fifo:" + path)
	require.NoError(t, err)
	defer j.Close()
	exerciseJobserver(t, j, func() int { return pipeLen(t, keep) })
}

// pipeLen is the number of bytes waiting in a pipe (FIONREAD).
func pipeLen(t *testing.T, f *os.File) int {
	var n int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafePointer(&n)))
	if errno != 0 {
		t.Fatalf("FIONREAD: %v", errno)
	}
	return int(n)
}

func TestSemaphore(t *testing.T) {
	s := NewSemaphore(1)
	r, err := s.Acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = s.Acquire(ctx)
	assert.Error(t, err)
	r()
	r2, err := s.Acquire(context.Background())
	require.NoError(t, err)
	r2()
}

func TestJobserverRejectsNonPipes(t *testing.T) {
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer f.Close()
	_, err = OpenJobserver(fmt.Sprintf("--jobserver-auth=%d,%d", f.Fd(), f.Fd()))
	assert.True(t, errors.Is(err, ErrNoJobserver), fmt.Sprint(err))
}
