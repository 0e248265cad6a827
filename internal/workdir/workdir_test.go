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

// TestNameMaxPrefix: a prefix derived from a 255-byte output name gives
// names within 255 bytes, saved (deterministic) and private, that can be
// created.
func TestNameMaxPrefix(t *testing.T) {
	long := strings.Repeat("p", 255)
	keep := t.TempDir()
	d := New(Options{SaveTemps: true, KeepDir: keep})
	n, err := d.Name(long+"-linked", "bc")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(filepath.Base(n)), 255)
	assert.True(t, strings.HasSuffix(n, ".bc"))
	require.NoError(t, WriteNew(n, []byte("x")))
	n2, _ := New(Options{SaveTemps: true, KeepDir: keep}).Name(long+"-linked", "bc")
	assert.Equal(t, n, n2, "saved names are deterministic")

	p := New(Options{TempRoot: t.TempDir()})
	defer p.Close()
	n, err = p.Name(long, "o")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(filepath.Base(n)), 255)
	require.NoError(t, WriteNew(n, []byte("x")))
}
