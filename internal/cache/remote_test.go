package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer is an in-memory Bazel HTTP cache that logs requests.
type fakeServer struct {
	mu     sync.Mutex
	blobs  map[string][]byte // "/ac/<hex>" or "/cas/<hex>" under prefix
	log    []string          // "METHOD path"
	auth   []string          // Authorization header of each request
	status int               // if non-zero, answer every request with it
	delay  time.Duration
	wake   chan struct{} // closed to end all delays
	prefix string
}

func newFakeServer(t *testing.T) (*fakeServer, *httptest.Server) {
	f := &fakeServer{blobs: map[string][]byte{}, wake: make(chan struct{})}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.wake) }) // runs first

	return f, srv
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.log = append(f.log, r.Method+" "+r.URL.Path)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	status, delay := f.status, f.delay
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		case <-f.wake:
			return
		}
	}
	if status != 0 {
		http.Error(w, "injected", status)
		return
	}
	p, ok := strings.CutPrefix(r.URL.Path, f.prefix)
	if !ok || !(strings.HasPrefix(p, "/ac/") || strings.HasPrefix(p, "/cas/")) {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		b, ok := f.blobs[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	case http.MethodPut:
		b, err := io.ReadAll(r.Body)
		if err != nil || int64(len(b)) != r.ContentLength {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if name, isCAS := strings.CutPrefix(p, "/cas/"); isCAS {
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) != name {
				http.Error(w, "hash mismatch", http.StatusBadRequest)
				return
			}
		}
		f.blobs[p] = b
		w.WriteHeader(http.StatusCreated)
	default:
		http.Error(w, "method", http.StatusMethodNotAllowed)
	}
}

func (f *fakeServer) takeLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.log
	f.log = nil
	return l
}

func (f *fakeServer) set(fn func(f *fakeServer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func TestRemoteProtocol(t *testing.T) {
	fs, srv := newFakeServer(t)
	opt := Options{Remote: srv.URL + "/", RemoteHeaders: map[string]string{"Authorization": "Bearer s3cret"}}
	opt.Dir = t.TempDir()
	a := openCache(t, opt)
	putEntry(t, a, 1, 1000)

	img := hexSum(payload(1, "image", 1000))
	mp := hexSum(payload(1, "map", 64))
	key := testKey(1).String()
	assert.Equal(t, []string{
		"HEAD /cas/" + img, "PUT /cas/" + img,
		"HEAD /cas/" + mp, "PUT /cas/" + mp,
		"PUT /ac/" + key, // manifest last
	}, fs.takeLog())
	assert.Equal(t, payload(1, "image", 1000), fs.blobs["/cas/"+img])
	for _, h := range fs.auth {
		assert.Equal(t, "Bearer s3cret", h)
	}
	m, err := unmarshalManifest(fs.blobs["/ac/"+key])
	require.NoError(t, err, "the uploaded manifest is an ActionResult")
	assert.Len(t, m.Files, 2)
	assert.Equal(t, int64(1), a.Stats().Uploads)

	// Re-inserting skips blobs the server has.
	putEntry(t, a, 1, 1000)
	assert.Equal(t, []string{"HEAD /cas/" + img, "HEAD /cas/" + mp, "PUT /ac/" + key}, fs.takeLog())

	// Another machine: local miss, remote hit, then local hits.
	opt.Dir = t.TempDir()
	b := openCache(t, opt)
	hit := getEntry(t, b, 1, 1000)
	assert.True(t, hit.OK)
	assert.True(t, hit.Remote)
	assert.ElementsMatch(t, []string{"GET /ac/" + key, "GET /cas/" + img, "GET /cas/" + mp}, fs.takeLog())
	hit = getEntry(t, b, 1, 1000)
	assert.True(t, hit.OK)
	assert.False(t, hit.Remote)
	assert.Empty(t, fs.takeLog(), "second lookup is local")
	s := b.Stats()
	assert.Equal(t, int64(1), s.RemoteHits)
	assert.Equal(t, int64(1), s.LocalHits)
	assert.Equal(t, int64(1000+64+len(fs.blobs["/ac/"+key])), s.Downloaded)

	// 404 is a plain miss.
	assert.False(t, getEntry(t, b, 2, 1000).OK)
	assert.Equal(t, []string{"GET /ac/" + testKey(2).String()}, fs.takeLog())
	assert.Zero(t, b.Stats().RemoteErrors)
}

func TestRemoteBasicAuthPrefixReadOnly(t *testing.T) {
	fs, srv := newFakeServer(t)
	fs.prefix = "/team/cache"
	u := strings.Replace(srv.URL, "http://", "http://ci:pa55@", 1) + "/team/cache"
	c := openCache(t, Options{Dir: t.TempDir(), Remote: u})
	putEntry(t, c, 1, 10)
	log := fs.takeLog()
	require.NotEmpty(t, log)
	for _, l := range log {
		assert.Contains(t, l, " /team/cache/")
	}
	assert.Equal(t, "Basic Y2k6cGE1NQ==", fs.auth[0])

	ro := openCache(t, Options{Dir: t.TempDir(), Remote: u, RemoteReadOnly: true})
	assert.True(t, getEntry(t, ro, 1, 10).OK)
	putEntry(t, ro, 2, 10)
	for _, l := range fs.takeLog() {
		assert.NotContains(t, l, "PUT")
	}
}

func TestRemoteErrorsAreMisses(t *testing.T) {
	fs, srv := newFakeServer(t)
	var w warnings
	c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, Warn: w.warn})
	fs.set(func(f *fakeServer) { f.status = http.StatusInternalServerError })

	assert.False(t, getEntry(t, c, 1, 100).OK)
	putEntry(t, c, 1, 100) // must not fail
	assert.True(t, getEntry(t, c, 1, 100).OK, "local insert worked")
	s := c.Stats()
	assert.Equal(t, int64(1), s.RemoteErrors, "after one failure the remote is not asked again")
	assert.True(t, s.RemoteDown)
	assert.Equal(t, int64(1), s.Puts)
	assert.Zero(t, s.Uploads)
	require.Len(t, w.all(), 3)
	assert.Contains(t, w.all()[0], "plain http")
	assert.Contains(t, w.all()[1], "500")
	assert.Contains(t, w.all()[2], "not using it for 5m0s")
	assert.Len(t, fs.takeLog(), 1)

	// Unreachable server.
	srv.Close()
	c2 := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL})
	assert.False(t, getEntry(t, c2, 1, 100).OK)
	assert.Equal(t, int64(1), c2.Stats().RemoteErrors)
}

func TestRemoteTimeout(t *testing.T) {
	fs, srv := newFakeServer(t)
	fs.delay = 10 * time.Second
	c := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL, Timeout: 100 * time.Millisecond})
	start := time.Now()
	assert.False(t, getEntry(t, c, 1, 100).OK)
	putEntry(t, c, 1, 100)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Equal(t, int64(1), c.Stats().RemoteErrors, "the upload is skipped: the remote is down")
}

func TestRemoteCorruption(t *testing.T) {
	fs, srv := newFakeServer(t)
	a := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL})
	putEntry(t, a, 1, 300)
	putEntry(t, a, 2, 300)
	img := "/cas/" + hexSum(payload(1, "image", 300))

	cases := []struct {
		name string
		edit func(f *fakeServer)
	}{
		{"flipped blob byte", func(f *fakeServer) { f.blobs[img] = bytes.Clone(f.blobs[img]); f.blobs[img][0] ^= 1 }},
		{"truncated blob", func(f *fakeServer) { f.blobs[img] = f.blobs[img][:100] }},
		{"longer blob", func(f *fakeServer) { f.blobs[img] = append(bytes.Clone(f.blobs[img]), 0) }},
		{"missing blob", func(f *fakeServer) { delete(f.blobs, img) }},
		{"garbage manifest", func(f *fakeServer) { f.blobs["/ac/"+testKey(1).String()] = []byte("<html>") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			saved := map[string][]byte{}
			fs.set(func(f *fakeServer) {
				for k, v := range f.blobs {
					saved[k] = v
				}
				tc.edit(f)
			})
			defer fs.set(func(f *fakeServer) { f.blobs = saved })
			b := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL})
			assert.False(t, getEntry(t, b, 1, 300).OK)
			assert.Equal(t, int64(1), b.Stats().Corrupt)
			assert.Equal(t, int64(1), b.Stats().Misses)
			assert.NoFileExists(t, b.acPath(testKey(1)), "nothing stored locally")
			assert.True(t, getEntry(t, b, 2, 300).OK, "other entries unaffected")
		})
	}
}

// A remote hit whose blob is already local downloads only the manifest.
func TestRemoteReusesLocalBlobs(t *testing.T) {
	fs, srv := newFakeServer(t)
	dir := t.TempDir()
	a := openCache(t, Options{Dir: t.TempDir(), Remote: srv.URL})
	putEntry(t, a, 1, 300)
	local := openCache(t, Options{Dir: dir})
	putEntry(t, local, 1, 300) // same blobs, local only
	require.NoError(t, removeAll(filepath.Join(dir, "v1", "ac")))
	fs.takeLog()

	b := openCache(t, Options{Dir: dir, Remote: srv.URL})
	assert.True(t, getEntry(t, b, 1, 300).OK)
	assert.Equal(t, []string{"GET /ac/" + testKey(1).String()}, fs.takeLog())
}
