package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMemo: a memo is returned while its deps keep their status, and
// missed after any of them is rewritten, touched, removed, created or
// re-pointed (a symlink); one whose deps changed around the time the value
// was made is not stored.
func TestMemo(t *testing.T) {
	c := openCache(t, Options{Dir: t.TempDir()})
	d := t.TempDir()
	file, dir, gone, link := filepath.Join(d, "crt1.o"), filepath.Join(d, "gcc"), filepath.Join(d, "later"), filepath.Join(d, "clang")
	require.NoError(t, os.WriteFile(file, []byte("crt"), 0o644))
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Symlink(file, link))
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{file, dir} {
		require.NoError(t, os.Chtimes(p, old, old))
	}
	// ctime cannot be set back: "since" is after it by more than racyWindow.
	since := time.Now().Add(2 * racyWindow)
	deps := []string{file, dir, gone, link}
	set := func() { c.SetMemo("t", "key", deps, since, []byte("value\n\nwith blank lines")) }
	set()
	v, ok := c.Memo("t", "key")
	require.True(t, ok)
	require.Equal(t, "value\n\nwith blank lines", string(v))
	_, ok = c.Memo("t", "other key")
	require.False(t, ok)

	for _, change := range []struct {
		name string
		do   func()
	}{
		{"touch", func() { now := time.Now(); os.Chtimes(file, now, now) }},
		{"new file in dir", func() { os.WriteFile(filepath.Join(dir, "13"), nil, 0o644) }},
		{"created", func() { os.WriteFile(gone, nil, 0o644) }},
		{"removed", func() { os.Remove(gone) }},
		{"re-pointed", func() { os.Remove(link); os.Symlink(dir, link) }},
	} {
		since = time.Now().Add(2 * racyWindow)
		set()
		_, ok := c.Memo("t", "key")
		require.True(t, ok, "before %s", change.name)
		change.do()
		_, ok = c.Memo("t", "key")
		require.False(t, ok, "after %s", change.name)
	}
	// Racy: a dep changed after the value's program started.
	os.Remove(c.memoPath("t", "key"))
	c.SetMemo("t", "key", deps, time.Now().Add(-time.Minute), []byte("v"))
	_, ok = c.Memo("t", "key")
	require.False(t, ok, "stored although a dep changed while the value was made")
	// Damaged entries are misses.
	since = time.Now().Add(2 * racyWindow)
	set()
	require.NoError(t, os.WriteFile(c.memoPath("t", "key"), []byte("garbage"), 0o644))
	_, ok = c.Memo("t", "key")
	require.False(t, ok)
}
