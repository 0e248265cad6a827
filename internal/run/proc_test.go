package run

import (
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProcEcho(t *testing.T) {
	p, err := Start(&Cmd{Args: []string{"sh", "-c", "head -c 5; echo gone >&2; exit 3"}, Path: "/bin/sh"})
	require.NoError(t, err)
	_, err = io.WriteString(p.Stdin, "hello")
	require.NoError(t, err)
	b := make([]byte, 5)
	_, err = io.ReadFull(p.Stdout, b)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(b))
	err = p.Wait()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 3, e.ExitCode)
	assert.Equal(t, "gone\n", string(p.Stderr()))
	assert.Equal(t, syscall.Signal(0), p.Signal())
}

func TestProcKilled(t *testing.T) {
	p, err := Start(&Cmd{Args: []string{"/bin/sh", "-c", "cat >/dev/null"}})
	require.NoError(t, err)
	assert.Equal(t, syscall.Signal(0), p.Signal()) // still running
	p.Kill()
	<-p.Done()
	assert.Equal(t, syscall.SIGKILL, p.Signal())
	var e *Error
	require.ErrorAs(t, p.Wait(), &e)
	assert.Equal(t, -1, e.ExitCode)

	_, err = Start(&Cmd{Args: []string{"/nonexistent/helper"}})
	require.Error(t, err)
	_, err = Start(&Cmd{})
	require.Error(t, err)
}

func TestTailBuffer(t *testing.T) {
	var tb tailBuffer
	tb.Write([]byte(strings.Repeat("a", tailMax)))
	tb.Write([]byte("xyz"))
	b := tb.Bytes()
	assert.Len(t, b, tailMax)
	assert.True(t, strings.HasSuffix(string(b), "aaxyz"))
}
