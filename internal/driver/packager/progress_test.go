package packager

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offload-kit/offload-kit/internal/progress"
)

// TestCopyProgress: extraction's copy loop reports through the Env's
// sink (carried by withProgress) and erases its line; without one it is
// silent.
func TestCopyProgress(t *testing.T) {
	src := bytes.Repeat([]byte{7}, 200<<20)
	var term bytes.Buffer
	clock := time.Unix(0, 0)
	env := &Env{Progress: &progress.Sink{W: &term, Now: func() time.Time { clock = clock.Add(time.Second); return clock }}}
	var dst bytes.Buffer
	require.NoError(t, copyN(withProgress(context.Background(), env), &dst, bytes.NewReader(src), int64(len(src))))
	assert.Equal(t, len(src), dst.Len())
	assert.Contains(t, term.String(), "\rcopying: 32% (64.0 MiB of 200.0 MiB)")
	assert.Contains(t, term.String(), "\rcopying: 100% (200.0 MiB of 200.0 MiB)")
	assert.Regexp(t, regexp.MustCompile(`\r +\r$`), term.String())

	term.Reset()
	dst.Reset()
	require.NoError(t, copyN(withProgress(context.Background(), &Env{}), &dst, bytes.NewReader(src), int64(len(src))))
	require.NoError(t, copyN(context.Background(), &dst, bytes.NewReader(src), int64(len(src))))
	assert.Empty(t, term.String())
}
