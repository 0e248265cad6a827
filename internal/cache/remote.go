package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// remote is what a Cache needs of a remote cache: an action cache of
// serialised manifests (REAPI ActionResults) under keys, and a store of
// blobs under their SHA-256. Two protocols implement it: the Bazel HTTP
// protocol ([httpRemote]) and REAPI's gRPC services ([grpcRemote]).
// Every method bounds its request with the progress watchdog (Timeout);
// found is false for a miss, which is not an error.
type remote interface {
	// where names the remote in warnings and in the remote-down record:
	// its URL without credentials.
	where() string
	// plainWarning is the warning for a remote reached without TLS ("" if
	// it uses TLS).
	plainWarning() string
	// getAC writes the manifest stored under k to w, reading at most
	// limit bytes (more is an error wrapping ErrCorrupt).
	getAC(ctx context.Context, k Key, w io.Writer, limit int64) (found bool, n int64, err error)
	// putAC stores the manifest data under k.
	putAC(ctx context.Context, k Key, data []byte) error
	// hasBlob reports whether the blob is present with that size.
	hasBlob(ctx context.Context, sum [32]byte, size int64) (bool, error)
	// getBlob writes the blob to w, reading at most size bytes.
	getBlob(ctx context.Context, sum [32]byte, size int64, w io.Writer) (found bool, n int64, err error)
	// putBlob uploads size bytes read from body as the blob sum.
	putBlob(ctx context.Context, sum [32]byte, size int64, body io.Reader) error
	close()
}

// newRemote returns the client for opt.Remote, chosen by its scheme.
func newRemote(opt Options) (remote, error) {
	u, err := url.Parse(opt.Remote)
	if err != nil {
		return nil, fmt.Errorf("cache: remote: %w", err)
	}
	for name, v := range opt.RemoteHeaders {
		if !validHeader(name, v) {
			return nil, fmt.Errorf("cache: remote header %.80q: want NAME:VALUE with a token name and no control characters", name)
		}
	}
	switch u.Scheme {
	case "grpc", "grpcs":
		r, err := newGRPCRemote(opt, u)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	r, err := newHTTPRemote(opt, u)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// httpRemote is a client for the Bazel HTTP remote-cache protocol:
//
//	GET|HEAD|PUT <base>/ac/<key hex>     serialised manifest (ActionResult)
//	GET|HEAD|PUT <base>/cas/<sha256 hex> blob whose SHA-256 is the name
//
// GET answers 200 with the body or 404 for a miss; PUT answers 2xx.
type httpRemote struct {
	base      string // without trailing slash or credentials
	user      string
	pass      string
	basicAuth bool
	plain     bool // http://, not https://
	headers   map[string]string
	idle      time.Duration // longest time without progress
	client    *http.Client
	transport *http.Transport
}

func newHTTPRemote(opt Options, u *url.URL) (*httpRemote, error) {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("cache: remote %q: want an http://, https://, grpc:// or grpcs:// URL", opt.Remote)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("cache: remote %q: unexpected query or fragment", opt.Remote)
	}
	r := &httpRemote{headers: opt.RemoteHeaders, plain: u.Scheme == "http", idle: opt.Timeout}
	if u.User != nil {
		r.user = u.User.Username()
		r.pass, _ = u.User.Password()
		r.basicAuth = true
		u.User = nil
	}
	r.base = strings.TrimSuffix(u.String(), "/")
	// A transport of our own: no state shared with other users of
	// http.DefaultTransport, and Close can drop its idle connections.
	r.transport = http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: opt.Timeout, KeepAlive: 30 * time.Second}
	r.transport.DialContext = dialer.DialContext
	r.transport.TLSHandshakeTimeout = opt.Timeout
	r.transport.ExpectContinueTimeout = time.Second
	// No overall deadline: a transfer may take as long as bytes keep
	// flowing; the watchdog in each request stops one that stalls.
	r.client = &http.Client{Transport: r.transport}
	return r, nil
}

// validHeader accepts an HTTP header name (an RFC 9110 token) and a value
// without control characters.
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	for _, c := range []byte(value) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// errStalled is the cause of a request cancelled by its watchdog.
type errStalled struct{ d time.Duration }

func (e errStalled) Error() string { return fmt.Sprintf("no progress for %v", e.d) }

// watchdog cancels a request when no byte has moved for its duration.
type watchdog struct {
	mu sync.Mutex
	t  *time.Timer
	d  time.Duration
}

// withWatchdog derives a context that is cancelled (with cause
// errStalled) when the returned watchdog is not kicked for d.
func withWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{d: d}
	w.t = time.AfterFunc(d, func() { cancel(errStalled{d}) })
	return ctx, w, func() { w.t.Stop(); cancel(nil) }
}

func (w *watchdog) kick() {
	w.mu.Lock()
	w.t.Reset(w.d)
	w.mu.Unlock()
}

// progressReader kicks a watchdog whenever bytes are read through it.
type progressReader struct {
	r io.Reader
	w *watchdog
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.w.kick()
	}
	return n, err
}

// cause returns the watchdog's error in place of a bare cancellation.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); err != nil && c != nil && !errors.Is(err, c) {
		var st errStalled
		if errors.As(c, &st) {
			return fmt.Errorf("%w (%v)", st, err)
		}
	}
	return err
}

func (r *httpRemote) close() { r.transport.CloseIdleConnections() }

func (r *httpRemote) where() string { return r.base }

func (r *httpRemote) plainWarning() string {
	if !r.plain {
		return ""
	}
	return fmt.Sprintf("cache: remote %s is plain http: anyone on the network path can read what is uploaded and answer lookups; use https", r.base)
}

func (r *httpRemote) getAC(ctx context.Context, k Key, w io.Writer, limit int64) (bool, int64, error) {
	return r.get(ctx, acDir, k.String(), w, limit)
}

func (r *httpRemote) putAC(ctx context.Context, k Key, data []byte) error {
	return r.put(ctx, acDir, k.String(), bytes.NewReader(data), int64(len(data)))
}

func (r *httpRemote) hasBlob(ctx context.Context, sum [32]byte, size int64) (bool, error) {
	return r.exists(ctx, casDir, hex.EncodeToString(sum[:]), size)
}

func (r *httpRemote) getBlob(ctx context.Context, sum [32]byte, size int64, w io.Writer) (bool, int64, error) {
	return r.get(ctx, casDir, hex.EncodeToString(sum[:]), w, size)
}

func (r *httpRemote) putBlob(ctx context.Context, sum [32]byte, size int64, body io.Reader) error {
	return r.put(ctx, casDir, hex.EncodeToString(sum[:]), body, size)
}

func (r *httpRemote) newRequest(ctx context.Context, method, kind, name string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, r.base+"/"+kind+"/"+name, body)
	if err != nil {
		return nil, err
	}
	if r.basicAuth {
		req.SetBasicAuth(r.user, r.pass)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// statusError is an unexpected HTTP status.
type statusError struct {
	method, url, status string
}

func (e *statusError) Error() string { return e.method + " " + e.url + ": " + e.status }

// get fetches kind/name into w, reading at most limit bytes (more is an
// error). found is false for a 404.
func (r *httpRemote) get(ctx context.Context, kind, name string, w io.Writer, limit int64) (found bool, n int64, err error) {
	ctx, wd, stop := withWatchdog(ctx, r.idle)
	defer stop()
	req, err := r.newRequest(ctx, http.MethodGet, kind, name, nil)
	if err != nil {
		return false, 0, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, 0, cause(ctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return false, 0, nil
	case resp.StatusCode != http.StatusOK:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return false, 0, &statusError{req.Method, req.URL.Redacted(), resp.Status}
	}
	if resp.ContentLength > limit {
		return true, 0, fmt.Errorf("GET %s: Content-Length %d exceeds %d bytes: %w", req.URL.Redacted(), resp.ContentLength, limit, ErrCorrupt)
	}
	n, err = io.Copy(w, io.LimitReader(&progressReader{resp.Body, wd}, limit+1))
	if err != nil {
		return true, n, fmt.Errorf("GET %s: %w", req.URL.Redacted(), cause(ctx, err))
	}
	if n > limit {
		return true, n, fmt.Errorf("GET %s: body exceeds %d bytes: %w", req.URL.Redacted(), limit, ErrCorrupt)
	}
	return true, n, nil
}

// exists reports whether kind/name is present with the given size (HEAD
// answers 200 and a matching or absent Content-Length).
func (r *httpRemote) exists(ctx context.Context, kind, name string, size int64) (bool, error) {
	ctx, _, stop := withWatchdog(ctx, r.idle)
	defer stop()
	req, err := r.newRequest(ctx, http.MethodHead, kind, name, nil)
	if err != nil {
		return false, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, cause(ctx, err)
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.ContentLength < 0 || resp.ContentLength == size, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, &statusError{req.Method, req.URL.Redacted(), resp.Status}
}

// put uploads size bytes from body to kind/name.
func (r *httpRemote) put(ctx context.Context, kind, name string, body io.Reader, size int64) error {
	ctx, wd, stop := withWatchdog(ctx, r.idle)
	defer stop()
	req, err := r.newRequest(ctx, http.MethodPut, kind, name, &progressReader{body, wd})
	if err != nil {
		return err
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := r.client.Do(req)
	if err != nil {
		return cause(ctx, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(&progressReader{resp.Body, wd}, 4096))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{req.Method, req.URL.Redacted(), resp.Status}
	}
	return nil
}

// upload sends an entry's blobs (those the remote lacks), then its
// manifest, so a server never holds a manifest whose blobs are missing.
// Blobs this Cache found corrupt on the remote are re-sent even if present.
func (c *Cache) upload(ctx context.Context, k Key, m *manifest, data []byte) error {
	r := c.remote
	for _, f := range m.Files {
		name := hex.EncodeToString(f.Hash[:])
		if f.Size > 0 && !c.isBadRemote(f.Hash) {
			if ok, err := r.hasBlob(ctx, f.Hash, f.Size); err == nil && ok {
				continue
			}
		}
		in, err := os.Open(c.casPath(f.Hash))
		if err != nil {
			return fmt.Errorf("blob %s: %w", name, err)
		}
		err = r.putBlob(ctx, f.Hash, f.Size, in)
		in.Close()
		if err != nil {
			return err
		}
		c.st.uploaded.Add(f.Size)
		c.setBadRemote(f.Hash, false)
	}
	if err := r.putAC(ctx, k, data); err != nil {
		return err
	}
	c.st.uploaded.Add(int64(len(data)))
	return nil
}

// fetch copies the remote entry for k into the local store: the manifest,
// which must be bound to k, and the blobs of the outputs asked for (only
// those), each bounded by MaxBlobSize and MaxSize and checked against its
// size and hash. It reports whether the entry is now local; all failures
// are counted, warned about and treated as misses; a failing remote (not
// a corrupt answer) is marked down.
func (c *Cache) fetch(ctx context.Context, k Key, outputs map[string]string) bool {
	r := c.remote
	var buf bytes.Buffer
	found, n, err := r.getAC(ctx, k, &buf, maxManifestSize)
	c.st.downloaded.Add(n)
	if err == nil && !found {
		return false
	}
	var m *manifest
	if err == nil {
		m, err = openManifest(buf.Bytes(), k, c.opt.Secret)
	}
	if err == nil {
		limit := c.opt.MaxBlobSize
		if c.opt.MaxSize > 0 {
			limit = min(limit, c.opt.MaxSize)
		}
		var total int64
		for name := range outputs {
			f, ok := m.file(name)
			if !ok {
				err = fmt.Errorf("entry has no output %q: %w", name, ErrCorrupt)
				break
			}
			if total += f.Size; f.Size > limit || total > limit {
				err = fmt.Errorf("entry claims %d bytes for %q, over the %d-byte limit: %w", f.Size, name, limit, ErrCorrupt)
				break
			}
		}
		for name := range outputs {
			if err != nil {
				break
			}
			f, _ := m.file(name)
			err = c.fetchBlob(ctx, f)
		}
	}
	if err == nil {
		err = c.writeFile(ctx, c.acPath(k), m.marshal())
	}
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			c.st.corrupt.Add(1)
		} else {
			c.st.remoteErrors.Add(1)
		}
		c.warnf("cache: remote %s: %v", k, err)
		if !errors.Is(err, ErrCorrupt) && ctx.Err() == nil {
			c.markRemoteDown()
		}
		return false
	}
	return true
}

// fetchBlob makes the blob f local, downloading it unless already present.
func (c *Cache) fetchBlob(ctx context.Context, f manifestFile) error {
	final := c.casPath(f.Hash)
	if st, err := os.Stat(final); err == nil && st.Size() == f.Size {
		return nil // verified when restored
	}
	return c.withRoom(ctx, f.Size, func() error { return c.downloadBlob(ctx, f, final) })
}

// downloadBlob streams the blob f into a temporary file (stopping at f.Size
// + 1 bytes), checks it and renames it to final.
func (c *Cache) downloadBlob(ctx context.Context, f manifestFile, final string) error {
	name := hex.EncodeToString(f.Hash[:])
	tmp, err := c.createStoreFile(final)
	if err != nil {
		return err
	}
	defer tmp.Abort() // no-op once committed
	h := sha256.New()
	var found bool
	var n int64
	if f.Size > 0 { // REAPI: the empty blob is always present
		found, n, err = c.remote.getBlob(ctx, f.Hash, f.Size, io.MultiWriter(tmp.Writer(), h))
		c.st.downloaded.Add(n)
	} else {
		found = true
	}
	if err != nil {
		return err
	}
	if !found {
		c.setBadRemote(f.Hash, true)
		return fmt.Errorf("blob %s: not found: %w", name, ErrCorrupt)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	if n != f.Size || sum != f.Hash {
		c.setBadRemote(f.Hash, true)
		return fmt.Errorf("blob %s: got %d bytes with SHA-256 %x, want %d bytes: %w",
			name, n, sum, f.Size, ErrCorrupt)
	}
	if err := c.commit(tmp, final); err != nil {
		return err
	}
	c.touch(final)
	return nil
}

// setBadRemote records (or clears) that the remote copy of a blob failed
// its check, so the next upload of that blob replaces it.
func (c *Cache) setBadRemote(sum [32]byte, bad bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bad {
		c.badRemote[sum] = true
	} else {
		delete(c.badRemote, sum)
	}
}

func (c *Cache) isBadRemote(sum [32]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.badRemote[sum]
}

// remoteDownFile records, in the local cache, that the remote failed; its
// modification time is the time of the failure and its content the remote's
// base URL.
const remoteDownFile = "remote-down"

// markRemoteDown stops using the remote for the rest of this Cache's life
// and records the failure for other processes sharing Dir.
func (c *Cache) markRemoteDown() {
	if c.remote == nil || !c.remoteDown.CompareAndSwap(false, true) {
		return
	}
	c.warnf("cache: remote %s failed; not using it for %v (recorded in %s)", c.remote.where(), c.opt.RemoteRetry, filepath.Join(c.root, remoteDownFile))
	p := filepath.Join(c.root, remoteDownFile)
	if err := c.writeFile(context.Background(), p, []byte(c.remote.where()+"\n")); err == nil {
		now := c.opt.Now()
		_ = os.Chtimes(p, now, now)
	}
}

// checkRemoteDown marks the remote down when another process recorded a
// failure of the same remote less than RemoteRetry ago.
func (c *Cache) checkRemoteDown() {
	p := filepath.Join(c.root, remoteDownFile)
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 4096 {
		return
	}
	age := c.opt.Now().Sub(st.ModTime())
	if age < 0 || age >= c.opt.RemoteRetry {
		return
	}
	if data, err := os.ReadFile(p); err == nil && strings.TrimSuffix(string(data), "\n") == c.remote.where() {
		c.remoteDown.Store(true)
	}
}
