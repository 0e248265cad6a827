package cache

// Attacks on the cache from a hostile remote (an httptest server, which
// listens on 127.0.0.1 only) and from a tampered local directory
// (docs/cache.md, "Trust model"; issue 14).

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is a remote whose answers a test scripts per request path.
type hostile struct {
	log     atomic.Pointer[[]string]
	handler func(w http.ResponseWriter, r *http.Request)
}

func newHostile(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) (*hostile, *httptest.Server) {
	x := &hostile{handler: h}
	x.log.Store(&[]string{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			old := x.log.Load()
			l := append(append([]string(nil), *old...), r.Method+" "+r.URL.Path)
			if x.log.CompareAndSwap(old, &l) {
				break
			}
		}
		x.handler(w, r)
	}))
	require.True(t, strings.HasPrefix(srv.URL, "http://127.0.0.1:"), "loopback only: %s", srv.URL)
	t.Cleanup(srv.Close)
	return x, srv
}

func (x *hostile) requests() []string { return *x.log.Load() }

// sealedEntry is the manifest of entry i (as putEntry writes it) sealed for k.
func sealedEntry(i, size int, k Key) []byte {
	m := &manifest{Files: []manifestFile{
		{Name: "image", Hash: sha256Sum(payload(i, "image", size)), Size: int64(size)},
		{Name: "image.map", Hash: sha256Sum(payload(i, "map", 64)), Size: 64},
	}, Stderr: fmt.Appendf(nil, "warning %d\n", i)}
	return m.seal(k, nil)
}

// serveStore answers from a map of path → body, 404 otherwise.
func serveStore(store map[string][]byte) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		b, ok := store[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}
}

// Attack: the server answers key 2 with the (valid) entry of key 1.
func TestHostileWrongEntryForKey(t *testing.T) {
	const size = 500
	store := map[string][]byte{
		"/ac/" + testKey(2).String():                sealedEntry(1, size, testKey(1)),
		"/cas/" + hexSum(payload(1, "image", size)): payload(1, "image", size),
		"/cas/" + hexSum(payload(1, "map", 64)):     payload(1, "map", 64),
	}
	x, srv := newHostile(t, serveStore(store))
	var w warnings
	c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, Warn: w.warn})
	hit, err := c.Get(context.Background(), testKey(2), map[string]string{"image": filepath.Join(t.TempDir(), "out")})
	require.NoError(t, err)
	assert.False(t, hit.OK, "an entry of another key is never linked")
	assert.Equal(t, []string{"GET /ac/" + testKey(2).String()}, x.requests(), "no blob is fetched for a rejected entry")
	assert.NoFileExists(t, c.acPath(testKey(2)), "nothing stored locally")
	assert.Equal(t, int64(1), c.Stats().Corrupt)
	assert.Contains(t, strings.Join(w.all(), "\n"), "belongs to key "+testKey(1).String())
	assert.False(t, c.Stats().RemoteDown, "a lying server is not a failing one")
}

// Attack: a local ac/ file copied over another key's.
func TestHostileCopiedLocalEntry(t *testing.T) {
	var w warnings
	c := openCache(t, Options{Dir: t.TempDir(), Warn: w.warn})
	putEntry(t, c, 1, 100)
	putEntry(t, c, 2, 100)
	data, err := os.ReadFile(c.acPath(testKey(1)))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(c.acPath(testKey(2)), data, 0o644))
	assert.False(t, getEntry(t, c, 2, 100).OK)
	assert.NoFileExists(t, c.acPath(testKey(2)), "the bad entry is deleted")
	assert.Contains(t, strings.Join(w.all(), "\n"), "belongs to key")
	assert.True(t, getEntry(t, c, 1, 100).OK, "the original is untouched")
}

// Attack: an entry for the right key that claims huge blobs, or a server
// that sends more bytes than the entry claims. Only the blob asked for is
// fetched, claims over the limits are rejected before any download, and a
// download stops one byte past its claim.
func TestHostileHugeClaims(t *testing.T) {
	k := testKey(7)
	img := payload(7, "image", 1000)
	huge := &manifest{Files: []manifestFile{
		{Name: "image", Hash: sha256Sum(img), Size: 1 << 40},
	}}
	other := &manifest{Files: []manifestFile{
		{Name: "image", Hash: sha256Sum(img), Size: int64(len(img))},
		{Name: "unrequested", Hash: sha256Sum([]byte("x")), Size: 1 << 30},
	}}
	endless := &manifest{Files: []manifestFile{{Name: "image", Hash: sha256Sum(img), Size: int64(len(img))}}}
	for _, tc := range []struct {
		name    string
		entry   []byte
		maxSize int64
		blob    func(w http.ResponseWriter)
		ok      bool
		gets    int
	}{
		{name: "1 TiB claim", entry: huge.seal(k, nil), gets: 1},
		{name: "claim over --cache-max-size", entry: endless.seal(k, nil), maxSize: 512, gets: 1},
		{name: "only the needed blob", entry: other.seal(k, nil), blob: func(w http.ResponseWriter) { w.Write(img) }, ok: true, gets: 2},
		{name: "body longer than claimed", entry: endless.seal(k, nil), gets: 2, blob: func(w http.ResponseWriter) {
			chunk := bytes.Repeat([]byte{'A'}, 64<<10)
			for range 1 << 14 { // would be 1 GiB
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, srv := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/ac/"+k.String():
					w.Write(tc.entry)
				case strings.HasPrefix(r.URL.Path, "/cas/") && tc.blob != nil:
					tc.blob(w)
				default:
					http.NotFound(w, r)
				}
			})
			c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, MaxSize: tc.maxSize})
			out := filepath.Join(t.TempDir(), "out")
			hit, err := c.Get(context.Background(), k, map[string]string{"image": out})
			require.NoError(t, err)
			assert.Equal(t, tc.ok, hit.OK)
			assert.Len(t, x.requests(), tc.gets, "%v", x.requests())
			assert.LessOrEqual(t, c.Stats().Downloaded, int64(len(tc.entry)+len(img)+1+64<<10), "download stops past the claim")
			size, err := c.Size(context.Background())
			require.NoError(t, err)
			assert.LessOrEqual(t, size, int64(len(tc.entry)+len(img)), "nothing but the entry is kept")
			if tc.ok {
				got, err := os.ReadFile(out)
				require.NoError(t, err)
				assert.Equal(t, img, got)
			}
		})
	}
}

// Attack: a server that hangs, or stalls mid-body, costs about one
// Timeout, after which the remote is skipped. A transfer that keeps
// moving may take longer than Timeout.
func TestHostileSlowServer(t *testing.T) {
	const timeout = 200 * time.Millisecond
	k := testKey(8)
	img := payload(8, "image", 2000)
	entry := (&manifest{Files: []manifestFile{{Name: "image", Hash: sha256Sum(img), Size: int64(len(img))}}}).seal(k, nil)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	for _, tc := range []struct {
		name string
		h    func(w http.ResponseWriter, r *http.Request)
		ok   bool
	}{
		{"no answer", hang, false},
		{"stall mid-body", func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/ac/") {
				w.Write(entry)
				return
			}
			w.Header().Set("Content-Length", fmt.Sprint(len(img)))
			w.Write(img[:100])
			w.(http.Flusher).Flush()
			hang(w, r)
		}, false},
		{"slow but steady", func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/ac/") {
				w.Write(entry)
				return
			}
			for i := 0; i < len(img); i += 200 { // 10 chunks, 60 ms apart: 600 ms > timeout
				w.Write(img[i : i+200])
				w.(http.Flusher).Flush()
				time.Sleep(60 * time.Millisecond)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, srv := newHostile(t, tc.h)
			dir := t.TempDir()
			var w warnings
			c := openCache(t, Options{Dir: dir, Remote: srv.URL, Timeout: timeout, Warn: w.warn})
			start := time.Now()
			hit, err := c.Get(context.Background(), k, map[string]string{"image": filepath.Join(t.TempDir(), "out")})
			require.NoError(t, err)
			took := time.Since(start)
			assert.Equal(t, tc.ok, hit.OK)
			if !tc.ok {
				assert.Less(t, took, 2*time.Second, "a hanging remote costs about one timeout")
				assert.Contains(t, strings.Join(w.all(), "\n"), "no progress for 200ms")
				assert.True(t, c.Stats().RemoteDown)
				n := len(x.requests())
				// The rest of the process does not ask again, not even
				// to upload.
				start = time.Now()
				putEntry(t, c, 8, 100)
				assert.False(t, getEntry(t, c, 9, 100).OK)
				assert.Less(t, time.Since(start), timeout)
				assert.Len(t, x.requests(), n)
			} else {
				assert.Greater(t, took, 500*time.Millisecond, "the transfer outlasted the timeout")
				assert.False(t, c.Stats().RemoteDown)
			}
		})
	}
}

// Remote-down memory: a failure is recorded in the cache directory, and
// other processes (other Caches on the same directory) skip the remote
// until RemoteRetry has passed.
func TestHostileRemoteDownMemory(t *testing.T) {
	x, srv := newHostile(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	dir := t.TempDir()
	clock := newFakeClock()
	c := openCache(t, Options{Dir: dir, Remote: srv.URL, Now: clock.Now})
	assert.False(t, getEntry(t, c, 1, 10).OK)
	require.Len(t, x.requests(), 1)
	assert.FileExists(t, filepath.Join(dir, "v1", "remote-down"))

	later := openCache(t, Options{Dir: dir, Remote: srv.URL, Now: clock.Now})
	assert.False(t, getEntry(t, later, 1, 10).OK)
	putEntry(t, later, 1, 10)
	assert.Len(t, x.requests(), 1, "another process within RemoteRetry skips the remote")
	assert.True(t, later.Stats().RemoteDown)
	assert.Contains(t, later.Stats().String(), "remote skipped (down)")
	assert.True(t, getEntry(t, later, 1, 10).OK, "the local cache still works")

	otherRemote := openCache(t, Options{Dir: dir, Remote: srv.URL + "/other", Now: clock.Now})
	assert.False(t, otherRemote.Stats().RemoteDown, "the record names one remote")

	clock.mu.Lock()
	clock.t = clock.t.Add(DefaultRemoteRetry)
	clock.mu.Unlock()
	retry := openCache(t, Options{Dir: dir, Remote: srv.URL, Now: clock.Now})
	assert.False(t, getEntry(t, retry, 2, 10).OK)
	assert.Len(t, x.requests(), 2, "after RemoteRetry the remote is tried again")
}

// Attack: escape sequences and 3.5 MB of "tool output" in an entry.
func TestHostileReplayedOutput(t *testing.T) {
	k := testKey(9)
	img := payload(9, "image", 100)
	files := []manifestFile{{Name: "image", Hash: sha256Sum(img), Size: int64(len(img))}}
	flood := (&manifest{Files: files, Stderr: bytes.Repeat([]byte("clang: error: x\n"), 3_500_000/16)}).seal(k, nil)
	escapes := (&manifest{Files: files, Stderr: []byte("warning: \x1b[2J\x1b]0;pwned\x07\rclang: error: fake\n\u202eevil\xff\xc2\x9b1m\tok\n")}).seal(k, nil)
	for _, tc := range []struct {
		name  string
		entry []byte
		ok    bool
	}{{"3.5 MB of stderr", flood, false}, {"escape sequences", escapes, true}} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := newHostile(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/ac/") {
					w.Write(tc.entry)
				} else {
					w.Write(img)
				}
			})
			var w warnings
			c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, Warn: w.warn})
			hit, err := c.Get(context.Background(), k, map[string]string{"image": filepath.Join(t.TempDir(), "out")})
			require.NoError(t, err)
			require.Equal(t, tc.ok, hit.OK)
			if !tc.ok {
				assert.Contains(t, strings.Join(w.all(), "\n"), "exceeds the 1048576-byte limit")
				return
			}
			out := hit.Replay()
			for _, b := range out {
				assert.False(t, b < 0x20 && b != '\n' && b != '\t' || b == 0x7f, "raw control byte %#x in %q", b, out)
			}
			assert.Equal(t, `warning: \x1b[2J\x1b]0;pwned\x07\rclang: error: fake`+"\n"+`\u202eevil\xff\u009b1m`+"\tok\n", string(out))
		})
	}
	// The replay cap holds for entries within the per-stream limits too.
	h := Hit{Stdout: bytes.Repeat([]byte("o"), maxInlineOutput), Stderr: bytes.Repeat([]byte("\x1b"), maxInlineOutput)}
	out := h.Replay()
	assert.LessOrEqual(t, len(out), MaxReplay+100)
	assert.True(t, bytes.HasSuffix(out, []byte("[cache: replayed output truncated at 1048576 bytes]\n")))
}

// A plain-http remote is warned about once per Cache (the driver opens
// one per process); https is not.
func TestPlainHTTPWarning(t *testing.T) {
	_, srv := newHostile(t, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	var w warnings
	c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, Warn: w.warn})
	for i := range 3 {
		getEntry(t, c, i, 10)
		putEntry(t, c, i, 10)
	}
	var plain int
	for _, l := range w.all() {
		if strings.Contains(l, "plain http") {
			plain++
		}
	}
	assert.Equal(t, 1, plain, "%q", w.all())

	tls := httptest.NewTLSServer(http.NotFoundHandler())
	defer tls.Close()
	var w2 warnings
	openCache(t, Options{Dir: t.TempDir(), Remote: tls.URL, Warn: w2.warn})
	assert.Empty(t, w2.all())
}

// An insert into a full disk evicts old entries and tries again; a blob
// that is already stored is not written again.
func TestFullDiskEvictsAndRetries(t *testing.T) {
	clock := newFakeClock()
	c := openCache(t, Options{Dir: t.TempDir(), Now: clock.Now})
	var writes atomic.Int32
	var full atomic.Bool
	c.injectWrite = func(string) error {
		writes.Add(1)
		if full.Load() {
			size, err := c.Size(context.Background())
			require.NoError(t, err)
			if size > 3000 {
				return syscall.ENOSPC
			}
		}
		return nil
	}
	for i := range 4 {
		putEntry(t, c, i, 1000)
	}
	assert.Equal(t, int32(12), writes.Load(), "2 blobs + 1 manifest per entry")
	writes.Store(0)
	putEntry(t, c, 3, 1000)
	assert.Equal(t, int32(1), writes.Load(), "existing blobs are not copied again; only the manifest is rewritten")

	full.Store(true)
	putEntry(t, c, 4, 1000) // must not fail: the disk is "full" until old entries go
	assert.True(t, getEntry(t, c, 4, 1000).OK)
	assert.False(t, getEntry(t, c, 0, 1000).OK, "the oldest entry was evicted")
	assert.Greater(t, c.Stats().Evicted, int64(0))
}

// The same on a real full file system: a 1 MiB tmpfs in a private mount
// namespace (unshare -m, as root).
func TestFullTmpfsEvictsAndRetries(t *testing.T) {
	if dir := os.Getenv("OFFLOAD_KIT_CACHE_TMPFS"); dir != "" {
		c := openCache(t, Options{Dir: dir})
		for i := range 6 { // 6 x 300 KiB on a 1 MiB file system
			putEntry(t, c, i, 300<<10)
		}
		assert.True(t, getEntry(t, c, 5, 300<<10).OK)
		assert.False(t, getEntry(t, c, 0, 300<<10).OK, "evicted to make room")
		assert.Greater(t, c.Stats().Evicted, int64(0))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m and a tmpfs mount")
	}
	unshare, err := exec.LookPath("unshare")
	require.NoError(t, err, "unshare (util-linux) is installed by scripts/install-deps.sh")
	mnt := t.TempDir()
	script := fmt.Sprintf("mount -t tmpfs -o size=1m,mode=0700 tmpfs %s && exec %s -test.run '^TestFullTmpfsEvictsAndRetries$' -test.v", mnt, os.Args[0])
	cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "OFFLOAD_KIT_CACHE_TMPFS="+mnt)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestFullTmpfsEvictsAndRetries")
	entries, _ := os.ReadDir(mnt)
	assert.Empty(t, entries, "the tmpfs lived in the private namespace only")
}
