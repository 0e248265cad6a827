//go:build linux && (amd64 || arm64)

package sycldev

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStagerTmpfile: a part whose name is free is written as an O_TMPFILE
// file linked at its name, with its content and mode 0644 less the umask,
// and leaves no temporary behind; a symlink planted at a part's name after
// the directory listing (linkat then fails with EEXIST) is replaced by the
// temporary-plus-rename path, its target untouched.
func TestStagerTmpfile(t *testing.T) {
	t.Run("empty-path", func(t *testing.T) { stagerTmpfile(t) })
	t.Run("proc-fd", func(t *testing.T) {
		// linkat through /proc/self/fd/N, as without CAP_DAC_READ_SEARCH
		// before Linux 6.10.
		was := emptyPathLink.Load()
		emptyPathLink.Store(false)
		defer emptyPathLink.Store(was)
		stagerTmpfile(t)
	})
}

func stagerTmpfile(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	s := &stager{}
	defer s.abort()

	fresh := filepath.Join(dir, "out_0.prop")
	planted := filepath.Join(dir, "out_0.sym")
	defer s.closeDirs()
	_, ok := s.absent(fresh) // the listing is taken here
	require.True(t, ok)
	_, ok = s.absent(planted)
	require.True(t, ok)

	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o644))
	require.NoError(t, os.Symlink(victim, planted))

	require.NoError(t, s.write(fresh, []byte("props")))
	require.NoError(t, s.write(planted, []byte("syms")))
	if s.noTmp[filepath.Clean(dir)] {
		t.Skip("O_TMPFILE not supported in " + dir)
	}
	// The fresh part was linked at once (no commit needed), not staged.
	assert.Equal(t, []string{fresh}, s.renamed)
	b, err := os.ReadFile(fresh)
	require.NoError(t, err)
	assert.Equal(t, "props", string(b))
	fi, err := os.Lstat(fresh)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

	require.NoError(t, s.commit())
	s.done()
	fi, err = os.Lstat(planted)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular(), "the planted symlink is replaced")
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
	b, err = os.ReadFile(planted)
	require.NoError(t, err)
	assert.Equal(t, "syms", string(b))
	b, err = os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "victim", string(b), "the symlink's target is not written")

	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"out_0.prop", "out_0.sym"}, names, "no temporary left")
}
