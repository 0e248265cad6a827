package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNameMax: destinations whose names are 240, 250 and 255 bytes (legal
// on Linux) are written, replaced and aborted; the hidden temporary's name
// is shortened to fit 255 bytes; FitName keeps short names and keeps long
// distinct names distinct.
func TestNameMax(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{240, 250, 255} {
		dest := filepath.Join(dir, strings.Repeat("x", n-4)+".bin")
		for i := 0; i < 2; i++ { // new, then replacing
			f, err := Create(dest, nil)
			require.NoError(t, err, n)
			assert.LessOrEqual(t, len(filepath.Base(f.TempName())), NameMax)
			assert.True(t, strings.HasPrefix(filepath.Base(f.TempName()), ".x"))
			_, err = f.Writer().Write([]byte{byte(i)})
			require.NoError(t, err)
			require.NoError(t, f.Commit())
			b, _ := os.ReadFile(dest)
			assert.Equal(t, []byte{byte(i)}, b)
		}
		f, err := Create(dest, nil)
		require.NoError(t, err)
		f.Abort()
	}
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 3, "no temporaries left")

	assert.Equal(t, "short", FitName("short", 14))
	a, b := FitName(strings.Repeat("a", 250)+"1", 14), FitName(strings.Repeat("a", 250)+"2", 14)
	assert.NotEqual(t, a, b)
	assert.Len(t, a, NameMax-14)
	u := FitName(strings.Repeat("é", 200), 14) // cut at a rune boundary
	assert.LessOrEqual(t, len(u), NameMax-14)
	assert.True(t, strings.HasPrefix(u, "é") && !strings.Contains(u, "\uFFFD"))
}

// TestSeal: a sealed output holds no descriptor, is committed by rename
// later, and an abort (or a seal's own failure) removes only the
// temporary; a symlink at the destination is replaced.
func TestSeal(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("v"), 0o644))
	dest := filepath.Join(dir, "out")
	require.NoError(t, os.Symlink(victim, dest))
	f, err := Create(dest, nil)
	require.NoError(t, err)
	_, err = f.Writer().Write([]byte("new"))
	require.NoError(t, err)
	require.NoError(t, f.Seal())
	// A child may write the sealed temporary by name.
	require.NoError(t, os.WriteFile(f.TempName(), []byte("child"), 0o644))
	require.NoError(t, f.Commit())
	b, _ := os.ReadFile(dest)
	assert.Equal(t, "child", string(b))
	b, _ = os.ReadFile(victim)
	assert.Equal(t, "v", string(b))
	fi, _ := os.Lstat(dest)
	assert.True(t, fi.Mode().IsRegular())

	g, err := Create(dest, nil)
	require.NoError(t, err)
	require.NoError(t, g.Seal())
	g.Abort()
	_, err = os.Stat(g.TempName())
	assert.True(t, os.IsNotExist(err))
	b, _ = os.ReadFile(dest)
	assert.Equal(t, "child", string(b), "abort keeps the earlier output")

	// A device destination cannot wait: Seal commits (closes) it.
	h, err := Create("/dev/null", nil)
	require.NoError(t, err)
	assert.True(t, h.Streaming())
	assert.Equal(t, "", h.TempName())
	require.NoError(t, h.Seal())
	assert.True(t, InPlace("/dev/null"))
	assert.False(t, InPlace(dest))
}
