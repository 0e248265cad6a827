package progress

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a fake clock advanced by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestReporter(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	s := &Sink{W: &out, Now: c.now}
	r := s.Start("compressing", 4<<30)
	r.Add(1 << 30)
	assert.Empty(t, out.String(), "nothing in the first second")
	c.t = c.t.Add(1500 * time.Millisecond)
	r.Add(1 << 30)
	assert.Equal(t, "\rcompressing: 50% (2.0 GiB of 4.0 GiB), 1.3 GiB/s", out.String())
	out.Reset()
	c.t = c.t.Add(100 * time.Millisecond)
	r.Add(1 << 20)
	assert.Empty(t, out.String(), "at most one redraw per 200 ms")
	c.t = c.t.Add(200 * time.Millisecond)
	r.Add(1<<30 - 1<<20)
	line := out.String()
	assert.True(t, strings.HasPrefix(line, "\rcompressing: 75% (3.0 GiB of 4.0 GiB), "), line)
	out.Reset()
	r.Done()
	assert.Equal(t, "\r"+strings.Repeat(" ", len(line)-1)+"\r", out.String(), "Done erases the line")
}

func TestShortOperationIsSilent(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1000, 0)}
	r := (&Sink{W: &out, Now: c.now}).Start("unbundling", 100)
	c.t = c.t.Add(900 * time.Millisecond)
	r.Add(100)
	r.Done()
	assert.Empty(t, out.String())
}

func TestNilIsSilent(t *testing.T) {
	var s *Sink
	r := s.Start("x", 10)
	r.Add(5)
	r.Done()
	var buf bytes.Buffer
	n, err := io.Copy(r.Writer(&buf), r.Reader(strings.NewReader("abc")))
	require.NoError(t, err)
	assert.Equal(t, int64(3), n)
	assert.Nil(t, (&Sink{}).Start("no writer", 1))
	assert.Nil(t, FromContext(context.Background()))
	assert.Nil(t, FromContext(NewContext(context.Background(), nil)))
}

func TestCountingWrappers(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	s := &Sink{W: &out, Now: c.now, Delay: time.Nanosecond}
	ctx := NewContext(context.Background(), s)
	require.Same(t, s, FromContext(ctx))
	r := FromContext(ctx).Start("copying", 6)
	c.t = c.t.Add(time.Second)
	var dst bytes.Buffer
	_, err := io.Copy(r.Writer(&dst), strings.NewReader("abc"))
	require.NoError(t, err)
	assert.Contains(t, out.String(), "copying: 50% (3 B of 6 B)")
	c.t = c.t.Add(time.Second)
	_, err = io.Copy(io.Discard, r.Reader(strings.NewReader("def")))
	require.NoError(t, err)
	assert.Contains(t, out.String(), "copying: 100% (6 B of 6 B)")
}
