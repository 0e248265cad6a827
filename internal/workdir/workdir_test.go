package workdir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrivateNames(t *testing.T) {
	d := New(Options{TempRoot: t.TempDir()})
	a, err := d.Name("app.x86_64.", "img")
	require.NoError(t, err)
	b, err := d.Name("app.x86_64.", "img")
	require.NoError(t, err)
	assert.True(t, a != b)
	assert.True(t, strings.HasPrefix(filepath.Base(a), "app.x86_64.-") && strings.HasSuffix(a, ".img"), a)
	assert.Equal(t, len("app.x86_64.-XXXXXX.img"), len(filepath.Base(a)))
	require.NoError(t, os.WriteFile(a, []byte("x"), 0o644))
	require.NoError(t, d.Close())
	_, err = os.Stat(filepath.Dir(a))
	assert.True(t, errors.Is(err, os.ErrNotExist))
	assert.Equal(t, []string{a, b}, d.Files())
}

func TestSaveTempsNames(t *testing.T) {
	dir := t.TempDir()
	d := New(Options{SaveTemps: true, KeepDir: dir})
	n, err := d.Name("a-x86_64-unknown-linux-gnu-generic", "o")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "a-x86_64-unknown-linux-gnu-generic.o"), n)
	require.NoError(t, os.WriteFile(n, nil, 0o644))
	require.NoError(t, d.Close())
	_, err = os.Stat(n)
	assert.NoError(t, err)
	d2 := New(Options{SaveTemps: true})
	n, _ = d2.Name("x", "img")
	assert.Equal(t, "x.img", n)
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, WriteFile(out, []byte("ok"), 0o755))
	b, _ := os.ReadFile(out)
	assert.Equal(t, "ok", string(b))
	st, _ := os.Stat(out)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())

	boom := errors.New("boom")
	err := WriteAtomic(filepath.Join(dir, "bad"), 0o644, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	assert.True(t, errors.Is(err, boom))
	ents, _ := os.ReadDir(dir)
	assert.Equal(t, 1, len(ents), "failed write leaves nothing behind")
}
