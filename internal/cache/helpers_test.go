package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock advances by one second on every reading, so access times are
// strictly increasing and LRU order is deterministic.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// warnings collects Options.Warn lines.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) warn(s string) {
	w.mu.Lock()
	w.lines = append(w.lines, s)
	w.mu.Unlock()
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

func openCache(t testing.TB, opt Options) *Cache {
	t.Helper()
	c, err := Open(opt)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func writeTestFile(t testing.TB, path string, data []byte) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// payload returns deterministic content for entry i and file f.
func payload(i int, f string, size int) []byte {
	seed := sha256.Sum256(fmt.Appendf(nil, "%d/%s", i, f))
	return bytes.Repeat(seed[:], size/32+1)[:size]
}

// testKey is a key for entry i.
func testKey(i int) Key {
	var b KeyBuilder
	b.AddArg(fmt.Sprint("entry", i))
	return b.Sum()
}

// putEntry stores entry i (files "image" and "image.map") from a scratch
// directory.
func putEntry(t testing.TB, c *Cache, i, size int) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"image":     writeTestFile(t, filepath.Join(dir, "out.img"), payload(i, "image", size)),
		"image.map": writeTestFile(t, filepath.Join(dir, "out.map"), payload(i, "map", 64)),
	}
	require.NoError(t, c.Put(context.Background(), testKey(i), Entry{Files: files, Stderr: fmt.Appendf(nil, "warning %d\n", i)}))
}

// getEntry looks entry i up and, on a hit, checks the restored contents.
func getEntry(t testing.TB, c *Cache, i, size int) Hit {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{"image": filepath.Join(dir, "a.img"), "image.map": filepath.Join(dir, "a.map")}
	hit, err := c.Get(context.Background(), testKey(i), out)
	require.NoError(t, err)
	if hit.OK {
		got, err := os.ReadFile(out["image"])
		require.NoError(t, err)
		assert.Equal(t, payload(i, "image", size), got, "entry %d image", i)
		got, err = os.ReadFile(out["image.map"])
		require.NoError(t, err)
		assert.Equal(t, payload(i, "map", 64), got, "entry %d map", i)
		assert.Equal(t, fmt.Sprintf("warning %d\n", i), string(hit.Stderr))
	} else {
		assert.NoFileExists(t, out["image"], "a miss must not write outputs")
	}
	return hit
}

// dirFiles lists the regular files under dir, relative to it.
func dirFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	}))
	return out
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func removeAll(p string) error { return os.RemoveAll(p) }

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return fmt.Sprintf("%x", s[:])
}
