package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func list(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Interrupt is process-wide and irreversible, so the test that calls it
// runs in a child process (TestInterrupt); everything else runs here.
func TestMain(m *testing.M) {
	if os.Getenv("ATOMICFILE_INTERRUPT_CHILD") == "1" {
		interruptChild()
		return
	}
	os.Exit(m.Run())
}

func TestRegular(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, WriteFile(out, nil, func(w io.Writer) error { _, err := w.Write([]byte("one")); return err }))
	b, _ := os.ReadFile(out)
	assert.Equal(t, "one", string(b))

	// A failure leaves the old contents and no temporary.
	boom := errors.New("boom")
	err := WriteFile(out, nil, func(w io.Writer) error { w.Write([]byte("partial")); return boom })
	assert.ErrorIs(t, err, boom)
	b, _ = os.ReadFile(out)
	assert.Equal(t, "one", string(b))
	assert.Equal(t, []string{"out"}, list(t, dir))

	// An existing file keeps its mode.
	require.NoError(t, os.Chmod(out, 0o751))
	require.NoError(t, WriteFile(out, nil, func(w io.Writer) error { return nil }))
	st, _ := os.Stat(out)
	assert.Equal(t, os.FileMode(0o751), st.Mode().Perm())
}

func TestUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, WriteFileMode(out, nil, 0o777, func(w io.Writer) error { return nil }))
	st, _ := os.Stat(out)
	assert.Equal(t, os.FileMode(0o750), st.Mode().Perm())
}

// CreateIn keeps its temporary in the given directory until Commit, which
// replaces the destination with the new file's own mode (the existing
// file's is not kept); Abort leaves neither; a FIFO destination is replaced,
// not written in place.
func TestCreateIn(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir, spool := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o600))
	f, err := CreateIn(spool, out, 0o666)
	require.NoError(t, err)
	_, err = f.Writer().Write([]byte("new"))
	require.NoError(t, err)
	require.NoError(t, f.Seal())
	assert.Equal(t, []string{"out"}, list(t, dir))
	assert.Len(t, list(t, spool), 1, "the temporary is in the spool directory")
	require.NoError(t, f.Commit())
	b, _ := os.ReadFile(out)
	assert.Equal(t, "new", string(b))
	st, _ := os.Stat(out)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "not the old file's 0600")
	assert.Empty(t, list(t, spool))

	f, err = CreateIn(spool, out, 0o666)
	require.NoError(t, err)
	f.Abort()
	assert.Empty(t, list(t, spool))
	b, _ = os.ReadFile(out)
	assert.Equal(t, "new", string(b))

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	f, err = CreateIn("", fifo, 0o666)
	require.NoError(t, err)
	assert.False(t, f.Streaming())
	require.NoError(t, f.Commit())
	st, _ = os.Lstat(fifo)
	assert.True(t, st.Mode().IsRegular(), "the FIFO is replaced")
}

// A symlink at the destination is replaced, its target never written.
func TestSymlinkReplaced(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Symlink(victim, out))
	require.NoError(t, WriteFile(out, nil, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }))
	b, _ := os.ReadFile(victim)
	assert.Equal(t, "keep", string(b))
	fi, _ := os.Lstat(out)
	assert.True(t, fi.Mode().IsRegular())
}

// Errors name the destination, never the temporary.
func TestErrorNamesDestination(t *testing.T) {
	_, err := Create("/nonexistent-dir/x", nil)
	require.Error(t, err)
	assert.Equal(t, "create /nonexistent-dir/x: no such file or directory", err.Error())
	dir := t.TempDir()
	_, err = Create(dir, nil)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), dir) && strings.Contains(err.Error(), "is a directory"), err.Error())
}

// A FIFO is written in place, not replaced.
func TestFIFOInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	got := make(chan []byte)
	go func() {
		f, _ := os.Open(fifo)
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	f, err := Create(fifo, nil)
	require.NoError(t, err)
	assert.True(t, f.Streaming())
	_, err = io.Copy(f.Writer(), bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20)))
	require.NoError(t, err)
	require.NoError(t, f.Commit())
	assert.Equal(t, 1<<20, len(<-got))
	fi, _ := os.Lstat(fifo)
	assert.True(t, fi.Mode()&os.ModeNamedPipe != 0)
	assert.Equal(t, []string{"fifo"}, list(t, dir))
}

// File-to-file copies through Writer are chunked and complete.
func TestReadFromChunks(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	data := make([]byte, 2*chunk+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(src, data, 0o644))
	in, err := os.Open(src)
	require.NoError(t, err)
	defer in.Close()
	in.Seek(100, io.SeekStart)
	out := filepath.Join(dir, "out")
	require.NoError(t, WriteFile(out, nil, func(w io.Writer) error {
		_, err := io.CopyN(w, in, int64(len(data)-200))
		return err
	}))
	b, _ := os.ReadFile(out)
	assert.Equal(t, data[100:len(data)-100], b)
}

// TestGuard: an output a child created or changed is removed on failure;
// one it left untouched stays; a device is never removed.
func TestGuard(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.out")
	g := GuardOutput(out)
	require.NoError(t, os.WriteFile(out, []byte("half"), 0o755))
	g.Done(false)
	assert.NoFileExists(t, out)

	require.NoError(t, os.WriteFile(out, []byte("old, complete"), 0o755))
	g = GuardOutput(out)
	g.Done(false)
	assert.FileExists(t, out)

	g = GuardOutput(out)
	require.NoError(t, os.WriteFile(out, []byte("new"), 0o755))
	g.Done(true)
	assert.FileExists(t, out)

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	g = GuardOutput(fifo)
	g.Done(false)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeNamedPipe != 0)
}

// TestInterrupt runs interruptChild in a fresh process: Interrupt removes
// uncommitted temporaries and hooks' files, refuses Commit, Create and
// writes, and leaves committed outputs alone.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_INTERRUPT_CHILD=1", "DIR="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
	assert.Equal(t, []string{"done"}, list(t, dir))
}

func interruptChild() {
	dir := os.Getenv("DIR")
	fail := func(msg string, args ...any) {
		os.Stderr.WriteString("FAIL: " + msg + "\n")
		os.Exit(1)
	}
	done, _ := Create(filepath.Join(dir, "done"), nil)
	done.Writer().Write([]byte("x"))
	if done.Commit() != nil {
		fail("commit")
	}
	pending, err := Create(filepath.Join(dir, "pending"), nil)
	if err != nil {
		fail("create")
	}
	w := pending.Writer()
	w.Write([]byte("some"))
	priv := filepath.Join(dir, "private")
	os.Mkdir(priv, 0o700)
	OnInterrupt(func() { os.RemoveAll(priv) })
	Interrupt()
	if _, err := w.Write([]byte("more")); !errors.Is(err, ErrInterrupted) {
		fail("write after Interrupt")
	}
	if err := pending.Commit(); !errors.Is(err, ErrInterrupted) {
		fail("commit after Interrupt")
	}
	if _, err := Create(filepath.Join(dir, "late"), nil); !errors.Is(err, ErrInterrupted) {
		fail("create after Interrupt")
	}
	os.Stdout.WriteString("ok\n")
	os.Exit(0)
}
