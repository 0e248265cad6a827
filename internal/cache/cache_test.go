package cache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenValidates(t *testing.T) {
	_, err := Open(Options{})
	assert.Error(t, err)
	_, err = Open(Options{Dir: t.TempDir(), MaxSize: -1})
	assert.Error(t, err)
	// A bad remote URL (or header) is a warning; the local cache works.
	for _, bad := range []Options{
		{Remote: "ftp://host/"}, {Remote: "localhost:8080"}, {Remote: "http://"}, {Remote: "http://h/?q=1"},
		{Remote: "https://h", RemoteHeaders: map[string]string{"X-Bad\r\nInjected": "v"}},
		{Remote: "https://h", RemoteHeaders: map[string]string{"Authorization": "a\nb"}},
	} {
		var w warnings
		bad.Dir, bad.Warn = t.TempDir(), w.warn
		c, err := Open(bad)
		require.NoError(t, err, bad.Remote)
		assert.Nil(t, c.remote, bad.Remote)
		require.Len(t, w.all(), 1, bad.Remote)
		assert.Contains(t, w.all()[0], "using the local cache only")
		putEntry(t, c, 1, 10)
		assert.True(t, getEntry(t, c, 1, 10).OK, bad.Remote)
	}
}

func TestNilCacheIsDisabled(t *testing.T) {
	var c *Cache
	hit, err := c.Get(context.Background(), Key{}, nil)
	assert.NoError(t, err)
	assert.False(t, hit.OK)
	assert.NoError(t, c.Put(context.Background(), Key{}, Entry{}))
	assert.Equal(t, Stats{}, c.Stats())
	_, err = c.Trim(context.Background())
	assert.NoError(t, err)
	assert.NoError(t, c.Close())
}

func TestLocalMissPutHit(t *testing.T) {
	dir := t.TempDir()
	c := openCache(t, Options{Dir: dir})
	ctx := context.Background()

	assert.False(t, getEntry(t, c, 1, 1000).OK)
	putEntry(t, c, 1, 1000)
	hit := getEntry(t, c, 1, 1000)
	assert.True(t, hit.OK)
	assert.False(t, hit.Remote)

	s := c.Stats()
	assert.Equal(t, Stats{Lookups: 2, LocalHits: 1, Misses: 1, Puts: 1}, s)
	assert.Contains(t, s.String(), "2 lookups, 1 hits (1 local, 0 remote), 1 misses")

	// Layout: one manifest, two blobs, nothing left in tmp/.
	var ac, cas, tmp int
	for _, f := range dirFiles(t, dir) {
		switch filepath.Dir(filepath.Dir(f)) {
		case "v1/ac":
			ac++
		case "v1/cas":
			cas++
		default:
			tmp++
		}
	}
	assert.Equal(t, []int{1, 2, 0}, []int{ac, cas, tmp}, dirFiles(t, dir))

	// A subset of the outputs may be requested; an unknown name misses.
	out := filepath.Join(t.TempDir(), "only.img")
	hit, err := c.Get(ctx, testKey(1), map[string]string{"image": out})
	require.NoError(t, err)
	assert.True(t, hit.OK)
	hit, err = c.Get(ctx, testKey(1), map[string]string{"image": out, "other": out + ".x"})
	require.NoError(t, err)
	assert.False(t, hit.OK)

	// Restoring into a missing directory is an error, not a miss.
	_, err = c.Get(ctx, testKey(1), map[string]string{"image": filepath.Join(dir, "no", "such", "dir", "x")})
	assert.Error(t, err)
}

func TestExecutableBitAndEmptyFile(t *testing.T) {
	c := openCache(t, Options{Dir: t.TempDir()})
	src := t.TempDir()
	exe := writeTestFile(t, filepath.Join(src, "tool"), []byte("#!/bin/sh\n"))
	require.NoError(t, os.Chmod(exe, 0o755))
	empty := writeTestFile(t, filepath.Join(src, "empty"), nil)
	k := testKey(7)
	require.NoError(t, c.Put(context.Background(), k, Entry{Files: map[string]string{"exe": exe, "empty": empty}}))

	dst := t.TempDir()
	out := map[string]string{"exe": filepath.Join(dst, "exe"), "empty": filepath.Join(dst, "empty")}
	hit, err := c.Get(context.Background(), k, out)
	require.NoError(t, err)
	require.True(t, hit.OK)
	fi, err := os.Stat(out["exe"])
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&0o100, "executable bit restored")
	fi, err = os.Stat(out["empty"])
	require.NoError(t, err)
	assert.Zero(t, fi.Size())
	assert.Empty(t, dirFiles(t, dst)[2:], "no temporary files left beside outputs")
}

func TestPutRejects(t *testing.T) {
	c := openCache(t, Options{Dir: t.TempDir()})
	ctx := context.Background()
	assert.Error(t, c.Put(ctx, Key{}, Entry{Files: map[string]string{"../x": "/dev/null"}}))
	assert.Error(t, c.Put(ctx, Key{}, Entry{Files: map[string]string{"x": filepath.Join(t.TempDir(), "missing")}}))
	assert.Error(t, c.Put(ctx, Key{}, Entry{Files: map[string]string{"x": t.TempDir()}}))
	assert.Equal(t, int64(0), c.Stats().Puts)
}

func TestLocalCorruption(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	c := openCache(t, Options{Dir: dir, Warn: w.warn})
	putEntry(t, c, 1, 500)
	putEntry(t, c, 2, 500)

	// Flip a byte of entry 1's image blob: detected, a miss, blob removed.
	blob := c.casPath(sha256Sum(payload(1, "image", 500)))
	data, err := os.ReadFile(blob)
	require.NoError(t, err)
	data[10] ^= 0xff
	require.NoError(t, os.WriteFile(blob, data, 0o644))
	assert.False(t, getEntry(t, c, 1, 500).OK)
	assert.NoFileExists(t, blob)
	assert.Equal(t, int64(1), c.Stats().Corrupt)

	// Garbage manifest for entry 2: a miss, manifest removed.
	require.NoError(t, os.WriteFile(c.acPath(testKey(2)), []byte("not a manifest"), 0o644))
	assert.False(t, getEntry(t, c, 2, 500).OK)
	assert.NoFileExists(t, c.acPath(testKey(2)))
	assert.Equal(t, int64(2), c.Stats().Corrupt)
	assert.Len(t, w.all(), 2)

	// Re-inserting repairs the entries.
	putEntry(t, c, 1, 500)
	assert.True(t, getEntry(t, c, 1, 500).OK)
}

func TestConcurrentInsertsGoroutines(t *testing.T) {
	dir := t.TempDir()
	const workers, size = 12, 4096
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Open(Options{Dir: dir}) // a separate instance per goroutine
			if !assert.NoError(t, err) {
				return
			}
			for round := range 3 {
				putEntry(t, c, 0, size)     // everybody inserts the same key
				putEntry(t, c, 100+w, size) // and one of its own
				assert.True(t, getEntry(t, c, 0, size).OK)
				getEntry(t, c, 100+(w+round)%workers, size) // may or may not be there yet
			}
		}()
	}
	wg.Wait()
	c := openCache(t, Options{Dir: dir})
	assert.True(t, getEntry(t, c, 0, size).OK)
	for w := range workers {
		assert.True(t, getEntry(t, c, 100+w, size).OK, "entry %d", w)
	}
	tmp, err := os.ReadDir(filepath.Join(dir, "v1", "tmp"))
	require.NoError(t, err)
	assert.Empty(t, tmp, "temporary files left behind")
}

// TestConcurrentInsertsProcesses runs several copies of the test binary
// (TestHelperProcess) that insert into and read from one directory.
func TestConcurrentInsertsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	const procs = 4
	cmds := make([]*exec.Cmd, procs)
	outs := make([][]byte, procs)
	var wg sync.WaitGroup
	for p := range procs {
		cmds[p] = exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1")
		cmds[p].Env = append(os.Environ(), "CACHE_HELPER_DIR="+dir, "CACHE_HELPER_ID="+strconv.Itoa(p))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			outs[p], err = cmds[p].CombinedOutput()
			assert.NoError(t, err, "helper %d:\n%s", p, outs[p])
		}()
	}
	wg.Wait()
	c := openCache(t, Options{Dir: dir})
	for i := range 10 {
		assert.True(t, getEntry(t, c, i, 2048).OK, "shared entry %d", i)
	}
	for p := range procs {
		assert.True(t, getEntry(t, c, 1000+p, 2048).OK, "entry of helper %d", p)
	}
}

// TestHelperProcess is the body of one TestConcurrentInsertsProcesses
// helper; it does nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("CACHE_HELPER_DIR")
	if dir == "" {
		t.Skip("helper for TestConcurrentInsertsProcesses")
	}
	id, err := strconv.Atoi(os.Getenv("CACHE_HELPER_ID"))
	require.NoError(t, err)
	c := openCache(t, Options{Dir: dir})
	for round := range 2 {
		for i := range 10 {
			putEntry(t, c, (i+id+round)%10, 2048)
			assert.True(t, getEntry(t, c, (i+id)%10, 2048).OK || round == 0)
		}
	}
	putEntry(t, c, 1000+id, 2048)
}

// TestConcurrentTrim inserts and reads concurrently under a small size
// limit: eviction may turn anything into a miss, but a hit must never
// restore wrong contents and nothing may fail.
func TestConcurrentTrim(t *testing.T) {
	dir := t.TempDir()
	const size = 2000
	maxSize := int64(8 * (size + 64 + 300))
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Open(Options{Dir: dir, MaxSize: maxSize})
			if !assert.NoError(t, err) {
				return
			}
			for i := range 15 {
				putEntry(t, c, (w*7+i)%20, size)
				getEntry(t, c, (w*3+i)%20, size)
			}
		}()
	}
	wg.Wait()
	c := openCache(t, Options{Dir: dir, MaxSize: maxSize})
	_, err := c.Trim(context.Background())
	require.NoError(t, err)
	n, err := c.Size(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, n, maxSize)
}

func TestEvictLRU(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	const size = 1000
	probe := openCache(t, Options{Dir: t.TempDir()})
	putEntry(t, probe, 0, size)
	entrySize, err := probe.Size(context.Background())
	require.NoError(t, err)

	// Room for 3.5 entries: the fourth insert evicts exactly one.
	maxSize := entrySize*3 + entrySize/2
	c := openCache(t, Options{Dir: dir, MaxSize: maxSize, Now: clock.Now})
	putEntry(t, c, 1, size)
	putEntry(t, c, 2, size)
	putEntry(t, c, 3, size)
	assert.True(t, getEntry(t, c, 1, size).OK) // 1 is now more recent than 2 and 3
	putEntry(t, c, 4, size)

	s := c.Stats()
	assert.Equal(t, int64(1), s.Evicted)
	assert.Equal(t, entrySize, s.EvictedBytes)
	n, err := c.Size(context.Background())
	require.NoError(t, err)
	assert.LessOrEqual(t, n, maxSize)
	assert.Equal(t, 3*entrySize, n)

	assert.False(t, getEntry(t, c, 2, size).OK, "least recently used entry evicted")
	for _, i := range []int{1, 3, 4} {
		assert.True(t, getEntry(t, c, i, size).OK, "entry %d kept", i)
	}
}

func TestEvictSharedBlobAndStrays(t *testing.T) {
	dir := t.TempDir()
	clock := newFakeClock()
	c := openCache(t, Options{Dir: dir, Now: clock.Now})
	ctx := context.Background()
	src := t.TempDir()
	shared := writeTestFile(t, filepath.Join(src, "shared"), payload(0, "shared", 300))
	for i := 1; i <= 2; i++ {
		own := writeTestFile(t, filepath.Join(src, fmt.Sprint("own", i)), payload(i, "own", 1000))
		require.NoError(t, c.Put(ctx, testKey(i), Entry{Files: map[string]string{"shared": shared, "own": own}}))
	}
	// A stale temporary file from a crashed process, and a stray blob.
	stale := writeTestFile(t, filepath.Join(dir, "v1", "tmp", "blob-crashed"), make([]byte, 100))
	old := clock.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(stale, old, old))
	stray := writeTestFile(t, c.casPath(sha256Sum([]byte("stray"))), []byte("stray"))
	require.NoError(t, os.Chtimes(stray, old, old))

	total, err := c.Size(ctx)
	require.NoError(t, err)
	// Just over the limit once the stale file is gone: the stray blob
	// goes, then the older entry, which brings it under 90%.
	limit := total - 100 - 6
	c2 := openCache(t, Options{Dir: dir, MaxSize: limit, Now: clock.Now})
	res, err := c2.Trim(ctx)
	require.NoError(t, err)
	assert.NoFileExists(t, stale)
	assert.NoFileExists(t, stray, "unreferenced old blob goes first")
	assert.LessOrEqual(t, res.After, limit)
	assert.Equal(t, 2, res.Removed)

	// Entry 1 (older) went; the blob it shares with entry 2 stayed.
	out := t.TempDir()
	hit, err := c2.Get(ctx, testKey(2), map[string]string{"shared": filepath.Join(out, "s"), "own": filepath.Join(out, "o")})
	require.NoError(t, err)
	assert.True(t, hit.OK)
	hit, err = c2.Get(ctx, testKey(1), map[string]string{"own": filepath.Join(out, "o1")})
	require.NoError(t, err)
	assert.False(t, hit.OK)
}

// FileHash memoises by file status: an unchanged file is not read again
// (a planted wrong memo for the same status shows that), and any change
// of the file (a rewrite with the same size and mtime changes its ctime)
// is seen.
func TestFileHashMemo(t *testing.T) {
	c := openCache(t, Options{Dir: t.TempDir()})
	p := writeTestFile(t, filepath.Join(t.TempDir(), "libdev.a"), []byte("version 41"))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	time.Sleep(racyWindow + 100*time.Millisecond) // ctime out of the racy window
	sum, size, err := c.FileHash(p)
	require.NoError(t, err)
	assert.Equal(t, sha256Sum([]byte("version 41")), sum)
	assert.Equal(t, int64(10), size)
	memos := dirFiles(t, filepath.Join(c.root, statDir))
	require.Len(t, memos, 1)

	// The memo is used: make it lie (same status) and see the lie.
	mp := filepath.Join(c.root, statDir, memos[0])
	data, err := os.ReadFile(mp)
	require.NoError(t, err)
	lie := sha256Sum([]byte("planted"))
	stamp, _, _ := strings.Cut(string(data), " ")
	require.NoError(t, os.WriteFile(mp, fmt.Appendf(nil, "%s sha256:%x\n", stamp, lie), 0o644))
	sum, _, err = c.FileHash(p)
	require.NoError(t, err)
	assert.Equal(t, lie, sum, "an unchanged file is not read again")

	// Same size, same mtime, new content: ctime differs, so it is rehashed.
	require.NoError(t, os.WriteFile(p, []byte("version 42"), 0o644))
	require.NoError(t, os.Chtimes(p, old, old))
	sum, _, err = c.FileHash(p)
	require.NoError(t, err)
	assert.Equal(t, sha256Sum([]byte("version 42")), sum)
}
